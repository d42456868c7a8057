"""Parts of a figure kept by what they were computed from, so figures that share a part compute it once.

A page's figure is keyed by its settings, but several settings lead to the same work: the variance
sweep draws the same samples for every n once its budget caps them (core.figure_budget), the overview
and the topic pages run the same saturation and gradient sweeps, and a trial count above what the
budget affords runs the affordable count. `Memo` keys such a part by the parameters it was actually
run with, so moving n on the overview recomputes saturation and gradients but not the variance sweep.

Pure Python (no Streamlit): thread-safe, bounded by entry count (the parts are rows of floats, a few
kB each), least recently used first out; values are handed out as copies, so no caller can change
what another gets.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Container, Hashable
from typing import Any

MEMO_ENTRIES = 256


def drop_idle(entries: OrderedDict[Any, Any], used: dict[Any, float], idle_s: float,
              size: Callable[[Any], int], longer: Container[Any] = (), longer_s: float = 0.0
              ) -> tuple[int, int]:
    """From an LRU-ordered cache and its last-use times (time.monotonic), drop the entries unused
    for `idle_s` seconds, those in `longer` only once unused for max(idle_s, longer_s); (how many,
    their total `size`). The caller holds the cache's lock."""
    now, dropped, freed = time.monotonic(), 0, 0
    for key in list(entries):  # least recently used first
        age = now - used.get(key, -float("inf"))
        if key in longer and age < longer_s:
            continue
        if age < idle_s:
            break  # every later entry was used more recently still
        freed += size(entries.pop(key))
        used.pop(key, None)
        dropped += 1
    return dropped, freed


def frozen(value: Any) -> Any:
    """A hashable stand-in for nested lists, tuples and dicts (lists count as tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    return value


class Memo:
    """Values by key, at most `max_entries`, least recently used first out.

    `get_or_compute(key, compute)` returns a copy of the kept value, or runs `compute()` (outside
    the lock, so other keys are served meanwhile), keeps it and returns a copy. Two callers asking
    for the same missing key at once may both compute it; the parts are small and the pages'
    own result store already makes sessions wait for each other's whole figure.
    """

    def __init__(self, max_entries: int = MEMO_ENTRIES) -> None:
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._used: dict[Hashable, float] = {}
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self._used[key] = time.monotonic()
                self.hits += 1
                return copy.deepcopy(self._entries[key])
            self.misses += 1
        value = compute()
        kept = copy.deepcopy(value)
        with self._lock:
            self._entries[key] = kept
            self._entries.move_to_end(key)
            self._used[key] = time.monotonic()
            while len(self._entries) > self.max_entries:
                old, _ = self._entries.popitem(last=False)
                self._used.pop(old, None)
        return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._used.clear()

    def drop_unused(self, idle_s: float) -> int:
        """Drop the values nobody has asked for in `idle_s` seconds; how many were dropped."""
        with self._lock:
            dropped, _ = drop_idle(self._entries, self._used, idle_s, lambda _value: 0)
        return dropped
