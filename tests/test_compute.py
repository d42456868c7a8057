"""One call into core from a page (pages/ui/compute.py), shared by every session: computed once for
sessions opening the same link, light computations two at a time, a live timing that says when other
sessions ran, torch missing recognised."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import call_in_threads, run_page

from pages.ui import compute


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

    from server.shared import RESULTS

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


@pytest.mark.slow
def test_a_live_timing_says_when_other_sessions_ran_while_it_was_measured():
    from server.shared import RUNS

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
    from server.shared import LIGHT, LIGHT_SLOTS

    assert LIGHT.slots == LIGHT_SLOTS == 2
    lock, running, peak = threading.Lock(), [0], [0]

    def slow_square(x: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.3)  # each computation lasts a while, so that the others overlap it
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
