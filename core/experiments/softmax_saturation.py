"""The saturation experiment: how peaked softmax(c·Q Kᵀ) is — max weight, entropy, effective keys, saturation.

On a GPU (or a stand-in device) the scores → softmax → row statistics run fused in our kernel
(core/kernels/softmax_stats.cu); otherwise, or when it falls back, the array-generic reference path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import budget, gpu
from core.attention import entropy_from_scores
from core.backend import Backend, as_backend
from core.results import Progress, Result, result, tick
from core.sampling import check_distribution, check_rho, correlate, draw, gram_scores, sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials, chunks_per_dk

SATURATION_THRESHOLD = 0.99  # a row is saturated when its max weight exceeds this (docs/science.md §1)
MAX_WEIGHT_QUANTILES = (0.1, 0.5, 0.9)


def saturation(dks: Sequence[int], n: int = 64, scales: Sequence[str | Scale] = ("none", "sqrt"),
               trials: int = 256, seed: int = 0, rho: float = 0.0, dist: str = "normal",
               backend: str | Backend = "numpy", dtype: str = "float32",
               progress: Progress = None, time_budget: float | None = None) -> Result:
    """Per (d_k, n, scale): how peaked softmax(c · Q Kᵀ) is, over `trials` draws of n queries and n keys.

    Per row i: max weight max_j p_ij, entropy H = −Σ_j p_ij ln p_ij (nats), effective keys exp(H),
    saturated when max weight > 0.99. Means are over all rows of all trials.
    With ρ ≠ 0 each query's own key is correlated with it: k_i = ρ·q_i + √(1 − ρ²)·z_i.
    The raw scores are drawn once per d_k and shared by every scale.
    """
    be = as_backend(backend, dtype)
    dks = check_dks(dks)
    n = check_n(n)
    trials = check_trials(trials)
    rho = check_rho(rho)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = chunks_per_dk(lambda d: item * (2 * n * d + 3 * n * n), dks, trials, "saturation")
    flops = sum(2.0 * trials * n * n * d for d in dks)
    elem = 3.0 * trials * n * n * len(dks) * len(scale_list)
    samples = sum(2.0 * trials * n * d for d in dks)
    est = budget.estimate_seconds(flops, elem, samples, gpu=be.is_gpu)
    fit = max(1, int(trials * (time_budget or budget.TIME_BUDGET) / max(est, 1e-9)))
    budget.check_time(est, "this saturation sweep", f"--trials {fit} or a smaller n / d_k",
                      time_budget)
    rows, done = [], 0.0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 2, d, n))
        acc = {s.name: _SatAccumulator() for s in scale_list}
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            raw = _raw_scores(rng, t, n, d, rho, dist, be.dtype)
            fused = None
            if gpu.kernels_run(be):  # fused scores → softmax → row statistics (kernels/softmax_stats.cu)
                fused = gpu.row_stats_or_none(raw, [scale_factor(s, d) for s in scale_list])
            for s in scale_list:
                if fused is not None:  # None: kernel unavailable, reference path below
                    pmax, H = fused.pop(0)
                    acc[s.name].add(be.asnumpy(pmax).ravel(), be.asnumpy(H).ravel())
                    continue
                S = raw * raw.dtype.type(scale_factor(s, d))
                pmax, H = entropy_from_scores(S)
                acc[s.name].add(be.asnumpy(pmax).ravel(), be.asnumpy(H).ravel())
            done += 2.0 * t * n * n * d
            tick(progress, done, flops)
        for s in scale_list:
            rows.append({"dk": d, "n": n, "scale": s.name, "c": scale_factor(s, d),
                         **acc[s.name].summary(n)})
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "trials": trials,
              "seed": seed, "rho": rho, "dist": dist, "dtype": be.dtype}
    return result("saturation", be.name, params, rows)


def _raw_scores(rng: Any, t: int, n: int, d: int, rho: float, dist: str, dtype: str) -> Any:
    """Raw scores Q Kᵀ for t trials of n queries and n keys (k_i correlated with q_i at ρ).

    Normal components with d_k ≥ n use the exact Gram sampler (cost independent of d_k);
    otherwise Q and K are drawn and multiplied.
    """
    if dist == "normal" and d >= n:
        return gram_scores(rng, t, n, d, rho, dtype)
    Q = draw(rng, (t, n, d), dist, dtype)
    K = correlate(rng, Q, rho, dtype) if rho else draw(rng, (t, n, d), dist, dtype)
    return Q @ K.swapaxes(-1, -2)


class _SatAccumulator:
    def __init__(self) -> None:
        self.pmax: list[np.ndarray] = []
        self.H: list[np.ndarray] = []

    def add(self, pmax: np.ndarray, H: np.ndarray) -> None:
        self.pmax.append(pmax.astype(np.float64))
        self.H.append(H.astype(np.float64))

    def summary(self, n: int) -> dict[str, float]:
        pmax = np.concatenate(self.pmax)
        H = np.concatenate(self.H)
        q = np.quantile(pmax, MAX_WEIGHT_QUANTILES)
        return {
            "entropy_mean": float(H.mean()),
            "entropy_se": float(H.std() / math.sqrt(H.size)),
            "max_weight_mean": float(pmax.mean()),
            "effective_keys_mean": float(np.exp(H).mean()),
            "saturated_fraction": float((pmax > SATURATION_THRESHOLD).mean()),
            **{f"max_weight_q{round(100 * p):02d}": float(v)
               for p, v in zip(MAX_WEIGHT_QUANTILES, q, strict=True)},
            "ln_n": math.log(n),
            "rows": int(H.size),
        }
