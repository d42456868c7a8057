"""Core results shared by every session of one server: each computed once per distinct call.

A result is kept pickled, so its size is known exactly and every caller gets its own copy (no
session can change another's result); the bytes are this process's own, never read from outside it.
Sessions asking for a result that is being computed wait for that computation instead of starting
their own (`server.cache.SharedCache`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.memo import frozen
from server.cache import Flight, SharedCache

RESULT_BYTES = 64 * 2**20   # every stored result, all sessions together (pickled size)
RESULT_ENTRIES = 1024
SLOW_RESULT_S = 1.0         # a result that took this long to compute (a live timing, a training) …
KEEP_SLOW_S = 900.0         # … is kept this long unused: a class comes back to the teacher's link later

Key = tuple[str, tuple[tuple[str, Any], ...]]


def result_key(path: str, kwargs: dict[str, Any]) -> Key:
    """The store's key for `path(**kwargs)` ("core.views:saturation_view"); lists count as tuples."""
    return path, tuple(sorted((k, frozen(v)) for k, v in kwargs.items()))


@dataclass(frozen=True)
class Stored:
    data: bytes            # the pickled value
    meta: dict[str, Any]   # what the page says beside it (a live timing: other sessions that ran)


class ResultStore:
    """Results by key (result_key), least recently used first out, within `max_bytes` of pickles and
    `max_entries`; slow results outlive the idle eviction (see SharedCache)."""

    def __init__(self, max_bytes: int = RESULT_BYTES, max_entries: int = RESULT_ENTRIES,
                 slow_s: float = SLOW_RESULT_S, keep_slow_s: float = KEEP_SLOW_S) -> None:
        self.cache: SharedCache[Stored] = SharedCache(max_bytes, max_entries, lambda s: len(s.data),
                                                      slow_s=slow_s, keep_slow_s=keep_slow_s)

    @property
    def computed(self) -> int:
        """Computations started, for tests and the load figures."""
        return self.cache.computed

    def stats(self) -> tuple[int, int]:
        """(entries, bytes of pickles) held now."""
        return self.cache.stats()

    def clear(self) -> None:
        self.cache.clear()

    def has(self, key: Key) -> bool:
        """Whether `key` is stored now (nothing unpickled, its last use untouched)."""
        return self.cache.has(key)

    def drop_unused(self, idle_s: float) -> int:
        """Drop what nobody used for `idle_s` s (slow results: for KEEP_SLOW_S); how many."""
        return self.cache.drop_unused(idle_s)

    def peek(self, key: Key) -> tuple[Any, dict[str, Any]] | None:
        """(value, meta) if stored, without computing anything."""
        stored = self.cache.peek(key)
        return None if stored is None else (pickle.loads(stored.data), dict(stored.meta))

    def get_or_compute(self, key: Key, compute: Callable[[Flight], tuple[Any, dict[str, Any]]],
                       wait: Callable[[Flight], None]) -> tuple[Any, dict[str, Any]]:
        """(value, meta) for `key`: stored, or `compute(flight)` once however many sessions ask at a
        time; the others call `wait(flight)` meanwhile (SharedCache.get_or_compute)."""
        fresh: list[Any] = []

        def computed(flight: Flight) -> Stored:
            value, meta = compute(flight)
            fresh.append(value)
            return Stored(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), dict(meta))

        stored = self.cache.get_or_compute(key, computed, wait)
        value = fresh[0] if fresh else pickle.loads(stored.data)
        return value, dict(stored.meta)
