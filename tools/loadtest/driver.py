"""Sessions that behave like people: open a link, then move widgets and change pages, pausing between.

A phase runs `sessions` light tabs (over `pages`) and `heavy` tabs (over `heavy_pages`) for `seconds`,
each tab pausing a random `think` seconds between reruns, and records every run.
"""

from __future__ import annotations

import asyncio
import random
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any

from tools.loadtest.memory import RssSampler
from tools.loadtest.protocol import BrowserTab, DisconnectedError, RunResult

LIGHT_PAGES = ("overview", "variance", "saturation", "gradients", "precision", "fact-check", "q-vs-k")
HEAVY_PAGES = ("cost", "training")
# A heavy page runs its work once asked (its button, or this in the link): heavy sessions ask.
ASKED = {"cost": "cost_run=1", "training": "train_run=1", "real-model": "rm_run=1"}
CHARTLESS_ON_OPEN = ("fact-check",)  # measures a card only when asked: no chart until then


def charted(link: str) -> bool:
    """Whether the page of `link` ("fact-check?lang=zh", "/saturation") is sure to draw a chart as it
    opens: not a page that measures only when asked (fact-check's cards), and a heavy page only when
    the link asks for its work (ASKED); without that it draws its charts only if a result is stored."""
    page, _, query = link.lstrip("/").partition("?")
    flag = ASKED.get(page)
    return page not in CHARTLESS_ON_OPEN and (flag is None or flag in query.split("&"))


LANGS = (("en-US", ""), ("zh-CN", "lang=zh"))


@dataclass
class Phase:
    """What one load phase does."""

    name: str
    sessions: int
    seconds: float
    think: tuple[float, float] = (2.0, 6.0)
    heavy: int = 0
    pages: tuple[str, ...] = LIGHT_PAGES
    heavy_pages: tuple[str, ...] = HEAVY_PAGES
    link: str | None = None      # every session opens this link ("/saturation?lang=zh")
    same: bool = False           # every session makes the same moves (one seed for all)
    nav: float = 0.25            # chance that a rerun is a page change rather than a widget move
    timeout: float = 120.0       # per run
    seed: int = 0
    sticky: str | None = None    # the balancer's stickiness cookie: kept per session, replicas counted
    unique: bool = False         # nothing shared: a seed of its own per session, every setting moved


@dataclass
class Run:
    """One run as recorded by the driver."""

    session: int
    heavy: bool
    kind: str          # "open", "move", "page", "rerun"
    page: str
    start: float       # seconds since the phase began
    result: RunResult


@dataclass
class PhaseRecord:
    phase: Phase
    runs: list[Run] = field(default_factory=list)
    disconnects: int = 0
    reconnect_failures: int = 0
    elapsed: float = 0.0
    rss: dict[str, Any] = field(default_factory=dict)
    replicas: dict[int, list[str]] = field(default_factory=dict)  # session → replicas it was pinned to

    def as_dict(self) -> dict[str, Any]:
        return {"phase": asdict(self.phase), "disconnects": self.disconnects, "replicas": self.replicas,
                "reconnect_failures": self.reconnect_failures, "elapsed": self.elapsed, "rss": self.rss,
                "runs": [{**{k: v for k, v in asdict(r).items() if k != "result"}, **asdict(r.result)}
                         for r in self.runs]}


DEFAULT_PAGE = "overview"  # served at "/": its URL path is empty


def page_name(path: str) -> str:
    return path or DEFAULT_PAGE


def page_path(page: str) -> str:
    return "" if page == DEFAULT_PAGE else page


def start_link(rng: random.Random, pages: tuple[str, ...]) -> tuple[str, str]:
    """(locale, link): a random page of the selection, in a random language (URL and browser agree);
    a heavy page's link asks for its work (ASKED), as a reader who pressed its button shares it."""
    locale, query = rng.choice(LANGS)
    page = rng.choice(pages)
    query = "&".join(q for q in (query, ASKED.get(page, "")) if q)
    return locale, f"/{page_path(page)}" + (f"?{query}" if query else "")


SEED_SPAN = 2**31 - 1  # the sidebar's seed range (pages/ui/sidebar.py: SEED_RANGE)


def unique_link(link: str, seed: int) -> str:
    """`link` with the session's own `seed` (which also opens the sidebar's second section, so its
    number inputs are drawn and moved too)."""
    return link + ("&" if "?" in link else "?") + f"seed={seed % SEED_SPAN}"


def session_seed(ph: Phase, idx: int, heavy: bool) -> int:
    """The seed of one session's moves: the same for every session of a `same` phase, else its own,
    and different in each phase, so a later phase does not replay moves whose results an earlier
    phase left in the server's caches."""
    if ph.same:
        return ph.seed
    return zlib.crc32(f"{ph.seed}/{ph.name}/{idx}/{int(heavy)}".encode())


async def _session(idx: int, heavy: bool, ph: Phase, base_url: str, t0: float, deadline: float,
                   rec: PhaseRecord) -> None:
    rng = random.Random(session_seed(ph, idx, heavy))
    pages = ph.heavy_pages if heavy else ph.pages
    locale, link = start_link(rng, pages)
    if ph.link:
        link = ph.link
        locale = "zh-CN" if "lang=zh" in link else "en-US"
    if ph.unique:
        link = unique_link(link, session_seed(ph, idx, heavy))
    tab = BrowserTab(base_url, locale=locale, sticky=ph.sticky)

    def record(kind: str, page: str, began: float, result: RunResult) -> None:
        rec.runs.append(Run(idx, heavy, kind, page_name(page), began - t0, result))

    async def reopen(link: str) -> bool:
        """Connect (again) and open `link`; False when the deadline passes first."""
        delay = 0.5
        page = link.lstrip("/").partition("?")[0]
        while time.monotonic() < deadline:
            try:
                await tab.connect(link=link)
            except DisconnectedError:  # the server is not (yet) there: try again
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            began = time.monotonic()
            try:
                record("open", page, began, await tab.open(link, ph.timeout))
                return True
            except DisconnectedError:
                rec.disconnects += 1
                record("lost", page, began, RunResult(time.monotonic() - began, "disconnected"))
        rec.reconnect_failures += 1
        return False

    try:
        if not await reopen(link):
            return
        while True:
            a, b = ph.think
            await asyncio.sleep(rng.uniform(a, b) if b > 0 else 0)
            if time.monotonic() >= deadline:
                break
            began = time.monotonic()
            try:
                if ph.unique:  # every setting moves at once: no run repeats another's
                    result = await tab.move_all(rng, ph.timeout)
                    if result is not None:
                        record("move", tab.path, began, result)
                        continue
                targets = [page_path(p) for p in pages]
                targets = [p for p in targets if p in tab.pages and tab.pages[p] != tab.page_hash]
                if targets and rng.random() < ph.nav and not ph.unique:
                    target = rng.choice(targets)
                    asked = ASKED.get(page_name(target), "") if heavy else ""
                    record("page", target, began, await tab.goto(target, ph.timeout, asked))
                    continue
                result = await tab.move(rng, ph.timeout)
                if result is None:
                    result = await tab.rerun(ph.timeout)
                    record("rerun", tab.path, began, result)
                else:
                    record("move", tab.path, began, result)
            except DisconnectedError:
                rec.disconnects += 1
                record("lost", tab.path, began, RunResult(time.monotonic() - began, "disconnected"))
                current = f"/{tab.path}" + (f"?{tab.query}" if tab.query else "")
                if not await reopen(current):
                    break
    finally:
        rec.replicas[idx] = list(tab.replicas)
        await tab.close()


async def run_phase(ph: Phase, base_url: str, sampler: RssSampler | None = None,
                    settle: float = 3.0) -> PhaseRecord:
    """Run one phase; RSS before (idle), during (peak, last) and `settle` seconds after."""
    rec = PhaseRecord(ph)
    idle = sampler.sample() if sampler else None
    t0 = time.monotonic()
    deadline = t0 + ph.seconds
    if sampler:
        sampler.start()
    tasks = [_session(i, False, ph, base_url, t0, deadline, rec) for i in range(ph.sessions)]
    tasks += [_session(ph.sessions + i, True, ph, base_url, t0, deadline, rec) for i in range(ph.heavy)]
    await asyncio.gather(*tasks)
    rec.elapsed = time.monotonic() - t0
    if sampler:
        await asyncio.sleep(settle)
        s_from, s_to = t0 - sampler.t0, time.monotonic() - sampler.t0
        during = sampler.between(s_from, s_to)
        rec.rss = {"before": idle, "peak": max(during, default=None), "after_settle": sampler.sample()}
    return rec
