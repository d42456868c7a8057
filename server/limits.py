"""Rate limits: a token bucket per name (a client's address, a student), in this process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimit:
    """A token bucket per name: `burst` at once, then `per_s` a second; at most `names` names kept
    (the least recently seen forgotten)."""

    def __init__(self, per_s: float, burst: float, names: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_s, self.burst, self.names, self.clock = per_s, burst, names, clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, name: str, cost: float = 1.0) -> bool:
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.pop(name, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.per_s)
            ok = tokens >= cost
            self._buckets[name] = (tokens - cost if ok else tokens, now)
            if len(self._buckets) > self.names:
                del self._buckets[next(iter(self._buckets))]
            return ok
