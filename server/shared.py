"""The server's shared objects, one of each per process (one process serves every session).

- `STORE`: where what is shared lives (server.store): this process's memory (`MemoryStore`, the
  default), or a Redis server shared by several replicas when `Settings.redis_url` names one
  (`ASE_REDIS_URL`, else the app's `redis_url` secret, which pages/ui/app_start.py reads): the
  rooms, the rate limits and the heavy jobs' admission, none of which may be evicted (a
  `noeviction` Redis);
- `CACHE`: where computed results are shared: the Redis `ASE_REDIS_CACHE_URL` names (an
  `allkeys-lru` one, whose evictions therefore never reach a room), else `STORE`;
- the Redis password: from the file `ASE_REDIS_PASSWORD_FILE` names (a compose secret, a mounted
  Kubernetes Secret), never from a command line; a password in the URL still works. Every log line
  has passwords masked (server.log_mask, installed by server.startup.start before this is built);
- `RESULTS`: core results, computed once per distinct call for every session (server.results) —
  with Redis, once for every replica as well;
- `HEAVY`: heavy jobs (the cost page's live timing, the training page) one at a time, in the
  order they asked — with Redis, one at a time across every replica (server.admission); `LIGHT`:
  every other computation, at most two at a time on this process's cores (server.gates);
- `RUNS`: the script runs in progress (server.runs);
- `ROOMS`: the live classes (server.rooms), in `STORE`: with Redis, a class outlives its replica;
- `give_back_memory()`: malloc_trim after a computation, at most every few seconds; `JANITOR`:
  the clean-up once the server is quiet, which the other caches join (`JANITOR.evictors`).

Importing this module builds none of them: `build(settings)` does, once per process, called by
server.startup.start in the start-up's order (docs/architecture.md#start-up). A name read before
that (a test, a tool that uses one object) builds them from the environment alone, on that first
use: so a module reads them as `shared.ROOMS` when it runs, never `from server.shared import ROOMS`
as it loads. Pages reach these through pages/ui/compute.py; app.py's router marks each run's start
and end.
"""

from __future__ import annotations

import logging
import os
import threading
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.gates import Gate
from server.memory import IdleJanitor, MemoryTrim
from server.results import ResultStore
from server.room_bus import RoomBus
from server.rooms import MAX_ROOMS, MAX_STUDENTS, Rooms
from server.runs import FIRST_WAIT_S, RunRegistry
from server.store import REDIS_URL_ENV, MemoryStore, RedisStore, Store

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


def env_int(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    """A positive whole number from the environment; the default (logged) when it is not one."""
    raw = (os.environ if environ is None else environ).get(name, "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    logging.getLogger("server.shared").error("%s=%r is not a positive whole number: using %d",
                                             name, raw, default)
    return default


@dataclass(frozen=True)
class Settings:
    """What the shared objects are built from: the store's and the cache's Redis URLs (None: this
    process's memory), the password both use, and the live classes' limits."""

    redis_url: str | None = None
    cache_url: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    max_rooms: int = MAX_ROOMS
    max_students: int = MAX_STUDENTS

    @classmethod
    def from_env(cls, secret_url: str | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment names: `ASE_REDIS_URL` (else `secret_url`, the app's
        `redis_url` secret), `ASE_REDIS_CACHE_URL`, the password in `ASE_REDIS_PASSWORD_FILE`,
        `ASE_MAX_ROOMS`, `ASE_MAX_STUDENTS`."""
        env = os.environ if environ is None else environ
        url = env.get(REDIS_URL_ENV, "").strip() or (secret_url or "").strip() or None
        return cls(redis_url=url, cache_url=env.get(REDIS_CACHE_URL_ENV, "").strip() or None,
                   password=redis_password(env.get(REDIS_PASSWORD_FILE_ENV, "").strip()) if url else None,
                   max_rooms=env_int("ASE_MAX_ROOMS", MAX_ROOMS, env),
                   max_students=env_int("ASE_MAX_STUDENTS", MAX_STUDENTS, env))


# The objects build() makes: declared here, absent from the module until then (see __getattr__).
OBJECTS = ("SETTINGS", "STORE", "CACHE", "RESULTS", "HEAVY", "LIGHT", "RUNS", "ROOMS", "give_back_memory",
           "JANITOR")
SETTINGS: Settings
STORE: Store
CACHE: Store
RESULTS: ResultStore
HEAVY: Any
LIGHT: Gate
RUNS: RunRegistry
ROOMS: Rooms
give_back_memory: MemoryTrim
JANITOR: IdleJanitor
_build_lock = threading.Lock()


def build(settings: Settings | None = None) -> bool:
    """Build the shared objects from `settings` (default: `Settings.from_env()`), once per process;
    True when this call built them. A later call with other settings changes nothing (logged)."""
    global SETTINGS, STORE, CACHE, RESULTS, HEAVY, LIGHT, RUNS, ROOMS, give_back_memory, JANITOR  # noqa: PLW0603
    with _build_lock:
        if built():
            if settings is not None and settings != SETTINGS:
                logging.getLogger("server.shared").warning(
                    "the shared objects were built already (on first use): their settings stay")
            return False
        s = Settings.from_env() if settings is None else settings
        store = open_store(s.redis_url, s.password)
        cache = open_store(s.cache_url, s.password) if s.cache_url and store.shared else store
        results = ResultStore(shared=cache if cache.shared else None)
        runs = RunRegistry()
        rooms = Rooms(store, max_rooms=s.max_rooms, max_students=s.max_students,
                      bus=RoomBus(with_password(s.redis_url or "", s.password) if store.shared else None,
                                  hold=lambda: runs.wait_for_first(FIRST_WAIT_S, waves=False)))
        runs.waves = rooms.bus.waving
        STORE, CACHE, RESULTS, RUNS, ROOMS = store, cache, results, runs, rooms
        HEAVY, LIGHT = store.gate("heavy", HEAVY_SLOTS), Gate(LIGHT_SLOTS)
        give_back_memory = MemoryTrim()
        JANITOR = IdleJanitor(runs, MemoryTrim(every=0.0), evictors=[results.drop_unused])
        SETTINGS = s  # last: built() is true once every object is there
        return True


def built() -> bool:
    """Whether build() has run in this process."""
    return "SETTINGS" in globals()


def __getattr__(name: str) -> Any:
    """A shared object read before build(): built now, from the environment (its first use)."""
    if name in OBJECTS:
        build()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
