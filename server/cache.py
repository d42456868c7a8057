"""A cache shared by every session of one server: each value computed once however many sessions
ask for it at a time, the least recently used dropped first, bounded by total size and count.

Both of the server's shared caches are this one: core results (`server.results`, values kept as
encoded bytes) and built charts (`pages/ui/chart/figure.py`, values kept as they are); so is the in-process
store (`server.store.MemoryStore`). Nothing here imports
Streamlit; the tests drive it from plain threads.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from core.memo import drop_idle

V = TypeVar("V")
POLL_S = 0.25  # how often a session waiting for another's computation looks again (and updates what it shows)
_NOTHING: Any = object()


@dataclass
class Flight:
    """A computation in progress that other sessions may wait for."""

    done: threading.Event = field(default_factory=threading.Event)
    fraction: float = 0.0              # latest progress report, for the waiters' bars
    value: Any = _NOTHING              # the value once computed
    error: Exception | None = None     # a failure every waiter should see as well

    @property
    def computed(self) -> bool:
        return self.value is not _NOTHING


class SharedCache(Generic[V]):
    """Values by key, least recently used first out, within `max_bytes` (each value's `size`) and
    `max_entries`. A value larger than the whole budget is returned, not kept. A value that took at
    least `slow_s` to compute outlives `drop_unused`'s idle time: it is dropped once unused for
    `keep_slow_s` (or pushed out by the budget, as any other)."""

    def __init__(self, max_bytes: int, max_entries: int, size: Callable[[V], int],
                 slow_s: float = math.inf, keep_slow_s: float = 0.0, poll_s: float = POLL_S) -> None:
        self.max_bytes, self.max_entries, self.size = max_bytes, max_entries, size
        self.slow_s, self.keep_slow_s, self.poll_s = slow_s, keep_slow_s, poll_s
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._used: dict[Hashable, float] = {}  # last use (time.monotonic) of each entry
        self._slow: set[Hashable] = set()  # the entries that took at least slow_s to compute
        self._bytes = 0
        self._flights: dict[Hashable, Flight] = {}
        self.computed = 0  # computations started, for tests and the load figures

    def stats(self) -> tuple[int, int]:
        """(entries, bytes) held now."""
        with self._lock:
            return len(self._entries), self._bytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._used.clear()
            self._slow.clear()
            self._bytes = 0

    def has(self, key: Hashable) -> bool:
        """Whether `key` is held now (its last use untouched)."""
        with self._lock:
            return key in self._entries

    def peek(self, key: Hashable) -> V | None:
        """The value held for `key` (now its most recent use), or None; nothing is computed."""
        with self._lock:
            value = self._entries.get(key, _NOTHING)
            if value is _NOTHING:
                return None
            self._entries.move_to_end(key)
            self._used[key] = time.monotonic()
            return value

    def put(self, key: Hashable, value: V, slow: bool = False) -> None:
        """Keep `value` for `key` (replacing what was there) within the budget, as a computed one;
        for a value that came from elsewhere (another server's result, a store's entry)."""
        self._keep(key, value, slow)

    def discard(self, key: Hashable) -> bool:
        """Drop `key`'s entry; whether there was one."""
        with self._lock:
            if key not in self._entries:
                return False
            self._forget(key)
            return True

    def drop_unused(self, idle_s: float) -> int:
        """Drop the entries nobody has used for `idle_s` seconds (for `keep_slow_s`, at least, those
        that were slow to compute); how many were dropped."""
        with self._lock:
            dropped, freed = drop_idle(self._entries, self._used, idle_s, self.size,
                                       longer=self._slow, longer_s=self.keep_slow_s)
            self._bytes -= freed
            self._slow &= self._entries.keys()
        return dropped

    def get_or_compute(self, key: Hashable, compute: Callable[[Flight], V],
                       wait: Callable[[Flight], None] | None = None) -> V:
        """The value for `key`: held, or computed once however many sessions ask at a time.

        `compute(flight)` runs in the first caller's thread and may report progress into
        `flight.fraction`; every other caller calls `wait(flight)` every `poll_s` seconds until it
        is done (that is where a waiting script run can be stopped), then gets the same value or
        the same error. If the computing run is stopped (its session closed or moved on: Streamlit
        stops a run with a BaseException), one of the waiters computes instead.
        """
        while True:
            with self._lock:
                value = self._entries.get(key, _NOTHING)
                if value is not _NOTHING:
                    self._entries.move_to_end(key)
                    self._used[key] = time.monotonic()
                    return value
                flight = self._flights.get(key)
                owner = flight is None
                if owner:
                    flight = self._flights[key] = Flight()
                    self.computed += 1
            if owner:
                return self._run(key, flight, compute)
            while not flight.done.wait(self.poll_s):
                if wait is not None:
                    wait(flight)
            if flight.error is not None:
                raise flight.error
            if flight.computed:
                return flight.value
            # the computing run was stopped before it finished: start over (maybe as the owner)

    def _run(self, key: Hashable, flight: Flight, compute: Callable[[Flight], V]) -> V:
        try:
            start = time.monotonic()
            value = compute(flight)
            flight.value = value
            self._keep(key, value, slow=time.monotonic() - start >= self.slow_s)
            return value
        except Exception as exc:
            flight.error = exc
            raise
        finally:  # also when the run is stopped
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()

    def _keep(self, key: Hashable, value: V, slow: bool) -> None:
        size = self.size(value)
        if size > self.max_bytes:
            return
        with self._lock:
            if key in self._entries:
                self._forget(key)
            self._entries[key] = value
            self._used[key] = time.monotonic()
            self._bytes += size
            if slow:
                self._slow.add(key)
            while self._bytes > self.max_bytes or len(self._entries) > self.max_entries:
                self._forget(next(iter(self._entries)))

    def _forget(self, key: Hashable) -> None:
        """Drop one entry; the caller holds the lock."""
        self._bytes -= self.size(self._entries.pop(key))
        self._used.pop(key, None)
        self._slow.discard(key)
