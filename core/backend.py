"""Array backends: NumPy on the CPU (always), CuPy on an NVIDIA GPU (when present).

`get_backend("auto")` picks CuPy when it imports and `cupy.is_available()`; otherwise NumPy.
Asking for "cupy" where there is none raises BackendError with the reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from core.errors import BackendError, InputError

BACKENDS: tuple[str, ...] = ("auto", "numpy", "cupy")
DTYPES: tuple[str, ...] = ("float32", "float64")


@dataclass(frozen=True)
class Backend:
    """An array module (`xp`) plus the float dtype experiments compute in."""

    name: str
    xp: Any = field(repr=False, compare=False)
    dtype: str = "float32"

    @property
    def is_gpu(self) -> bool:
        return self.name == "cupy"

    def rng(self, seed: int) -> Any:
        """A generator seeded by `seed`: same seed, same backend → same numbers."""
        return self.xp.random.default_rng(seed)

    def asnumpy(self, x: Any) -> np.ndarray:
        return x.get() if self.is_gpu else np.asarray(x)

    def synchronize(self) -> None:
        if self.is_gpu:
            self.xp.cuda.Device().synchronize()

    def describe(self) -> str:
        """A one-line device string for the UI, e.g. "NumPy on CPU (2 cores)"."""
        return device_info(self.name)


@lru_cache(maxsize=1)
def cupy_status() -> tuple[Any, str]:
    """(cupy module or None, reason it is unavailable)."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising at import
        return None, f"CuPy is not installed ({type(exc).__name__}); see requirements-gpu.txt"
    try:
        if not cupy.is_available():
            return None, "CuPy is installed but no CUDA GPU is visible"
    except Exception as exc:
        return None, f"CuPy cannot reach a GPU: {exc}"
    return cupy, ""


def cupy_available() -> bool:
    return cupy_status()[0] is not None


def as_backend(backend: str | Backend, dtype: str = "float32") -> Backend:
    """A Backend as given, or the one a name resolves to (see get_backend)."""
    return backend if isinstance(backend, Backend) else get_backend(backend, dtype)


def get_backend(name: str = "auto", dtype: str = "float32") -> Backend:
    """Resolve a backend name ("auto", "numpy", "cupy") and dtype ("float32", "float64")."""
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    cupy, reason = cupy_status()
    if name == "cupy" and cupy is None:
        raise BackendError(f"backend 'cupy' is not available: {reason}")
    if name in ("cupy", "auto") and cupy is not None:
        return Backend("cupy", cupy, dtype)
    return Backend("numpy", np, dtype)


@lru_cache(maxsize=4)
def device_info(name: str) -> str:
    """Human description of the device behind a resolved backend name."""
    if name == "cupy":
        cupy, _ = cupy_status()
        if cupy is not None:
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
            gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            mem = props["totalGlobalMem"] / 2**30
            return f"CuPy on {gpu} ({mem:.0f} GiB)"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"NumPy on CPU ({cores} cores)"
