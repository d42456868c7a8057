"""Work shared by the sessions of one server: one computation per distinct call, a store bounded by
bytes, heavy jobs one at a time in order, and the count of other runs a live timing reports."""

from __future__ import annotations

import contextlib
import threading
import time
import types

import pytest
from conftest import call_in_threads, run_page

from pages.ui import compute
from pages.ui.shared_work import Courtesy, HeavyGate, ResultStore, RunRegistry, result_key


def test_thirty_concurrent_identical_requests_compute_once():
    store = ResultStore()
    key = result_key("core.views:saturation_view", {"dks": [16, 64], "n": 32})
    calls, waiters, lock = [], set(), threading.Lock()
    all_waiting = threading.Event()

    def compute_once(flight):
        calls.append(1)
        all_waiting.wait(30)  # finish only once the 29 others are waiting for this computation
        return {"rows": [1, 2, 3]}, {}

    def wait(flight):
        with lock:
            waiters.add(threading.get_ident())
            if len(waiters) == 29:
                all_waiting.set()

    results = call_in_threads(lambda: store.get_or_compute(key, compute_once, wait), 30)
    assert all_waiting.is_set()
    assert len(calls) == 1 and store.computed == 1
    assert all(value == {"rows": [1, 2, 3]} for value, _ in results)
    # every caller has its own copy: one session cannot change another's result
    assert len({id(value) for value, _ in results}) == 30


def test_a_failure_is_seen_by_every_waiter_and_not_stored():
    store = ResultStore()
    key = result_key("f", {})

    def fail(flight):
        raise ValueError("bad settings")

    with pytest.raises(ValueError, match="bad settings"):
        store.get_or_compute(key, fail, lambda f: None)
    assert store.stats() == (0, 0) and store.peek(key) is None


def test_a_stopped_computation_is_taken_over_by_a_waiter():
    """A session that closes mid-computation (Streamlit stops its run with a BaseException) leaves
    no result; a session that was waiting for it computes instead of waiting forever."""
    store = ResultStore()
    key = result_key("f", {})
    waiting = threading.Event()

    class Stop(BaseException):
        pass

    def stopped(flight):
        waiting.wait(10)  # the other session is waiting for this computation
        raise Stop

    def owner():
        try:
            store.get_or_compute(key, stopped, lambda f: None)
        except Stop:
            return "stopped"

    first = threading.Thread(target=owner)
    first.start()
    while store.computed == 0:
        time.sleep(0.01)

    def wait(flight):
        waiting.set()

    value, _ = store.get_or_compute(key, lambda f: (42, {}), wait)
    first.join()
    assert value == 42 and store.computed == 2


def test_the_store_is_bounded_by_bytes_least_recently_used_first_out():
    store = ResultStore(max_bytes=2_000, max_entries=100)
    for i in range(10):
        store.get_or_compute(result_key("f", {"i": i}), lambda f, i=i: ("x" * 600 + str(i), {}), None)
        assert store.stats()[1] <= 2_000
    assert store.stats()[0] == 3
    assert store.peek(result_key("f", {"i": 9})) is not None
    assert store.peek(result_key("f", {"i": 0})) is None
    # a value larger than the whole budget is returned but not kept
    value, _ = store.get_or_compute(result_key("big", {}), lambda f: ("y" * 5_000, {}), None)
    assert len(value) == 5_000 and store.peek(result_key("big", {})) is None


def test_heavy_jobs_run_one_at_a_time_in_the_order_they_asked():
    gate = HeavyGate(slots=1)
    order, seen_ahead = [], {}
    hold = threading.Event()
    queued = {name: threading.Event() for name in "BC"}

    def job(name):
        def wait(ahead, seconds):
            seen_ahead.setdefault(name, ahead)
            queued[name].set()

        with gate.slot(wait):
            order.append(name)
            if name == "A":
                hold.wait(10)

    a = threading.Thread(target=job, args=("A",))
    a.start()
    while gate.load() != (1, 0):
        time.sleep(0.01)
    b = threading.Thread(target=job, args=("B",))
    b.start()
    queued["B"].wait(10)
    c = threading.Thread(target=job, args=("C",))
    c.start()
    queued["C"].wait(10)
    assert gate.load() == (1, 2)
    hold.set()
    for th in (a, b, c):
        th.join(10)
    assert order == ["A", "B", "C"]
    assert seen_ahead == {"B": 1, "C": 2}  # one running ahead of B; that one and B ahead of C
    assert gate.load() == (0, 0)


def test_a_waiting_job_that_is_stopped_leaves_the_queue():
    gate = HeavyGate(slots=1)
    hold = threading.Event()

    class Stop(BaseException):
        pass

    def running():
        with gate.slot(lambda a, s: None):
            hold.wait(10)

    a = threading.Thread(target=running)
    a.start()
    while gate.load() != (1, 0):
        time.sleep(0.01)

    def stop(ahead, seconds):
        raise Stop

    with pytest.raises(Stop):
        with gate.slot(stop):
            pass
    assert gate.load() == (1, 0)
    hold.set()
    a.join(10)
    with gate.slot(lambda a, s: None):  # the slot is free again
        assert gate.load() == (1, 0)


def test_other_runs_are_counted_until_they_end_or_their_thread_does():
    runs = RunRegistry()
    runs.start()
    assert runs.others() == 0
    go, done = threading.Event(), threading.Event()

    def other(end_properly):
        runs.start()
        go.set()
        done.wait(10)
        if end_properly:
            runs.end()

    th = threading.Thread(target=other, args=(False,))
    th.start()
    go.wait(10)
    assert runs.others() == 1
    done.set()
    th.join()
    assert runs.others() == 0  # never said it ended, but its thread is gone
    runs.end()


@pytest.mark.parametrize("exc, expected", [
    (ModuleNotFoundError("No module named 'torch'", name="torch"), True),
    (ImportError("torch is switched off", name="torch.nn"), True),
    (OSError("libtorch_cpu.so: cannot open shared object file"), True),
    (ModuleNotFoundError("No module named 'cupy'", name="cupy"), False),
    (OSError("disk full"), False),
])
def test_torch_failing_to_load_is_recognised(exc, expected):
    assert compute.torch_unavailable(exc) is expected


def test_concurrent_sessions_opening_the_same_link_share_every_computation(monkeypatch):
    """Eight sessions open /variance with the same settings at once: each core call is computed once."""
    from streamlit.runtime import Runtime

    from pages.ui.shared_work import RESULTS

    # Each AppTest puts its stand-in runtime in one process-wide slot and empties the slot when its
    # run ends, while the other seven may still be running (a download button or the end of a run
    # then finds no runtime). A real server has one runtime for every session: keep the last one.
    last: list = []
    real_instance = Runtime.instance.__func__

    def instance(cls):  # type: ignore[no-untyped-def]
        if cls._instance is not None:
            last[:] = [cls._instance]
        return cls._instance if cls._instance is not None else last[0] if last else real_instance(cls)

    monkeypatch.setattr(Runtime, "instance", classmethod(instance))
    query = {"dk": "48", "trials": "20", "seed": "7"}  # settings no other test uses
    before = RESULTS.computed
    apps = call_in_threads(lambda: run_page("variance", query), 8)
    assert all(not at.exception for at in apps)
    distinct = RESULTS.computed - before
    assert 1 <= distinct <= 2  # the page's sweep and its histogram, whatever the number of sessions


def test_a_live_timing_says_when_other_sessions_ran_while_it_was_measured():
    from pages.ui.shared_work import RUNS

    small = {"cost_n": "64-512", "cost_d": "8-64", "cost_repeats": "2", "cost_naive_ms": "10",
             "cost_torch": "0", "cost_run": "1"}
    quiet = run_page("cost", {**small, "seed": "11"})
    assert not quiet.exception
    assert not any("other session" in w.value for w in quiet.warning)

    busy, stop = threading.Event(), threading.Event()

    def another_session():
        RUNS.start()
        busy.set()
        stop.wait(60)
        RUNS.end()

    th = threading.Thread(target=another_session)
    th.start()
    busy.wait(10)
    try:
        noisy = run_page("cost", {**small, "seed": "12"})
    finally:
        stop.set()
        th.join()
    assert not noisy.exception
    assert any("1 other session(s) were running" in w.value for w in noisy.warning), \
        [w.value for w in noisy.warning]


def test_light_computations_run_at_most_two_at_a_time_for_every_session():
    """Six sessions ask for six different light results at once: at most LIGHT_SLOTS (two) compute at
    any moment, every one is computed, and the ones that waited were shown their place."""
    from pages.ui.shared_work import LIGHT, LIGHT_SLOTS

    assert LIGHT.slots == LIGHT_SLOTS == 2
    lock, running, peak = threading.Lock(), [0], [0]

    def slow_square(x: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.3)
        with lock:
            running[0] -= 1
        return x * x

    slow_square.__module__, slow_square.__qualname__ = "tests.light_gate", f"slow_square_{time.time_ns()}"
    shown: list[str] = []

    class Box:  # what a page's placeholder receives
        def info(self, text: str, **_: object) -> None:
            shown.append(text)

        def progress(self, *_: object, **__: object) -> None:
            pass

        def empty(self) -> Box:
            return self

    numbers = iter(range(6))  # each session its own setting (next() on it is atomic)
    results = call_in_threads(lambda: compute.shared_call(slow_square, {"x": next(numbers)}, Box()), 6)
    assert sorted(results) == [0, 1, 4, 9, 16, 25]
    assert peak[0] == 2, f"{peak[0]} light computations ran at once"
    assert any("two results at a time" in s for s in shown), shown


def test_memory_is_given_back_at_most_once_every_few_seconds():
    from pages.ui.shared_work import MemoryTrim

    trim = MemoryTrim(every=0.2)
    if trim._trim is None:
        pytest.skip("no glibc here: nothing to trim")
    assert trim() is True and trim() is False  # the second call within 0.2 s does nothing
    time.sleep(0.25)
    assert trim() is True


def test_the_allocator_is_set_once_for_the_process_where_there_is_glibc():
    from pages.ui.shared_work import ARENA_MAX, MMAP_THRESHOLD, configure_allocator

    calls = []

    class Libc:
        def mallopt(self, param, value):
            calls.append((param, value))
            return 1

    assert configure_allocator(Libc()) == {"arena_max": True, "mmap_threshold": True, "trim_threshold": True}
    assert (-8, ARENA_MAX) in calls and (-3, MMAP_THRESHOLD) in calls
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt  # noqa: B018
    except (OSError, AttributeError):
        pytest.skip("no glibc here: the real allocator is left as it is")
    assert all(configure_allocator().values())


def test_the_numerical_libraries_run_one_thread_each_on_the_server():
    import threading

    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    from pages.ui.shared_work import COMPUTE_THREADS, compute_threads, configure_threads, torch_threads

    assert COMPUTE_THREADS == 1
    import scipy.linalg  # noqa: F401 (its own OpenBLAS, loaded after the module: the next computation sets it)

    def run_elsewhere(fn):  # as a script run does: on a thread of its own, not the importing one
        worker = threading.Thread(target=fn)
        worker.start()
        worker.join()

    run_elsewhere(compute_threads)
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert len(blas) >= 2 and all(i["num_threads"] == 1 for i in blas)  # NumPy's and SciPy's
    threadpool_limits(limits=2, user_api="blas")  # as a library might; the next setting wins
    run_elsewhere(configure_threads)
    assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")
    assert configure_threads() == {i["filepath"]: 1 for i in blas}
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert torch_threads() is True and torch.get_num_threads() == 1
        assert torch_threads() is False  # set: nothing more to do
        seen = []  # a later script run is a new thread: it starts at one thread too
        worker = threading.Thread(target=lambda: seen.append((torch.get_num_threads(), torch_threads())))
        worker.start()
        worker.join()
        assert seen == [(1, False)]
    finally:
        torch.set_num_threads(before)


TORCH_AFTER_THE_SERVER = """
import os, sys, threading
sys.path.insert(0, os.getcwd())
import pages.ui.shared_work
seen = []
def first_computation():  # a script run that imports torch and uses it at once
    import torch
    seen.append((torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS")))
worker = threading.Thread(target=first_computation)
worker.start()
worker.join()
print(*seen[0])
"""


@pytest.mark.parametrize(("env", "expected"), [(None, "1 1"), ("2", "2 2")])
def test_torch_loaded_by_the_first_computation_starts_at_one_thread(env, expected):
    """The first computation that imports torch runs on a one-thread pool too (a started-with
    OMP_NUM_THREADS is kept); before, the training page's first grid ran on a pool of one thread
    per core that slept between its small operations, 3.6 s instead of 1.8 s."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    environ = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if env is not None:
        environ["OMP_NUM_THREADS"] = env
    out = subprocess.run([sys.executable, "-c", TORCH_AFTER_THE_SERVER], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], env=environ, timeout=300, check=True)
    assert out.stdout.split("\n")[-2] == expected


def test_the_janitor_cleans_only_when_the_server_has_gone_quiet_and_not_for_ever():
    from pages.ui.shared_work import IdleJanitor, RunRegistry

    now = [100.0]
    runs, trims = RunRegistry(), []
    janitor = IdleJanitor(runs, lambda: trims.append(now[0]), quiet=5, every=10, linger=60,
                          clock=lambda: now[0])
    assert not janitor.step()                    # nothing has run yet: nothing to clean
    runs.start()
    now[0] = 200.0
    assert not janitor.step()                    # a run in progress
    runs.end()
    ended = runs.quiet_since()
    now[0] = ended + 2
    assert not janitor.step()                    # not quiet long enough
    now[0] = ended + 6
    assert janitor.step() and trims              # quiet: collect and trim
    now[0] = ended + 10
    assert not janitor.step()                    # cleaned 4 s ago
    now[0] = ended + 17
    assert janitor.step()                        # again, closed sessions go later
    now[0] = ended + 61
    assert not janitor.step()                    # long quiet: nothing left to do, no more work
    assert janitor.cleans == 2


def test_freezing_the_libraries_sets_aside_what_exists_and_leaves_new_garbage_collectable():
    import gc
    import weakref

    from pages.ui.shared_work import freeze_libraries

    class Node:
        pass

    try:
        assert freeze_libraries() > 1000  # the test process's own libraries
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle made after the freeze
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None
    finally:
        gc.unfreeze()


def test_a_quiet_server_drops_what_nobody_used_then_collects_once_per_quiet_spell():
    from pages.ui.shared_work import IdleJanitor, ResultStore, RunRegistry

    store = ResultStore()
    for x in range(3):
        store.get_or_compute(("f", (("x", x),)), lambda flight, x=x: (x, {}), lambda flight: None)
    time.sleep(0.05)
    store.peek(("f", (("x", 2),)))                         # used just now: kept
    assert store.drop_unused(0.04) == 2 and store.stats()[0] == 1

    now, dropped = [0.0], []
    runs = RunRegistry()
    janitor = IdleJanitor(runs, lambda: None, quiet=5, every=10, linger=120, evict_after=45,
                          evictors=[dropped.append], clock=lambda: now[0])
    runs.start()
    runs.end()
    ended = runs.quiet_since()
    now[0] = ended + 20
    assert janitor.step() and dropped == []                # quiet, but not for long enough to evict
    now[0] = ended + 46
    assert janitor.step() and dropped == [45]              # evicts what was unused for 45 s
    now[0] = ended + 50
    assert not janitor.step() and dropped == [45]          # once per quiet spell, not every step


def test_a_result_that_was_slow_to_compute_outlives_the_idle_eviction():
    """A live timing or a training run (seconds to compute, kilobytes to keep) stays for
    keep_slow_s unused, so a class opening the teacher's link later does not wait for it again."""
    from pages.ui.shared_work import ResultStore

    def timing(flight):
        time.sleep(0.06)
        return "timing", {}

    store = ResultStore(slow_s=0.05, keep_slow_s=0.3)
    slow, fast = ("slow", ()), ("fast", ())
    store.get_or_compute(slow, timing, lambda flight: None)
    store.get_or_compute(fast, lambda flight: ("sweep", {}), lambda flight: None)
    time.sleep(0.05)
    assert store.drop_unused(0.04) == 1 and store.has(slow) and not store.has(fast)
    time.sleep(0.3)
    assert store.drop_unused(0.04) == 1 and store.stats() == (0, 0)
    store.get_or_compute(slow, timing, lambda flight: None)
    store.clear()
    store.get_or_compute(slow, lambda flight: ("quick this time", {}), lambda flight: None)
    time.sleep(0.05)
    assert store.drop_unused(0.04) == 1  # slow no more: its old mark went with clear()


def test_a_figure_asked_for_by_many_sessions_at_once_is_built_once():
    from pages.ui.charts import FigureCache

    cache, started = FigureCache(2**20, 10), threading.Barrier(6)

    def build():
        time.sleep(0.3)
        return types.SimpleNamespace(nbytes=10)

    def ask():
        started.wait()
        return cache.get("k", build)

    figures = call_in_threads(ask, 6)
    assert cache.built == 1 and len({id(f) for f in figures}) == 1
    time.sleep(0.05)
    assert cache.drop_unused(0.01) == 1 and cache.stats() == (0, 0)


@contextlib.contextmanager
def _light_job(gate, seconds=5.0):
    """A job holding one of `gate`'s slots in its own thread until the block ends, at most `seconds`."""
    held, release = threading.Event(), threading.Event()

    def job():
        with gate.slot(lambda ahead, waited: None):
            held.set()
            release.wait(seconds)

    worker = threading.Thread(target=job)
    worker.start()
    held.wait(5)
    try:
        yield
    finally:
        release.set()
        worker.join(5)


def test_a_heavy_job_gives_way_to_light_work_but_keeps_moving():
    light = HeavyGate(2)
    now = [0.0]
    courtesy = Courtesy(light, share=2.0, step=0.3, clock=lambda: now[0])
    told = []
    assert courtesy.pause(lambda: told.append(1)) == 0.0 and told == []  # nothing light to wait for
    with _light_job(light):
        now[0] = 1.0  # the heavy job has worked 1 s: it may give way up to 2 s, 0.3 s at a time
        waited = courtesy.pause(lambda: told.append(1))
        assert 0.25 <= waited <= 1.0 and told == [1]
        courtesy.yielded = 2.0  # yielded twice what it worked: no more waiting until it works more
        assert courtesy.pause(lambda: told.append(1)) == 0.0 and told == [1]
    now[0] = 10.0
    assert courtesy.pause() == 0.0  # light work done: nothing to wait for


def test_wait_idle_returns_as_soon_as_light_work_ends():
    light = HeavyGate(1)
    with _light_job(light, seconds=0.2):
        waited = light.wait_idle(5.0)
    assert 0.1 <= waited < 1.0


def test_the_blas_limit_is_set_with_a_threadpoolctl_that_has_no_controlling_thread(monkeypatch):
    """Releases before threadpoolctl 3.8 (a GPU host's own Python, say) have no single controlling
    thread and no clear_controlling_thread: the limit is set all the same, and importing the
    module does not fail."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from pages.ui import shared_work

    assert shared_work._openblas_release() is not None  # 3.8, as requirements.txt pins
    monkeypatch.setattr(shared_work, "_openblas_release", lambda: None)
    threadpool_limits(limits=2, user_api="blas")
    limits = shared_work.configure_threads()
    assert limits and set(limits.values()) == {1}
    assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")
