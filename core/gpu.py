"""Our CUDA kernels (core/kernels/*.cu) through CuPy, their NumPy twins, and the fallback notice.

Four operations, one `.cu` each, every one with a NumPy twin here computing the same in float64
(the reference the GPU tests and `python -m core.kernels.gpu_check` compare against):

    softmax_stats.cu      row_stats         p_max = 1/Z, H = ln Z − W/Z per row of c·r  (saturation)
    attention_forward.cu  attention_forward O = softmax(c · Q Kᵀ) V, fused, fp32/fp16/bf16  (bench)
    additive_scores.cu    additive_scores   s_ij = Σ_h v_h tanh(A_ih + B_jh), optional softmax  (cost)
    softmax_backward.cu   grad_norms        ‖∂L/∂q‖ = ‖c · Kᵀ (J g)‖ per trial  (gradients)

Each `.cu` is compiled once per process and device (NVRTC through `cupy.RawModule`, cached under a
lock so concurrent app sessions share it; CuPy also caches the binary on disk). Before its first use
on a device each `.cu` passes a first-use check: a few small comparisons with its twin, one per
kernel instantiation the launchers can pick (core.kernels.gpu_check.first_use_checks), so a kernel
that compiles but computes wrongly on this GPU never reaches a figure. A compile, launch or first-use
failure raises KernelError; the `*_or_none` helpers the experiments call turn it into None plus a
notice, and the experiment then runs its reference path (core.attention on the same arrays).
`kernel_report()` says which files are in use and which fell back, for the UI; `gpu_status()` is
the same as one line.
"""

from __future__ import annotations

import math
import statistics
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.backend import cupy_available, device_info

Array = Any  # numpy.ndarray or cupy.ndarray

KERNEL_DIR = Path(__file__).with_name("kernels")
# NVRTC options: C++17 for `if constexpr`. The target architecture is added by CuPy (the current
# device's compute capability). common.cuh is pasted in by kernel_source (not -I), so CuPy's
# on-disk cache, keyed by the source text, sees a change to it.
COMPILE_OPTIONS: tuple[str, ...] = ("-std=c++17",)
FP32_PEAK_TFLOPS = 67.0  # H100 SXM, FP32 non-tensor (SCIENCE.md §5)
MAX_D = 256
ATTENTION_DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")
_CTYPE = {"float32": "float", "float16": "half_t", "bfloat16": "bf16_t"}
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
_DEFAULT_SMEM = 48 * 1024  # a block gets more dynamic shared memory only after an opt-in


class KernelError(RuntimeError):
    """One of our kernels could not be compiled or launched (the caller falls back)."""


# ---------------------------------------------------------------- what gets compiled


def _attention_names() -> tuple[str, ...]:
    names = [f"attention_forward_simt<{t}, {dmax}>" for t in _CTYPE.values() for dmax in (64, 128, 256)]
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
_verify_lock = threading.RLock()
_compiled: dict[tuple[str, Any], dict[str, Any]] = {}
_verified: set[tuple[str, Any]] = set()  # (source, device) that passed the first-use check
_verifying: set[tuple[str, Any]] = set()  # being checked by the thread holding _verify_lock
_rejected: dict[tuple[str, Any], str] = {}  # (source, device) that failed it → why
_failed: dict[str, str] = {}
_notices: deque[str] = deque(maxlen=20)


def _cupy() -> Any:
    """The array namespace the launchers allocate with: CuPy, or the CPU emulator's inside emulated()."""
    emu = _state["emulator"]
    if emu is not None:
        return emu.xp
    if not cupy_available():
        raise KernelError("no CUDA GPU / CuPy not installed")
    import cupy

    return cupy


def to_host(x: Any) -> np.ndarray:
    """A launcher's output as a NumPy array (cupy.ndarray.get(), or a copy of an emulated array)."""
    return x.get() if hasattr(x, "get") else np.array(x, copy=True)


def _device_key() -> Any:
    """The compile cache's device: the CUDA device id (an int), or a tuple naming the emulator."""
    emu = _state["emulator"]
    return ("emulator", emu.schedule, emu.ucontext) if emu is not None else _cupy().cuda.Device().id


def kernel_source_text(code: str) -> str:
    """CUDA C with `#include "common.cuh"` replaced by that file's text (NVRTC gets no include path)."""
    common = (KERNEL_DIR / "common.cuh").read_text().replace("#pragma once\n", "")
    return code.replace('#include "common.cuh"\n', common)


def kernel_source(source: str) -> str:
    """The text NVRTC (or the CPU emulator) compiles for one `.cu` of core/kernels."""
    return kernel_source_text((KERNEL_DIR / source).read_text())


def kernels(source: str) -> dict[str, Any]:
    """{kernel name: cupy.RawKernel} of one `.cu`, compiled once per process and device and, before
    its first use there, checked against its NumPy twin (first_use_check); KernelError otherwise."""
    funcs = _compile(source)
    if not _state["first_use"]:
        return funcs
    key = (source, _device_key())
    if key in _verified:
        return funcs
    with _verify_lock:  # re-entrant: the check's own launches come back here and pass straight on
        if key in _rejected:
            raise KernelError(_rejected[key])
        if key in _verified or key in _verifying:
            return funcs
        _verifying.add(key)
        try:
            checks = first_use_check(source)
        finally:
            _verifying.discard(key)
        failed = [c for c in checks if not c.ok]
        if not failed:
            _verified.add(key)
            return funcs
        worst = max(failed, key=lambda c: c.err)
        detail = f", {worst.detail}" if worst.detail else ""
        msg = (f"{source} failed its first-use check on this device ({len(failed)} of {len(checks)} "
               f"comparisons with its NumPy twin out of tolerance; worst: {worst.name}, error "
               f"{worst.err:.3g} × tolerance{detail})")
        _rejected[key] = msg
        notice(msg)
        raise KernelError(msg)


def first_use_check(source: str) -> list[Any]:
    """Run core.kernels.gpu_check.first_use_checks(source) now, on the current device (or emulator):
    its small kernel-vs-twin comparisons, as gpu_check.Check results (ok when err ≤ 1)."""
    from core.kernels import gpu_check

    return gpu_check.evaluate(gpu_check.first_use_checks(source))


@contextmanager
def first_use_checks(enabled: bool) -> Iterator[None]:
    """Switch the first-use check on or off within this block (process-wide). gpu_check and the
    GPU tests switch it off to compare every kernel themselves and report each difference."""
    with _lock:
        before, _state["first_use"] = _state["first_use"], enabled
    try:
        yield
    finally:
        with _lock:
            _state["first_use"] = before


def _compile(source: str) -> dict[str, Any]:
    """{kernel name: cupy.RawKernel} of one `.cu`, compiled once per process and device."""
    _cupy()
    emu = _state["emulator"]
    key = (source, _device_key())
    with _lock:
        if key in _compiled:
            return _compiled[key]
        if source in _failed and emu is None:
            raise KernelError(_failed[source])
        names = SOURCES[source]
        try:
            code = kernel_source(source)
            if emu is not None:
                funcs = emu.compile(code, names)
            else:
                import cupy as cp

                templated = any("<" in name for name in names)
                module = cp.RawModule(code=code, options=COMPILE_OPTIONS,
                                      name_expressions=list(names) if templated else None)
                funcs = {name: module.get_function(name) for name in names}  # compiles and loads now
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            msg = f"{source} did not compile or load ({type(exc).__name__}: {first[:200]})"
            if emu is None:  # an emulator build failure is the test's to report, not the app's
                _failed[source] = msg
                _notices.append(msg)
            raise KernelError(msg) from exc
        _compiled[key] = funcs
        return funcs


def _launch(source: str, name: str, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
            smem: int = 0) -> None:
    """Launch one kernel; any CUDA error becomes KernelError (with the kernel's name)."""
    kern = kernels(source)[name]
    try:
        if smem > _DEFAULT_SMEM and kern.max_dynamic_shared_size_bytes < smem:
            kern.max_dynamic_shared_size_bytes = smem
        kern(grid, block, args, shared_mem=smem)
    except Exception as exc:
        raise KernelError(f"{name} failed to launch ({type(exc).__name__}: {exc})") from exc


def notice(message: str) -> None:
    """Record a visible fallback notice (shown by gpu_status and the app)."""
    with _lock:
        if not _notices or _notices[-1] != message:
            _notices.append(message)


def notices() -> list[str]:
    """Fallback notices so far in this process, oldest first."""
    with _lock:
        return list(_notices)


def _on_gpu(device_key: Any) -> bool:
    return isinstance(device_key, int)  # the emulator's keys are tuples


def kernel_report() -> dict[str, Any]:
    """What our kernels are doing on the GPU of this process, for the UI:
    {"checked": sources compiled and past their first-use check, "failed": {source: why it falls
    back to the reference path}}. Both empty until a GPU experiment first runs (and on a CPU)."""
    with _lock:
        checked = sorted({src for src, dev in _compiled if _on_gpu(dev) and (src, dev) in _verified})
        failed = dict(_failed)
        for (src, dev), why in _rejected.items():
            if _on_gpu(dev):
                failed.setdefault(src, why)
    return {"checked": [s for s in checked if s not in failed], "failed": dict(sorted(failed.items()))}


def gpu_status() -> str:
    """One line for the UI: which backend runs the experiments and whether our kernels are in use."""
    if not cupy_available():
        from core.backend import _cupy_status

        return f"NumPy on CPU — GPU kernels off: {_cupy_status()[1]}"
    report = kernel_report()
    with _lock:
        ready = sorted({src for src, _ in _compiled})
        last = _notices[-1] if _notices else ""
    parts = [f"{device_info('cupy')} — our CUDA kernels"]
    if report["failed"]:
        parts.append(f"falling back to the NumPy/CuPy reference for {', '.join(report['failed'])}")
    parts.append(f"compiled: {', '.join(ready) if ready else 'none yet (compiled on first use)'}")
    if report["checked"]:
        parts.append(f"passed the first-use check: {', '.join(report['checked'])}")
    if last:
        parts.append(f"last notice: {last}")
    return "; ".join(parts)


def compile_all() -> dict[str, str]:
    """Compile every `.cu` now (with its first-use check, where on); {source: "ok" or the error}."""
    out = {}
    for source in SOURCES:
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


_state: dict[str, Any] = {"reference_only": False, "emulator": None, "first_use": True}


def emulating() -> bool:
    """True inside emulated(): the experiments then send their NumPy arrays through our kernels."""
    return _state["emulator"] is not None


@contextmanager
def emulated(schedule: int = 0, ucontext: bool = False, first_use: bool = False) -> Iterator[Any]:
    """Within this block the launchers run our kernel sources on the CPU emulator
    (core/kernels/emulator.py) instead of CuPy, and allocate with its guarded NumPy namespace.
    schedule: 0 and 1 round robin forwards / backwards, 2 and 3 one warp at a time, ≥ 4 shuffled
    (core/kernels/emulator.h). ucontext: the portable fiber switch instead of x86-64 assembly.
    first_use: run the first-use check on each source as on a GPU (off: the emulator's callers
    check every kernel themselves). Process-wide; KernelError where the emulator cannot run (no g++)."""
    from core.kernels.emulator import CpuEmulator, EmulatorError

    try:
        emu = CpuEmulator(schedule, ucontext)
    except EmulatorError as exc:
        raise KernelError(str(exc)) from exc
    with _lock:
        before = _state["emulator"], _state["first_use"]
        _state["emulator"], _state["first_use"] = emu, first_use
    try:
        yield emu
    finally:
        with _lock:
            _state["emulator"], _state["first_use"] = before


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


def _or_none(what: str, fn: Callable[[], Any]) -> Any:
    if _state["reference_only"]:
        return None
    try:
        return fn()
    except KernelError as exc:
        notice(f"{what}: {exc}; fell back to the reference path")
        return None


def _f32(cp: Any, x: Array) -> Any:
    return cp.ascontiguousarray(x, dtype=cp.float32)


def _ptr(x: Any) -> int:
    data = x.data
    return data.ptr if hasattr(data, "ptr") else x.ctypes.data


def _aligned(*xs: Any) -> bool:
    return all(_ptr(x) % 16 == 0 for x in xs)


# ---------------------------------------------------------------- 1. row statistics


def row_stats(raw: Array, scales: Sequence[float], weights: bool = False,
              version: int = 2) -> tuple[Any, Any, Any]:
    """Per scale c and row r of `raw` (…, n): max weight p_max = 1/Z and entropy H = ln Z − W/Z with
    s = c·r, m = max s, Z = Σ e^{s−m}, W = Σ e^{s−m}(s−m); weights p = e^{s−m}/Z only if asked.

    Returns (p_max, H, P) shaped (len(scales), …) and (len(scales), …, n); P is None unless asked.
    """
    cp = _cupy()
    r = _f32(cp, raw)
    n = r.shape[-1]
    rows = r.size // max(n, 1)
    S = len(scales)
    c = cp.asarray(np.asarray(scales, dtype=np.float32))
    pmax = cp.empty((S, rows), dtype=cp.float32)
    H = cp.empty((S, rows), dtype=cp.float32)
    P = cp.empty((S, rows, n), dtype=cp.float32) if weights else None
    if rows and S:
        vec = int(n % 4 == 0 and _aligned(r))
        per_block = 256 if version == 1 else 8
        grid = ((rows + per_block - 1) // per_block, S)
        _launch("softmax_stats.cu", f"row_stats_v{version}", grid, (256,),
                (r, c, np.int32(rows), np.int32(n), np.int32(vec), pmax, H,
                 P if P is not None else np.uint64(0)))
    lead = (S, *r.shape[:-1])
    return pmax.reshape(lead), H.reshape(lead), None if P is None else P.reshape((*lead, n))


def row_stats_or_none(raw: Array, scales: Sequence[float]) -> list[tuple[Any, Any]] | None:
    """[(p_max, H) per scale] from the fused kernel, or None (with a notice) to use the reference."""
    if raw.dtype != np.float32:
        return None  # float64 sweeps run the array-generic path
    out = _or_none("saturation row statistics", lambda: row_stats(raw, scales))
    return None if out is None else [(out[0][i], out[1][i]) for i in range(len(scales))]


def row_stats_twin(raw: np.ndarray, scales: Sequence[float],
                   weights: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """NumPy twin of row_stats: s = c·r rounded to float32 (as the kernel), then float64:
    p_max = max_j p_j, H = −Σ_j p_j ln p_j, p = softmax(s)."""
    r = np.asarray(raw, dtype=np.float32)
    pm, hs, ps = [], [], []
    for c in scales:
        s = (r * np.float32(c)).astype(np.float64)
        z = s - s.max(axis=-1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=-1, keepdims=True)
        pm.append(p.max(axis=-1))
        hs.append(-(p * z).sum(axis=-1) + np.log(e.sum(axis=-1)))  # −Σ p ln p with ln p = z − ln Z
        ps.append(p)
    return np.stack(pm), np.maximum(np.stack(hs), 0.0), np.stack(ps) if weights else None


# ---------------------------------------------------------------- 2. fused attention forward


@dataclass(frozen=True)
class LaunchPlan:
    """Which kernel instantiation, and its grid, block and dynamic shared memory in bytes."""

    name: str
    grid: tuple[int, int]
    block: tuple[int]
    smem: int


def attention_plan(bh: int, n: int, d: int, dtype: str = "float32", version: str = "auto",
                   split: int = 3) -> LaunchPlan:
    """The launch for BH heads of n queries/keys of width d. version: "auto" (tensor cores for
    d ≤ 128, SIMT above), "mma" or "simt". split: 3 = 3xTF32, 1 = TF32 (float32 only)."""
    if dtype not in _CTYPE:
        raise KernelError(f"attention_forward takes {', '.join(ATTENTION_DTYPES)}, not {dtype}")
    if not 1 <= d <= MAX_D:
        raise KernelError(f"attention_forward needs 1 ≤ d ≤ {MAX_D}, got d = {d}")
    if n < 1 or not 1 <= bh <= 65535:
        raise KernelError(f"attention_forward needs n ≥ 1 and 1 ≤ BH ≤ 65535, got n = {n}, BH = {bh}")
    if split not in (1, 3):
        raise KernelError(f"split must be 1 (TF32) or 3 (3xTF32), got {split}")
    if version not in ("auto", "mma", "simt"):
        raise KernelError(f"unknown attention kernel version {version!r}")
    t, item = _CTYPE[dtype], _ITEMSIZE[dtype]
    if version == "mma" or (version == "auto" and d <= 128):
        if d > 128:
            raise KernelError(f"the tensor-core kernel takes d ≤ 128, got d = {d}")
        D = 64 if d <= 64 else 128
        pad_v = 4 if dtype == "float32" else 8
        smem = (2 * 64 * (D + 8) + 64 * (D + pad_v)) * item
        sp = split if dtype == "float32" else 1
        return LaunchPlan(f"attention_forward_mma<{t}, {D}, {sp}>", (-(-n // 64), bh), (128,), smem)
    dmax = 64 if d <= 64 else 128 if d <= 128 else 256
    ld = d | 1
    smem = (3 * 32 * ld + 32 * 33 + 3 * 32) * 4
    return LaunchPlan(f"attention_forward_simt<{t}, {dmax}>", (-(-n // 32), bh), (256,), smem)


def attention_forward(Q: Array, K: Array, V: Array, scale: float | None = None, *, version: str = "auto",
                      split: int = 3, bfloat16: bool = False) -> Any:
    """O = softmax(c · Q Kᵀ) V with our fused kernel; Q, K, V shaped (…, n, d), same dtype.

    float32 (3xTF32 by default), float16, or bfloat16 passed as uint16 bit patterns with
    `bfloat16=True` (see to_bfloat16_bits). c defaults to 1/√d. O has the inputs' dtype.
    """
    cp = _cupy()
    if bfloat16:
        if Q.dtype != np.uint16:
            raise KernelError("bfloat16 inputs are passed as uint16 bit patterns")
        dtype = "bfloat16"
    else:
        dtype = np.dtype(Q.dtype).name
    if not (Q.shape == K.shape == V.shape) or Q.ndim < 2 or not (Q.dtype == K.dtype == V.dtype):
        raise KernelError("attention_forward needs Q, K, V of one shape (…, n, d) and one dtype")
    n, d = Q.shape[-2], Q.shape[-1]
    bh = int(np.prod(Q.shape[:-2], dtype=np.int64))
    plan = attention_plan(bh, n, d, dtype, version, split)
    q, k, v = (cp.ascontiguousarray(x) for x in (Q, K, V))
    O = cp.empty_like(q)
    c = 1.0 / math.sqrt(d) if scale is None else float(scale)
    args: tuple = (q, k, v, O, np.int32(n), np.int32(d), np.float32(c))
    if "mma" in plan.name:
        vec = int(d % (16 // _ITEMSIZE[dtype]) == 0 and _aligned(q, k, v))
        args += (np.int32(vec),)
    _launch("attention_forward.cu", plan.name, plan.grid, plan.block, args, plan.smem)
    return O


def attention_twin(Q: np.ndarray, K: np.ndarray, V: np.ndarray, scale: float | None = None) -> np.ndarray:
    """NumPy twin: O = softmax(c · Q Kᵀ) V in float64 (c = 1/√d by default), batched over leading axes."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    c = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale
    S = c * (Q @ K.swapaxes(-1, -2))
    S -= S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P /= P.sum(axis=-1, keepdims=True)
    return P @ V


def to_bfloat16_bits(x: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bit patterns (uint16), round to nearest even (what cvt.rn.bf16.f32 does)."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) → float32, exactly."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


# ---------------------------------------------------------------- 3. additive scores

ADDITIVE_COST_TANH = "accurate"  # the cost page times tanhf; "fast" is tanh.approx.f32


def additive_scores(A: Array, B: Array, v: Array, *, fast: bool = False, softmax: bool = False) -> Any:
    """s_ij = Σ_h v_h tanh(A_ih + B_jh) (A: n × d_h, B: m × d_h, v: d_h), or softmax_j of it if asked.

    fast=True uses the hardware tanh.approx.f32; fast=False the accurate tanhf.
    """
    cp = _cupy()
    a, b, w = _f32(cp, A), _f32(cp, B), _f32(cp, v)
    if a.ndim != 2 or b.ndim != 2 or w.ndim != 1 or not (a.shape[1] == b.shape[1] == w.shape[0]):
        raise KernelError("additive_scores needs A (n × d_h), B (m × d_h) and v (d_h)")
    n, m, dh = a.shape[0], b.shape[0], a.shape[1]
    S = cp.empty((n, m), dtype=cp.float32)
    if n and m:
        flag = "true" if fast else "false"
        name = f"additive_softmax<{flag}>" if softmax else f"additive_scores<{flag}>"
        grid = (1 if softmax else -(-m // 64), -(-n // 64))
        _launch("additive_scores.cu", name, grid, (16, 16),
                (a, b, w, S, np.int32(n), np.int32(m), np.int32(dh)))
    return S


def additive_scores_twin(A: np.ndarray, B: np.ndarray, v: np.ndarray, softmax: bool = False) -> np.ndarray:
    """NumPy twin in float64: s_ij = Σ_h v_h tanh(A_ih + B_jh), then softmax over j if asked."""
    A, B, v = (np.asarray(x, dtype=np.float64) for x in (A, B, v))
    S = np.empty((A.shape[0], B.shape[0]))
    block = max(1, (1 << 22) // max(1, B.shape[0] * A.shape[1]))
    for i in range(0, A.shape[0], block):
        S[i:i + block] = np.tanh(A[i:i + block, None, :] + B[None, :, :]) @ v
    if softmax:
        S = np.exp(S - S.max(axis=1, keepdims=True))
        S /= S.sum(axis=1, keepdims=True)
    return S


# ---------------------------------------------------------------- 4. softmax backward / gradient norms


def grad_norms(raw: Array, K: Array, g: Array, c: float) -> tuple[Any, Any, Any]:
    """Per trial t: p = softmax(c·r), J g = p ⊙ (g − p·g), ∂L/∂q = c·Kᵀ(J g).

    raw (T × n) = K q, K (T × n × d), g (T × n). Returns (p (T × n), ‖∂L/∂q‖₂ (T), ‖J g‖₂ (T)).
    """
    cp = _cupy()
    r, k, gg = _f32(cp, raw), _f32(cp, K), _f32(cp, g)
    if r.ndim != 2 or k.ndim != 3 or k.shape[:2] != r.shape or gg.shape != r.shape:
        raise KernelError("grad_norms needs raw (T × n), K (T × n × d) and g (T × n)")
    T, n, d = k.shape
    smem = 4 * (2 * n + d)
    if smem > 200 * 1024:
        raise KernelError(f"grad_norms keeps 2n + d floats in shared memory; n = {n}, d = {d} is too large")
    p = cp.empty((T, n), dtype=cp.float32)
    gn = cp.empty(T, dtype=cp.float32)
    jn = cp.empty(T, dtype=cp.float32)
    if T:
        _launch("softmax_backward.cu", "grad_norms", (T,), (128,),
                (r, k, gg, np.float32(c), np.int32(n), np.int32(d), p, jn, gn), smem)
    return p, gn, jn


def grad_norm_or_none(draws: Any, c: float) -> tuple[Any, Any] | None:
    """(‖∂L/∂q‖ per trial, p) for one chunk of the gradient experiment (core.experiments._GradDraws),
    or None (with a notice) so that the reference path runs.

    Direct draws (K given): the kernel's ‖c·Kᵀ(J g)‖. Reduced draws (q = r·u, a = K u, w ~ χ²_{d−1}):
    the kernel with the single column a gives |c·aᵀv| and ‖v‖ for v = J g, and
    ‖∂L/∂q‖ = √((c·aᵀv)² + c²‖v‖²·w), the same formula as the reference path.
    """
    if draws.raw.dtype != np.float32:
        return None

    def run() -> tuple[Any, Any]:
        if draws.K is not None:
            p, gn, _ = grad_norms(draws.raw, draws.K, draws.g, c)
            return gn, p
        p, along, vn = grad_norms(draws.raw, draws.a[..., None], draws.g, c)
        cvn = vn * np.float32(abs(c))
        return (along * along + cvn * cvn * draws.w) ** 0.5, p

    return _or_none("gradient norms", run)


def grad_norms_twin(raw: np.ndarray, K: np.ndarray, g: np.ndarray,
                    c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy twin: s = c·r rounded to float32, then float64: p = softmax(s), J g = (diag p − p pᵀ) g,
    ∂L/∂q = c·Kᵀ(J g). Returns (p, ‖∂L/∂q‖₂, ‖J g‖₂).

    J g is formed as p ⊙ (ρ − p·ρ) with ρ = g − g_top (J·1 = 0, so the shift changes nothing in exact
    arithmetic): written as p ⊙ g − p (p·g), a row with p_top = 1 − 5e-20 rounds p_top·(1 − p_top)
    to 0 and its entries of J g lose all precision (the CPU emulator caught the earlier twin doing so)."""
    s = (np.asarray(raw, dtype=np.float32) * np.float32(c)).astype(np.float64)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    g = np.asarray(g, dtype=np.float64)
    rho = g - np.take_along_axis(g, p.argmax(axis=-1)[..., None], axis=-1)
    Jg = p * (rho - (p * rho).sum(axis=-1, keepdims=True))
    grad = c * np.einsum("tnd,tn->td", np.asarray(K, dtype=np.float64), Jg)
    return p, np.linalg.norm(grad, axis=-1), np.linalg.norm(Jg, axis=-1)


# ---------------------------------------------------------------- benchmark (CUDA events)


def time_gpu(fn: Callable[[], Any], repeats: int = 10, warmup: int = 3) -> float:
    """Median seconds of fn() between two CUDA events on the current stream, after warm-up."""
    cp = _cupy()
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(max(1, repeats)):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return float(statistics.median(times))


def cublas_attention(Q: Any, K: Any, V: Any, c: float, max_bytes: int = 1 << 31) -> Any:
    """The unfused path: S = c·Q Kᵀ (cuBLAS), row softmax, O = P V (cuBLAS), heads in chunks so
    one chunk of S stays under max_bytes."""
    cp = _cupy()
    bh, n, _ = Q.shape
    O = cp.empty_like(Q)
    step = max(1, max_bytes // max(1, n * n * Q.dtype.itemsize))
    for h in range(0, bh, step):
        S = cp.matmul(Q[h:h + step] * Q.dtype.type(c), K[h:h + step].swapaxes(-1, -2))
        S -= S.max(axis=-1, keepdims=True)
        cp.exp(S, out=S)
        S /= S.sum(axis=-1, keepdims=True)
        O[h:h + step] = cp.matmul(S, V[h:h + step])
    return O


def _torch_cuda() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def bench_rows(Q: Any, K: Any, V: Any, c: float, repeats: int = 10,
               dtypes: Sequence[str] = ("float32", "float16")) -> list[dict[str, Any]]:
    """One row per dtype: our fused kernel vs torch SDPA vs the cuBLAS path on the same inputs
    (BH × n × d CuPy arrays), CUDA-event medians. TFLOP/s counts 4·BH·n²·d; peak_fraction is ours
    over the H100's 67 TFLOP/s FP32 (non-tensor) peak; ratio = ours / torch (< 1: we are faster)."""
    cp = _cupy()
    torch = _torch_cuda()
    bh, n, d = Q.shape
    flops = 4.0 * bh * n * n * d
    sdpa = None if torch is None else torch.nn.functional.scaled_dot_product_attention
    rows = []
    for dtype in dtypes:
        q, k, v = (x.astype(dtype) for x in (Q, K, V))
        plan = attention_plan(bh, n, d, dtype)
        out = attention_forward(q, k, v, c)
        ours = time_gpu(lambda q=q, k=k, v=v: attention_forward(q, k, v, c), repeats)
        ref_cublas = cublas_attention(q, k, v, c)
        t_cublas = time_gpu(lambda q=q, k=k, v=v: cublas_attention(q, k, v, c), max(3, repeats // 2), 1)
        row: dict[str, Any] = {"n": n, "d": d, "bh": bh, "dtype": dtype, "kernel": plan.name,
                               "ours_seconds": ours, "cublas_seconds": t_cublas}
        diff_cublas = float(cp.abs(out.astype(cp.float32) - ref_cublas.astype(cp.float32)).max())
        if torch is not None and sdpa is not None:
            # 4-D (batch, heads, n, d): torch picks its fused backends only for 4-D inputs
            tq, tk, tv = (torch.as_tensor(x.reshape(1, bh, n, d), device="cuda") for x in (q, k, v))
            with torch.no_grad():
                t_out = sdpa(tq, tk, tv, scale=c)
                t_torch = time_gpu(lambda tq=tq, tk=tk, tv=tv: sdpa(tq, tk, tv, scale=c), repeats)
            ref = cp.asarray(t_out.reshape(bh, n, d).float())
            row.update(torch_seconds=t_torch, ratio=ours / t_torch, speedup_vs_torch=t_torch / ours,
                       max_abs_diff=float(cp.abs(out.astype(cp.float32) - ref).max()),
                       torch_tflops=flops / t_torch / 1e12)
        else:
            row.update(torch_seconds=None, ratio=None, speedup_vs_torch=None,
                       max_abs_diff=diff_cublas, torch_tflops=None,
                       note="torch has no CUDA here; max_abs_diff is against the cuBLAS path")
        row.update(max_abs_diff_cublas=diff_cublas, tflops=flops / ours / 1e12,
                   cublas_tflops=flops / t_cublas / 1e12,
                   peak_fraction=flops / ours / 1e12 / FP32_PEAK_TFLOPS)
        rows.append(row)
    return rows


def bench_rows_or_none(Q: Any, K: Any, V: Any, c: float, repeats: int = 10) -> list[dict[str, Any]] | None:
    """bench_rows, or None (with a notice) when our kernel cannot run here."""
    if Q.dtype != np.float32 or Q.ndim != 3 or Q.shape[-1] > MAX_D:
        return None
    return _or_none("attention benchmark", lambda: bench_rows(Q, K, V, c, repeats))
