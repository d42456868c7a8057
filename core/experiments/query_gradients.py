"""The gradient experiment: how much gradient reaches the query through the softmax, per d_k and scale.

One query q against n keys K, p = softmax(c·K q), upstream g ~ N(0, I_n), L = g·p (docs/science.md §1).
On a GPU (or a stand-in device) softmax → J g → ‖∂L/∂q‖ run fused in our kernel
(core/kernels/softmax_backward.cu); otherwise, or when it falls back, the reference path below.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from core import budget, gpu
from core.attention import jacobian_spectral_norm, softmax, softmax_backward
from core.backend import Backend, as_backend
from core.results import Progress, Result, result, tick
from core.sampling import check_distribution, draw, sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials, chunks_per_dk


def gradients(dks: Sequence[int], n: int = 10, scales: Sequence[str | Scale] = ("none", "sqrt"),
              trials: int = 2000, seed: int = 0, dist: str = "normal",
              backend: str | Backend = "numpy", dtype: str = "float32",
              progress: Progress = None, time_budget: float | None = None) -> Result:
    """Per (d_k, n, scale): how much gradient reaches the query (docs/science.md §1).

    One query q against n keys K, p = softmax(c·K q), upstream g ~ N(0, I_n), L = g·p.
    ∂L/∂s = J g = p ⊙ (g − p·g), J = diag(p) − p pᵀ, and ∂L/∂q = c · Kᵀ (J g).
    Reports the median and mean of ‖∂L/∂q‖₂ over trials and the median ‖J‖₂.
    """
    be = as_backend(backend, dtype)
    dks = check_dks(dks)
    n = check_n(n)
    trials = check_trials(trials)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = chunks_per_dk(lambda d: item * (n * d + 2 * d + 8 * n) + 8 * 4 * n, dks, trials,
                     "gradients")
    flops = sum(4.0 * trials * n * d for d in dks) * len(scale_list)
    elem = 80.0 * trials * n * len(dks) * len(scale_list)  # bisection for ‖J‖₂
    est = budget.estimate_seconds(flops, elem, sum(trials * n * d for d in dks), gpu=be.is_gpu)
    fit = max(1, int(trials * (time_budget or budget.TIME_BUDGET) / max(est, 1e-9)))
    budget.check_time(est, "this gradient sweep", f"--trials {fit} or a smaller n / d_k", time_budget)
    rows, done, total = [], 0.0, float(trials * len(dks))
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 3, d, n))
        norms = {s.name: [] for s in scale_list}
        jnorms = {s.name: [] for s in scale_list}
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            draws = grad_draws(rng, t, n, d, dist, be.dtype)
            for s in scale_list:
                c = scale_factor(s, d)
                if gpu.kernels_run(be):  # fused softmax → J g → ‖∂L/∂q‖ (kernels/softmax_backward.cu)
                    fused = gpu.grad_norm_or_none(draws, c)
                    if fused is not None:
                        norms[s.name].append(be.asnumpy(fused[0]))
                        jnorms[s.name].append(be.asnumpy(jacobian_spectral_norm(fused[1])))
                        continue
                gn, p = draws.grad_norm(c)
                norms[s.name].append(be.asnumpy(gn))
                jnorms[s.name].append(be.asnumpy(jacobian_spectral_norm(p)))
            done += t
            tick(progress, done, total)
        for s in scale_list:
            gn = np.concatenate(norms[s.name]).astype(np.float64)
            jn = np.concatenate(jnorms[s.name])
            rows.append({"dk": d, "n": n, "scale": s.name, "c": scale_factor(s, d),
                         "grad_q_norm_median": float(np.median(gn)),
                         "grad_q_norm_mean": float(gn.mean()),
                         "grad_q_norm_q90": float(np.quantile(gn, 0.9)),
                         "jacobian_norm_median": float(np.median(jn)),
                         "jacobian_norm_mean": float(jn.mean())})
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "trials": trials,
              "seed": seed, "dist": dist, "dtype": be.dtype}
    return result("gradients", be.name, params, rows)


class GradDraws:
    """One chunk of the gradient experiment's random inputs, in one of two exact forms.

    Direct: q (t × d_k), K (t × n × d_k), g (t × n); ‖∂L/∂q‖ = ‖c·Kᵀ(J g)‖.
    Reduced (normal components only): write q = r·u with r² = ‖q‖² ~ χ²_{d_k} and split each key
    into a_j = k_j·u ~ N(0, 1) along u and a part orthogonal to it. Then K q = r·a and
        ‖∂L/∂q‖² = c²·[(aᵀv)² + ‖v‖²·w],   v = J g,  w ~ χ²_{d_k − 1},
    because the orthogonal parts project v onto a Gaussian in d_k − 1 dimensions. Same
    distribution as the direct form, at O(n) cost per trial instead of O(n·d_k).
    """

    def __init__(self, g: Any, raw: Any, K: Any = None, a: Any = None, w: Any = None) -> None:
        self.g, self.raw, self.K, self.a, self.w = g, raw, K, a, w

    def grad_norm(self, c: float) -> tuple[Any, Any]:
        """(‖∂L/∂q‖ per trial, p per trial) for the scale factor c."""
        p = softmax(self.raw * self.raw.dtype.type(c))
        if self.K is not None:
            grad_q = grad_query(self.K, p, self.g, c)
            return (grad_q * grad_q).sum(axis=-1) ** 0.5, p
        v = softmax_backward(p, self.g)
        along = (self.a * v).sum(axis=-1)
        return abs(c) * (along * along + (v * v).sum(axis=-1) * self.w) ** 0.5, p


def grad_draws(rng: Any, t: int, n: int, d: int, dist: str, dtype: str) -> GradDraws:
    """One chunk of t trials' random inputs: reduced draws for normal components, direct ones otherwise."""
    if dist != "normal":
        q = draw(rng, (t, d), dist, dtype)
        K = draw(rng, (t, n, d), dist, dtype)
        g = rng.standard_normal((t, n), dtype=dtype)
        return GradDraws(g, (K @ q[:, :, None])[..., 0], K=K)
    r = rng.chisquare(d, size=t).astype(dtype) ** 0.5
    a = rng.standard_normal((t, n), dtype=dtype)
    g = rng.standard_normal((t, n), dtype=dtype)
    w = (rng.chisquare(d - 1, size=t) if d > 1 else rng.random(t) * 0).astype(dtype)
    return GradDraws(g, r[:, None] * a, a=a, w=w)


def grad_query(K: Any, p: Any, g: Any, c: float) -> Any:
    """∂L/∂q = c · Kᵀ (J g) for L = g·p, p = softmax(c·K q); batched over leading axes of K."""
    Jg = softmax_backward(p, g)
    return (K.swapaxes(-1, -2) @ Jg[..., None])[..., 0] * K.dtype.type(c)
