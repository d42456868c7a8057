"""A live class under load: one teacher tab and `students` phone tabs on /lesson, beside the ordinary
light sessions (driver.run_phase).

- The teacher (a projector at 1280 px, English) opens /lesson, presses "Start a class", and for each of
  `steps` steps leaves the room `step_s` seconds to answer — on every `vote_again_every`-th step it
  opens a second vote halfway — then reveals, waits `reveal_s`, and presses Next; at the end it ends
  the class. All along it reruns its live-answers fragment every `run_every` seconds, as the frontend
  does, and reads the count the projector shows ("N of M answered").
- Each student opens the room's link (half of them in Chinese), reruns its polling fragment every
  `run_every` seconds (the page reruns itself when the room changed), answers each open question after
  a random `think` (a fifth change their mind once), and answers again in a second vote.

Measured: for every teacher move (next step, second vote, reveal, end) the seconds until each phone
showed it (after a whole run of its page that began after the move), and how many phones never did;
for every new answer, the seconds until the projector's count included it; every run's time and
exceptions.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tools.loadtest.protocol import BrowserTab, DisconnectedError, RunResult
from tools.loadtest.report import percentile

COUNT_RE = re.compile(r"\*\*(\d+)\D+?(\d+)")          # "**12 of 30 answered**" / "**30 人中已有 12 人作答**"
SENT_MARK = ":material/check:"  # the phone's "Answer sent" line (pages/ui/live/class_view.py)
PICK_RE = re.compile(r"class_pick_([A-Z0-9]+)_(\d+)_([12])$")


@dataclass
class ClassPlan:
    students: int = 60
    steps: int = 4
    step_s: float = 20.0            # the teacher leaves each question open this long
    reveal_s: float = 4.0           # and shows the reveal this long before Next
    vote_again_every: int = 2       # every such step gets a second vote (0: none)
    think: tuple[float, float] = (2.0, 10.0)
    join_over_s: float = 10.0       # the phones arrive spread over this many seconds
    timeout: float = 60.0
    seed: int = 0
    sticky: str | None = None       # through a balancer: its stickiness cookie (BrowserTab)


@dataclass
class Move:
    kind: str                 # "step", "vote2", "reveal", "end"
    step: int
    at: float                 # when the teacher pressed (seconds since the class began)
    arrivals: dict[int, float] = field(default_factory=dict)  # student → seconds until shown
    shown: float = float("nan")  # when the projector showed it (the teacher's run finished)


@dataclass
class ClassRecord:
    plan: ClassPlan
    code: str = ""
    moves: list[Move] = field(default_factory=list)
    answers: list[tuple[float, int, int, int]] = field(default_factory=list)  # (at, step, vote, count)
    counts: list[tuple[float, int, int, int]] = field(default_factory=list)   # projector (at, step, vote, n)
    runs: list[tuple[str, RunResult]] = field(default_factory=list)          # (who: kind, result)
    disconnects: int = 0
    problems: list[str] = field(default_factory=list)
    replicas: dict[int, str] = field(default_factory=dict)  # phone → the replica it was pinned to
    t0: float = 0.0

    def now(self) -> float:
        return time.monotonic() - self.t0


def answer_pills(tab: BrowserTab) -> tuple[str, int, int] | None:
    """(widget key, step, vote) of the class answer pills this phone shows, if any."""
    for w in tab.widgets.values():
        m = PICK_RE.search(w.id)
        if m:
            return m.group(0), int(m.group(2)), int(m.group(3))
    return None


def phone_state(tab: BrowserTab) -> tuple:
    """What a phone shows: ("end",) once it left the ended room, else (step, vote, revealed) — the
    answer pills name the step and vote; without them the question is revealed (pills disabled)."""
    if "room=" not in tab.query:
        return ("end",)
    m = re.search(r"(?:^|&)step=(\d+)", tab.query)
    step = int(m.group(1)) if m else 1
    pick = answer_pills(tab)
    return (step, pick[2], False) if pick else (step, None, True)


def matches(move: Move, shown: tuple) -> bool:
    """Whether a phone showing `shown` shows the teacher's `move`."""
    if move.kind == "end":
        return shown == ("end",)
    if shown == ("end",) or shown[0] != move.step:
        return False
    if move.kind == "reveal":
        return shown[2]
    return not shown[2] and shown[1] == (2 if move.kind == "vote2" else 1)


async def teacher(plan: ClassPlan, base_url: str, rec: ClassRecord, ready: asyncio.Event,
                  done: asyncio.Event) -> None:
    tab = BrowserTab(base_url, locale="en-US", sticky=plan.sticky)
    state = {"step": 1, "vote": 1}

    async def run(kind: str, coro: Any) -> RunResult:
        result = await coro
        rec.runs.append((f"teacher:{kind}", result))
        return result

    async def hold(seconds: float) -> None:
        """Poll the live answers, as the projector's fragment does, for `seconds`."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            began = time.monotonic()
            # the live answers' timer: the quickest of the page's (the tab's watch looks less often)
            panel = min(tab.auto, key=tab.auto.__getitem__, default=None)
            if panel is not None:
                result = await run("poll", tab.fragment(panel, plan.timeout))
                for text in result.texts:
                    m = COUNT_RE.match(text)
                    if m:
                        rec.counts.append((rec.now(), state["step"], state["vote"], int(m.group(1))))
                        break
            interval = tab.auto.get(panel, 1.0) if panel else 1.0
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - began)))

    async def press(key: str, kind: str, step: int) -> None:
        move = Move(kind, step, rec.now())
        rec.moves.append(move)
        await run(kind, tab.click(key, plan.timeout))
        move.shown = rec.now()

    try:
        await tab.connect(link="/lesson")
        await run("open", tab.open("/lesson", plan.timeout))
        await run("start", tab.click("class_start", plan.timeout))
        m = re.search(r"room=([A-Z0-9]+)", tab.query)
        if not m:
            rec.problems.append(f"no room in the teacher's link after Start: {tab.query!r}")
            return
        rec.code = m.group(1)
        rec.t0 = time.monotonic()
        ready.set()
        await hold(plan.join_over_s + 2)  # every phone has joined before the first move
        for step in range(1, plan.steps + 1):
            state.update(step=step, vote=1)
            if step > 1:
                await press("lesson_next", "step", step)
            second = plan.vote_again_every and step % plan.vote_again_every == 0
            await hold(plan.step_s / 2 if second else plan.step_s)
            if second:
                state["vote"] = 2
                await press("class_vote2", "vote2", step)
                await hold(plan.step_s / 2)
            await press("class_reveal", "reveal", step)
            await hold(plan.reveal_s)
        rec.runs.append(("teacher:end-dialog", await tab.click("class_end", plan.timeout)))
        await press("class_end_confirm", "end", plan.steps)
        await asyncio.sleep(3 * tab.auto.get(next(iter(tab.auto), ""), 1.0) + 2)
    except (DisconnectedError, KeyError) as exc:
        rec.problems.append(f"teacher: {type(exc).__name__}: {exc}")
        rec.disconnects += isinstance(exc, DisconnectedError)
    finally:
        ready.set()
        done.set()
        await tab.close()


async def student(idx: int, plan: ClassPlan, base_url: str, rec: ClassRecord, ready: asyncio.Event,
                  done: asyncio.Event) -> None:
    rng = random.Random(plan.seed * 100_003 + idx)
    await ready.wait()
    if not rec.code:
        return
    await asyncio.sleep(rng.uniform(0, plan.join_over_s))
    zh = idx % 2 == 1
    tab = BrowserTab(base_url, locale="zh-CN" if zh else "en-US", sticky=plan.sticky)
    link = f"/lesson?room={rec.code}" + ("&lang=zh" if zh else "")
    seen = 0                          # moves this phone has shown
    due: dict[tuple[int, int], float] = {}        # (step, vote) → when to answer next (inf: done)
    sent: set[tuple[int, int]] = set()            # answered at least once
    changed: set[tuple[int, int]] = set()         # changed its mind once

    def arrived() -> None:
        """Mark the moves up to the latest one this phone now shows as arrived (the state is
        monotonic: showing a later move means the earlier ones were shown too). Only moves made
        before a run that draws the phone's whole step began to arrive count — a whole run of the
        page, or the run of the phone's view fragment the room's wake started: the answer's own
        fragment draws the question of the run before it (a phone's answer may redraw it after that
        run; Streamlit then drops that run's copy of the fragment, unsent), so it never shows a move
        alone."""
        nonlocal seen
        shown = phone_state(tab)
        since = max(tab.full_at, tab.woken_at) - rec.t0
        latest = max((j for j in range(seen, len(rec.moves))
                      if rec.moves[j].at <= since and matches(rec.moves[j], shown)), default=None)
        if latest is None:
            return
        for move in rec.moves[seen:latest + 1]:
            move.arrivals[idx] = rec.now() - move.at
        seen = latest + 1

    try:
        await tab.connect(link=link)
        result = await tab.open(link, plan.timeout)
        rec.runs.append(("student:open", result))
        seen = len(rec.moves)  # what happened before this phone came
        next_poll = time.monotonic() + tab.auto.get(next(iter(tab.auto), ""), 1.0)
        give_up = float("inf")
        while not done.is_set() or seen < len(rec.moves):
            if done.is_set():
                give_up = min(give_up, time.monotonic() + 15.0)
                if time.monotonic() > give_up:
                    break
            if phone_state(tab) == ("end",):  # the class ended: the page no longer follows a room
                arrived()
                break
            # its slow poll's timer (a whole run interrupted before the page drew it has none: the
            # room's wakes still come, and the next whole run sets the timer again)
            poll = next(iter(tab.auto), None)
            # a run the server starts by itself: the room woke this phone
            pick = answer_pills(tab)
            when = float("inf")
            if pick:
                when = due.setdefault(pick[1:], time.monotonic() + rng.uniform(*plan.think))
            wait = max(0.01, min(when, next_poll, time.monotonic() + 0.5) - time.monotonic())
            woken = await tab.listen(wait, plan.timeout)
            if woken is not None:
                rec.runs.append(("student:woken", woken))
                arrived()
                continue
            if poll is None and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + 1.0  # no timer now: look again in a second
            if poll is not None and time.monotonic() >= next_poll:  # the phone's own slow poll
                result = await tab.fragment(poll, plan.timeout)
                rec.runs.append(("student:" + ("follow" if result.full else "poll"), result))
                arrived()
                next_poll = time.monotonic() + tab.auto.get(next(iter(tab.auto), ""), 1.0)
                continue
            pick = answer_pills(tab)
            if pick is not None and time.monotonic() >= due.get(pick[1:], float("inf")):
                key, step, vote = pick
                widget = tab.widget(key)
                options = [o.content for o in widget.proto.options] if widget else []
                if options:
                    answer = await tab.choose(key, rng.choice(options), plan.timeout)
                    rec.runs.append(("student:answer", answer))
                    arrived()  # a wake may have come first: this phone may show something new
                    accepted = any(SENT_MARK in text for text in answer.texts)  # not "closed"
                    if accepted and (step, vote) not in sent:
                        sent.add((step, vote))
                        rec.answers.append((rec.now(), step, vote, idx))
                if (step, vote) not in changed and rng.random() < 0.2:
                    changed.add((step, vote))
                    due[(step, vote)] = time.monotonic() + rng.uniform(*plan.think)
                else:
                    due[(step, vote)] = float("inf")
    except DisconnectedError as exc:
        rec.disconnects += 1
        rec.problems.append(f"student {idx}: {exc}")
    finally:
        if tab.replicas:
            rec.replicas[idx] = tab.replicas[-1]
        await tab.close()


async def run_class(plan: ClassPlan, base_url: str) -> ClassRecord:
    rec = ClassRecord(plan)
    ready, done = asyncio.Event(), asyncio.Event()
    await asyncio.gather(teacher(plan, base_url, rec, ready, done),
                         *(student(i, plan, base_url, rec, ready, done) for i in range(plan.students)))
    return rec


def class_seconds(plan: ClassPlan) -> float:
    """About how long the teacher's part lasts (for the light sessions beside it)."""
    return plan.join_over_s + 2 + plan.steps * (plan.step_s + plan.reveal_s) + 5


def summarise_class(rec: ClassRecord) -> dict[str, Any]:
    """Move arrival (share of phones within 2 s, p50/p95/max), the projector's count lag, runs."""
    delays = [d for m in rec.moves for d in m.arrivals.values()]
    after_projector = [max(0.0, m.at + d - m.shown) for m in rec.moves for d in m.arrivals.values()]
    projector = [m.shown - m.at for m in rec.moves]
    expected = len(rec.moves) * rec.plan.students
    lags, superseded = [], 0
    seen: dict[tuple[int, int], int] = {}
    for at, step, vote, _ in sorted(rec.answers):
        seen[(step, vote)] = seen.get((step, vote), 0) + 1
        need = seen[(step, vote)]
        # an answer given less than 2 s before the teacher moved on (a second vote, Next) may never
        # be counted on screen as current: the projector shows the new vote's count from then on
        if any(0 <= m.at - at < 2.0 and m.kind in ("step", "vote2", "end") for m in rec.moves):
            superseded += 1
            continue
        later = [t for t, s, v, n in rec.counts if t >= at and s == step and v == vote and n >= need]
        if later:
            lags.append(min(later) - at)
    kinds: dict[str, list[RunResult]] = {}
    for who, result in rec.runs:
        kinds.setdefault(who, []).append(result)
    return {
        "code": rec.code, "students": rec.plan.students, "moves": [m.kind for m in rec.moves],
        "arrivals": len(delays), "expected": expected, "missed": expected - len(delays),
        "missed_by_move": [f"{m.kind} {m.step}: {rec.plan.students - len(m.arrivals)}" for m in rec.moves
                           if len(m.arrivals) < rec.plan.students],
        "within_2s": sum(d <= 2.0 for d in delays) / expected if expected else float("nan"),
        "arrival_p50": percentile(delays, 50), "arrival_p95": percentile(delays, 95),
        "arrival_max": max(delays, default=float("nan")),
        "slowest": [f"{m.kind} {m.step}: phone {i} after {d:.2f} s"
                    for d, m, i in sorted(((d, m, i) for m in rec.moves for i, d in m.arrivals.items()),
                                          key=lambda x: -x[0])[:5] if d > 2.0],
        "by_move": [{"move": f"{m.kind} {m.step}", "projector": round(m.shown - m.at, 3),
                     "p50": percentile(list(m.arrivals.values()), 50),
                     "p95": percentile(list(m.arrivals.values()), 95),
                     "max": max(m.arrivals.values(), default=float("nan")),
                     "within_2s": sum(d <= 2.0 for d in m.arrivals.values()) / rec.plan.students,
                     "p95_by_replica": {
                         r: percentile([d for i, d in m.arrivals.items() if rec.replicas.get(i) == r], 95)
                         for r in sorted(set(rec.replicas.values()))}}
                    for m in rec.moves],
        "projector_p50": percentile(projector, 50), "projector_max": max(projector, default=float("nan")),
        "after_projector_within_2s":
            sum(d <= 2.0 for d in after_projector) / expected if expected else float("nan"),
        "after_projector_p95": percentile(after_projector, 95),
        "answers": len(rec.answers), "count_lag_p95": percentile(lags, 95),
        # answers sent within 2 s of a move that changed the phones' question: they compete with its wave
        "answers_in_waves": sum(any(0 <= at - m.at <= 2.0 and m.kind in ("step", "vote2") for m in rec.moves)
                                for at, *_ in rec.answers),
        "count_lag_max": max(lags, default=float("nan")), "count_lags": len(lags),
        "count_superseded": superseded,
        "runs": {k: {"runs": len(v), "p50": percentile([r.seconds for r in v], 50),
                     "p95": percentile([r.seconds for r in v], 95),
                     "timeouts": sum(r.status == "timeout" for r in v)} for k, v in sorted(kinds.items())},
        "exceptions": sum(len(r.exceptions) for _, r in rec.runs),
        "exception_samples": sorted({e for _, r in rec.runs for e in r.exceptions})[:5],
        "timeouts": sum(r.status == "timeout" for _, r in rec.runs),
        # a timer's rerun the server dropped (its fragment went with a whole run then under way)
        "dropped": sum(r.status == "dropped" for _, r in rec.runs),
        # a run stopped for another request's run, which drew the page instead (a wake during a poll)
        "superseded": sum(r.status == "superseded" for _, r in rec.runs),
        # a phone's step the room woke that reached it as a run cut short, a fragment's run after it
        # (its finish rewritten: pages/ui/run_order.py `kept_finishes`)
        "woken_cut": sum(r.woken_cut for _, r in rec.runs),
        "disconnects": rec.disconnects, "problems": rec.problems[:10],
        "replicas": dict(sorted(Counter(rec.replicas.values()).items())),
    }


def class_table(s: dict[str, Any]) -> str:
    lines = [f"class {s['code']}: {s['students']} phones, moves {' '.join(s['moves'])}",
             f"  teacher's move on the phones: {100 * s['within_2s']:.1f} % within 2 s; "
             f"p50 {s['arrival_p50']:.2f} s, p95 {s['arrival_p95']:.2f} s, max {s['arrival_max']:.2f} s; "
             f"missed {s['missed']} of {s['expected']} ({', '.join(s['missed_by_move']) or 'none'})",
             f"  the projector itself showed each move after p50 {s['projector_p50']:.2f} s, max "
             f"{s['projector_max']:.2f} s; the phones after it: {100 * s['after_projector_within_2s']:.1f} % "
             f"within 2 s, p95 {s['after_projector_p95']:.2f} s",
             f"  projector's count: {s['answers']} answers, lag p95 {s['count_lag_p95']:.2f} s, "
             f"max {s['count_lag_max']:.2f} s ({s['count_superseded']} given < 2 s before the teacher "
             "moved on)",
             f"  exceptions {s['exceptions']}, timeouts {s['timeouts']}, disconnects {s['disconnects']}, "
             f"woken runs cut short {s['woken_cut']}"]
    for kind, r in s["runs"].items():
        lines.append(f"  {kind:<20} {r['runs']:>6} runs  p50 {r['p50']:.3f} s  p95 {r['p95']:.3f} s")
    if s["replicas"]:
        lines.append("  phones per replica: " + ", ".join(f"{k} {v}" for k, v in s["replicas"].items()))
    lines += [f"  slow: {x}" for x in s["slowest"]]
    lines += [f"  problem: {p}" for p in s["problems"]]
    return "\n".join(lines)
