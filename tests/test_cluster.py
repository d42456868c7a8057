"""The local cluster with real processes: replicas behind HAProxy, sessions kept on their replica,
Streamlit's origin check passed through, the balancer restarted and a replica killed.

Small sizes (2 replicas, 12 sessions for 20 s) so that CI stays short. Without Redis unless the test
is about the shared store: a result computed once for both replicas.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from conftest import ROOT, require_marker

from tools.cluster.cluster import REDIS_SERVER, LocalCluster
from tools.cluster.haproxy_cfg import HAPROXY
from tools.cluster.processes import group_members, listening_addresses
from tools.loadtest.driver import Phase, run_phase
from tools.loadtest.protocol import BrowserTab, DisconnectedError
from tools.loadtest.report import summarise

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(not HAPROXY.exists(),
                       reason=f"{HAPROXY} is missing: apt-get install haproxy (.ci/run)"),
]
needs_redis = pytest.mark.skipif(not REDIS_SERVER.exists(),
                                 reason=f"{REDIS_SERVER} is missing: apt-get install redis-server (.ci/run)")
LINKS = ("/variance?dk=128", "/saturation?n=16", "/?dk=32", "/gradients?dk=512", "/precision",
         "/q-vs-k?dk=64")
RECONNECT_WITHIN = 10.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    require_marker("server")
    c = LocalCluster(replicas=2, redis=False, workdir=tmp_path_factory.mktemp("cluster"))
    with c:
        yield c
    assert not [pid for pid in c.pids() if group_members(pid)], "a process of the cluster outlived stop()"


def run(coro):
    return asyncio.run(coro)


async def open_tabs(cluster: LocalCluster, links=LINKS) -> list[BrowserTab]:
    """One sticky tab per link through the balancer, each opened (charts drawn)."""
    tabs = [BrowserTab(cluster.url, sticky=cluster.cookie) for _ in links]
    for tab, link in zip(tabs, links, strict=True):
        await tab.connect(link=link)
        result = await tab.open(link, 120)
        assert result.status == "ok" and not result.exceptions and result.charts > 0, (link, result)
    return tabs


def view(tab: BrowserTab) -> tuple[str, dict]:
    """What a tab shows: its page and every setting in its URL."""
    return tab.path, parse_qs(tab.query)


async def reconnect(tab: BrowserTab, deadline: float) -> float:
    """The tab's reconnection as the frontend makes it (retrying until `deadline`), then its URL
    opened again; the moment it had its view back."""
    link = f"/{tab.path}" + (f"?{tab.query}" if tab.query else "")
    while True:
        try:
            await tab.connect(link=link)
            result = await tab.open(link, 60)
            assert result.status == "ok" and not result.exceptions and result.charts > 0, result
            return time.monotonic()
        except DisconnectedError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.25)


def test_the_cluster_listens_on_loopback_only(cluster):
    sockets = listening_addresses(cluster.pids())
    assert {port for _, _, port in sockets} >= {cluster.balancer.port, *(m.port for m in cluster.members)}
    assert {addr for _, addr, _ in sockets} == {"127.0.0.1"}, sockets


def test_twelve_sessions_through_the_balancer_stay_on_their_replica(cluster):
    rec = run(run_phase(Phase("cluster", 12, 20.0, think=(0.5, 2.0), sticky=cluster.cookie, seed=3),
                        cluster.url))
    s = summarise(rec)
    assert s["runs"] > 12 and s["runs_ok"] == s["runs"], s
    assert (s["exceptions"], s["disconnects"], s["timeouts"], s["page_not_found"]) == (0, 0, 0, 0), s
    spread = s["replicas"]
    assert set(spread["sessions"]) == {"app1", "app2"}, spread  # both replicas used
    assert sum(spread["sessions"].values()) == 12 and spread["moved"] == 0 and spread["unpinned"] == 0


def test_the_cookie_names_the_replica_that_holds_the_websocket(cluster):
    """HAProxy's own count of open connections per replica matches what the tabs' cookies say."""
    async def go() -> tuple[dict[str, int], dict[str, int]]:
        tabs = await open_tabs(cluster)
        try:
            by_cookie = {m.name: sum(t.replicas == [m.name] for t in tabs) for m in cluster.members}
            scur = {r["svname"]: int(r["scur"]) for r in cluster.stats() if r["svname"] in by_cookie}
        finally:
            for tab in tabs:
                await tab.close()
        return by_cookie, scur

    by_cookie, scur = run(go())
    assert sum(by_cookie.values()) == len(LINKS) and by_cookie == scur


def test_a_foreign_origins_websocket_is_refused_through_the_balancer(cluster):
    """Streamlit's own check (Origin against Host), passed through unchanged by the balancer."""
    async def go() -> None:
        foreign = BrowserTab(cluster.url, sticky=cluster.cookie, origin="http://class-notes.example")
        with pytest.raises(DisconnectedError, match="403"):
            await foreign.connect(link="/variance")
        same = BrowserTab(cluster.url, sticky=cluster.cookie, origin=cluster.url)
        await same.connect(link="/variance")
        result = await same.open("/variance", 120)
        await same.close()
        assert result.status == "ok" and result.charts > 0, result

    run(go())


def test_composes_balancer_health_check_passes_against_the_balancer(cluster):
    """The health check deploy/compose.yaml gives the balancer's container, run as written (its port
    replaced by the local balancer's): HAProxy's monitor-uri answers 200 while a replica is up."""
    import yaml

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    test = compose["services"]["balancer"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "bash", "-c"]
    script = test[3].replace("/8080", f"/{cluster.balancer.port}")
    assert subprocess.run(["bash", "-c", script], timeout=10, check=False).returncode == 0


def test_sessions_reconnect_to_their_replica_after_the_balancer_restarts(cluster):
    async def go() -> None:
        tabs = await open_tabs(cluster, LINKS[:4])
        before = [(t.replicas[-1], view(t)) for t in tabs]
        cluster.restart_balancer(down_for=1.0)
        for tab in tabs:  # each tab notices on its next move
            with pytest.raises(DisconnectedError):
                await tab.rerun(30)
        deadline = time.monotonic() + RECONNECT_WITHIN
        await asyncio.gather(*(reconnect(t, deadline) for t in tabs))
        after = [(t.replicas[-1], view(t)) for t in tabs]
        for tab in tabs:
            await tab.close()
        assert after == before  # the cookie still names the replica: same replica, same view

    run(go())


def test_a_killed_replicas_sessions_reconnect_to_the_other_with_their_view(cluster):
    async def go() -> None:
        tabs = await open_tabs(cluster)
        on = {m.name: [t for t in tabs if t.replicas[-1] == m.name] for m in cluster.members}
        victim, survivor = sorted(on, key=lambda name: -len(on[name]))
        assert on[victim], on
        before = {id(t): view(t) for t in tabs}
        killed_at = time.monotonic()
        cluster.kill_replica(victim, signal.SIGKILL)
        for tab in on[victim]:
            with pytest.raises(DisconnectedError):
                await tab.rerun(30)
        back = await asyncio.gather(*(reconnect(t, killed_at + RECONNECT_WITHIN) for t in on[victim]))
        assert max(back) - killed_at < RECONNECT_WITHIN, [b - killed_at for b in back]
        for tab in on[victim]:
            assert tab.replicas == [victim, survivor] and view(tab) == before[id(tab)]
        for tab in on[survivor]:  # the others never noticed
            result = await tab.rerun(60)
            assert result.status == "ok" and tab.replicas == [survivor] and view(tab) == before[id(tab)]
        for tab in tabs:
            await tab.close()

    run(go())


@needs_redis
def test_the_command_line_starts_and_stops_everything(tmp_path):
    """`python -m tools.cluster`: prints the URL and PIDs once ready; SIGTERM stops every group."""
    require_marker("server")
    log = tmp_path / "cluster.out"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tools.cluster", "--replicas", "1"], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while "Ctrl-C stops everything" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        text = log.read_text()
        pids = [int(p) for p in re.findall(r"\(pid (\d+)", text)]
        assert len(pids) == 4, text  # balancer, one replica, the rooms' and the results' Redis
        assert re.search(r"^balancer  http://127\.0\.0\.1:\d+ ", text, flags=re.MULTILINE), text
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()], log.read_text()
    assert "stopped; logs kept in" in log.read_text()


def replica_counters(url: str) -> dict[str, int]:
    """A replica's result counters (server/stats.py: /_ase/stats, loopback only)."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{url}/_ase/stats", timeout=10) as answer:
        return json.load(answer)["results"]


@needs_redis
def test_a_result_is_computed_once_across_replicas(tmp_path):
    """A view opened on one replica, then on the other: the second computes nothing and reads every
    result the first stored in Redis (each replica's counters, read from /_ase/stats)."""
    import redis

    require_marker("server")
    link = f"/variance?seed={time.time_ns() % 2**31}"  # a view nobody has computed yet
    with LocalCluster(replicas=2, redis=True, workdir=tmp_path) as c:
        store = redis.Redis.from_url(c.cache_url)  # the results' Redis
        first, second = c.member("app1").url, c.member("app2").url

        async def open_on(url: str) -> None:
            tab = BrowserTab(url)
            await tab.connect()
            result = await tab.open(link, 120)
            await tab.close()
            assert result.status == "ok" and not result.exceptions and result.charts > 0, result

        before = replica_counters(first), replica_counters(second)
        run(open_on(first))
        after_first = replica_counters(first)
        assert after_first["computed"] > before[0]["computed"] and store.dbsize() > 0
        run(open_on(second))
        after_second = replica_counters(second)
        assert after_second["computed"] == before[1]["computed"], (before[1], after_second)
        assert after_second["shared_hits"] - before[1]["shared_hits"] >= \
            after_first["computed"] - before[0]["computed"], (after_first, after_second)


@needs_redis
def test_a_live_class_outlives_its_teachers_replica_with_every_answer(tmp_path):
    """A class through the balancer over two replicas sharing Redis: the teacher starts it (its
    browser keeps the teacher's cookie, as the page's component asks: a POST to the app's route),
    four phones join and answer, the teacher's replica is killed; the phones on it reconnect with
    their answers, and the teacher's tab, reconnected to the surviving replica with its cookie, runs
    the same room with every answer."""
    require_marker("server")

    def count(result) -> str | None:
        return next((m.group(0) for text in result.texts if (m := re.match(r"\*\*\d+ of \d+", text))), None)

    async def go(c: LocalCluster) -> None:
        teacher = BrowserTab(c.url, sticky=c.cookie)
        await teacher.connect(link="/lesson")
        await teacher.open("/lesson", 120)
        await teacher.click("class_start", 60)
        code = parse_qs(teacher.query)["room"][0]
        opened = await teacher.click("class_link", 60)  # the teacher link, shown on request
        link = next(t for t in opened.texts if "#key=" in t)
        secret = link.rpartition("#key=")[2]
        await asyncio.to_thread(keep_teacher_cookie, teacher, c.url, f"{code}.{secret}")
        phones = [BrowserTab(c.url, sticky=c.cookie) for _ in range(4)]
        for i, phone in enumerate(phones):
            await phone.connect(link=f"/lesson?room={code}")
            await phone.open(f"/lesson?room={code}", 120)
            key = next(w.id for w in phone.widgets.values() if "class_pick_" in w.id).rsplit("-", 1)[1]
            options = [o.content for o in phone.widget(key).proto.options]
            sent = await phone.choose(key, options[i % len(options)], 60)
            assert any(":material/check:" in t for t in sent.texts), sent  # accepted
        victim = teacher.replicas[-1]
        assert {p.replicas[-1] for p in phones} == {"app1", "app2"}, [p.replicas for p in phones]
        c.kill_replica(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        for phone in [p for p in phones if p.replicas[-1] == victim]:
            await reconnect_class(phone, killed_at + RECONNECT_WITHIN)
            chosen = next(w for w in phone.widgets.values() if "class_pick_" in w.id).state
            assert list(chosen.string_array_value.data), "the phone lost its answer"
        await teacher.connect(link=f"/lesson?room={code}")
        back = await teacher.open(f"/lesson?room={code}", 120)
        assert teacher.replicas[-1] != victim and secret not in teacher.query
        assert count(back) == "**4 of 4", back.texts
        assert teacher.widget("class_end") is not None
        for tab in (teacher, *phones):
            await tab.close()

    with LocalCluster(replicas=2, redis=True, workdir=tmp_path) as c:
        run(go(c))


def keep_teacher_cookie(tab: BrowserTab, base: str, value: str) -> None:
    """What the teacher's page asks its browser to do (pages/ui/live/teacher_key.py): POST the room's code
    and secret to the app's route, and keep the HttpOnly cookie it answers with."""
    import urllib.request

    request = urllib.request.Request(f"{base}/_ase/teacher", data=value.encode(), method="POST",
                                     headers={"X-ASE-Teacher": "1"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        tab.cookies.take(answer.headers.get_all("Set-Cookie") or [])
    assert any(name.startswith("ase_teacher_") for name in tab.cookies)


async def reconnect_class(tab: BrowserTab, deadline: float) -> None:
    """A phone's reconnection: its link (room and its own id) opened again through the balancer."""
    link = f"/{tab.path}?{tab.query}"
    while True:
        try:
            await tab.connect(link=link)
            result = await tab.open(link, 60)
            assert result.status == "ok" and not result.exceptions, result
            return
        except DisconnectedError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.25)
