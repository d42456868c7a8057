"""`RedisStore`: the `server.store.Store` on one Redis server shared by every replica (redis-py; short
socket timeouts). When Redis cannot be reached, every call answers "nothing there" at once, one
warning line is logged, and Redis is tried again at most every `retry_s` seconds, lazily, by the next
call that comes: the pages keep working on their own process's cache and are shared again once Redis
is back. The wait between tries starts at `first_retry_s` and doubles at each failed try up to
`retry_s`, so a short blip is over within a fraction of a second, while a Redis that stays down sees
at most one try per process every `retry_s` (one call tries; every other call meanwhile answers
"nothing there" without waiting). Imported by `server.store` on first use of the name `RedisStore`
(redis-py loads only then).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from server.admission import SharedGate
from server.store_keys import (
    FIELD_RE,
    FIRST_RETRY_S,
    LOG,
    RETRY_S,
    TIMEOUT_S,
    _checked,
    _checked_field,
    _without_password,
)

T = TypeVar("T")

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
# GCRA (server.store._rate_step) on Redis' own clock, so that every replica reads the same time.
# ARGV: µs one unit of cost adds, µs of burst the bucket holds → 1 taken, 0 refused. The key holds
# the theoretical arrival time in µs and expires when the bucket is full again.
_RATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now) or now
if tat < now then tat = now end
local new = tat + tonumber(ARGV[1])
if new - now > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.max(1, math.ceil((new - now) / 1000)))
return 1
"""


class RedisStore:
    """A Store on a Redis server shared by every replica, falling back to "nothing there" while down."""

    shared = True

    def __init__(self, url: str, timeout_s: float = TIMEOUT_S, retry_s: float = RETRY_S,
                 clock: Callable[[], float] = time.monotonic, password: str | None = None,
                 first_retry_s: float = FIRST_RETRY_S) -> None:
        """`password` (read from a file by server.shared) wins over one in the URL. While Redis is
        down it is tried again `first_retry_s` after the first failure, then after twice as long at
        each failed try, never more than `retry_s` apart."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.where = _without_password(url)
        self.retry_s, self.clock = retry_s, clock
        self.first_retry_s = min(first_retry_s, retry_s)
        self._wait_s = self.first_retry_s  # the wait after the next failed try
        # one immediate retry: a connection left over from before a restart fails once, then reconnects
        self.client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                           retry=Retry(NoBackoff(), 1), health_check_interval=30,
                                           **({"password": password} if password else {}))
        self._unreachable = (redis.ConnectionError, redis.TimeoutError, OSError)
        self._refused = redis.ResponseError  # a command Redis answered with an error (out of memory …)
        self._lock = threading.Lock()
        self._up, self._next_try, self._probing = True, 0.0, False
        self._logged: set[str] = set()
        self._count: dict[str, int] = {"outages": 0, "unreachable": 0, "refused": 0, "skipped": 0}
        self._extend = self.client.register_script(_EXTEND)
        self._release = self.client.register_script(_RELEASE)
        self._map_put = self.client.register_script(_MAP_PUT)
        self._rate = self.client.register_script(_RATE)

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
            if self._up:
                self._wait_s = self.first_retry_s
            self._probing, self._next_try = False, self.clock() + self._wait_s
            self._wait_s = min(self.retry_s, self._wait_s * 2)
            if self._up:
                self._up = False
                self._count["outages"] += 1
                LOG.warning("shared store %s unreachable (%s: %s): serving from this process alone, "
                            "trying again within %g s", self.where, type(exc).__name__, exc, self.retry_s)

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

    def map_fields(self, key: str, fields: tuple[str, ...]) -> dict[str, bytes] | None:
        """The named fields the map holds (HMGET: one round trip, whatever the map's size); None
        while Redis is down."""
        names = [_checked_field(f) for f in fields]
        if not names:
            return {}
        raw = self.call("HMGET", lambda r: r.hmget(_checked(key), names), None)
        if raw is None:
            return None
        return {f: v for f, v in zip(names, raw, strict=True) if isinstance(v, bytes)}

    def map_drop(self, key: str, field: str) -> None:
        self.call("HDEL", lambda r: r.hdel(_checked(key), _checked_field(field)), 0)

    def rate(self, key: str, per_s: float, burst: float, cost: float = 1.0) -> bool | None:
        """Take `cost` from the bucket `key`, shared by every replica; None while Redis is down or
        refuses (the caller decides: server.limits.SharedRateLimit falls back to its own bucket)."""
        step, depth = max(1, round(cost / per_s * 1e6)), round(burst / per_s * 1e6)
        done = self.call("RATE", lambda r: self._rate(keys=[_checked(key)], args=[step, depth]), None)
        return None if done is None else bool(done)

    def gate(self, name: str, slots: int) -> SharedGate:
        """Admission across every replica sharing this Redis, with a local gate while it is down."""
        return SharedGate(self, name, slots)
