"""The launchers: one Python function per kernel of core/kernels/*.cu — launch geometry, arguments, output.

    softmax_stats.cu      row_stats         p_max = 1/Z, H = ln Z − W/Z per row of c·r  (saturation)
    attention_forward.cu  attention_forward O = softmax(c · Q Kᵀ) V, fused, fp32/fp16/bf16  (bench)
    additive_scores.cu    additive_scores   s_ij = Σ_h v_h tanh(A_ih + B_jh), optional softmax  (cost)
    softmax_backward.cu   grad_norms        ‖∂L/∂q‖ = ‖c · Kᵀ (J g)‖ per trial  (gradients)

Each takes and returns arrays of the device's namespace (CuPy, or a stand-in's) and raises
KernelError when it cannot run. The NumPy function computing the same thing in float64 is in
core/gpu/twins.py; core/gpu/checks.py compares the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.gpu import device
from core.gpu.device import CTYPE, KernelError

Array = Any  # numpy.ndarray or cupy.ndarray

MAX_D = 256
ATTENTION_DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}


def f32(cp: Any, x: Array) -> Any:
    """x as a contiguous float32 array of namespace cp."""
    return cp.ascontiguousarray(x, dtype=cp.float32)


def ptr(x: Any) -> int:
    """The device (or host) address of x's first element."""
    data = x.data
    return data.ptr if hasattr(data, "ptr") else x.ctypes.data


def aligned(*xs: Any) -> bool:
    """Every array starts on a 16-byte boundary (the kernels' vector loads need it)."""
    return all(ptr(x) % 16 == 0 for x in xs)


def row_stats(raw: Array, scales: Sequence[float], weights: bool = False,
              version: int = 2) -> tuple[Any, Any, Any]:
    """Per scale c and row r of `raw` (…, n): max weight p_max = 1/Z and entropy H = ln Z − W/Z with
    s = c·r, m = max s, Z = Σ e^{s−m}, W = Σ e^{s−m}(s−m); weights p = e^{s−m}/Z only if asked.

    Returns (p_max, H, P) shaped (len(scales), …) and (len(scales), …, n); P is None unless asked.
    """
    cp = device.xp()
    r = f32(cp, raw)
    n = r.shape[-1]
    rows = r.size // max(n, 1)
    S = len(scales)
    c = cp.asarray(np.asarray(scales, dtype=np.float32))
    pmax = cp.empty((S, rows), dtype=cp.float32)
    H = cp.empty((S, rows), dtype=cp.float32)
    P = cp.empty((S, rows, n), dtype=cp.float32) if weights else None
    if rows and S:
        vec = int(n % 4 == 0 and aligned(r))
        per_block = 256 if version == 1 else 8
        grid = ((rows + per_block - 1) // per_block, S)
        device.launch("softmax_stats.cu", f"row_stats_v{version}", grid, (256,),
                      (r, c, np.int32(rows), np.int32(n), np.int32(vec), pmax, H,
                       P if P is not None else np.uint64(0)))
    lead = (S, *r.shape[:-1])
    return pmax.reshape(lead), H.reshape(lead), None if P is None else P.reshape((*lead, n))


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
    if dtype not in CTYPE:
        raise KernelError(f"attention_forward takes {', '.join(ATTENTION_DTYPES)}, not {dtype}")
    if not 1 <= d <= MAX_D:
        raise KernelError(f"attention_forward needs 1 ≤ d ≤ {MAX_D}, got d = {d}")
    if n < 1 or not 1 <= bh <= 65535:
        raise KernelError(f"attention_forward needs n ≥ 1 and 1 ≤ BH ≤ 65535, got n = {n}, BH = {bh}")
    if split not in (1, 3):
        raise KernelError(f"split must be 1 (TF32) or 3 (3xTF32), got {split}")
    if version not in ("auto", "mma", "simt"):
        raise KernelError(f"unknown attention kernel version {version!r}")
    t, item = CTYPE[dtype], ITEMSIZE[dtype]
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
    `bfloat16=True` (see core.gpu.twins.to_bfloat16_bits). c defaults to 1/√d. O has the inputs' dtype.
    """
    cp = device.xp()
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
        vec = int(d % (16 // ITEMSIZE[dtype]) == 0 and aligned(q, k, v))
        args += (np.int32(vec),)
    device.launch("attention_forward.cu", plan.name, plan.grid, plan.block, args, plan.smem)
    return O


def additive_scores(A: Array, B: Array, v: Array, *, fast: bool = False, softmax: bool = False) -> Any:
    """s_ij = Σ_h v_h tanh(A_ih + B_jh) (A: n × d_h, B: m × d_h, v: d_h), or softmax_j of it if asked.

    fast=True uses the hardware tanh.approx.f32; fast=False the accurate tanhf.
    """
    cp = device.xp()
    a, b, w = f32(cp, A), f32(cp, B), f32(cp, v)
    if a.ndim != 2 or b.ndim != 2 or w.ndim != 1 or not (a.shape[1] == b.shape[1] == w.shape[0]):
        raise KernelError("additive_scores needs A (n × d_h), B (m × d_h) and v (d_h)")
    n, m, dh = a.shape[0], b.shape[0], a.shape[1]
    S = cp.empty((n, m), dtype=cp.float32)
    if n and m:
        flag = "true" if fast else "false"
        name = f"additive_softmax<{flag}>" if softmax else f"additive_scores<{flag}>"
        grid = (1 if softmax else -(-m // 64), -(-n // 64))
        device.launch("additive_scores.cu", name, grid, (16, 16),
                      (a, b, w, S, np.int32(n), np.int32(m), np.int32(dh)))
    return S


def grad_norms(raw: Array, K: Array, g: Array, c: float) -> tuple[Any, Any, Any]:
    """Per trial t: p = softmax(c·r), J g = p ⊙ (g − p·g), ∂L/∂q = c·Kᵀ(J g).

    raw (T × n) = K q, K (T × n × d), g (T × n). Returns (p (T × n), ‖∂L/∂q‖₂ (T), ‖J g‖₂ (T)).
    """
    cp = device.xp()
    r, k, gg = f32(cp, raw), f32(cp, K), f32(cp, g)
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
        device.launch("softmax_backward.cu", "grad_norms", (T,), (128,),
                      (r, k, gg, np.float32(c), np.int32(n), np.int32(d), p, jn, gn), smem)
    return p, gn, jn
