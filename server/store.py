"""Bytes by key with a time to live, kept in this process or shared by several servers (replicas).

- `Store`: the interface: get / set with a TTL / delete / exists / touch, a claim on a key (set if
  absent, extend, release: one replica computes while the others wait), small maps of fields (a class
  room's answers: put a field, with an optional cap on the number of fields, read all, read a few
  named fields, drop one, each put atomic on the server) and `gate(name, slots)` for the admission
  of heavy jobs. Nothing here knows what the bytes mean (server.codec writes and reads them) and
  nothing imports Streamlit: the app passes the URL in (server.shared).
- `MemoryStore`: this process only, the default: nothing to install, bounded by bytes, least recently
  used out (a `SharedCache`); its gate is the local `server.gates.Gate`.
- `RedisStore` (server/redis_store.py): one Redis server shared by every replica (redis-py; short
  socket timeouts). When Redis cannot be reached, every call answers "nothing there" at once, one
  warning line is logged, and Redis is tried again lazily, by the next call that comes, one call at a
  time: first `FIRST_RETRY_S` (0.25 s) after the failure, then twice as long after each failed try,
  never more than `RETRY_S` (1 s) apart. The pages keep working on their own process's cache and are
  shared again at most about a second after Redis is back.
- `rate(key, per_s, burst, cost)`: one token bucket kept in the store (server.limits.SharedRateLimit),
  so every replica draws on the same allowance: one key per name whose value is the bucket's
  "theoretical arrival time" (GCRA) and whose expiry is the moment the bucket is full again.

Keys are `NAMESPACE` + a kind + a hex digest of validated parameters (`store_key`), never text a
user typed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from server.cache import SharedCache
from server.gates import Gate
from server.store_keys import (  # noqa: F401 (REDIS_URL_ENV, NAMESPACE, KEY_RE, store_key: the store's names)
    FIELD_RE,
    KEY_RE,
    NAMESPACE,
    REDIS_URL_ENV,
    _checked,
    _checked_field,
    store_key,
)

MEMORY_BYTES = 16 * 2**20   # what a MemoryStore holds, all keys together
MEMORY_ENTRIES = 4096
MEMORY_MAPS = 1024          # maps a MemoryStore holds (the soonest to expire go first beyond that)
MEMORY_RATES = 8192        # rate-limit names a MemoryStore keeps (the fullest buckets go first beyond that)


class Store(Protocol):
    """What the result store and the heavy gate need from a store (see the module docstring)."""

    shared: bool  # whether other processes see what this one writes

    def get(self, key: str) -> bytes | None: ...
    def set(self, key: str, data: bytes, ttl_s: float) -> bool: ...
    def delete(self, key: str) -> None: ...
    def exists(self, key: str) -> bool: ...
    def claim(self, key: str, token: str, ttl_s: float) -> bool | None: ...
    def extend(self, key: str, token: str, ttl_s: float) -> bool: ...
    def release(self, key: str, token: str) -> None: ...
    def touch(self, key: str, ttl_s: float) -> bool: ...
    def map_put(self, key: str, field: str, data: bytes, ttl_s: float, cap: int = 0) -> bool | None: ...
    def map_get(self, key: str) -> dict[str, bytes] | None: ...
    def map_fields(self, key: str, fields: tuple[str, ...]) -> dict[str, bytes] | None: ...
    def map_drop(self, key: str, field: str) -> None: ...
    def rate(self, key: str, per_s: float, burst: float, cost: float = 1.0) -> bool | None: ...
    def gate(self, name: str, slots: int) -> Any: ...
    def counters(self) -> dict[str, int]: ...


class MemoryStore:
    """A Store in this process: a `SharedCache` of (expiry, bytes), bounded by the bytes' sizes."""

    shared = False

    def __init__(self, max_bytes: int = MEMORY_BYTES, max_entries: int = MEMORY_ENTRIES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cache: SharedCache[tuple[float, bytes]] = SharedCache(max_bytes, max_entries,
                                                                   lambda entry: len(entry[1]))
        self.clock = clock
        # claims and maps: test and set as one step; reentrant, as release() deletes under it
        self._lock = threading.RLock()
        self._maps: dict[str, tuple[float, dict[str, bytes]]] = {}  # key → (expiry, fields)
        self._rates: dict[str, float] = {}  # key → the bucket's theoretical arrival time (GCRA)

    def get(self, key: str) -> bytes | None:
        entry = self.cache.peek(key)
        if entry is None:
            return None
        if entry[0] <= self.clock():
            self.cache.discard(key)
            return None
        return entry[1]

    def set(self, key: str, data: bytes, ttl_s: float) -> bool:
        self.cache.put(key, (self.clock() + ttl_s, bytes(data)))
        return self.cache.has(key)  # false for a value larger than the whole budget

    def delete(self, key: str) -> None:
        self.cache.discard(key)
        with self._lock:
            self._maps.pop(key, None)

    def exists(self, key: str) -> bool:
        return self.get(key) is not None

    def claim(self, key: str, token: str, ttl_s: float) -> bool | None:
        with self._lock:
            if self.exists(key):
                return False
            return self.set(key, token.encode(), ttl_s)

    def extend(self, key: str, token: str, ttl_s: float) -> bool:
        with self._lock:
            if self.get(key) != token.encode():
                return False
            return self.set(key, token.encode(), ttl_s)

    def release(self, key: str, token: str) -> None:
        with self._lock:
            if self.get(key) == token.encode():
                self.delete(key)

    def touch(self, key: str, ttl_s: float) -> bool:
        """A new expiry for a plain key or a map; whether there was one."""
        with self._lock:
            entry = self._maps.get(key)
            if entry is not None and entry[0] > self.clock():
                self._maps[key] = (self.clock() + ttl_s, entry[1])
                return True
            data = self.get(key)
            return data is not None and self.set(key, data, ttl_s)

    def map_put(self, key: str, field: str, data: bytes, ttl_s: float, cap: int = 0) -> bool | None:
        """Set `field` of the map `key` and its expiry; False when the map has `cap` (> 0) fields and
        this one is new."""
        _checked_field(field)
        with self._lock:
            fields = self._live_map(key)
            if cap > 0 and field not in fields and len(fields) >= cap:
                return False
            fields[field] = bytes(data)  # in place: the map is never handed out (map_get copies)
            self._maps[key] = (self.clock() + ttl_s, fields)
            if len(self._maps) > MEMORY_MAPS:
                del self._maps[min(self._maps, key=lambda k: self._maps[k][0])]
            return True

    def map_get(self, key: str) -> dict[str, bytes] | None:
        """Every field of the map `key` ({} when there is none)."""
        with self._lock:
            return dict(self._live_map(key))

    def map_fields(self, key: str, fields: tuple[str, ...]) -> dict[str, bytes] | None:
        """The named fields of the map `key` that it holds (a phone's own place or answer: one
        field read, whatever the size of the room)."""
        with self._lock:
            live = self._live_map(key)
            return {f: live[f] for f in map(_checked_field, fields) if f in live}

    def map_drop(self, key: str, field: str) -> None:
        with self._lock:
            entry = self._maps.get(key)
            if entry is not None:
                entry[1].pop(field, None)

    def _live_map(self, key: str) -> dict[str, bytes]:
        entry = self._maps.get(key)
        if entry is None:
            return {}
        if entry[0] <= self.clock():
            del self._maps[key]
            return {}
        return entry[1]

    def rate(self, key: str, per_s: float, burst: float, cost: float = 1.0) -> bool:
        """Take `cost` from the token bucket `key` (`burst` at once, then `per_s` a second); whether
        it had that much. Kept as its theoretical arrival time, as RedisStore keeps it."""
        _checked(key)
        with self._lock:
            now = self.clock()
            tat = self._rates.pop(key, now)
            new = _rate_step(tat, now, per_s, burst, cost)
            if new is None:
                self._rates[key] = tat
                return False
            self._rates[key] = new
            if len(self._rates) > MEMORY_RATES:
                full = [k for k, t in self._rates.items() if t <= now]  # full again: as if absent
                for k in full or [min(self._rates, key=self._rates.__getitem__)]:
                    del self._rates[k]
            return True

    def gate(self, name: str, slots: int) -> Gate:
        """This process's own gate: exactly the single-server admission."""
        return Gate(slots)

    def counters(self) -> dict[str, int]:
        entries, size = self.cache.stats()
        return {"entries": entries, "bytes": size, "maps": len(self._maps), "rates": len(self._rates)}


def _rate_step(tat: float, now: float, per_s: float, burst: float, cost: float) -> float | None:
    """GCRA, the token bucket as one number: the bucket holds (burst − (tat − now)·per_s) tokens, so
    taking `cost` moves `tat` (never earlier than now) on by cost ÷ per_s; None when that would hold
    fewer than none (refused, nothing taken)."""
    new = max(tat, now) + cost / per_s
    return None if new - now > burst / per_s + 1e-9 else new


def __getattr__(name: str) -> Any:
    """`server.store.RedisStore`, loaded on first use (server/redis_store.py; redis-py only then)."""
    if name == "RedisStore":
        from server.redis_store import RedisStore

        return RedisStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Lease:
    """Keeps a claimed key alive while its holder works: `extend` every `every_s` seconds in a
    daemon thread, and `beat()` (e.g. publish progress) with it; `lost` once an extension failed."""

    def __init__(self, store: Store, key: str, token: str, ttl_s: float,
                 beat: Callable[[], None] | None = None) -> None:
        self.store, self.key, self.token, self.ttl_s, self.beat = store, key, token, ttl_s, beat
        self.every_s = ttl_s / 3
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease {key[-8:]}", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            if not self.store.extend(self.key, self.token, self.ttl_s):
                self.lost = True
            if self.beat is not None:
                self.beat()

    @contextmanager
    def held(self) -> Iterator[Lease]:
        """Extend while the block runs; release the key after it."""
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(self.every_s + 1)
            self.store.release(self.key, self.token)
