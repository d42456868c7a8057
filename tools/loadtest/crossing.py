"""Answers crossing the teacher's moves: does every phone end up showing the move?

A teacher tab starts a class; `phones` phone tabs join it. For each of the first `steps` steps the
teacher opens a second vote, reveals, and presses Next, and at each of these moves every phone
answers the question it shows at a random moment from 0.1 s before the click to 0.5 s after it, so
that answers (a fragment's rerun) arrive while the room wakes the phones (a whole rerun each). Then
the phones only listen for `settle_s` seconds — no slow poll — and each must show the move
(`classroom.matches`). A phone that does not has lost the whole run that showed it
(pages/ui/run_order.py says how that happened).

    python -m tools.loadtest.crossing --url http://127.0.0.1:8501 --phones 16 --classes 3

Every class is started from this machine's one address, so `--classes` is at most the rooms one
address may start at once (server/rooms.py: 3, then one per 5 minutes); more is refused before the
run, and a server that still refuses a start (an earlier run's rooms count too) says so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from dataclasses import asdict, dataclass, field

from tools.loadtest.classroom import Move, answer_pills, matches, phone_state
from tools.loadtest.protocol import BrowserTab

MOVES = (("vote2", "class_vote2"), ("reveal", "class_reveal"), ("step", "lesson_next"))
LEAD_S = 0.1        # the phones' answers start this long before the teacher's click
SPREAD_S = 0.6      # and are spread over this long


def classes_at_once() -> tuple[int, float]:
    """(rooms one address may start at once, then one per this many seconds), as server/rooms.py
    sets them."""
    from server.rooms import Rooms
    from server.store import MemoryStore

    creates = Rooms(MemoryStore()).creates
    return int(creates.burst), 1 / creates.per_s


@dataclass
class Crossing:
    phone_moves: int = 0
    missed: int = 0
    answers: int = 0
    misses: list[str] = field(default_factory=list)  # the first few: move, answer's offset, what showed


async def _settle(tab: BrowserTab, seconds: float, timeout: float) -> None:
    """Read the runs the server starts by itself for `seconds` (a woken phone), asking for none."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        await tab.listen(end - time.monotonic(), timeout)


async def _answer(tab: BrowserTab, delay: float, rng: random.Random, timeout: float) -> bool:
    await asyncio.sleep(delay)
    pick = answer_pills(tab)
    widget = tab.widget(pick[0]) if pick else None
    options = [o.content for o in widget.proto.options] if widget else []
    if not options:
        return False
    await tab.choose(pick[0], rng.choice(options), timeout)
    return True


async def one_class(url: str, phones: int, steps: int, rng: random.Random, out: Crossing,
                    settle_s: float = 2.0, timeout: float = 60.0) -> None:
    teacher = BrowserTab(url)
    tabs: list[BrowserTab] = []
    try:
        await teacher.connect(link="/lesson")
        await teacher.open("/lesson", timeout)
        await teacher.click("class_start", timeout)
        m = re.search(r"room=([A-Z0-9]+)", teacher.query)
        if not m:
            burst, every = classes_at_once()
            raise RuntimeError(f"the server started no class (no room in the teacher's link after Start: "
                               f"{teacher.query!r}); one address may start {burst} rooms, then one every "
                               f"{every:.0f} s, and all the server's rooms may be taken")
        link = f"/lesson?room={m.group(1)}"
        for _ in range(phones):
            tab = BrowserTab(url)
            await tab.connect(link=link)
            await tab.open(link, timeout)
            tabs.append(tab)
        for step in range(1, steps + 1):
            for kind, key in MOVES:
                delays = [rng.uniform(0, SPREAD_S) for _ in tabs]
                answering = [asyncio.create_task(_answer(tab, delay, rng, timeout))
                             for tab, delay in zip(tabs, delays, strict=True)]
                await asyncio.sleep(LEAD_S)
                await teacher.click(key, timeout)
                out.answers += sum(await asyncio.gather(*answering))
                await asyncio.gather(*(_settle(t, settle_s, timeout) for t in tabs))
                move = Move(kind, step + (kind == "step"), 0.0)
                for tab, delay in zip(tabs, delays, strict=True):
                    out.phone_moves += 1
                    shown = phone_state(tab)
                    if not matches(move, shown):
                        out.missed += 1
                        if len(out.misses) < 10:
                            out.misses.append(f"{kind} {move.step}: answered {delay - LEAD_S:+.3f} s "
                                              f"from the click, shows {shown}")
        await teacher.click("class_end", timeout)
        await teacher.click("class_end_confirm", timeout)
    finally:
        for tab in (*tabs, teacher):
            await tab.close()


async def run(url: str, phones: int, classes: int, steps: int, seed: int = 0) -> Crossing:
    out, rng = Crossing(), random.Random(seed)
    for _ in range(classes):
        await one_class(url, phones, steps, rng, out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.loadtest.crossing", description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8501")
    ap.add_argument("--phones", type=int, default=16, help="phones in the class (1-60)")
    burst, every = classes_at_once()
    ap.add_argument("--classes", type=int, default=1,
                    help=f"classes one after another (1-{burst}: the rooms one address may start at once)")
    ap.add_argument("--steps", type=int, default=4, help="steps of each class, 3 moves each (1-4)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for name, lo, hi in (("phones", 1, 60), ("classes", 1, burst), ("steps", 1, 4)):
        if not lo <= getattr(args, name) <= hi:
            why = (f": one address may start {burst} rooms at once, then one every {every:.0f} s "
                   "(server/rooms.py)" if name == "classes" else "")
            ap.error(f"--{name} must be {lo}-{hi}{why}")
    out = asyncio.run(run(args.url, args.phones, args.classes, args.steps, args.seed))
    print(json.dumps(asdict(out), indent=1))
    return 1 if out.missed else 0


if __name__ == "__main__":
    sys.exit(main())
