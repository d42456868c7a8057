"""What one nothing-shared rerun costs a server: its CPU seconds per move of every setting, page by page.

One tab per light page opens it with a seed of its own, then moves every setting at once `--moves`
times, back to back (as `--unique` sessions do, one at a time); the server's CPU clock
(/proc/<pid>/stat, every thread of the process) is read around each page's moves. With the mean
over the pages and the sessions' think time this gives the CPU a nothing-shared load asks for:
sessions ÷ mean think × CPU per run (docs/hosting.md).

    python -m tools.loadtest.unique_cost --url http://127.0.0.1:8501 --pid <the server's PID>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from typing import Any

from tools.loadtest.driver import LIGHT_PAGES, page_path, unique_link
from tools.loadtest.protocol import BrowserTab


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def page_cost(url: str, pid: int, page: str, moves: int, rng: random.Random,
                    timeout: float = 120.0) -> dict[str, Any]:
    link = unique_link(f"/{page_path(page)}", rng.randrange(1 << 30))
    tab = BrowserTab(url)
    try:
        await tab.connect(link=link)
        await tab.open(link, timeout)
        walls, exceptions = [], 0
        before = cpu_seconds(pid)
        for _ in range(moves):
            result = await tab.move_all(rng, timeout)
            if result is None:
                break
            walls.append(result.seconds)
            exceptions += len(result.exceptions)
        used = cpu_seconds(pid) - before
    finally:
        await tab.close()
    n = len(walls)
    return {"page": page, "moves": n, "cpu_per_move": used / n if n else float("nan"),
            "wall_mean": statistics.fmean(walls) if walls else float("nan"), "exceptions": exceptions}


async def measure(url: str, pid: int, pages: tuple[str, ...], moves: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rows = [await page_cost(url, pid, page, moves, rng) for page in pages]
    costs = [r["cpu_per_move"] for r in rows if r["moves"]]
    return {"rows": rows, "mean_cpu_per_move": statistics.fmean(costs) if costs else float("nan"),
            "measured": time.strftime("%Y-%m-%d")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.loadtest.unique_cost",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8501")
    ap.add_argument("--pid", type=int, required=True, help="the server's process id (its CPU clock is read)")
    ap.add_argument("--moves", type=int, default=20, help="moves per page (1-500)")
    ap.add_argument("--pages", nargs="+", default=list(LIGHT_PAGES), choices=LIGHT_PAGES)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not 1 <= args.moves <= 500:
        ap.error("--moves must be 1-500")
    if not os.path.exists(f"/proc/{args.pid}/stat"):
        ap.error(f"no process {args.pid} here (the server must run on this machine)")
    out = asyncio.run(measure(args.url, args.pid, tuple(args.pages), args.moves, args.seed))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for r in out["rows"]:
            print(f"{r['page']:<12} {r['moves']:>4} moves  {1000 * r['cpu_per_move']:7.1f} ms CPU a move  "
                  f"{1000 * r['wall_mean']:7.1f} ms a run  exceptions {r['exceptions']}")
        print(f"mean over the pages: {1000 * out['mean_cpu_per_move']:.1f} ms of server CPU a move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
