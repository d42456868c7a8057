"""The server's shared objects, one of each per process (one process serves every session).

- `STORE`: where what is shared lives (server.store): this process's memory (`MemoryStore`, the
  default), or a Redis server shared by several replicas when `ASE_REDIS_URL` (or the app's
  `redis_url` secret, which app.py passes in through that variable) names one: the rooms, the rate
  limits and the heavy jobs' admission, none of which may be evicted (a `noeviction` Redis);
- `CACHE`: where computed results are shared: the Redis `ASE_REDIS_CACHE_URL` names (an
  `allkeys-lru` one, whose evictions therefore never reach a room), else `STORE`;
- the Redis password: from the file `ASE_REDIS_PASSWORD_FILE` names (a compose secret, a mounted
  Kubernetes Secret), never from a command line; a password in the URL still works. Every log line
  has passwords masked (server.log_mask, installed on first import);
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
import urllib.parse

from server import log_mask
from server.gates import Gate
from server.memory import IdleJanitor, MemoryTrim, configure_allocator
from server.results import ResultStore
from server.room_bus import RoomBus
from server.rooms import MAX_ROOMS, MAX_STUDENTS, Rooms
from server.runs import FIRST_WAIT_S, RunRegistry
from server.store import REDIS_URL_ENV, MemoryStore, RedisStore, Store
from server.threads import configure_threads, torch_threads_at_load

REDIS_CACHE_URL_ENV = "ASE_REDIS_CACHE_URL"        # the results' Redis (allkeys-lru); default: ASE_REDIS_URL
REDIS_PASSWORD_FILE_ENV = "ASE_REDIS_PASSWORD_FILE"  # a file holding the password of both
HEAVY_SLOTS = 1             # heavy jobs running at once on one server (with Redis: on all of them)
LIGHT_SLOTS = 2             # other computations running at once: the server's cores


def open_store(url: str | None, password: str | None = None) -> Store:
    """A `RedisStore` on `url` (redis:// or rediss://; `password`, else the URL's), or this process's
    `MemoryStore` when there is none, or when the URL is malformed (logged: the pages work on one
    server rather than not at all); nothing is connected yet, the first use connects."""
    if not url:
        return MemoryStore()
    try:
        return RedisStore(url, password=password)
    except ValueError as exc:
        logging.getLogger("server.shared").error(
            "%s is not a Redis URL (%s): serving from this process alone", REDIS_URL_ENV, exc)
        return MemoryStore()


def redis_password(path: str | None = None) -> str | None:
    """The password in the file `path` (default: $ASE_REDIS_PASSWORD_FILE), without its line end;
    None when no file is named, or it cannot be read (logged: the URL's own password, if any, then
    applies)."""
    path = os.environ.get(REDIS_PASSWORD_FILE_ENV, "").strip() if path is None else path
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip("\r\n") or None
    except OSError as exc:
        logging.getLogger("server.shared").error("%s: cannot read %s (%s)", REDIS_PASSWORD_FILE_ENV,
                                                 path, type(exc).__name__)
        return None


def with_password(url: str, password: str | None) -> str:
    """`url` with `password` as its user information (for a client that takes a URL only: the room
    bus); kept in this process's memory, masked in its logs."""
    if not url or not password:
        return url
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    netloc = f"{urllib.parse.quote(user, safe='')}:{urllib.parse.quote(password, safe='')}@{host}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


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
log_mask.install()
REDIS_URL = os.environ.get(REDIS_URL_ENV, "").strip() or None
REDIS_PASSWORD = redis_password() if REDIS_URL else None
STORE = open_store(REDIS_URL, REDIS_PASSWORD)
CACHE_URL = os.environ.get(REDIS_CACHE_URL_ENV, "").strip() or None
CACHE = open_store(CACHE_URL, REDIS_PASSWORD) if CACHE_URL and STORE.shared else STORE
RESULTS = ResultStore(shared=CACHE if CACHE.shared else None)
HEAVY = STORE.gate("heavy", HEAVY_SLOTS)
LIGHT = Gate(LIGHT_SLOTS)
RUNS = RunRegistry()
ROOMS = Rooms(STORE, max_rooms=env_int("ASE_MAX_ROOMS", MAX_ROOMS),
              max_students=env_int("ASE_MAX_STUDENTS", MAX_STUDENTS),
              bus=RoomBus(with_password(REDIS_URL or "", REDIS_PASSWORD) if STORE.shared else None,
                          hold=lambda: RUNS.wait_for_first(FIRST_WAIT_S, waves=False)))
RUNS.waves = ROOMS.bus.waving
give_back_memory = MemoryTrim()
JANITOR = IdleJanitor(RUNS, MemoryTrim(every=0.0), evictors=[RESULTS.drop_unused])
