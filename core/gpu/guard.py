"""The experiments' way in: a kernel is used only once past its first-use check, else the reference path runs.

Before its first use on a device each `.cu` passes a first-use check: the small comparisons with
its NumPy twin of core.gpu.checks.first_use_checks, one per kernel instantiation the launchers can
pick, so a kernel that compiles but computes wrongly on this GPU never reaches a figure. The
verdict is kept per (file, device). The `*_or_none` entry points the experiments call turn any
KernelError (compile, launch or first-use failure) into None plus a notice; the experiment then
runs its reference path (core.attention on the same arrays). `kernel_report()` says which files
are in use and which fell back, for the UI; `gpu_status()` is the same as one line.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from core.backend import Backend, cupy_available, cupy_status, device_info
from core.gpu import checks, device, launch
from core.gpu.device import KernelError

_lock = threading.Lock()  # guards the state below (held only for short reads and writes)
_verify_lock = threading.Lock()  # one first-use check at a time; the others wait for its verdict
_verified: set[tuple[str, Any]] = set()  # (source, device) that passed the first-use check
_rejected: dict[tuple[str, Any], str] = {}  # (source, device) that failed it → why
_state: dict[str, bool] = {"reference_only": False, "first_use": True}


# ---------------------------------------------------------------- the first-use gate


def kernels(source: str) -> dict[str, Any]:
    """{kernel name: cupy.RawKernel} of one `.cu`, compiled once per process and device and, before
    its first use there, checked against its NumPy twin (first_use_check); KernelError otherwise."""
    funcs = device.compiled(source)
    if not _state["first_use"]:
        return funcs
    key = (source, device.device_key())
    if key in _verified:
        return funcs
    with _verify_lock:
        if key in _rejected:
            raise KernelError(_rejected[key])
        if key in _verified:
            return funcs
        results = first_use_check(source)
        failed = [c for c in results if not c.ok]
        if not failed:
            with _lock:
                _verified.add(key)
            return funcs
        worst = max(failed, key=lambda c: c.err)
        detail = f", {worst.detail}" if worst.detail else ""
        msg = (f"{source} failed its first-use check on this device ({len(failed)} of {len(results)} "
               f"comparisons with its NumPy twin out of tolerance; worst: {worst.name}, error "
               f"{worst.err:.3g} × tolerance{detail})")
        with _lock:
            _rejected[key] = msg
        device.notice(msg)
        raise KernelError(msg)


def first_use_check(source: str) -> list[checks.Check]:
    """Run core.gpu.checks.first_use_checks(source) now, on the current device (or stand-in):
    its small kernel-vs-twin comparisons, as Check results (ok when err ≤ 1)."""
    return checks.evaluate(checks.first_use_checks(source))


@contextmanager
def first_use_checks(enabled: bool) -> Iterator[None]:
    """Switch the first-use check on or off within this block (process-wide). The GPU check and the
    tests switch it off to compare every kernel themselves and report each difference."""
    with _lock:
        before, _state["first_use"] = _state["first_use"], enabled
    try:
        yield
    finally:
        with _lock:
            _state["first_use"] = before


def compile_all() -> dict[str, str]:
    """Compile every `.cu` now (with its first-use check, where on); {source: "ok" or the error}."""
    out = {}
    for source in device.SOURCES:
        try:
            kernels(source)
            out[source] = "ok"
        except KernelError as exc:
            out[source] = str(exc)
    return out


def warm_up_in_background() -> threading.Thread | None:
    """Where CuPy sees a GPU, compile and first-use-check every `.cu` in a daemon thread (once per
    call; the app calls it once per server), so the first page that runs a kernel need not wait for
    NVRTC. A page that needs a file meanwhile waits for it under the compile lock, never compiles
    it twice. Returns the thread, or None where there is no GPU."""
    if not cupy_available():
        return None
    thread = threading.Thread(target=compile_all, name="ase-kernel-warm-up", daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------- what the UI shows


def kernel_report() -> dict[str, Any]:
    """What our kernels are doing on the GPU of this process, for the UI:
    {"checked": sources compiled and past their first-use check, "failed": {source: why it falls
    back to the reference path}}. Both empty until a GPU experiment first runs (and on a CPU)."""
    compiled = device.compiled_keys()
    failed = device.compile_failures()
    with _lock:
        checked = sorted({src for src, dev in compiled if device.on_gpu(dev) and (src, dev) in _verified})
        for (src, dev), why in _rejected.items():
            if device.on_gpu(dev):
                failed.setdefault(src, why)
    return {"checked": [s for s in checked if s not in failed], "failed": dict(sorted(failed.items()))}


def gpu_status() -> str:
    """One line for the UI: which backend runs the experiments and whether our kernels are in use."""
    if not cupy_available():
        return f"NumPy on CPU — GPU kernels off: {cupy_status()[1]}"
    report = kernel_report()
    ready = sorted({src for src, _ in device.compiled_keys()})
    last = device.last_notice()
    parts = [f"{device_info('cupy')} — our CUDA kernels"]
    if report["failed"]:
        parts.append(f"falling back to the NumPy/CuPy reference for {', '.join(report['failed'])}")
    parts.append(f"compiled: {', '.join(ready) if ready else 'none yet (compiled on first use)'}")
    if report["checked"]:
        parts.append(f"passed the first-use check: {', '.join(report['checked'])}")
    if last:
        parts.append(f"last notice: {last}")
    return "; ".join(parts)


# ---------------------------------------------------------------- the entry points experiments use


def kernels_run(be: Backend | None) -> bool:
    """Our kernels take this work: on a CuPy backend, or on a stand-in device (core.gpu.device.stand_in)."""
    return (be is not None and be.is_gpu) or device.stand_in_active()


@contextmanager
def reference_only() -> Iterator[None]:
    """Within this block the experiments skip our kernels and run the reference path (core.attention
    on the same CuPy arrays). For checks that compare the two on identical inputs; process-wide."""
    with _lock:
        before, _state["reference_only"] = _state["reference_only"], True
    try:
        yield
    finally:
        _state["reference_only"] = before


def or_none(what: str, fn: Callable[[], Any], sources: Sequence[str]) -> Any:
    """fn() once each of `sources` is compiled and past its first-use check; None (with a notice
    naming `what`) when a kernel cannot run, so that the caller runs its reference path."""
    if _state["reference_only"]:
        return None
    try:
        for source in sources:
            kernels(source)
        return fn()
    except KernelError as exc:
        device.notice(f"{what}: {exc}; fell back to the reference path")
        return None


def row_stats_or_none(raw: Any, scales: Sequence[float]) -> list[tuple[Any, Any]] | None:
    """[(p_max, H) per scale] from the fused kernel, or None (with a notice) to use the reference."""
    if raw.dtype != np.float32:
        return None  # float64 sweeps run the array-generic path
    out = or_none("saturation row statistics", lambda: launch.row_stats(raw, scales), ["softmax_stats.cu"])
    return None if out is None else [(out[0][i], out[1][i]) for i in range(len(scales))]


def grad_norm_or_none(draws: Any, c: float) -> tuple[Any, Any] | None:
    """(‖∂L/∂q‖ per trial, p) for one chunk of the gradient experiment (core.experiments.query_gradients
    .GradDraws), or None (with a notice) so that the reference path runs.

    Direct draws (K given): the kernel's ‖c·Kᵀ(J g)‖. Reduced draws (q = r·u, a = K u, w ~ χ²_{d−1}):
    the kernel with the single column a gives |c·aᵀv| and ‖v‖ for v = J g, and
    ‖∂L/∂q‖ = √((c·aᵀv)² + c²‖v‖²·w), the same formula as the reference path.
    """
    if draws.raw.dtype != np.float32:
        return None

    def run() -> tuple[Any, Any]:
        if draws.K is not None:
            p, gn, _ = launch.grad_norms(draws.raw, draws.K, draws.g, c)
            return gn, p
        p, along, vn = launch.grad_norms(draws.raw, draws.a[..., None], draws.g, c)
        cvn = vn * np.float32(abs(c))
        return (along * along + cvn * cvn * draws.w) ** 0.5, p

    return or_none("gradient norms", run, ["softmax_backward.cu"])
