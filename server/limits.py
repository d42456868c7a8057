"""Rate limits: a token bucket per name (a client's address, a student).

- `RateLimit`: the buckets in this process (one server, and tests that set the clock).
- `SharedRateLimit`: the same `allow(name, cost)` with the buckets kept in the store
  (`Store.rate`: one key per name with its expiry, a Lua script on Redis), so that N replicas
  sharing one Redis give one allowance, not N. Names are hashed into the key, never stored as typed.

While the store cannot be reached (`Store.rate` answers None), a `SharedRateLimit` falls back to a
`RateLimit` of its own with the same rate and burst: it fails towards *limited per replica*, never
towards unlimited (an outage must not open the door to a flood) and never towards refusing everyone
(a store fault is not the reader's doing: what depends on the store says "cannot be reached" itself,
and the limits keep working on each replica until Redis is back, at most N replicas' allowances).
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from server.store import store_key

KIND_RE = re.compile(r"[a-z][a-z0-9_-]{0,24}")


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


class SharedRateLimit:
    """`RateLimit`'s bucket (`burst` at once, then `per_s` a second) kept in `store` under
    `ase:v1:rate:<kind>:<hash of the name>`, shared by every process on that store; this process's
    own `RateLimit` while the store cannot be reached (see the module docstring)."""

    def __init__(self, store: Any, kind: str, per_s: float, burst: float, names: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not KIND_RE.fullmatch(kind):
            raise ValueError(f"not a rate limit's kind: {kind!r}")
        if per_s <= 0 or burst <= 0:
            raise ValueError("per_s and burst must be positive")
        self.store, self.kind, self.per_s, self.burst, self.names = store, kind, per_s, burst, names
        self.local = RateLimit(per_s, burst, names, clock)
        self.fallbacks = 0  # answers given by the local bucket because the store could not be reached

    def key(self, name: str) -> str:
        digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        return store_key(f"rate:{self.kind}", digest)

    def allow(self, name: str, cost: float = 1.0) -> bool:
        """Take `cost` from `name`'s bucket; whether it held that much (nothing taken when not)."""
        done = self.store.rate(self.key(name), self.per_s, self.burst, cost)
        if done is None:
            self.fallbacks += 1
            return self.local.allow(name, cost)
        return bool(done)
