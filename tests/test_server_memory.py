"""Memory and threads of a server (server/memory.py, server/threads.py): the allocator set once, free
pages handed back, a janitor once the server is quiet, the numerical libraries at one thread each."""

from __future__ import annotations

import time

import pytest


def test_memory_is_given_back_at_most_once_every_few_seconds():
    from server.memory import MemoryTrim

    trim = MemoryTrim(every=0.2)
    if trim._trim is None:
        pytest.skip("no glibc here: nothing to trim")
    assert trim() is True and trim() is False  # the second call within 0.2 s does nothing
    time.sleep(0.25)  # the interval's length is what is tested
    assert trim() is True


def test_the_allocator_is_set_once_for_the_process_where_there_is_glibc():
    from server.memory import ARENA_MAX, MMAP_THRESHOLD, configure_allocator

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

    from server.threads import COMPUTE_THREADS, compute_threads, configure_threads, torch_threads

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
import server.startup
server.startup.start()
seen = []
def first_computation():  # a script run that imports torch and uses it at once
    import torch
    seen.append((torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS")))
worker = threading.Thread(target=first_computation)
worker.start()
worker.join()
print(*seen[0])
"""


@pytest.mark.slow
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
    from server.memory import IdleJanitor
    from server.runs import RunRegistry

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


def test_a_quiet_server_drops_what_nobody_used_then_collects_once_per_quiet_spell():
    from server.memory import IdleJanitor
    from server.results import ResultStore
    from server.runs import RunRegistry

    store = ResultStore()
    for x in range(3):
        store.get_or_compute(("f", (("x", x),)), lambda flight, x=x: (x, {}), lambda flight: None)
    time.sleep(0.05)  # the age is what is tested: unused for longer than 0.04 s
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


def test_the_blas_limit_is_set_with_a_threadpoolctl_that_has_no_controlling_thread(monkeypatch):
    """Releases before threadpoolctl 3.8 (a GPU host's own Python, say) have no single controlling
    thread and no clear_controlling_thread: the limit is set all the same, and importing the
    module does not fail."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from server import threads

    assert threads._openblas_release() is not None  # 3.8, as requirements.txt pins
    monkeypatch.setattr(threads, "_openblas_release", lambda: None)
    threadpool_limits(limits=2, user_api="blas")
    limits = threads.configure_threads()
    assert limits and set(limits.values()) == {1}
    assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")


def test_freezing_the_libraries_sets_aside_what_exists_and_leaves_new_garbage_collectable():
    import gc
    import weakref

    from server.memory import freeze_libraries

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
