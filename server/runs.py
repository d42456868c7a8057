"""Which script runs are in progress: a live timing says when it was measured on a busy server, and
the warm-up and the janitor wait for a quiet server; and runs that go first (a live class's
teacher: the projector, and then every phone, waits for that run; then the phones the room wakes,
whose wave the other sessions' new runs wait for, docs/live-class.md). Nothing here imports Streamlit."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

FIRST_WAIT_S = 1.0  # a run going first holds the others back during its first second at most
WAVE_WAIT_S = 1.5   # a wave of a class's phones holds the others' new runs back this long at most


class RunRegistry:
    """Script runs in progress, one per thread (Streamlit runs each session's script in its own
    thread). A run that never said it ended is forgotten when its thread ends or starts again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, threading.Thread] = {}
        self._ended: float | None = None
        self.started = 0  # runs started since the server started
        self._firsts: dict[object, float] = {}  # runs in progress that go first → when they began
        self.held = 0  # runs that waited for one
        # Whether a live class's phones are being woken here (server.room_bus.RoomBus.waving): their
        # runs then go before the new runs of other sessions, as the teacher's does.
        self.waves: Callable[[], bool] = lambda: False

    def start(self) -> None:
        me = threading.current_thread()
        with self._lock:
            self._runs = {i: th for i, th in self._runs.items() if th.is_alive()}
            self._runs[me.ident or 0] = me
            self.started += 1

    def end(self) -> None:
        with self._lock:
            self._runs.pop(threading.get_ident(), None)
            self._ended = time.monotonic()

    @contextlib.contextmanager
    def running(self, first: bool = False, wait_s: float = FIRST_WAIT_S,
                in_wave: bool = False) -> Iterator[None]:
        """`with RUNS.running():` around one script run (the router's). A run that goes `first`
        makes the runs that start during its first `FIRST_WAIT_S` seconds wait until it ends or
        that time is up (a long run, a heavy page, holds no one back longer): under load every run
        shares the interpreter with the others, and a teacher's 0.1-s run took a second. A run
        `in_wave` (a woken phone that redraws its whole page) does not wait for the wave it is in."""
        token = object()
        if first:
            with self._lock:
                self._firsts[token] = time.monotonic()
        else:
            self.wait_for_first(wait_s, waves=not in_wave)
        self.start()
        try:
            yield
        finally:
            self.end()
            if first:
                with self._lock:
                    self._firsts.pop(token, None)

    @property
    def first(self) -> int:
        """Runs going first that are in their first FIRST_WAIT_S seconds."""
        now = time.monotonic()
        with self._lock:
            return sum(1 for began in self._firsts.values() if now - began < FIRST_WAIT_S)

    def wait_for_first(self, most_s: float, poll_s: float = 0.01, waves: bool = True) -> float:
        """Sleep while a run going first is in its first FIRST_WAIT_S seconds (`most_s` at most) and,
        with `waves`, while a class's phones are being woken (`WAVE_WAIT_S` at most); the seconds
        waited."""
        waiting_first = bool(self._firsts) and self.first > 0
        if not waiting_first and not (waves and self.waves()):
            return 0.0
        start = time.monotonic()
        with self._lock:
            self.held += 1
        while True:
            spent = time.monotonic() - start
            if not ((spent < most_s and self.first) or (waves and spent < WAVE_WAIT_S and self.waves())):
                return spent
            time.sleep(poll_s)

    def quiet_since(self) -> float | None:
        """When (time.monotonic) the last run ended, None while a run is in progress or before any."""
        with self._lock:
            if any(th.is_alive() for th in self._runs.values()):
                return None
            return self._ended

    def wait_quiet(self, quiet_s: float, poll_s: float = 0.05) -> float:
        """Block until at least one run has ended and none has run for `quiet_s` seconds; the
        seconds waited. For background work that would compete with a page for the interpreter."""
        start = time.monotonic()
        while True:
            ended = self.quiet_since()
            if ended is not None and time.monotonic() - ended >= quiet_s:
                return time.monotonic() - start
            time.sleep(poll_s if ended is None else max(poll_s, ended + quiet_s - time.monotonic()))

    def others(self) -> int:
        """Runs in progress in other threads (other sessions)."""
        me = threading.get_ident()
        with self._lock:
            return sum(1 for i, th in self._runs.items() if i != me and th.is_alive())
