"""The numerical libraries' own thread pools at one thread each, for the whole server.

Two light computations already run at once, one per core (server.gates); a second BLAS or OpenMP
thread in each only spin-waits against the other's (what one thread each earned:
docs/hosting.md#sharing-work-between-sessions).
`configure_threads()` and `torch_threads_at_load()` run once per process, as it starts
(server.startup.start);
`compute_threads()` before each computation, a no-op once SciPy's BLAS and torch are set.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

COMPUTE_THREADS = 1         # threads of each numerical library's own pool


def configure_threads(threads: int = COMPUTE_THREADS) -> dict[str, int]:
    """NumPy's BLAS (and any other BLAS loaded now) at `threads` threads, for the whole process;
    returns the limits now, by library file. Process-wide and the same for every session, so it is
    done once per process (server.startup.start), and again by compute_threads once SciPy has loaded.
    Nothing is set where threadpoolctl cannot find a BLAS.

    OpenBLAS's worker threads spin while they wait for work. On a shared server two light
    computations run at once (server.shared.LIGHT_SLOTS, one per core); with two BLAS threads each, four
    threads and a heavy job's own pool spun on two cores, and every computation took 2-4 times
    its CPU time. Alone, one thread costs little: the largest light sweep measured (the overview
    at n = 755 in float64) takes 0.51 s instead of 0.45 s, the default views the same time.
    """
    import numpy  # noqa: F401 (its BLAS must be loaded for the limit to reach it)
    from threadpoolctl import threadpool_info, threadpool_limits

    # threadpoolctl 3.8 lets only one thread set a process-wide OpenBLAS pool (the first that did,
    # while it lives: here the thread that ran server.startup.start) and silently ignores the
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
    torch reads when it is imported, set while it is not loaded yet; True when set. Called once per
    process (server.startup.start). torch_threads() can only act before the next computation:
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
