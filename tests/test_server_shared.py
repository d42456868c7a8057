"""The server's shared work (server/): one computation per distinct call however many sessions ask, a
store bounded by bytes, jobs admitted a few at a time in order, and the runs in progress."""

from __future__ import annotations

import contextlib
import threading
import time
import types

import pytest
from conftest import call_in_threads
from waiting import wait_until

from server.cache import SharedCache
from server.codec import encode
from server.gates import Courtesy, Gate
from server.results import ResultStore, result_key
from server.runs import RunRegistry


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
    wait_until("the first session's computation starting", lambda: store.computed)

    def wait(flight):
        waiting.set()

    value, _ = store.get_or_compute(key, lambda f: (42, {}), wait)
    first.join()
    assert value == 42 and store.computed == 2


def test_the_store_is_bounded_by_bytes_least_recently_used_first_out():
    one = len(encode("x" * 600 + "0", {}))  # each result's stored size
    store = ResultStore(max_bytes=3 * one + 10, max_entries=100)
    for i in range(10):
        store.get_or_compute(result_key("f", {"i": i}), lambda f, i=i: ("x" * 600 + str(i), {}), None)
        assert store.stats()[1] <= 3 * one + 10
    assert store.stats()[0] == 3
    assert store.peek(result_key("f", {"i": 9})) is not None
    assert store.peek(result_key("f", {"i": 0})) is None
    # a value larger than the whole budget is returned but not kept
    value, _ = store.get_or_compute(result_key("big", {}), lambda f: ("y" * 5 * one, {}), None)
    assert len(value) == 5 * one and store.peek(result_key("big", {})) is None


def test_a_result_that_was_slow_to_compute_outlives_the_idle_eviction():
    """A live timing or a training run (seconds to compute, kilobytes to keep) stays for
    keep_slow_s unused, so a class opening the teacher's link later does not wait for it again."""
    from server.results import ResultStore

    def timing(flight):
        time.sleep(0.06)  # the time is what is tested: longer than slow_s
        return "timing", {}

    store = ResultStore(slow_s=0.05, keep_slow_s=0.3)
    slow, fast = ("slow", ()), ("fast", ())
    store.get_or_compute(slow, timing, lambda flight: None)
    store.get_or_compute(fast, lambda flight: ("sweep", {}), lambda flight: None)
    time.sleep(0.05)  # the ages are what is tested: both unused for longer than 0.04 s
    assert store.drop_unused(0.04) == 1 and store.has(slow) and not store.has(fast)
    time.sleep(0.3)  # and the slow one for longer than keep_slow_s
    assert store.drop_unused(0.04) == 1 and store.stats() == (0, 0)
    store.get_or_compute(slow, timing, lambda flight: None)
    store.clear()
    store.get_or_compute(slow, lambda flight: ("quick this time", {}), lambda flight: None)
    time.sleep(0.05)  # the age is what is tested
    assert store.drop_unused(0.04) == 1  # slow no more: its old mark went with clear()


def test_a_figure_asked_for_by_many_sessions_at_once_is_built_once():
    cache, started = SharedCache(2**20, 10, lambda fig: fig.nbytes), threading.Barrier(6)

    def build(flight):
        time.sleep(0.3)  # the build lasts while the other five ask: the overlap is what is tested
        return types.SimpleNamespace(nbytes=10)

    def ask():
        started.wait()
        return cache.get_or_compute("k", build)

    figures = call_in_threads(ask, 6)
    assert cache.computed == 1 and len({id(f) for f in figures}) == 1
    time.sleep(0.05)  # the age is what is tested: unused for longer than 0.01 s
    assert cache.drop_unused(0.01) == 1 and cache.stats() == (0, 0)


def test_heavy_jobs_run_one_at_a_time_in_the_order_they_asked():
    gate = Gate(slots=1)
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
    wait_until("the first job running", lambda: gate.load() == (1, 0))
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
    gate = Gate(slots=1)
    hold = threading.Event()

    class Stop(BaseException):
        pass

    def running():
        with gate.slot(lambda a, s: None):
            hold.wait(10)

    a = threading.Thread(target=running)
    a.start()
    wait_until("the first job running", lambda: gate.load() == (1, 0))

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
    light = Gate(2)
    now = [0.0]
    courtesy = Courtesy(light, share=2.0, step=0.3, clock=lambda: now[0])
    told = []
    assert courtesy.pause(lambda: told.append(1)) == 0.0 and told == []  # nothing light to wait for
    with _light_job(light):
        now[0] = 1.0  # the heavy job has worked 1 s: it may give way up to 2 s, 0.3 s at a time
        waited = courtesy.pause(lambda: told.append(1))
        assert 0.25 <= waited <= 3.0 and told == [1]  # 0.3 s asked; a loaded machine adds to it
        courtesy.yielded = 2.0  # yielded twice what it worked: no more waiting until it works more
        assert courtesy.pause(lambda: told.append(1)) == 0.0 and told == [1]
    now[0] = 10.0
    assert courtesy.pause() == 0.0  # light work done: nothing to wait for


def test_wait_idle_returns_as_soon_as_light_work_ends():
    light = Gate(1)
    with _light_job(light, seconds=0.2):
        waited = light.wait_idle(5.0)
    assert 0.1 <= waited < 3.0  # far below the 5 s it would wait for a job that never ended


def test_runs_that_start_while_a_teachers_run_goes_on_wait_for_its_end():
    runs = RunRegistry()
    inside, leave = threading.Event(), threading.Event()
    started: dict[str, float] = {}

    def teacher() -> None:
        with runs.running(first=True):
            inside.set()
            leave.wait(10)
            started["teacher_ends"] = time.monotonic()

    def student() -> None:
        with runs.running():
            started["student"] = time.monotonic()

    threads = [threading.Thread(target=teacher)]
    threads[0].start()
    inside.wait(10)
    threads.append(threading.Thread(target=student))
    threads[1].start()
    time.sleep(0.2)  # "nothing happens for 0.2 s" is what is tested: the student's run does not start
    assert "student" not in started and runs.held == 1  # waiting, not running
    leave.set()
    for th in threads:
        th.join(10)
    assert started["teacher_ends"] <= started["student"] < started["teacher_ends"] + 0.2
    assert runs.first == 0


def test_a_long_first_run_holds_the_others_back_during_its_first_second_only(monkeypatch):
    from server import runs as runs_module

    monkeypatch.setattr(runs_module, "FIRST_WAIT_S", 0.3)
    runs = RunRegistry()
    inside, leave = threading.Event(), threading.Event()

    def teacher() -> None:  # a heavy page: runs for seconds
        with runs.running(first=True):
            inside.set()
            leave.wait(10)

    th = threading.Thread(target=teacher)
    th.start()
    inside.wait(10)
    began = time.monotonic()
    with runs.running(wait_s=5):
        waited = time.monotonic() - began
    assert 0.2 <= waited < 3.0 and th.is_alive()  # the first 0.3 s, not wait_s (5 s)
    began = time.monotonic()
    with runs.running(wait_s=5):  # the teacher's run is past its first 0.3 s: no wait
        assert time.monotonic() - began < 0.15  # a wait would be what is left of the 0.3 s at least
    leave.set()
    th.join(10)
    assert runs.first == 0


def test_no_run_going_first_no_wait():
    runs = RunRegistry()
    began = time.monotonic()
    with runs.running(wait_s=5):
        assert time.monotonic() - began < 1.0 and runs.held == 0  # a wait would be 5 s


def test_a_teachers_own_runs_never_wait():
    runs = RunRegistry()
    with runs.running(first=True):
        began = time.monotonic()
        with runs.running(first=True, wait_s=5):  # another teacher, meanwhile
            assert runs.first == 2
        assert time.monotonic() - began < 1.0 and runs.first == 1  # a wait would be 5 s
    assert runs.first == 0


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
