"""Which script runs are in progress: a live timing says when it was measured on a busy server, and
the warm-up and the janitor wait for a quiet server. Nothing here imports Streamlit."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator


class RunRegistry:
    """Script runs in progress, one per thread (Streamlit runs each session's script in its own
    thread). A run that never said it ended is forgotten when its thread ends or starts again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, threading.Thread] = {}
        self._ended: float | None = None
        self.started = 0  # runs started since the server started

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
    def running(self) -> Iterator[None]:
        """`with RUNS.running():` around one script run (the router's)."""
        self.start()
        try:
            yield
        finally:
            self.end()

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
