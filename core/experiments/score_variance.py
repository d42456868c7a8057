"""The variance experiment: mean and variance of the raw dot product q·k and of c·(q·k), per d_k and scale.

Every row is seeded from (seed, its own parameters), so a row does not depend on which other rows
were asked for: same seed, same backend → same numbers. Work is chunked over trials so memory stays
bounded, and refused (BudgetError) before it starts when it would not fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import budget
from core.backend import Backend, as_backend
from core.results import Progress, Result, result, tick
from core.sampling import (
    check_distribution,
    check_rho,
    dot_bytes,
    dot_cost,
    dot_products,
    sub_seed,
    theory_variance,
)
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_scales, check_trials, chunks_per_dk


def variance(dks: Sequence[int], scales: Sequence[str | Scale] = ("sqrt",), trials: int = 20000,
             seed: int = 0, rho: float = 0.0, dist: str = "normal", backend: str | Backend = "numpy",
             dtype: str = "float32", progress: Progress = None) -> Result:
    """Per d_k and scale: mean and variance of the raw dot product q·k and of c·(q·k).

    Theory: E[q·k] = ρ·d_k, Var(q·k) = d_k·(1 + ρ²(κ − 2)) (κ = E[x⁴]; normal: d_k·(1 + ρ²)),
    and Var(c·q·k) = c²·Var(q·k). `var_raw_se` is the standard error of the sample variance.
    Samples of q·k come from core.sampling.dot_products (exact in distribution; normal and
    Rademacher components without forming q and k, uniform ones drawn).
    """
    be = as_backend(backend, dtype)
    dks = check_dks(dks)
    trials = check_trials(trials)
    rho = check_rho(rho)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = chunks_per_dk(lambda d: dot_bytes(d, dist, item), dks, trials, "variance")
    total = sum(trials * dot_cost(d, dist) for d in dks)
    budget.check_time(budget.estimate_seconds(samples=total, elementwise=total, gpu=be.is_gpu),
                      "this variance sweep", "fewer trials or a smaller d_k")
    rows, done = [], 0.0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 1, d))
        dots = []
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            dots.append(be.asnumpy(dot_products(rng, t, d, rho, dist, be.dtype)))
            done += t * dot_cost(d, dist)
            tick(progress, done, total)
        x = np.concatenate(dots)
        mean = float(x.mean())
        c2 = x - mean
        s2 = float((c2 * c2).mean())
        s4 = float((c2**4).mean())
        var_raw = s2 * trials / max(1, trials - 1)
        se = math.sqrt(max(0.0, s4 - s2 * s2) / trials)
        rows += scaled_rows(d, rho, dist, mean, var_raw, se, scale_list)
    params = {"dk": dks, "scale": [s.name for s in scale_list], "trials": trials, "seed": seed,
              "rho": rho, "dist": dist, "dtype": be.dtype}
    return result("variance", be.name, params, rows)


def scaled_rows(d: int, rho: float, dist: str, mean: float, var_raw: float, se: float,
                scales: Sequence[Scale]) -> list[dict[str, Any]]:
    """One row per scale from the raw moments at d_k: Var(c·q·k) = c²·Var(q·k), its error c²·se.

    The draws do not depend on the scale, so a row for another scale needs no new samples."""
    rows = []
    for s in scales:
        c = scale_factor(s, d)
        rows.append({
            "dk": d, "rho": rho, "scale": s.name, "dist": dist,
            "mean_raw": mean, "var_raw": var_raw, "var_raw_se": se,
            "theory_mean": rho * d, "theory_var": theory_variance(d, rho, dist),
            "c": c, "var_scaled": c * c * var_raw, "var_scaled_se": c * c * se,
        })
    return rows
