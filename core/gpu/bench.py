"""The GPU benchmark: our fused attention vs torch SDPA vs the unfused cuBLAS path, timed by CUDA events.

One row per dtype with seconds (median, core.timing), TFLOP/s, the fraction of the H100's FP32
peak, and the largest difference between the outputs. `python -m core bench --backend cupy`
and `python -m core.gpu_check` print these rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core.gpu import device, guard, launch
from core.timing import Clock, time_one

FP32_PEAK_TFLOPS = 67.0  # H100 SXM, FP32 non-tensor (docs/science.md §5)


def cublas_attention(Q: Any, K: Any, V: Any, c: float, max_bytes: int = 1 << 31) -> Any:
    """The unfused path: S = c·Q Kᵀ (cuBLAS), row softmax, O = P V (cuBLAS), heads in chunks so
    one chunk of S stays under max_bytes."""
    cp = device.xp()
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


def bench_rows(Q: Any, K: Any, V: Any, c: float, repeats: int = 10,
               dtypes: Sequence[str] = ("float32", "float16")) -> list[dict[str, Any]]:
    """One row per dtype: our fused kernel vs torch SDPA vs the cuBLAS path on the same inputs
    (BH × n × d CuPy arrays), CUDA-event medians. TFLOP/s counts 4·BH·n²·d; peak_fraction is ours
    over the H100's 67 TFLOP/s FP32 (non-tensor) peak; ratio = ours / torch (< 1: we are faster)."""
    cp = device.xp()
    torch = device.torch_cuda()
    bh, n, d = Q.shape
    flops = 4.0 * bh * n * n * d
    sdpa = None if torch is None else torch.nn.functional.scaled_dot_product_attention
    events = Clock.cupy_events(cp)
    rows = []
    for dtype in dtypes:
        q, k, v = (x.astype(dtype) for x in (Q, K, V))
        plan = launch.attention_plan(bh, n, d, dtype)
        out = launch.attention_forward(q, k, v, c)
        ours = time_one(lambda q=q, k=k, v=v: launch.attention_forward(q, k, v, c), events, repeats)
        ref_cublas = cublas_attention(q, k, v, c)
        t_cublas = time_one(lambda q=q, k=k, v=v: cublas_attention(q, k, v, c), events,
                            max(3, repeats // 2), 1)
        row: dict[str, Any] = {"n": n, "d": d, "bh": bh, "dtype": dtype, "kernel": plan.name,
                               "ours_seconds": ours, "cublas_seconds": t_cublas}
        diff_cublas = float(cp.abs(out.astype(cp.float32) - ref_cublas.astype(cp.float32)).max())
        if torch is not None and sdpa is not None:
            # 4-D (batch, heads, n, d): torch picks its fused backends only for 4-D inputs
            tq, tk, tv = (torch.as_tensor(x.reshape(1, bh, n, d), device="cuda") for x in (q, k, v))
            with torch.no_grad():
                t_out = sdpa(tq, tk, tv, scale=c)
                t_torch = time_one(lambda tq=tq, tk=tk, tv=tv: sdpa(tq, tk, tv, scale=c),
                                   Clock.torch_events(), repeats)
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
    if Q.dtype != np.float32 or Q.ndim != 3 or Q.shape[-1] > launch.MAX_D:
        return None
    return guard.or_none("attention benchmark", lambda: bench_rows(Q, K, V, c, repeats),
                         ["attention_forward.cu"])
