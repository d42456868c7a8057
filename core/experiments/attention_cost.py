"""The cost experiment: one attention forward with dot-product or additive scores, modelled and timed.

    dot             S = Q Kᵀ/√d_k                      2n²d_k  (one GEMM, softmax, one GEMM)
    additive        A = Q W₁ᵀ, B = K W₂ᵀ once (4·n·d·d_h), then s_ij = Σ_h v_h tanh(A_ih + B_jh)
                    (n²·d_h tanh, 3·n²·d_h FLOPs)
    additive-naive  the projections again for every pair: 4·n²·d·d_h (the notes' O(n²d²))

plus torch's version of dot and additive as reference lines. `measure_points` times several
series at one size on the same inputs (core.timing: one warm-up call whose output is kept for
checking, then interleaved repeats; CUDA events on a GPU, perf_counter on the CPU). The sweep
over sizes, the fits and the roofline are core/cost.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from functools import partial
from typing import Any

import numpy as np

from core import attention as A
from core import budget, gpu
from core.backend import Backend, as_backend
from core.errors import InputError
from core.results import Progress, Result, result, tick
from core.sampling import draw, sub_seed
from core.timing import Clock, summary, time_interleaved
from core.validate import check_n, positive_int

IMPLS: tuple[str, ...] = ("dot", "additive", "additive-naive")
KERNEL_FILE = {"dot": "attention_forward.cu", "additive": "additive_scores.cu"}  # ours on a GPU
ADDITIVE_COST_TANH = "accurate"  # the cost page times tanhf; "fast" is tanh.approx.f32


def cost_model(impl: str, n: int, d: int, d_h: int, itemsize: int = 4) -> dict[str, float]:
    """FLOPs, tanh/exp count and bytes of one attention forward O = softmax(S) V, S from `impl`.

    dot:             S = Q Kᵀ/√d: 2n²d; softmax ≈ 5n² (with n² exp); O = P V: 2n²d.
    additive:        A = Q W₁ᵀ, B = K W₂ᵀ once: 4·n·d·d_h; s_ij = Σ_h v_h tanh(A_ih + B_jh):
                     3·n²·d_h (+ n²·d_h tanh); softmax and P V as above.
    additive-naive:  the projections again for every pair: 4·n²·d·d_h, then as additive.
    Bytes: inputs (Q, K, V), the intermediate (n² scores for dot, the n²·d_h tanh argument
    for additive), and the output, each once.
    """
    check_impl(impl)
    tail = 5.0 * n * n + 2.0 * n * n * d
    if impl == "dot":
        flops = 2.0 * n * n * d + tail
        special = n * n
        inter = n * n
    else:
        proj = 4.0 * n * d * d_h if impl == "additive" else 4.0 * n * n * d * d_h
        flops = proj + 3.0 * n * n * d_h + tail
        special = n * n * d_h + n * n
        inter = n * n * d_h
    io = 3 * n * d + n * d
    return {"flops": flops, "special": float(special), "bytes": float(itemsize * (io + inter)),
            "intermediate_bytes": float(itemsize * inter)}


def check_impl(impl: str) -> str:
    """impl if it names one of IMPLS; InputError otherwise."""
    if impl not in IMPLS:
        raise InputError(f"unknown implementation {impl!r}; choose one of {', '.join(IMPLS)}")
    return impl


def cost_inputs(be: Backend, n: int, d: int, d_h: int, seed: int) -> dict[str, Any]:
    """Random Q, K, V (n × d) and additive weights W₁, W₂ (d_h × d, std 1/√d), v (d_h, std 1/√d_h)."""
    rng = be.rng(sub_seed(seed, 5, n, d, d_h))
    x = {k: draw(rng, (n, d), "normal", be.dtype) for k in ("Q", "K", "V")}
    x["W1"] = draw(rng, (d_h, d), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d**-0.5)
    x["W2"] = draw(rng, (d_h, d), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d**-0.5)
    x["v"] = draw(rng, (d_h,), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d_h**-0.5)
    return x


def run_impl(impl: str, x: dict[str, Any], d: int) -> Any:
    """One attention forward with the scores of `impl`; returns O (n × d).

    On a GPU in float32, dot and factored additive run our CUDA kernels (core/kernels:
    attention_forward.cu; additive_scores.cu with accurate tanhf, fused softmax) after cuBLAS
    projections; when a kernel is unavailable they fall back, with a notice, to the path below.
    """
    if impl in ("dot", "additive") and x["Q"].dtype == np.float32 and (
            A.array_module(x["Q"]) is not np or gpu.kernels_run(None)):
        out = gpu.or_none(f"cost {impl}", lambda: _run_kernel(impl, x, d), [KERNEL_FILE[impl]])
        if out is not None:
            return out
    if impl == "dot":
        return A.attention(x["Q"], x["K"], x["V"], 1.0 / math.sqrt(d))
    if impl == "additive":
        S = A.additive_attention_scores(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    else:
        S = A.additive_attention_scores_naive(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    return A.softmax(S, out=S) @ x["V"]


def _run_kernel(impl: str, x: dict[str, Any], d: int) -> Any:
    if impl == "dot":
        return gpu.attention_forward(x["Q"], x["K"], x["V"], 1.0 / math.sqrt(d))
    P = gpu.additive_scores(x["Q"] @ x["W1"].T, x["K"] @ x["W2"].T, x["v"],
                            fast=ADDITIVE_COST_TANH == "fast", softmax=True)
    return P @ x["V"]


def torch_impl(impl: str, x: dict[str, Any], d: int) -> Any:
    """The torch reference of `impl` on the same inputs (torch tensors), returning O (n × d).

    dot: `torch.nn.functional.scaled_dot_product_attention` with scale 1/√d; additive: the
    factored scores, in the same ~4M-element blocks of the n_b × n × d_h tanh cube as ours.
    """
    import torch
    import torch.nn.functional as F

    if impl == "dot":
        return F.scaled_dot_product_attention(x["Q"][None], x["K"][None], x["V"][None],
                                              scale=1.0 / math.sqrt(d))[0]
    if impl != "additive":
        raise InputError(f"no torch reference for {impl!r}")
    A, B, v = x["Q"] @ x["W1"].T, x["K"] @ x["W2"].T, x["v"]
    n, d_h = A.shape
    S = torch.empty((n, B.shape[0]), dtype=A.dtype, device=A.device)
    block = max(1, (1 << 22) // max(1, B.shape[0] * d_h))
    for start in range(0, n, block):
        S[start:start + block] = torch.tanh(A[start:start + block, None, :] + B[None]) @ v
    return torch.softmax(S, dim=-1) @ x["V"]


def measure_points(be: Backend, series: Sequence[tuple[str, str]], n: int, d: int, d_h: int,
                   seed: int = 0, repeats: int = 5, warmup: int = 1,
                   between: Callable[[float], Any] | None = None) -> dict[tuple[str, str], dict]:
    """Time every (impl, engine) of `series` at one size on the same inputs, interleaved per engine.

    engine is the backend's own name (NumPy/CuPy through `run_impl`) or "torch".
    Each row: impl n d d_h seconds seconds_min seconds_max repeats flops special bytes
    intermediate_bytes gflops_per_s engine timer, and `output` (O as float64 NumPy, from warm-up).
    `between(fraction)`, when given, is called after every call, outside the timed part, with the
    fraction of the planned calls made so far (core.timing.time_interleaved).
    """
    item = np.dtype(be.dtype).itemsize
    x = cost_inputs(be, n, d, d_h, seed)
    fns: dict[tuple[str, str], tuple[Callable[[], Any], Clock]] = {}
    tx: dict[str, Any] | None = None
    for impl, eng in series:
        if eng == "torch":
            if tx is None:
                tx = torch_inputs(x, be)
            fns[(impl, eng)] = (partial(torch_impl, impl, tx, d), Clock.for_engine(eng, be))
        else:
            fns[(impl, eng)] = (partial(run_impl, impl, x, d), Clock.for_engine(eng, be))
    ctx: Any = nullcontext()
    if tx is not None:
        import torch

        ctx = torch.no_grad()
    times: dict[tuple[str, str], list[float]] = {}
    outputs: dict[tuple[str, str], Any] = {}
    with ctx:
        # Interleave within one engine only: alternating NumPy's BLAS threads with torch's OpenMP
        # pool makes each pay the other's thread wake-ups (measured: dot ×1.5 at n = 512).
        planned, done = len(fns) * (warmup + repeats), 0
        for eng in dict.fromkeys(e for _, e in fns):
            group = {k: v for k, v in fns.items() if k[1] == eng}
            share = len(group) * (warmup + repeats)
            tick = None if between is None else partial(_tick, between, done, share, planned)
            t, out = time_interleaved(group, repeats, warmup, between=tick)
            done += share
            times.update(t)
            outputs.update(out)
    rows = {}
    for (impl, eng), (_, clock) in fns.items():
        m = cost_model(impl, n, d, d_h, item)
        row: dict[str, Any] = {"impl": impl, "n": n, "d": d, "d_h": d_h, **summary(times[(impl, eng)]),
                               **m}
        row["gflops_per_s"] = m["flops"] / row["seconds"] / 1e9
        row["engine"], row["timer"] = eng, clock.name
        out = outputs.get((impl, eng))
        if out is not None:
            row["output"] = (out.cpu().numpy() if eng == "torch" else be.asnumpy(out)).astype(np.float64)
        rows[(impl, eng)] = row
    return rows


def _tick(between: Callable[[float], Any], done: int, share: int, planned: int, calls: int,
          _group_planned: int) -> None:
    """time_interleaved's `between` for one engine's group (`share` of the `planned` calls, after
    `done` of them), as a fraction of all the planned calls; autoranged calls stay in the share."""
    between((done + min(calls, share)) / planned)


def torch_inputs(x: dict[str, Any], be: Backend) -> dict[str, Any]:
    """The inputs as torch tensors on the backend's device (for the torch reference lines)."""
    import torch

    if be.is_gpu and not torch.cuda.is_available():
        raise InputError("this torch build has no CUDA, so there is no torch reference on the GPU")
    return {k: torch.as_tensor(v, device="cuda" if be.is_gpu else "cpu") for k, v in x.items()}


def measure_point(be: Backend, impl: str, n: int, d: int, d_h: int, seed: int = 0, repeats: int = 5,
                  engine: str | None = None, warmup: int = 1) -> dict[str, Any]:
    """`measure_points` for one series, without the output: the row `cost` reports."""
    row = measure_points(be, [(impl, engine or be.name)], n, d, d_h, seed, repeats, warmup)
    row = next(iter(row.values()))
    row.pop("output", None)
    return row


def cost(ns: Sequence[int], ds: Sequence[int], impls: Sequence[str] = IMPLS,
         d_h: int | None = None, seed: int = 0, backend: str | Backend = "numpy",
         dtype: str = "float32", repeats: int = 5, progress: Progress = None,
         time_budget: float | None = None) -> Result:
    """Per (impl, n, d): the FLOP/byte model next to measured seconds (warm-up, median of repeats).

    d_h (the additive hidden size) defaults to d.
    """
    be = as_backend(backend, dtype)
    ns = [check_n(n) for n in ns]
    ds = [positive_int(d, "d") for d in ds]
    impl_list = [check_impl(i) for i in impls]
    if not ns or not ds or not impl_list:
        raise InputError("give at least one n, one d and one implementation")
    if d_h is not None:
        d_h = positive_int(d_h, "d_h")
    item = np.dtype(be.dtype).itemsize
    combos = [(i, n, d, d_h or d) for i in impl_list for n in ns for d in ds]
    est = 0.0
    for impl, n, d, h in combos:
        m = cost_model(impl, n, d, h, item)
        budget.chunk_trials(int(4 * item * n * d + item * n * n + item * (1 << 22)), 1, "cost")
        est += (repeats + 1) * budget.estimate_seconds(m["flops"], m["special"], gpu=be.is_gpu)
    smaller = "a smaller n, d or d_h, or leave out additive-naive"
    budget.check_time(est, "this cost sweep", smaller, time_budget)
    rows = []
    for k, (impl, n, d, h) in enumerate(combos):
        rows.append(measure_point(be, impl, n, d, h, seed, repeats))
        tick(progress, k + 1, len(combos))
    params = {"n": ns, "d": ds, "impl": impl_list, "d_h": d_h, "seed": seed, "dtype": be.dtype,
              "repeats": repeats}
    return result("cost", be.name, params, rows)
