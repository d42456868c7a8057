"""Memory a server gives back: the C allocator set for many threads freeing large arrays, its free
pages handed back after each computation, and a janitor that cleans up once the server is quiet.

- `configure_allocator()` (once per process, by server.startup.start): glibc's allocator gets at most two
  arenas, and arrays of 256 kB or more their own pages, returned to the system when freed, so
  threads that free large arrays do not leave the heap holding them (what it earned:
  docs/hosting.md#memory).
- `MemoryTrim`: glibc's malloc_trim, at most once every few seconds, after a computation, so a
  class that has left does not leave the server holding its peak.
- `freeze_libraries()`: the libraries' objects moved out of the garbage collector's walks as the
  server starts, before any session exists (server/startup.py);
- `IdleJanitor`: once the server has gone quiet after some activity, the caches drop what nobody
  used, then a full garbage collection and a trim, repeated for a while, so the memory of a class
  that has left goes back without anybody rerunning.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

from server.runs import RunRegistry

TRIM_EVERY_S = 5.0          # the least time between two malloc_trim calls
# glibc mallopt: at most this many arenas (default 8 per core: each thread's frees stay in its own
# arena's pages), and the size from which a block gets its own pages. glibc raises that threshold
# by itself after large frees (up to 32 MB), after which freed arrays stay in the heap as holes.
ARENA_MAX = 2
MMAP_THRESHOLD = 256 * 1024
TRIM_THRESHOLD = 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
QUIET_S = 5.0               # the janitor waits until no script has run for this long …
CLEAN_EVERY_S = 10.0        # … cleans at most this often …
LINGER_S = 120.0            # … and stops this long after the last run
EVICT_AFTER_S = 45.0        # once that quiet, cached results and charts unused this long are dropped


class MemoryTrim:
    """glibc's malloc_trim(0), at most once every `every` seconds; nothing where there is no glibc.
    NumPy's large arrays are freed to the allocator, which keeps many of the pages it got for them:
    RSS then stays at the peak of the busiest minute, not at what the server holds."""

    def __init__(self, every: float = TRIM_EVERY_S) -> None:
        self.every, self._last, self._lock = every, -float("inf"), threading.Lock()
        try:
            import ctypes

            self._trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            self._trim = None

    def __call__(self) -> bool:
        """Trim now unless it was done within `every` seconds; True when it trimmed."""
        if self._trim is None:
            return False
        with self._lock:
            now = time.monotonic()
            if now - self._last < self.every:
                return False
            self._last = now
        self._trim(0)
        return True


def configure_allocator(libc: Any = None) -> dict[str, bool]:
    """Set glibc's arena count, mmap and trim thresholds (see ARENA_MAX); which calls took effect.

    Process-wide and the same for every session, so it is done once, before the sessions' threads
    allocate much; nothing where there is no glibc. What it earned (with the trim and the janitor):
    docs/hosting.md#memory.
    """
    if libc is None:
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt  # noqa: B018 (musl and others have no mallopt)
        except (OSError, AttributeError):
            return {}
    return {name: libc.mallopt(param, value) == 1 for name, param, value in (
        ("arena_max", _M_ARENA_MAX, ARENA_MAX), ("mmap_threshold", _M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        ("trim_threshold", _M_TRIM_THRESHOLD, TRIM_THRESHOLD))}


def freeze_libraries() -> int:
    """Collect, then move every object alive now to the collector's permanent generation; returns
    how many. Called by the server's warm-up once it has loaded the modules every page imports, and
    only while no session has run yet (server/startup.py): a full collection walks every tracked
    object while holding the interpreter lock, and frozen, the libraries' few hundred thousand
    objects (which live as long as the process) are no longer walked. Never later: what is frozen is
    never collected, so a session's objects frozen with them would never be freed (a closed session
    is a cycle). It saves a fresh server's first pages their full collections (what it earned:
    docs/hosting.md#memory).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class IdleJanitor:
    """Cleans up after the sessions once the server is quiet: once no script has run for
    `evict_after` s, the caches drop what nobody used for that long (`evictors`: callables taking
    that age); then a full garbage collection (with Streamlit's after-run collection switched
    off, nothing else collects an idle server's cycles) and malloc_trim. `step()` decides and
    acts; `start()` runs it in a daemon thread.

    A class that has left thus gives its memory back within a minute; a teacher who comes back
    later recomputes the view they open (what its first visitor did)."""

    def __init__(self, runs: RunRegistry, trim: Callable[[], Any], quiet: float = QUIET_S,
                 every: float = CLEAN_EVERY_S, linger: float = LINGER_S, evict_after: float = EVICT_AFTER_S,
                 evictors: list[Callable[[float], Any]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.runs, self.trim, self.clock = runs, trim, clock
        self.quiet, self.every, self.linger, self.evict_after = quiet, every, linger, evict_after
        self.evictors = list(evictors or [])
        self.evicted_at: float | None = None  # the quiet spell (its start) whose caches were emptied
        self.last_clean = -float("inf")
        self.cleans = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def step(self) -> bool:
        """Clean now when no run is in progress, the last ended `quiet`–`linger` s ago, and the last
        clean was `every` s ago or more; True when it cleaned."""
        ended, now = self.runs.quiet_since(), self.clock()
        if ended is None or not self.quiet <= now - ended <= self.linger:
            return False
        evict = now - ended >= self.evict_after and self.evicted_at != ended
        if now - self.last_clean < self.every and not evict:
            return False
        if evict:
            self.evicted_at = ended
            for drop in self.evictors:
                drop(self.evict_after)
        self.last_clean = now
        gc.collect()
        self.trim()
        self.cleans += 1
        return True

    def start(self) -> None:
        """Run step() every few seconds in a daemon thread (once per process)."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._loop, name="ase-idle-janitor", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(self.quiet / 2)
            self.step()
