"""The bench experiment: our attention forward against torch's scaled_dot_product_attention, same inputs.

On the CPU our NumPy attention (core.attention) against torch's, calls interleaved (core.timing).
On a GPU our fused kernel against torch SDPA and the cuBLAS path (core.gpu.bench).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from core import budget, gpu
from core.attention import attention
from core.backend import Backend, as_backend
from core.results import Progress, Result, result, tick
from core.sampling import draw, sub_seed
from core.timing import Clock, summary, time_interleaved
from core.validate import check_n, positive_int


def bench(ns: Sequence[int], ds: Sequence[int] = (64,), bh: int = 1, seed: int = 0,
          backend: str | Backend = "numpy", dtype: str = "float32", repeats: int = 7,
          progress: Progress = None) -> Result:
    """Our attention forward vs torch.nn.functional.scaled_dot_product_attention, same inputs.

    ratio = ours_seconds / torch_seconds (below 1 means we are faster); max_abs_diff compares
    the two outputs. Both run in this process, on the backend's device.
    """
    import torch
    import torch.nn.functional as F

    be = as_backend(backend, dtype)
    ns = [check_n(n) for n in ns]
    ds = [positive_int(d, "d") for d in ds]
    bh = positive_int(bh, "bh")
    item = np.dtype(be.dtype).itemsize
    for n in ns:
        for d in ds:
            budget.chunk_trials(item * bh * 4 * n * d, 1, "bench")
    est = sum(2 * (repeats + 2) * budget.estimate_seconds(4.0 * bh * n * n * d, bh * n * n,
                                                          gpu=be.is_gpu) for n in ns for d in ds)
    budget.check_time(est, "this benchmark", "a smaller n")
    device = "cuda" if be.is_gpu else "cpu"
    rows, k = [], 0
    for n in ns:
        for d in ds:
            rng = be.rng(sub_seed(seed, 6, n, d, bh))
            Q, K, V = (draw(rng, (bh, n, d), "normal", be.dtype) for _ in range(3))
            c = 1.0 / math.sqrt(d)
            if be.is_gpu:  # fused kernel vs torch SDPA vs cuBLAS, fp32 and fp16, CUDA events
                gpu_rows = gpu.bench_rows_or_none(Q, K, V, c, repeats)
                if gpu_rows is not None:
                    rows += gpu_rows
                    k += 1
                    tick(progress, k, len(ns) * len(ds))
                    continue
            tq, tk, tv = (torch.as_tensor(x, device=device) for x in (Q, K, V))
            with torch.no_grad():
                fns = {"ours": (partial(attention, Q, K, V, c), Clock.for_engine(be.name, be)),
                       "torch": (partial(F.scaled_dot_product_attention, tq, tk, tv),
                                 Clock.for_engine("torch", be))}
                t, _ = time_interleaved(fns, repeats, warmup=2, autorange=1)
                ours, ref = summary(t["ours"]), summary(t["torch"])
                out = be.asnumpy(attention(Q, K, V, c))
                out_ref = F.scaled_dot_product_attention(tq, tk, tv).cpu().numpy()
            rows.append({"n": n, "d": d, "bh": bh, "ours_seconds": ours["seconds"],
                         "torch_seconds": ref["seconds"],
                         "ratio": ours["seconds"] / ref["seconds"],
                         "max_abs_diff": float(np.abs(out - out_ref).max()),
                         "ours_gflops_per_s": 4.0 * bh * n * n * d / ours["seconds"] / 1e9})
            k += 1
            tick(progress, k, len(ns) * len(ds))
    params = {"n": ns, "d": ds, "bh": bh, "seed": seed, "dtype": be.dtype, "repeats": repeats,
              "peer": "torch.nn.functional.scaled_dot_product_attention",
              "device": be.describe()}
    return result("bench", be.name, params, rows)
