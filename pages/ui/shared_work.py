"""Work shared by every session of one server (one process serves them all).

- `RESULTS`: core results, computed once per distinct call and kept as pickled bytes in a store
  bounded by its total size (not only its entry count); sessions asking for a result that is being
  computed wait for that computation instead of starting their own.
- `HEAVY`: heavy jobs (the cost page's live timing, the training page) run one at a time, in the
  order they asked; the others wait, told their place. Between its steps a running heavy job gives
  way to light work (`Courtesy`), within a bound that keeps it moving.
- `LIGHT`: every other computation, at most two at a time (the server's cores), in the order they
  asked: thirty sessions computing at once would share one interpreter lock and all finish late,
  and each would hold its arrays in memory meanwhile.
- `RUNS`: which script runs are in progress right now, so a live timing can say it was measured on
  a busy server.

- `give_back_memory()`: after a computation, hand the C allocator's free pages back to the system
  (glibc's malloc_trim, at most once every few seconds), so a class that has left does not leave
  the server holding its peak.
- `configure_allocator()` (once, when this module is first imported): glibc's allocator set for a
  server whose sessions run in many threads and free large arrays: at most two arenas, and arrays
  of 256 kB or more in their own pages, returned to the system when freed.
- `configure_threads()` and `torch_threads_at_load()` (once, when this module is first
  imported) and `compute_threads()` (before each computation, a no-op once SciPy's BLAS and torch
  are set): the numerical libraries' own thread pools (NumPy's and SciPy's OpenBLAS, torch's
  intra-op pool) at one thread for the whole server. Two light computations already run at
  once, one per core; a second BLAS or OpenMP thread in each only spin-waits against the
  other's (30 sessions + 3 heavy: the light computations' wall time 55.5 → 38.9 s for the same
  moves, their time waiting for a slot 61.8 → 7.9 s).
- `freeze_libraries()` (by the server's warm-up, pages/ui/serving.py, only while no session has
  run yet): the libraries' objects set aside from garbage collection, so that a full collection
  walks only what the sessions made.
- `JANITOR`: once the server has gone quiet after some activity, a full garbage collection and a
  trim, repeated for a while, so the memory of a class that has left goes back without anybody
  rerunning. (Streamlit drops a closed tab's session once server.disconnectedSessionTTL has passed
  and another tab disconnects; the caches and the heap are what the janitor can give back.)

Nothing here imports Streamlit: pages reach it through pages/ui/compute.py, and the tests drive it
from plain threads.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from core.memo import drop_idle, frozen

RESULT_BYTES = 64 * 2**20   # every stored result, all sessions together (pickled size)
RESULT_ENTRIES = 1024
HEAVY_SLOTS = 1             # heavy jobs running at once on one server
LIGHT_SLOTS = 2             # other computations running at once
COMPUTE_THREADS = 1         # threads of each numerical library's own pool (configure_threads)
YIELD_SHARE = 2.0           # a heavy job waits for light work at most twice as long as it works …
YIELD_STEP_S = 0.5          # … and at most this long at a time
POLL_S = 0.25               # how often a waiting session looks again (and updates what it shows)
TRIM_EVERY_S = 5.0          # the least time between two malloc_trim calls
# glibc mallopt: at most this many arenas (default 8 per core: each thread's frees stay in its own
# arena's pages), and the size from which a block gets its own pages. glibc raises that threshold
# by itself after large frees (up to 32 MB), after which freed arrays stay in the heap as holes.
ARENA_MAX = 2
MMAP_THRESHOLD = 256 * 1024
TRIM_THRESHOLD = 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
QUIET_S = 5.0               # the janitor waits until no script has run for this long …
CLEAN_EVERY_S = 10.0        # … cleans at most this often …
LINGER_S = 120.0            # … and stops this long after the last run
EVICT_AFTER_S = 45.0        # once that quiet, cached results and charts unused this long are dropped …
SLOW_RESULT_S = 1.0         # … but a result that took this long to compute (a live timing, a training)
KEEP_SLOW_S = 900.0         # is kept this long unused: a class comes back to the teacher's link later

Key = tuple[str, tuple[tuple[str, Any], ...]]


def result_key(path: str, kwargs: dict[str, Any]) -> Key:
    """The store's key for `path(**kwargs)` ("core.views:saturation_view"); lists count as tuples."""
    return path, tuple(sorted((k, frozen(v)) for k, v in kwargs.items()))


@dataclass
class Flight:
    """A computation in progress that other sessions may wait for."""

    done: threading.Event = field(default_factory=threading.Event)
    fraction: float = 0.0              # latest progress report, for the waiters' bars
    data: bytes | None = None          # the pickled result once done
    meta: dict[str, Any] = field(default_factory=dict)
    error: Exception | None = None     # a failure every waiter should see as well


class ResultStore:
    """Results by key, least recently used first out, within `max_bytes` and `max_entries`.

    A value is stored pickled: its size is known exactly, and every caller gets its own copy, so no
    session can change another's result. A value larger than the whole budget is returned, not kept.
    A value that took at least `slow_s` to compute outlives `drop_unused`'s idle time: it is dropped
    once unused for `keep_slow_s` (or pushed out by the budget, as any other).
    """

    def __init__(self, max_bytes: int = RESULT_BYTES, max_entries: int = RESULT_ENTRIES,
                 slow_s: float = SLOW_RESULT_S, keep_slow_s: float = KEEP_SLOW_S) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.slow_s, self.keep_slow_s = slow_s, keep_slow_s
        self._lock = threading.Lock()
        self._entries: OrderedDict[Key, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self._used: dict[Key, float] = {}  # last use (time.monotonic) of each entry
        self._slow: set[Key] = set()  # the entries that took at least slow_s to compute
        self._bytes = 0
        self._flights: dict[Key, Flight] = {}
        self.computed = 0  # computations started, for tests and the load figures

    def stats(self) -> tuple[int, int]:
        """(entries, bytes) held now."""
        with self._lock:
            return len(self._entries), self._bytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._used.clear()
            self._slow.clear()
            self._bytes = 0

    def drop_unused(self, idle_s: float) -> int:
        """Drop the entries nobody has used for `idle_s` seconds (for `keep_slow_s`, at least, those
        that were slow to compute); how many were dropped."""
        with self._lock:
            dropped, freed = drop_idle(self._entries, self._used, idle_s, lambda entry: len(entry[0]),
                                       longer=self._slow, longer_s=self.keep_slow_s)
            self._bytes -= freed
            self._slow &= self._entries.keys()
        return dropped

    def _forget(self, key: Key) -> None:
        """Drop one entry; the caller holds the lock."""
        data, _ = self._entries.pop(key)
        self._used.pop(key, None)
        self._slow.discard(key)
        self._bytes -= len(data)

    def has(self, key: Key) -> bool:
        """Whether `key` is stored now (nothing unpickled, its last use untouched)."""
        with self._lock:
            return key in self._entries

    def peek(self, key: Key) -> tuple[Any, dict[str, Any]] | None:
        """(value, meta) if stored, without computing anything."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            self._used[key] = time.monotonic()
        return pickle.loads(entry[0]), dict(entry[1])

    def get_or_compute(self, key: Key, compute: Callable[[Flight], tuple[Any, dict[str, Any]]],
                       wait: Callable[[Flight], None]) -> tuple[Any, dict[str, Any]]:
        """(value, meta) for `key`: stored, or computed once however many sessions ask at a time.

        `compute(flight)` runs in the first caller's thread and may report progress into
        `flight.fraction`; every other caller calls `wait(flight)` every POLL_S seconds until it is
        done (that is where a waiting script run can be stopped). If the computing run is stopped
        (its session closed or moved on), one of the waiters computes instead.
        """
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    self._used[key] = time.monotonic()
                    data, meta = entry
                    break
                flight = self._flights.get(key)
                owner = flight is None
                if owner:
                    flight = self._flights[key] = Flight()
                    self.computed += 1
            if owner:
                return self._run(key, flight, compute)
            while not flight.done.wait(POLL_S):
                wait(flight)
            if flight.error is not None:
                raise flight.error
            if flight.data is not None:
                data, meta = flight.data, flight.meta
                break
            # the computing run was stopped before it finished: start over (maybe as the owner)
        return pickle.loads(data), dict(meta)

    def _run(self, key: Key, flight: Flight, compute: Callable[[Flight], tuple[Any, dict[str, Any]]]
             ) -> tuple[Any, dict[str, Any]]:
        try:
            start = time.monotonic()
            value, meta = compute(flight)
            slow = time.monotonic() - start >= self.slow_s
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            flight.data, flight.meta = data, dict(meta)
            self._keep(key, data, flight.meta, slow)
            return value, dict(meta)
        except Exception as exc:
            flight.error = exc
            raise
        finally:  # also when the run is stopped (Streamlit's stop and rerun are BaseExceptions)
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()

    def _keep(self, key: Key, data: bytes, meta: dict[str, Any], slow: bool = False) -> None:
        if len(data) > self.max_bytes:
            return
        with self._lock:
            if key in self._entries:
                self._forget(key)
            self._entries[key] = (data, meta)
            self._used[key] = time.monotonic()
            self._bytes += len(data)
            if slow:
                self._slow.add(key)
            while self._bytes > self.max_bytes or len(self._entries) > self.max_entries:
                self._forget(next(iter(self._entries)))


class HeavyGate:
    """At most `slots` jobs at once; the rest wait in the order they came."""

    def __init__(self, slots: int = HEAVY_SLOTS) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._queue: list[object] = []
        self._running = 0

    def load(self) -> tuple[int, int]:
        """(running, waiting) now."""
        with self._cond:
            return self._running, len(self._queue)

    def wait_idle(self, timeout: float) -> float:
        """Block until no job holds or waits for a slot, at most `timeout` s; the seconds waited."""
        start = time.monotonic()
        deadline = start + timeout
        with self._cond:
            while self._running or self._queue:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, POLL_S))
        return time.monotonic() - start

    @contextlib.contextmanager
    def slot(self, wait: Callable[[int, float], None]) -> Iterator[None]:
        """Hold a slot for the `with` body; until one is free call `wait(ahead, seconds_waited)`
        every POLL_S seconds (`ahead`: jobs running or queued before this one)."""
        ticket, start = object(), time.monotonic()
        with self._cond:
            self._queue.append(ticket)
        try:
            while True:
                with self._cond:
                    place = self._queue.index(ticket)
                    if place < self.slots - self._running:
                        self._queue.remove(ticket)
                        self._running += 1
                        break
                    ahead = self._running + place
                    self._cond.wait(POLL_S)
                wait(ahead, time.monotonic() - start)
        except BaseException:
            with self._cond:
                if ticket in self._queue:
                    self._queue.remove(ticket)
                self._cond.notify_all()
            raise
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()


class Courtesy:
    """Lets a heavy job give way to light work between its steps, without starving itself.

    `pause()` (called by the heavy job at each progress report) waits while light computations
    run or wait, at most `step` s at a time and only while the job has yielded less than `share`
    times the time it has worked: a heavy job keeps at least 1 / (1 + share) of its own speed.
    On two cores a training run would otherwise hold one of them (two, with torch's intra-op
    threads) while thirty students move sliders. Returns the seconds it waited.
    """

    def __init__(self, light: HeavyGate, share: float = YIELD_SHARE, step: float = YIELD_STEP_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.light, self.share, self.step, self.clock = light, share, step, clock
        self.start = clock()
        self.yielded = 0.0

    def pause(self, notify: Callable[[], Any] | None = None) -> float:
        """Wait for light work as above; `notify()` is called first when there is some to wait for."""
        worked = self.clock() - self.start - self.yielded
        allowed = min(self.step, self.share * worked - self.yielded)
        if allowed <= 0 or self.light.load() == (0, 0):
            return 0.0
        if notify is not None:
            notify()
        waited = self.light.wait_idle(allowed)
        self.yielded += waited
        return waited


class RunRegistry:
    """Script runs in progress, one per thread (Streamlit runs each session's script in its own
    thread). A run that never said it ended is forgotten when its thread ends or starts again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, threading.Thread] = {}
        self._ended: float | None = None
        self.started = 0  # runs started since the server started

    def start(self) -> None:
        me = threading.current_thread()
        with self._lock:
            self._runs = {i: th for i, th in self._runs.items() if th.is_alive()}
            self._runs[me.ident or 0] = me
            self.started += 1

    def end(self) -> None:
        with self._lock:
            self._runs.pop(threading.get_ident(), None)
            self._ended = time.monotonic()

    def quiet_since(self) -> float | None:
        """When (time.monotonic) the last run ended, None while a run is in progress or before any."""
        with self._lock:
            if any(th.is_alive() for th in self._runs.values()):
                return None
            return self._ended

    def wait_quiet(self, quiet_s: float, poll_s: float = 0.05) -> float:
        """Block until at least one run has ended and none has run for `quiet_s` seconds; the
        seconds waited. For background work that would compete with a page for the interpreter."""
        start = time.monotonic()
        while True:
            ended = self.quiet_since()
            if ended is not None and time.monotonic() - ended >= quiet_s:
                return time.monotonic() - start
            time.sleep(poll_s if ended is None else max(poll_s, ended + quiet_s - time.monotonic()))

    def others(self) -> int:
        """Runs in progress in other threads (other sessions)."""
        me = threading.get_ident()
        with self._lock:
            return sum(1 for i, th in self._runs.items() if i != me and th.is_alive())


class MemoryTrim:
    """glibc's malloc_trim(0), at most once every `every` seconds; nothing where there is no glibc.
    NumPy's large arrays are freed to the allocator, which keeps many of the pages it got for them:
    RSS then stays at the peak of the busiest minute, not at what the server holds."""

    def __init__(self, every: float = TRIM_EVERY_S) -> None:
        self.every, self._last, self._lock = every, -float("inf"), threading.Lock()
        try:
            import ctypes

            self._trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            self._trim = None

    def __call__(self) -> bool:
        """Trim now unless it was done within `every` seconds; True when it trimmed."""
        if self._trim is None:
            return False
        with self._lock:
            now = time.monotonic()
            if now - self._last < self.every:
                return False
            self._last = now
        self._trim(0)
        return True


def configure_allocator(libc: Any = None) -> dict[str, bool]:
    """Set glibc's arena count, mmap and trim thresholds (see ARENA_MAX); which calls took effect.

    Process-wide and the same for every session, so it is done once, before the sessions' threads
    allocate much; nothing where there is no glibc. Measured with 30 sessions on 2 cores: peak RSS
    1,166 → 677 MB, and 60 s after they closed 1,090 → 578 MB (README, "Hosting").
    """
    if libc is None:
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt  # noqa: B018 (musl and others have no mallopt)
        except (OSError, AttributeError):
            return {}
    return {name: libc.mallopt(param, value) == 1 for name, param, value in (
        ("arena_max", _M_ARENA_MAX, ARENA_MAX), ("mmap_threshold", _M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        ("trim_threshold", _M_TRIM_THRESHOLD, TRIM_THRESHOLD))}


def configure_threads(threads: int = COMPUTE_THREADS) -> dict[str, int]:
    """NumPy's BLAS (and any other BLAS loaded now) at `threads` threads, for the whole process;
    returns the limits now, by library file. Process-wide and the same for every session, so it is
    done when this module is first imported (and again by compute_threads once SciPy has loaded).
    Nothing is set where threadpoolctl cannot find a BLAS.

    OpenBLAS's worker threads spin while they wait for work. On a shared server two light
    computations run at once (LIGHT_SLOTS, one per core); with two BLAS threads each, four
    threads and a heavy job's own pool spun on two cores, and every computation took 2-4 times
    its CPU time. Alone, one thread costs little: the largest light sweep measured (the overview
    at n = 755 in float64) takes 0.51 s instead of 0.45 s, the default views the same time.
    """
    import numpy  # noqa: F401 (its BLAS must be loaded for the limit to reach it)
    from threadpoolctl import threadpool_info, threadpool_limits

    # threadpoolctl 3.8 lets only one thread set a process-wide OpenBLAS pool (the first that did,
    # while it lives: here the thread that first imported this module) and silently ignores the
    # others; this call is the only one that sets it, so it takes the control and hands it back.
    release = _openblas_release()
    with _threads_lock:
        if release is not None:
            release(force=True)
        threadpool_limits(limits=threads, user_api="blas")
        if release is not None:
            release(force=True)
        _blas_set_for.update(m for m in _BLAS_USERS if m in sys.modules)
        return {info["filepath"]: info["num_threads"] for info in threadpool_info()
                if info["user_api"] == "blas"}


def _openblas_release() -> Callable[..., None] | None:
    """threadpoolctl's OpenBLASController.clear_controlling_thread, or None: releases before 3.8 (a
    GPU host's own Python, say) have no single controlling thread and no such method."""
    from threadpoolctl import OpenBLASController

    return getattr(OpenBLASController, "clear_controlling_thread", None)


_BLAS_USERS = ("numpy", "scipy.linalg")  # each wheel ships its own OpenBLAS, loaded with these
_blas_set_for: set[str] = set()
_threads_lock = threading.Lock()


def compute_threads(threads: int = COMPUTE_THREADS) -> bool:
    """Before every computation: the BLAS of a library loaded since the last call (SciPy's is
    loaded lazily, after this module) and torch's pool brought to `threads`; True when something
    was set. Otherwise two lookups."""
    loaded = {m for m in _BLAS_USERS if m in sys.modules}
    changed = not loaded <= _blas_set_for
    if changed:
        configure_threads(threads)  # records what it set in _blas_set_for
    return torch_threads(threads) or changed


def torch_threads_at_load(threads: int = COMPUTE_THREADS) -> bool:
    """torch's intra-op pool at `threads` threads from the moment it loads: OMP_NUM_THREADS, which
    torch reads when it is imported, set while it is not loaded yet; True when set. Called once,
    when this module is first imported. torch_threads() can only act before the next computation:
    the first one that imports torch would otherwise run on a pool of one thread per core whose
    threads sleep between operations (OMP_WAIT_POLICY=PASSIVE, core/__init__.py) and wake for
    each of the training page's thousands of small ones (measured: its default grid 3.6 s in the
    server instead of 1.8 s). A value the server was started with is kept."""
    if "torch" in sys.modules or "OMP_NUM_THREADS" in os.environ:
        return False
    os.environ["OMP_NUM_THREADS"] = str(threads)
    return True


def torch_threads(threads: int = COMPUTE_THREADS) -> bool:
    """torch's intra-op pool at `threads` threads once torch is loaded (it is imported lazily, by
    the first computation that needs it); True when this call set it. Called before every
    computation: a no-op costing one lookup once set. torch keeps the number per OS thread for the
    threads that have already run an op and hands it to new ones, and each script run is a new
    thread, so setting it here, on the computation's own thread, reaches every later run.
    """
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "get_num_threads") or torch.get_num_threads() == threads:
        return False
    torch.set_num_threads(threads)
    return True


def freeze_libraries() -> int:
    """Collect, then move every object alive now to the collector's permanent generation; returns
    how many. Called by the server's warm-up once it has loaded its libraries (pandas, Altair,
    Streamlit, then torch: a few hundred thousand objects that live as long as the process), and
    only while no session has run yet (pages/ui/serving.py): a full collection walks every tracked
    object while holding the interpreter lock, and frozen they are no longer walked; but what is
    frozen is never collected, so a session's objects frozen with them would never be freed (a
    closed session is a cycle: its memory would stay for good).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class IdleJanitor:
    """Cleans up after the sessions once the server is quiet: once no script has run for
    `evict_after` s, the caches drop what nobody used for that long (`evictors`: callables taking
    that age); then a full garbage collection (with Streamlit's after-run collection switched
    off, nothing else collects an idle server's cycles) and malloc_trim. `step()` decides and
    acts; `start()` runs it in a daemon thread.

    A class that has left thus gives its memory back within a minute; a teacher who comes back
    later recomputes the view they open (what its first visitor did)."""

    def __init__(self, runs: RunRegistry, trim: Callable[[], Any], quiet: float = QUIET_S,
                 every: float = CLEAN_EVERY_S, linger: float = LINGER_S, evict_after: float = EVICT_AFTER_S,
                 evictors: list[Callable[[float], Any]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.runs, self.trim, self.clock = runs, trim, clock
        self.quiet, self.every, self.linger, self.evict_after = quiet, every, linger, evict_after
        self.evictors = list(evictors or [])
        self.evicted_at: float | None = None  # the quiet spell (its start) whose caches were emptied
        self.last_clean = -float("inf")
        self.cleans = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def step(self) -> bool:
        """Clean now when no run is in progress, the last ended `quiet`–`linger` s ago, and the last
        clean was `every` s ago or more; True when it cleaned."""
        ended, now = self.runs.quiet_since(), self.clock()
        if ended is None or not self.quiet <= now - ended <= self.linger:
            return False
        evict = now - ended >= self.evict_after and self.evicted_at != ended
        if now - self.last_clean < self.every and not evict:
            return False
        if evict:
            self.evicted_at = ended
            for drop in self.evictors:
                drop(self.evict_after)
        self.last_clean = now
        gc.collect()
        self.trim()
        self.cleans += 1
        return True

    def start(self) -> None:
        """Run step() every few seconds in a daemon thread (once per process)."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._loop, name="ase-idle-janitor", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(self.quiet / 2)
            self.step()


configure_allocator()
configure_threads()
torch_threads_at_load()
RESULTS = ResultStore()
HEAVY = HeavyGate()
LIGHT = HeavyGate(LIGHT_SLOTS)
RUNS = RunRegistry()
give_back_memory = MemoryTrim()
JANITOR = IdleJanitor(RUNS, MemoryTrim(every=0.0), evictors=[RESULTS.drop_unused])
