"""Heavy jobs admitted across every replica sharing one Redis: `SharedGate`, the multi-server
`server.gates.Gate`.

At most `slots` heavy jobs run at once on all the servers together; the others wait in the order
they asked (one queue for every replica), each told how many run or wait ahead of it, as on one
server. Every ticket, waiting or running, holds a lease in Redis that its replica renews (a waiting
job at each look, a running one from a heartbeat thread): a replica killed mid-job gives its slot
and its places back once the lease lapses (`LEASE_S`), instead of holding them forever.

Three sorted sets per gate, changed only by the Lua scripts below, each one atomic on the server:
`…:q` tickets waiting (score: arrival number, from the counter `…:seq`), `…:run` tickets running,
`…:lease` every ticket's expiry (milliseconds of Redis's own clock, so the replicas' clocks never
matter). While Redis cannot be reached a job is admitted by this process's own `Gate` (one server's
limit, as without Redis); jobs already running keep running.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from server.cache import POLL_S
from server.gates import Gate

T = TypeVar("T")


class ScriptStore(Protocol):
    """What the gate needs of server.store.RedisStore: its client (to register the scripts) and
    `call`, which answers a default while Redis is down."""

    client: Any

    def call(self, op: str, fn: Callable[[Any], T], default: T) -> T: ...

LEASE_S = 15.0              # a ticket whose replica stopped renewing it is dropped after this long
LOG = logging.getLogger("server.admission")

# KEYS: q, run, lease, seq. Every script first drops the tickets whose lease has lapsed.
_PURGE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, d in ipairs(dead) do
  redis.call('ZREM', KEYS[1], d); redis.call('ZREM', KEYS[2], d); redis.call('ZREM', KEYS[3], d)
end
"""
# ARGV: ticket, lease ms → its arrival number
_ENTER = _PURGE + """
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[1], seq, ARGV[1])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
return seq
"""
# ARGV: ticket, slots, lease ms → -1 admitted, -2 ticket gone (enter again), else jobs ahead
_POLL = _PURGE + """
if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then return -2 end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return -1 end
local place = redis.call('ZRANK', KEYS[1], ARGV[1])
if not place then return -2 end
local running = redis.call('ZCARD', KEYS[2])
if place < tonumber(ARGV[2]) - running then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  return -1
end
return running + place
"""
# ARGV: ticket, lease ms → 1 renewed, 0 the ticket is gone
_BEAT = _PURGE + """
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
return 1
"""
_LEAVE = """
for i = 1, 3 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
"""
_LOAD = _PURGE + """
return {redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[1])}
"""


class SharedGate:
    """At most `slots` jobs at once across every replica; the same face as `Gate` (`slots`,
    `load()`, `slot(wait)`), with `local` (a `Gate`) taking over while Redis is down."""

    def __init__(self, store: ScriptStore, name: str, slots: int, lease_s: float = LEASE_S,
                 poll_s: float = POLL_S) -> None:
        self.store, self.slots, self.lease_s, self.poll_s = store, slots, lease_s, poll_s
        self.local = Gate(slots)
        base = f"ase:v1:gate:{name}:"
        self.keys = [base + "q", base + "run", base + "lease", base + "seq"]
        self._ms = max(1, int(lease_s * 1000))
        scripts = {"enter": _ENTER, "poll": _POLL, "beat": _BEAT, "leave": _LEAVE, "load": _LOAD}
        self._scripts = {k: store.client.register_script(v) for k, v in scripts.items()}
        self._count: dict[str, int] = {"admitted": 0, "local": 0, "requeued": 0, "lost": 0}
        self._lock = threading.Lock()

    def _run(self, script: str, *args: Any) -> Any:
        """The script's answer, or None while Redis is down or refuses it."""
        run = self._scripts[script]
        return self.store.call(f"gate {script}", lambda r: run(keys=self.keys, args=list(args)), None)

    def _counted(self, what: str) -> None:
        with self._lock:
            self._count[what] += 1

    def counters(self) -> dict[str, int]:
        with self._lock:
            return dict(self._count)

    def load(self) -> tuple[int, int]:
        """(running, waiting) on every replica now; this process's own while Redis is down."""
        got = self._run("load")
        if got is None:
            return self.local.load()
        return int(got[0]), int(got[1])

    @contextlib.contextmanager
    def slot(self, wait: Callable[[int, float], None]) -> Iterator[None]:
        """Hold one of the shared slots for the `with` body; until one is free call
        `wait(ahead, seconds_waited)` every `poll_s` s. Redis down before the slot is had: the
        local gate admits instead (counted)."""
        ticket, start = f"{uuid.uuid4().hex}", time.monotonic()
        admitted = self._admit(ticket, wait, start)
        if not admitted:
            self._counted("local")
            with self.local.slot(lambda ahead, _s: wait(ahead, time.monotonic() - start)):
                yield
            return
        self._counted("admitted")
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(ticket, stop), name="gate heartbeat",
                                daemon=True)
        beat.start()
        try:
            yield
        finally:
            stop.set()
            beat.join(self.lease_s)
            self._run("leave", ticket)

    def _admit(self, ticket: str, wait: Callable[[int, float], None], start: float) -> bool:
        """Queue `ticket` and wait for its turn: True once admitted, False when Redis went away (the
        ticket then leaves the queue, or its lease lapses)."""
        if self._run("enter", ticket, self._ms) is None:
            return False
        try:
            while True:
                got = self._run("poll", ticket, self.slots, self._ms)
                if got is None:
                    return False
                if got == -1:
                    return True
                if got == -2:  # its lease lapsed (a long pause) or Redis lost its data: queue again
                    self._counted("requeued")
                    if self._run("enter", ticket, self._ms) is None:
                        return False
                    continue
                wait(int(got), time.monotonic() - start)
                time.sleep(self.poll_s)
        except BaseException:  # the run was stopped while it waited: give the place back
            self._run("leave", ticket)
            raise

    def _heartbeat(self, ticket: str, stop: threading.Event) -> None:
        while not stop.wait(self.lease_s / 3):
            if self._run("beat", ticket, self._ms) == 0:
                self._counted("lost")
                if self._count["lost"] == 1:
                    LOG.warning("a heavy job's slot lapsed while it ran (its heartbeat came too late); "
                                "it runs on, outside the limit (logged once, counted in counters())")
                return
