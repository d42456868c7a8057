"""One call into core from a page, shared by every session of the server.

- `cached(fn, **kwargs)` / `run_with_progress(fn, **kwargs)`: fn(**kwargs) from the server-wide result
  store (server.results), computed at most once however many sessions ask at the same time, the
  second with a progress bar; both turn core's InputError / BudgetError / BackendError into a
  translated notice and return None;
- `run_when_asked(fn, key, …)`: the same for work that takes seconds, once the reader has asked for
  it (a button, or `?key=1` in the link) or its result is already stored (`ask_first`).

Both go through `shared_call(fn, kwargs)`. What the page shows meanwhile, in one placeholder that is
emptied when the result is there:
- a progress bar while this session computes (fn takes progress=callable);
- the same bar, "computing for several sessions", while it waits for another session's computation;
- its place in the queue while a heavy job (live timing, training) waits for its turn, or while
  a light one waits for one of the two slots of light work.
Each of these updates is also where Streamlit can stop a run whose session closed or moved on.

After a live timing, it says when other sessions were running on the server while it was measured.
Torch missing or failing to load becomes a translated notice and None, so the rest of the page and
the pages that do not need torch keep working.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from core.errors import InputError
from pages.ui.i18n import t
from pages.ui.notices import show_error
from pages.ui.url_state import page_value, parse_flag
from server import shared
from server.cache import Flight
from server.gates import Courtesy
from server.results import result_key
from server.threads import compute_threads

HEAVY_FUNCTIONS = frozenset({"core.cost:explore", "core.training:training", "core.stability.sweep:sweep"})
TIMED_FUNCTIONS = frozenset({"core.cost:explore"})  # results are wall-clock times
PROGRESS_INTERVAL_S = 0.1  # the least time between two updates of a progress bar


class ProgressThrottle:
    """Which progress fractions a bar shows: whole percents that grew, at most one per `interval` s.

    Every update is a message the browser has to render while it is still loading the page's
    charts; a computation reporting per cell (the saturation page's entropy grid: 120 cells in
    well under a second) would otherwise send one per cell. The first report is always shown.
    """

    def __init__(self, interval: float = PROGRESS_INTERVAL_S, clock: Callable[[], float] = time.monotonic):
        self.interval, self.clock = interval, clock
        self.shown_at, self.shown_pct = -math.inf, -1

    def __call__(self, fraction: float) -> int | None:
        """The percent to show for `fraction`, or None to skip this report."""
        pct, now = int(100 * min(1.0, max(0.0, float(fraction)))), self.clock()
        if pct <= self.shown_pct or now - self.shown_at < self.interval:
            return None
        self.shown_at, self.shown_pct = now, pct
        return pct


def fn_path(fn: Callable[..., Any]) -> str:
    """"module:qualname", the store's name for a core function."""
    return f"{fn.__module__}:{fn.__qualname__}"


def torch_unavailable(exc: BaseException) -> bool:
    """True when `exc` is torch missing or failing to load (an ImportError, or an OSError from its
    native libraries)."""
    if isinstance(exc, ImportError):
        return (exc.name or "").split(".")[0] == "torch" or "torch" in str(exc)
    return isinstance(exc, OSError) and "torch" in str(exc).lower()


def is_stored(fn: Callable[..., Any], kwargs: dict[str, Any]) -> bool:
    """Whether fn(**kwargs) is in the server-wide store: shared_call would return it at once."""
    return shared.RESULTS.has(result_key(fn_path(fn), kwargs))


def shared_call(fn: Callable[..., Any], kwargs: dict[str, Any], container: Any = None,
                progress: bool = False) -> Any:
    """fn(**kwargs), shared by every session (see the module docstring); core errors propagate.

    `progress=True`: fn takes `progress=callable` and the page shows a bar while it computes.
    """
    where = container or st
    path = fn_path(fn)
    key = result_key(path, kwargs)
    stored = shared.RESULTS.peek(key)
    if stored is None:
        box = where.empty()
        try:
            stored = shared.RESULTS.get_or_compute(key, _computation(fn, path, kwargs, box, progress),
                                            _waiting(box))
        except (ImportError, OSError) as exc:
            if not torch_unavailable(exc):
                raise
            box.empty()
            where.warning(t("hosting.torch_missing", why=type(exc).__name__), icon=":material/extension_off:")
            return None
        box.empty()
    value, meta = stored
    if meta.get("busy"):
        where.warning(t("hosting.timing_busy", others=meta["busy"]), icon=":material/groups:")
    return value


def _computation(fn: Callable[..., Any], path: str, kwargs: dict[str, Any], box: Any, progress: bool
                 ) -> Callable[[Flight], tuple[Any, dict[str, Any]]]:
    timed = path in TIMED_FUNCTIONS
    heavy = path in HEAVY_FUNCTIONS
    throttle = ProgressThrottle()

    def compute(flight: Flight) -> tuple[Any, dict[str, Any]]:
        busy = shared.RUNS.others() if timed else 0
        courtesy = Courtesy(shared.LIGHT) if heavy else None
        shown = {"pct": 0, "key": ""}

        def show(pct: int, key: str) -> None:
            if (pct, key) != (shown["pct"], shown["key"]):
                shown.update(pct=pct, key=key)
                box.progress(pct / 100, text=t(key))

        def report(fraction: float) -> None:
            nonlocal busy
            flight.fraction = fraction
            if timed:
                busy = max(busy, shared.RUNS.others())
            pct = throttle(fraction)
            if pct is not None:
                show(pct, "common.computing")
            if courtesy is not None:  # between two steps: let the light pages' computations go first
                courtesy.pause(lambda: show(shown["pct"], "hosting.giving_way"))

        def job() -> Any:
            compute_threads()  # BLAS and torch pools at one thread, once each is loaded
            return fn(progress=report, **kwargs) if progress else fn(**kwargs)

        gate, notice = (shared.HEAVY, "hosting.queue") if heavy else (shared.LIGHT, "hosting.queue_light")
        with gate.slot(_queue_notice(box, notice)):
            try:
                value = job()
            finally:  # the computation's arrays are garbage now
                shared.give_back_memory()
        if timed:
            busy = max(busy, shared.RUNS.others())
        return value, {"busy": busy} if timed else {}

    return compute


def _queue_notice(box: Any, key: str) -> Callable[[int, float], None]:
    """What a job shows while it waits for its turn (updated once a second); `key`: its text."""
    shown: list[tuple[int, int]] = []

    def wait(ahead: int, seconds: float) -> None:
        state = (ahead, int(seconds))
        if not shown or shown[-1] != state:
            shown.append(state)
            box.info(t(key, ahead=ahead, seconds=int(seconds)), icon=":material/hourglass_top:")

    return wait


def _waiting(box: Any) -> Callable[[Flight], None]:
    """What a session shows while another session computes the result it asked for."""
    throttle = ProgressThrottle(interval=1.0)

    def wait(flight: Flight) -> None:
        pct = throttle(flight.fraction)
        if pct is None and throttle.clock() - throttle.shown_at >= 1.0:
            pct = throttle.shown_pct  # nothing new: show it again, once a second
            throttle.shown_at = throttle.clock()
        if pct is not None:
            box.progress(max(pct, 0) / 100, text=t("hosting.computing_shared"))

    return wait


def cached(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """fn(**kwargs) computed once for every session (shared_call); core errors → translated
    notice and None."""
    try:
        return shared_call(fn, kwargs, container)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


def run_with_progress(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """Like `cached`, with a progress bar while it computes (fn takes progress=callable); a heavy
    job waits for its turn, its place shown."""
    try:
        return shared_call(fn, kwargs, container, progress=True)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


def ask_first(key: str, asked_key: str, stored: Callable[[], bool], container: Any = None) -> bool:
    """Whether a page's heavy work (a live timing, a training grid, a model run) goes ahead now:
    once the reader has asked for it, with the button shown here or with `?key=1` in the link (the
    button writes it there, so a shared link runs it again), or when its result is already stored
    (`stored()`, looked up only while the reader has not asked). Until then the page shows
    `asked_key`'s text and the button, and the rest of it at once: a cold server's first page, or a
    link opened before anyone computed it, is drawn in well under the seconds the work takes. Once
    asked, the session's later settings run at once."""
    if page_value(key, parse_flag, False) or stored():
        return True
    box = (container or st).container(border=True)
    box.markdown(t(asked_key))
    box.button(t(f"{asked_key}.button"), key=f"{key}_ask", type="primary", icon=":material/play_arrow:",
               on_click=_ask, args=(key,))
    return False


def _ask(key: str) -> None:
    st.session_state[key] = True


def run_when_asked(fn: Callable[..., Any], key: str, asked_key: str, container: Any = None,
                   **kwargs: Any) -> Any:
    """run_with_progress(fn, **kwargs) once `ask_first` says so; None until then."""
    if not ask_first(key, asked_key, lambda: is_stored(fn, kwargs), container):
        return None
    return run_with_progress(fn, container, **kwargs)
