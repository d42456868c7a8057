"""The server's shared objects, one of each per process (one process serves every session).

- `STORE`: where what is shared lives (server.store): this process's memory (`MemoryStore`, the
  default), or a Redis server shared by several replicas when `ASE_REDIS_URL` (or the app's
  `redis_url` secret, which app.py passes in through that variable) names one;
- `RESULTS`: core results, computed once per distinct call for every session (server.results) —
  with Redis, once for every replica as well;
- `HEAVY`: heavy jobs (the cost page's live timing, the training page) one at a time, in the
  order they asked — with Redis, one at a time across every replica (server.admission); `LIGHT`:
  every other computation, at most two at a time on this process's cores (server.gates);
- `RUNS`: the script runs in progress (server.runs);
- `ROOMS`: the live classes (server.rooms), in `STORE`: with Redis, a class outlives its replica;
- `give_back_memory()`: malloc_trim after a computation, at most every few seconds; `JANITOR`:
  the clean-up once the server is quiet, which the other caches join (`JANITOR.evictors`);
- on first import, once per process and before the sessions' threads allocate much: glibc's
  allocator (server.memory) and the numerical libraries' thread pools (server.threads) set.

Pages reach these through pages/ui/compute.py; app.py's router marks each run's start and end.
"""

from __future__ import annotations

import logging
import os

from server.gates import Gate
from server.memory import IdleJanitor, MemoryTrim, configure_allocator
from server.results import ResultStore
from server.room_bus import RoomBus
from server.rooms import MAX_ROOMS, MAX_STUDENTS, Rooms
from server.runs import RunRegistry
from server.store import REDIS_URL_ENV, MemoryStore, RedisStore, Store
from server.threads import configure_threads, torch_threads_at_load

HEAVY_SLOTS = 1             # heavy jobs running at once on one server (with Redis: on all of them)
LIGHT_SLOTS = 2             # other computations running at once: the server's cores


def open_store(url: str | None) -> Store:
    """A `RedisStore` on `url` (redis:// or rediss://, password in the URL), or this process's
    `MemoryStore` when there is none, or when the URL is malformed (logged: the pages work on one
    server rather than not at all); nothing is connected yet, the first use connects."""
    if not url:
        return MemoryStore()
    try:
        return RedisStore(url)
    except ValueError as exc:
        logging.getLogger("server.shared").error(
            "%s is not a Redis URL (%s): serving from this process alone", REDIS_URL_ENV, exc)
        return MemoryStore()


def env_int(name: str, default: int) -> int:
    """A positive whole number from the environment; the default (logged) when it is not one."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    logging.getLogger("server.shared").error("%s=%r is not a positive whole number: using %d",
                                             name, raw, default)
    return default


configure_allocator()
configure_threads()
torch_threads_at_load()
STORE = open_store(os.environ.get(REDIS_URL_ENV, "").strip() or None)
RESULTS = ResultStore(shared=STORE if STORE.shared else None)
HEAVY = STORE.gate("heavy", HEAVY_SLOTS)
LIGHT = Gate(LIGHT_SLOTS)
RUNS = RunRegistry()
ROOMS = Rooms(STORE, max_rooms=env_int("ASE_MAX_ROOMS", MAX_ROOMS),
              max_students=env_int("ASE_MAX_STUDENTS", MAX_STUDENTS),
              bus=RoomBus(os.environ.get(REDIS_URL_ENV, "").strip() if STORE.shared else None))
give_back_memory = MemoryTrim()
JANITOR = IdleJanitor(RUNS, MemoryTrim(every=0.0), evictors=[RESULTS.drop_unused])
