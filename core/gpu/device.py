"""The device our kernels run on: each `.cu` compiled once per device (NVRTC through CuPy), launched, logged.

The device is the current CUDA device through CuPy, or a stand-in plugged in with `stand_in(...)`:
any object with `xp` (the array namespace the launchers allocate with, CuPy-like), `key` (a
hashable naming it in the compile cache) and `compile(code, names)` → {name: kernel callable like
cupy.RawKernel}. The tests' CPU emulator (tools/emulator) is such a stand-in; core never imports it.
A compile or launch failure raises KernelError, and the first compile failure of a file on a GPU
is kept (it is not retried) and logged as a notice for the app.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core.backend import cupy_available

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"
# NVRTC options: C++17 for `if constexpr`. The target architecture is added by CuPy (the current
# device's compute capability). common.cuh is pasted in by kernel_source (not -I), so CuPy's
# on-disk cache, keyed by the source text, sees a change to it.
COMPILE_OPTIONS: tuple[str, ...] = ("-std=c++17",)
CTYPE: dict[str, str] = {"float32": "float", "float16": "half_t", "bfloat16": "bf16_t"}
DEFAULT_SMEM = 48 * 1024  # a block gets more dynamic shared memory only after an opt-in


class KernelError(RuntimeError):
    """One of our kernels could not be compiled or launched (the caller falls back)."""


def _attention_names() -> tuple[str, ...]:
    names = [f"attention_forward_simt<{t}, {dmax}>" for t in CTYPE.values() for dmax in (64, 128, 256)]
    names += [f"attention_forward_mma<float, {D}, {split}>" for D in (64, 128) for split in (1, 3)]
    names += [f"attention_forward_mma<{t}, {D}, 1>" for t in ("half_t", "bf16_t") for D in (64, 128)]
    return tuple(names)


# source file → kernel names (template instantiations are name expressions for NVRTC)
SOURCES: dict[str, tuple[str, ...]] = {
    "softmax_stats.cu": ("row_stats_v1", "row_stats_v2"),
    "attention_forward.cu": _attention_names(),
    "additive_scores.cu": ("additive_scores<true>", "additive_scores<false>",
                           "additive_softmax<true>", "additive_softmax<false>"),
    "softmax_backward.cu": ("grad_norms",),
}

_lock = threading.Lock()
_compiled: dict[tuple[str, Any], dict[str, Any]] = {}
_failed: dict[str, str] = {}
_notices: deque[str] = deque(maxlen=20)
_stand_in: list[Any] = [None]  # the device plugged in by stand_in(), or None for CuPy's


# ---------------------------------------------------------------- which device


@contextmanager
def stand_in(device: Any) -> Iterator[Any]:
    """Within this block the launchers allocate with `device.xp` and compile with `device.compile`
    instead of CuPy (process-wide). For running the kernel sources where there is no GPU."""
    with _lock:
        before, _stand_in[0] = _stand_in[0], device
    try:
        yield device
    finally:
        with _lock:
            _stand_in[0] = before


def stand_in_active() -> bool:
    """True inside stand_in(): the experiments then send their NumPy arrays through our kernels."""
    return _stand_in[0] is not None


def xp() -> Any:
    """The array namespace the launchers allocate with: CuPy, or the stand-in device's."""
    dev = _stand_in[0]
    if dev is not None:
        return dev.xp
    if not cupy_available():
        raise KernelError("no CUDA GPU / CuPy not installed")
    import cupy

    return cupy


def device_key() -> Any:
    """The compile cache's device: the CUDA device id (an int), or the stand-in's key (a tuple)."""
    dev = _stand_in[0]
    return dev.key if dev is not None else xp().cuda.Device().id


def on_gpu(key: Any) -> bool:
    """Whether a device_key() names a CUDA device (a stand-in's keys are tuples)."""
    return isinstance(key, int)


def to_host(x: Any) -> np.ndarray:
    """A launcher's output as a NumPy array (cupy.ndarray.get(), or a copy of a stand-in's array)."""
    return x.get() if hasattr(x, "get") else np.array(x, copy=True)


def torch_cuda() -> Any:
    """torch, where it is installed and sees a CUDA GPU; None otherwise."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


# ---------------------------------------------------------------- compile and launch


def kernel_source_text(code: str) -> str:
    """CUDA C with `#include "common.cuh"` replaced by that file's text (NVRTC gets no include path)."""
    common = (KERNEL_DIR / "common.cuh").read_text().replace("#pragma once\n", "")
    return code.replace('#include "common.cuh"\n', common)


def kernel_source(source: str) -> str:
    """The text NVRTC (or a stand-in device) compiles for one `.cu` of core/kernels."""
    return kernel_source_text((KERNEL_DIR / source).read_text())


def compiled(source: str) -> dict[str, Any]:
    """{kernel name: cupy.RawKernel} of one `.cu`, compiled once per process and device (under a lock,
    so concurrent app sessions share it; CuPy also caches the binary on disk). Not first-use checked:
    core.gpu.guard.kernels is the checked way in."""
    xp()
    dev = _stand_in[0]
    key = (source, device_key())
    with _lock:
        if key in _compiled:
            return _compiled[key]
        if source in _failed and dev is None:
            raise KernelError(_failed[source])
        names = SOURCES[source]
        try:
            code = kernel_source(source)
            if dev is not None:
                funcs = dev.compile(code, names)
            else:
                import cupy as cp

                templated = any("<" in name for name in names)
                module = cp.RawModule(code=code, options=COMPILE_OPTIONS,
                                      name_expressions=list(names) if templated else None)
                funcs = {name: module.get_function(name) for name in names}  # compiles and loads now
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            msg = f"{source} did not compile or load ({type(exc).__name__}: {first[:200]})"
            if dev is None:  # a stand-in's build failure is the test's to report, not the app's
                _failed[source] = msg
                _notices.append(msg)
            raise KernelError(msg) from exc
        _compiled[key] = funcs
        return funcs


def compiled_keys() -> list[tuple[str, Any]]:
    """(source, device key) of every file compiled so far."""
    with _lock:
        return list(_compiled)


def compile_failures() -> dict[str, str]:
    """{source: why} for the files that did not compile on the GPU."""
    with _lock:
        return dict(_failed)


def launch(source: str, name: str, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
           smem: int = 0) -> None:
    """Launch one kernel; any CUDA error becomes KernelError (with the kernel's name)."""
    kern = compiled(source)[name]
    try:
        if smem > DEFAULT_SMEM and kern.max_dynamic_shared_size_bytes < smem:
            kern.max_dynamic_shared_size_bytes = smem
        kern(grid, block, args, shared_mem=smem)
    except Exception as exc:
        raise KernelError(f"{name} failed to launch ({type(exc).__name__}: {exc})") from exc


# ---------------------------------------------------------------- notices


def notice(message: str) -> None:
    """Record a visible fallback notice (shown by gpu_status and the app)."""
    with _lock:
        if not _notices or _notices[-1] != message:
            _notices.append(message)


def notices() -> list[str]:
    """Fallback notices so far in this process, oldest first."""
    with _lock:
        return list(_notices)


def last_notice() -> str:
    with _lock:
        return _notices[-1] if _notices else ""
