"""`python -m tools.loadtest`: drive a running app server with many browser-like sessions.

Starts nothing itself: start the server as the README says, then point this at it (loopback only).

    python -m tools.loadtest --sessions 30 --seconds 60 --think 2 6
    python -m tools.loadtest --sessions 30 --heavy 3 --seconds 60 --think 2 6 --json
    python -m tools.loadtest --sessions 30 --link "/saturation?lang=zh" --same
    python -m tools.loadtest --matrix            # the hosting table: every phase, then memory
    python -m tools.loadtest --url http://127.0.0.1:PORT --via ASE_SERVER --pid P1 P2 P3
                                                 # through a sticky balancer (python -m tools.cluster)
    python -m tools.loadtest --sessions 30 --unique   # nothing shared: every run a new view
    python -m tools.loadtest --class-students 60 --sessions 30   # a live class beside 30 sessions
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import shlex
import signal
import socket
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from tools.loadtest import report
from tools.loadtest.classroom import ClassPlan, class_seconds, run_class, summarise_class
from tools.loadtest.classroom import class_table as classroom_table
from tools.loadtest.driver import ASKED, HEAVY_PAGES, LIGHT_PAGES, Phase, PhaseRecord, page_path, run_phase
from tools.loadtest.machine import MachineRecord, machine_line
from tools.loadtest.memory import RssSampler, pid_listening_on
from tools.loadtest.protocol import BrowserTab, DisconnectedError

MAX_SESSIONS = 200
MAX_HEAVY = 20
MAX_SECONDS = 1800.0
MAX_AFTER = 600.0
KNOWN_PAGES = (*LIGHT_PAGES, *HEAVY_PAGES, "beyond", "real-model", "lesson")


class UsageError(Exception):
    pass


def loopback_url(url: str) -> tuple[str, int]:
    """(base URL, port) of `url`, refused unless every address its host resolves to is loopback."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url must look like http://127.0.0.1:8501, got {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise UsageError(f"cannot resolve {parts.hostname!r}: {exc}") from exc
    addresses = {ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos}
    if not addresses or not all(a.is_loopback for a in addresses):
        raise UsageError(f"refusing {parts.hostname!r}: this load test only drives a server on this machine "
                         "(a loopback address)")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}", port


def page_list(text: str) -> tuple[str, ...]:
    pages = tuple(p.strip().strip("/") for p in text.split(",") if p.strip())
    unknown = [p for p in pages if p not in KNOWN_PAGES]
    if unknown or not pages:
        raise UsageError(f"unknown page(s) {unknown or text!r}; known: {', '.join(KNOWN_PAGES)}")
    return pages


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tools.loadtest", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8501", help="the running server (loopback only)")
    ap.add_argument("--sessions", type=int, default=10, help=f"light sessions (≤ {MAX_SESSIONS})")
    ap.add_argument("--heavy", type=int, default=0, help=f"extra sessions on the heavy pages (≤ {MAX_HEAVY})")
    ap.add_argument("--seconds", type=float, default=60.0, help=f"duration of a phase (≤ {MAX_SECONDS:g})")
    ap.add_argument("--think", type=float, nargs=2, default=(2.0, 6.0), metavar=("A", "B"),
                    help="pause a random A–B seconds between reruns (0 0: back to back)")
    ap.add_argument("--pages", default=",".join(LIGHT_PAGES), help="pages the light sessions visit")
    ap.add_argument("--heavy-pages", default=",".join(HEAVY_PAGES), help="pages the heavy sessions visit")
    ap.add_argument("--link", help='every session opens this link first, e.g. "/saturation?lang=zh"')
    ap.add_argument("--same", action="store_true", help="every session makes the same moves (a class)")
    ap.add_argument("--nav", type=float, default=0.25, help="chance that a rerun changes page")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a run may take before it counts "
                    "as timed out")
    ap.add_argument("--pid", type=int, nargs="+", help="server PID(s) for memory samples, summed (default: "
                    "the one listening on the URL's port; through a balancer, name the replicas)")
    ap.add_argument("--via", metavar="COOKIE", help="the URL is a balancer pinning each session with this "
                    "cookie (ASE_SERVER in deploy/haproxy.cfg): sessions keep it, sessions per replica "
                    "are reported")
    ap.add_argument("--unique", action="store_true", help="nothing shared: each session its own seed, "
                    "every setting changed on every rerun, no page changes")
    ap.add_argument("--after", type=float, default=0.0, help="keep sampling memory this long after the "
                    "sessions closed")
    ap.add_argument("--class-students", type=int, default=0, metavar="N", help="also run a live class on "
                    "/lesson: one teacher and N phones (tools/loadtest/classroom.py); the light sessions "
                    "run for as long as the class")
    ap.add_argument("--class-steps", type=int, default=4, help="steps the class goes through")
    ap.add_argument("--class-step-seconds", type=float, default=20.0, help="seconds each question stays open")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--matrix", action="store_true", help="run the whole load table (docs/performance.md)")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    ap.add_argument("--replicas", type=int, metavar="N",
                    help="start a fresh local cluster of N replicas (tools.cluster: Redis, HAProxy) and "
                         "drive it through its balancer instead of --url; stopped at the end")
    ap.add_argument("--record", metavar="NAME",
                    help="write the figures as the record docs/figures/NAME.json (tools/figures), from which "
                         "the docs' tables are rendered")
    args = ap.parse_args(argv)
    if args.replicas is not None and not 1 <= args.replicas <= 16:
        raise UsageError("--replicas must lie in [1, 16]")
    if not 0 <= args.sessions <= MAX_SESSIONS or not 0 <= args.heavy <= MAX_HEAVY:
        raise UsageError(f"--sessions must lie in [0, {MAX_SESSIONS}] and --heavy in [0, {MAX_HEAVY}]")
    if not 0 <= args.class_students <= MAX_SESSIONS or not 1 <= args.class_steps <= 8 \
            or not 4 <= args.class_step_seconds <= 600:
        raise UsageError(f"--class-students must lie in [0, {MAX_SESSIONS}], --class-steps in [1, 8] and "
                         "--class-step-seconds in [4, 600]")
    if args.sessions + args.heavy + args.class_students == 0:
        raise UsageError("nothing to run: --sessions, --heavy and --class-students are all 0")
    if args.class_students and args.matrix:
        raise UsageError("--matrix runs its own phases: run a class on its own")
    if not 0 < args.seconds <= MAX_SECONDS or not 0 <= args.after <= MAX_AFTER:
        raise UsageError(f"--seconds must lie in (0, {MAX_SECONDS:g}] and --after in [0, {MAX_AFTER:g}]")
    a, b = args.think
    if not 0 <= a <= b <= 600:
        raise UsageError("--think A B needs 0 ≤ A ≤ B ≤ 600")
    if not 0 <= args.nav <= 1 or not 0 < args.timeout <= 900:
        raise UsageError("--nav must lie in [0, 1] and --timeout in (0, 900]")
    args.pages, args.heavy_pages = page_list(args.pages), page_list(args.heavy_pages)
    if args.matrix and (args.unique or args.via):
        raise UsageError("--matrix runs its own phases: use --unique and --via on a single run")
    if args.link and not args.link.startswith("/"):
        raise UsageError('--link is a path on the server, e.g. "/saturation?lang=zh"')
    return args


def matrix_phases(args: argparse.Namespace) -> list[Phase]:
    """The hosting table: think-time load at 10/20/30, capacity back to back, heavy, one link for all."""
    common = {"seconds": args.seconds, "pages": args.pages, "heavy_pages": args.heavy_pages,
              "timeout": args.timeout, "seed": args.seed, "nav": args.nav}
    think = tuple(args.think)
    phases = [Phase(f"{n} sessions", n, think=think, **common) for n in (10, 20, 30)]
    phases += [Phase(f"{n} back to back", n, think=(0.0, 0.0), **common) for n in (10, 30)]
    phases.append(Phase("30 + 3 heavy", 30, think=think, heavy=3, **common))
    link = args.link or f"/{page_path(args.pages[0])}"
    phases.append(Phase("30, one link", 30, think=think, link=link, same=True, **common))
    return phases


async def warm_up(base_url: str, pages: tuple[str, ...], timeout: float) -> dict[str, float]:
    """Open every page once in one tab (what the first visitor does): seconds to script_finished."""
    tab, out = BrowserTab(base_url), {}
    await tab.connect()
    try:
        for page in pages:
            asked = ASKED.get(page)  # the first visitor of a heavy page presses its button
            result = await tab.open(f"/{page_path(page)}" + (f"?{asked}" if asked else ""), timeout)
            out[page] = result.seconds
    finally:
        await tab.close()
    return out


async def main_async(args: argparse.Namespace, base_url: str, port: int) -> dict[str, Any]:
    # Through a balancer the process on the URL's port is the balancer: the replicas' PIDs are named.
    pids = args.pid or ([] if args.via else [pid_listening_on(port)])
    pids = [p for p in pids if p is not None]
    # `kill -USR1 <pid>`: where every simulated tab is waiting, on stderr (a run that seems stuck)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, _print_tasks)
    sampler = RssSampler(pids)
    memory: dict[str, Any] = {"pid": pids[0] if pids else None, "pids": pids, "fresh": sampler.sample()}
    doc: dict[str, Any] = {"url": base_url, "memory": memory}
    machine = MachineRecord()  # how fast this machine was: beside every figure (tools/loadtest/machine.py)
    machine.begin()
    doc["machine"] = machine.doc
    if args.matrix:
        doc["warm_up"] = await warm_up(base_url, (*args.pages, *args.heavy_pages), args.timeout)
        if not args.json:
            print("first visit of each page (s): "
                  + ", ".join(f"{page} {sec:.1f}" for page, sec in doc["warm_up"].items()), "\n", flush=True)
        await asyncio.sleep(3)
        memory["warm_idle"] = sampler.sample()
        phases = matrix_phases(args)
        args.after = args.after or 60.0
    else:
        phases = [Phase("run", args.sessions, args.seconds, tuple(args.think), args.heavy, args.pages,
                        args.heavy_pages, args.link, args.same, args.nav, args.timeout, args.seed,
                        sticky=args.via, unique=args.unique)]
    records: list[PhaseRecord] = []
    if args.class_students:
        step_s = args.class_step_seconds  # a phone answers within 40 % of a question's time
        plan = ClassPlan(args.class_students, args.class_steps, step_s, think=(1.0, max(2.0, 0.4 * step_s)),
                         seed=args.seed, timeout=args.timeout, sticky=args.via)
        phases[0].seconds = class_seconds(plan)
        light = run_phase(phases[0], base_url, sampler) if phases[0].sessions + phases[0].heavy else None
        if light is None:
            sampler.start()
        lesson, record = await asyncio.gather(run_class(plan, base_url), light or asyncio.sleep(0))
        doc["class"] = summarise_class(lesson)
        if not args.json:
            print(classroom_table(doc["class"]), "\n", flush=True)
        phases = phases[1:]
        if record is not None:
            records.append(record)
            if not args.json:
                print(report.phase_table(report.summarise(record)), "\n", flush=True)
    for ph in phases:
        records.append(await run_phase(ph, base_url, sampler))
        if not args.json:
            print(report.phase_table(report.summarise(records[-1])), "\n", flush=True)
    memory["closed"] = sampler.sample()
    machine.end()
    closed_at = time.monotonic() - sampler.t0
    if args.after:
        sampler.start()
        await asyncio.sleep(args.after)
        memory["after"] = sampler.sample()
    await sampler.stop()
    memory["peak"] = max((b for _, b in sampler.samples), default=None)
    memory["timeline"] = [(round(t, 1), b) for t, b in sampler.samples]
    memory["closed_at"] = closed_at
    doc["phases"] = [report.summarise(r) for r in records]
    doc["runs"] = [r.as_dict() for r in records] if args.json else None
    return doc


def _record(args: argparse.Namespace, argv: list[str], doc: dict[str, Any]) -> None:
    """The run as the record `args.record` (tools/figures): its command without the output flags."""
    from tools.figures import records

    kept, skip = [], False
    for a in argv:
        if skip or a == "--json":
            skip = False
            continue
        if a == "--record":
            skip = True
            continue
        kept.append(a)
    doc["seed"] = args.seed
    machine = {**doc["machine"], "cpus": records.machine(doc["machine"]["reference_ms"])["cpus"]}
    path = records.write(args.record, "tools.loadtest", "python -m tools.loadtest " + shlex.join(kept), doc,
                         machine)
    print(f"recorded {path.relative_to(records.ROOT)}", file=sys.stderr)


def _quiet(pids: list[int], most_s: float = 60.0) -> None:
    """Wait until the processes `pids` have used under 5 % of a core for a second (their warm-up done),
    `most_s` at most."""
    from tools.loadtest.unique_cost import cpu_seconds

    deadline = time.monotonic() + most_s
    before = sum(cpu_seconds(p) for p in pids)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = sum(cpu_seconds(p) for p in pids)
        if now - before < 0.05:
            return
        before = now


def _on_fresh_cluster(args: argparse.Namespace) -> dict[str, Any]:
    """The run against a local cluster started for it (--replicas): its balancer, its cookie, the
    replicas' PIDs; the cluster stopped afterwards."""
    from tools.cluster.cluster import LocalCluster

    with LocalCluster(replicas=args.replicas) as cluster:
        args.via = args.via or cluster.cookie
        args.pid = args.pid or [m.pid for m in cluster.members if m.pid is not None]
        _quiet(args.pid)  # the replicas' own warm-up (server/startup.py) before the load
        base_url, port = loopback_url(cluster.url)
        before = {m.name: _cpu_split(m.pid) for m in cluster.members if m.pid is not None}
        doc = asyncio.run(main_async(args, base_url, port))
        doc["replicas"] = args.replicas
        doc["servers"] = {}
        for m in cluster.members:
            if m.pid is None or m.name not in before:
                continue
            total, loop = (b - a for a, b in zip(before[m.name], _cpu_split(m.pid), strict=True))
            doc["servers"][m.name] = {"cpu_s": round(total, 2), "event_loop_cpu_s": round(loop, 2),
                                      "bus": _stats(m.url).get("bus")}
        return doc


def _cpu_split(pid: int) -> tuple[float, float]:
    """(CPU seconds of process `pid`, of its main thread alone): the main thread runs the server's
    event loop (sending every message), the others the sessions' scripts."""
    from tools.loadtest.unique_cost import cpu_seconds

    try:
        with open(f"/proc/{pid}/task/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        main = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        main = float("nan")
    return cpu_seconds(pid), main


def _stats(url: str) -> dict[str, Any]:
    """A replica's /_ase/stats (server/stats.py), {} where it cannot be read."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/_ase/stats", timeout=10) as answer:
            return json.loads(answer.read())
    except (OSError, ValueError):
        return {}


def _print_tasks() -> None:
    for task in asyncio.all_tasks():
        task.print_stack(limit=6, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
        if args.replicas:
            doc = _on_fresh_cluster(args)
        else:
            base_url, port = loopback_url(args.url)
            doc = asyncio.run(main_async(args, base_url, port))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except DisconnectedError as exc:
        print(f"error: cannot reach the server at {args.url}: {exc}", file=sys.stderr)
        return 1
    if args.record:
        _record(args, argv, doc)
    if args.json:
        print(json.dumps(doc, indent=1, default=float))
    else:
        print(report.matrix_table(doc["phases"]))
        print(report.memory_lines(doc["memory"]))
        print(machine_line(doc["machine"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
