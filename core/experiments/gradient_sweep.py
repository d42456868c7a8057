"""Sweeps over d_k with common random numbers: every d_k of a sweep reuses the same underlying draws, so a
curve's shape is the quantity's shape, not sampling noise from one d_k to the next.

The gradient experiment (docs/science.md §1: one query q, n keys K, upstream g ~ N(0, I_n), L = g·p,
p = softmax(c·K q)) in the exact reduced form core.experiments uses for normal components: with
a = K q/‖q‖ ~ N(0, I_n), r² = ‖q‖² ~ χ²_{d_k} and w ~ χ²_{d_k − 1}, all independent,

    K q = r·a,   v = J g = p ⊙ (g − p·g),   ‖∂L/∂q‖² = c²·[(aᵀv)² + ‖v‖²·w].

a and g are drawn once for the whole sweep; r² and w grow from one d_k to the next by independent χ²
increments (χ²_{d₂} = χ²_{d₁} + χ²_{d₂ − d₁}), so every d_k's draws have exactly the right distribution
and each trial follows one continuous path over d_k. Per point: median and mean of ‖∂L/∂q‖, a 95 %
distribution-free confidence interval for the median (order statistics), and the median ‖J‖₂.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core import budget
from core.attention import jacobian_spectral_norm, softmax, softmax_backward
from core.backend import get_backend
from core.sampling import sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials

Progress = Callable[[float], None] | None
Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def median_interval(x: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """A distribution-free confidence interval for the median of x: the order statistics x_(j), x_(k) with
    j, k = N/2 ∓ z·√N/2 (the binomial count of draws below the median, normal approximation), clipped."""
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = s.size
    half = 0.5 * z * math.sqrt(n)
    lo = int(max(0, math.floor(0.5 * n - half)))
    hi = int(min(n - 1, math.ceil(0.5 * n + half) - 1))
    return float(s[lo]), float(s[hi])


def gradient_sweep(
    dks: Sequence[int],
    n: int,
    scales: Sequence[str | Scale],
    trials: int,
    seed: int = 0,
    backend: str = "numpy",
    dtype: str = "float32",
    progress: Progress = None,
) -> dict[str, Any]:
    """Median and mean ‖∂L/∂q‖, the median's 95 % interval and the median ‖J‖₂ per (d_k, scale), the
    same draws at every d_k (module docstring). Rows sorted by (d_k, order of `scales`); a scale
    undefined at some d_k (log at d_k = 1) raises, as in core.experiments."""
    dks = sorted(set(check_dks(dks)))
    n = check_n(n)
    trials = check_trials(trials)
    scale_list = check_scales(scales, dks)
    be = get_backend(backend, dtype)
    est = budget.estimate_seconds(
        elementwise=80.0 * trials * n * len(dks) * len(scale_list),
        samples=2.0 * trials * (n + len(dks)),
        gpu=be.is_gpu,
    )
    budget.check_time(est, "this gradient sweep", "fewer trials or a smaller n")
    budget.chunk_trials(8 * 8 * n * trials, 1, "this gradient sweep")  # everything held at once
    rng = be.rng(sub_seed(seed, 9, n))
    xp = be.xp
    a = rng.standard_normal((trials, n), dtype=be.dtype)
    g = rng.standard_normal((trials, n), dtype=be.dtype)
    r2 = xp.zeros(trials)
    w = xp.zeros(trials)
    rows, prev = [], 0
    for k, d in enumerate(dks):
        r2 += rng.chisquare(d - prev, size=trials)
        if d > 1:
            w += rng.chisquare(d - 1 - max(prev - 1, 0), size=trials)
        prev = d
        r = xp.sqrt(r2).astype(be.dtype)
        for s in scale_list:
            c = scale_factor(s, d)
            p = softmax(a * (r[:, None] * a.dtype.type(c)))
            v = softmax_backward(p, g)
            along = (a * v).sum(axis=-1)
            norm = be.asnumpy(abs(c) * xp.sqrt(along * along + (v * v).sum(axis=-1) * w.astype(be.dtype)))
            norm = norm.astype(np.float64)
            jn = be.asnumpy(jacobian_spectral_norm(p))
            lo, hi = median_interval(norm)
            rows.append(
                {
                    "dk": d,
                    "n": n,
                    "scale": s.name,
                    "c": c,
                    "grad_q_norm_median": float(np.median(norm)),
                    "grad_q_norm_mean": float(norm.mean()),
                    "grad_q_norm_median_lo": lo,
                    "grad_q_norm_median_hi": hi,
                    "jacobian_norm_median": float(np.median(jn)),
                    "jacobian_norm_mean": float(jn.mean()),
                }
            )
        if progress is not None:
            progress((k + 1) / len(dks))
    params = {
        "dk": dks,
        "n": n,
        "scale": [s.name for s in scale_list],
        "trials": trials,
        "seed": seed,
        "common_random_numbers": True,
        "dtype": be.dtype,
    }
    return {"experiment": "gradients", "backend": be.name, "params": params, "rows": rows}
