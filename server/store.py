"""Bytes by key with a time to live, kept in this process or shared by several servers (replicas).

- `Store`: the interface: get / set with a TTL / delete / exists / touch, a claim on a key (set if
  absent, extend, release: one replica computes while the others wait), small maps of fields (a class
  room's answers: put a field, with an optional cap on the number of fields, read all, drop one,
  each put atomic on the server) and `gate(name, slots)` for the admission of heavy jobs. Nothing
  here knows what the bytes mean (server.codec writes and reads
  them) and nothing imports Streamlit: the app passes the URL in (server.shared).
- `MemoryStore`: this process only, the default: nothing to install, bounded by bytes, least recently
  used out (a `SharedCache`); its gate is the local `server.gates.Gate`.
- `RedisStore`: one Redis server shared by every replica (redis-py; short socket timeouts). When
  Redis cannot be reached, every call answers "nothing there" at once, one warning line is logged,
  and Redis is tried again at most every `retry_s` seconds, lazily, by the next call that comes: the
  pages keep working on their own process's cache and are shared again once Redis is back.

Keys are `NAMESPACE` + a kind + a hex digest of validated parameters (`store_key`), never text a
user typed.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from server.admission import SharedGate
from server.cache import SharedCache
from server.gates import Gate

REDIS_URL_ENV = "ASE_REDIS_URL"  # the shared store's address (the app passes its redis_url secret in here)
NAMESPACE = "ase:v1:"
KEY_RE = re.compile(r"ase:v1:[a-z][a-z0-9_:-]{0,40}:[0-9a-f]{16,64}|ase:v1:gate:[a-z0-9_-]{1,32}:[a-z]{1,8}")
MEMORY_BYTES = 16 * 2**20   # what a MemoryStore holds, all keys together
MEMORY_ENTRIES = 4096
TIMEOUT_S = 0.5             # Redis socket timeouts: a store that does not answer is treated as down
RETRY_S = 5.0               # a down store is tried again at most this often
FIELD_RE = re.compile(r"[a-z0-9._-]{1,64}")  # a map's field names: ids and numbers we made, never typed text
MEMORY_MAPS = 1024          # maps a MemoryStore holds (the soonest to expire go first beyond that)
LOG = logging.getLogger("server.store")
T = TypeVar("T")


def store_key(kind: str, digest: str) -> str:
    """`ase:v1:<kind>:<digest>`; `digest` must be hex (server.codec.canonical_hash of the parameters)."""
    key = f"{NAMESPACE}{kind}:{digest}"
    if not KEY_RE.fullmatch(key):
        raise ValueError(f"not a store key: {key!r}")
    return key


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
    def map_drop(self, key: str, field: str) -> None: ...
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
            fields = dict(fields, **{field: bytes(data)})
            self._maps[key] = (self.clock() + ttl_s, fields)
            if len(self._maps) > MEMORY_MAPS:
                del self._maps[min(self._maps, key=lambda k: self._maps[k][0])]
            return True

    def map_get(self, key: str) -> dict[str, bytes] | None:
        """Every field of the map `key` ({} when there is none)."""
        with self._lock:
            return dict(self._live_map(key))

    def map_drop(self, key: str, field: str) -> None:
        with self._lock:
            entry = self._maps.get(key)
            if entry is not None and field in entry[1]:
                self._maps[key] = (entry[0], {f: v for f, v in entry[1].items() if f != field})

    def _live_map(self, key: str) -> dict[str, bytes]:
        entry = self._maps.get(key)
        if entry is None:
            return {}
        if entry[0] <= self.clock():
            del self._maps[key]
            return {}
        return entry[1]

    def gate(self, name: str, slots: int) -> Gate:
        """This process's own gate: exactly the single-server admission."""
        return Gate(slots)

    def counters(self) -> dict[str, int]:
        entries, size = self.cache.stats()
        return {"entries": entries, "bytes": size, "maps": len(self._maps)}


_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# ARGV: field, value, ttl ms, cap (0: none) → 1 set, 0 the map is full
_MAP_PUT = """
local cap = tonumber(ARGV[4])
if cap > 0 and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= cap then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""


class RedisStore:
    """A Store on a Redis server shared by every replica, falling back to "nothing there" while down."""

    shared = True

    def __init__(self, url: str, timeout_s: float = TIMEOUT_S, retry_s: float = RETRY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.where = _without_password(url)
        self.retry_s, self.clock = retry_s, clock
        # one immediate retry: a connection left over from before a restart fails once, then reconnects
        self.client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                           retry=Retry(NoBackoff(), 1), health_check_interval=30)
        self._unreachable = (redis.ConnectionError, redis.TimeoutError, OSError)
        self._refused = redis.ResponseError  # a command Redis answered with an error (out of memory …)
        self._lock = threading.Lock()
        self._up, self._next_try, self._probing = True, 0.0, False
        self._logged: set[str] = set()
        self._count: dict[str, int] = {"outages": 0, "unreachable": 0, "refused": 0, "skipped": 0}
        self._extend = self.client.register_script(_EXTEND)
        self._release = self.client.register_script(_RELEASE)
        self._map_put = self.client.register_script(_MAP_PUT)

    # ------------------------------------------------------------ health

    @property
    def up(self) -> bool:
        """Whether the last call reached Redis."""
        return self._up

    def _may_call(self) -> bool:
        """Up, or down with its retry due (then this call is the one that tries)."""
        with self._lock:
            if self._up:
                return True
            if self._probing or self.clock() < self._next_try:
                self._count["skipped"] += 1
                return False
            self._probing = True
            return True

    def _went_down(self, exc: BaseException) -> None:
        with self._lock:
            self._count["unreachable"] += 1
            self._probing, self._next_try = False, self.clock() + self.retry_s
            if self._up:
                self._up = False
                self._count["outages"] += 1
                LOG.warning("shared store %s unreachable (%s: %s): serving from this process alone, "
                            "trying again every %g s", self.where, type(exc).__name__, exc, self.retry_s)

    def _reached(self) -> None:
        if self._up:
            return
        with self._lock:
            was_down, self._up, self._probing = not self._up, True, False
        if was_down:
            LOG.info("shared store %s reachable again: shared once more", self.where)

    def call(self, op: str, fn: Callable[[Any], T], default: T) -> T:
        """fn(client), or `default` while Redis is down or when it refuses the command (each kind of
        refusal logged once, every one counted)."""
        if not self._may_call():
            return default
        try:
            result = fn(self.client)
        except self._unreachable as exc:
            self._went_down(exc)
            return default
        except self._refused as exc:
            self._reached()
            with self._lock:
                self._count["refused"] += 1
                first = op not in self._logged
                self._logged.add(op)
            if first:
                LOG.warning("shared store %s refused %s (%s); counted from now on", self.where, op, exc)
            return default
        except BaseException:
            with self._lock:
                self._probing = False
            raise
        self._reached()
        return result

    def counters(self) -> dict[str, int]:
        with self._lock:
            return dict(self._count, up=int(self._up))

    # ------------------------------------------------------------ the Store interface

    def get(self, key: str) -> bytes | None:
        return self.call("GET", lambda r: r.get(_checked(key)), None)

    def set(self, key: str, data: bytes, ttl_s: float) -> bool:
        ms = max(1, math.ceil(ttl_s * 1000))
        return bool(self.call("SET", lambda r: r.set(_checked(key), data, px=ms), False))

    def delete(self, key: str) -> None:
        self.call("DEL", lambda r: r.delete(_checked(key)), 0)

    def exists(self, key: str) -> bool:
        return bool(self.call("EXISTS", lambda r: r.exists(_checked(key)), 0))

    def claim(self, key: str, token: str, ttl_s: float) -> bool | None:
        """True: claimed; False: another holds it; None: Redis is down or refused (go ahead alone)."""
        ms = max(1, math.ceil(ttl_s * 1000))
        return self.call("SET NX", lambda r: bool(r.set(_checked(key), token, px=ms, nx=True)), None)

    def extend(self, key: str, token: str, ttl_s: float) -> bool:
        ms = max(1, math.ceil(ttl_s * 1000))
        return bool(self.call("EXTEND", lambda r: self._extend(keys=[_checked(key)], args=[token, ms]), 0))

    def release(self, key: str, token: str) -> None:
        self.call("RELEASE", lambda r: self._release(keys=[_checked(key)], args=[token]), 0)

    def touch(self, key: str, ttl_s: float) -> bool:
        ms = max(1, math.ceil(ttl_s * 1000))
        return bool(self.call("PEXPIRE", lambda r: r.pexpire(_checked(key), ms), 0))

    def map_put(self, key: str, field: str, data: bytes, ttl_s: float, cap: int = 0) -> bool | None:
        """True: set; False: the map already has `cap` fields; None: Redis is down or refused."""
        ms = max(1, math.ceil(ttl_s * 1000))
        args = [_checked_field(field), data, ms, int(cap)]
        done = self.call("MAP PUT", lambda r: self._map_put(keys=[_checked(key)], args=args), None)
        return None if done is None else bool(done)

    def map_get(self, key: str) -> dict[str, bytes] | None:
        """Every field of the map (None while Redis is down: unknown, not empty); fields that are
        not ours are left out."""
        raw = self.call("HGETALL", lambda r: r.hgetall(_checked(key)), None)
        if raw is None:
            return None
        out: dict[str, bytes] = {}
        for f, v in raw.items():
            name = f.decode("ascii", "replace") if isinstance(f, bytes) else str(f)
            if FIELD_RE.fullmatch(name) and isinstance(v, bytes):
                out[name] = v
        return out

    def map_drop(self, key: str, field: str) -> None:
        self.call("HDEL", lambda r: r.hdel(_checked(key), _checked_field(field)), 0)

    def gate(self, name: str, slots: int) -> SharedGate:
        """Admission across every replica sharing this Redis, with a local gate while it is down."""
        return SharedGate(self, name, slots)


def _checked(key: str) -> str:
    if not KEY_RE.fullmatch(key):
        raise ValueError(f"not a store key: {key!r}")
    return key


def _checked_field(field: str) -> str:
    if not FIELD_RE.fullmatch(field):
        raise ValueError(f"not a map field: {field!r}")
    return field


def _without_password(url: str) -> str:
    """The URL as a log line may show it: redis://host:port/db, no user or password."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}" if sep else "redis"


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
