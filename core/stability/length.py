"""Length: softmax against Scalable-Softmax as the number of keys n grows (docs/science.md, "Why modern
models bound the logits", and §4 for the length factors).

Softmax's largest weight fades as n grows, since its denominator sums n terms while the numerator
stays one; Scalable-Softmax (Nakanishi 2025, arXiv:2501.19399) multiplies the logits by s·ln n:

    SSMax(z)_i = n^{s z_i} / Σ_j n^{s z_j} = softmax((s ln n)·z)_i.

- `toy`: the paper's opening example, one logit z₁ = 5 and n − 1 logits 0, so that
  max_i softmax(z)_i = e⁵ / (e⁵ + n − 1): 0.94 / 0.60 / 0.13 / 0.015 at n = 10 / 100 / 1,000 / 10,000,
  while SSMax's, n^{5s} / (n^{5s} + n − 1), stays near 1 (computed here from the vectors themselves).
- `measured`: the same two on scores from our sampler (core.sampling): q and n keys with unit-variance
  normal components, key 0 correlated with q at ρ (its logit ≈ ρ√d_k, the others ≈ N(0, 1)),
  s_j = q·k_j/√d_k; the weight on key 0 and the largest weight, each n a prefix of the same keys.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core.attention import entropy_from_scores, softmax
from core.beyond import length_factor
from core.errors import InputError
from core.results import Result, result
from core.sampling import check_rho, correlate, draw, sub_seed

TOY_NS: tuple[int, ...] = (10, 100, 1000, 10000)
TOY_TOP = 5.0
S_PARAM = 0.5  # SSMax's s, as core.beyond.length_sweep's default
N_MAX = 100_000
METHODS: tuple[str, ...] = ("none", "ssmax")


def _check_ns(ns: Sequence[int]) -> list[int]:
    out = [int(n) for n in ns]
    if not out or any(not 2 <= n <= N_MAX for n in out):
        raise InputError(f"n must lie in [2, {N_MAX}], got {list(ns)}")
    return out


def toy(ns: Sequence[int] = TOY_NS, top: float = TOY_TOP, s: float = S_PARAM) -> Result:
    """Rows per (n, method): the largest weight of softmax(λ·z) for z = (top, 0, …, 0) of length n,
    λ = 1 ("none") or s·ln n ("ssmax"), computed from the vector (core.attention.softmax)."""
    ns = _check_ns(ns)
    if not math.isfinite(top) or not math.isfinite(s):
        raise InputError("top and s must be finite")
    rows = []
    for n in ns:
        z = np.zeros((1, n))
        z[0, 0] = top
        for method in METHODS:
            lam = length_factor(method, n, s)
            p = softmax(z * lam)
            rows.append({"n": n, "method": method, "factor": lam, "max_weight": float(p.max()),
                         "closed_form": 1.0 / (1.0 + (n - 1) * math.exp(-lam * top))})
    return result("ssmax_toy", "numpy", {"n": ns, "top": top, "s": s}, rows)


def measured(ns: Sequence[int] = TOY_NS, d_k: int = 64, rho: float = 0.5, trials: int = 24,
             s: float = S_PARAM, seed: int = 0) -> Result:
    """Rows per (n, method): mean (and standard error over trials) of the weight on key 0, the largest
    weight and the entropy of softmax(λ(n)·K q/√d_k), λ = 1 or s·ln n (see the module docstring)."""
    ns = _check_ns(ns)
    rho = check_rho(rho)
    if not 1 <= int(d_k) <= 1024 or not 1 <= int(trials) <= 1000:
        raise InputError("d_k must lie in [1, 1024] and trials in [1, 1000]")
    d_k, trials = int(d_k), int(trials)
    rng = np.random.default_rng(sub_seed(seed, 57, d_k))
    n_max = max(ns)
    per: dict[tuple[int, str], list[tuple[float, float, float]]] = {}
    for _ in range(trials):  # one query and n_max keys per trial; each n sees the first n keys
        q = draw(rng, (d_k,), "normal", "float64")
        keys = draw(rng, (n_max, d_k), "normal", "float64")
        keys[0] = correlate(rng, q, rho, "float64")
        scores = keys @ q / math.sqrt(d_k)
        for n in ns:
            for method in METHODS:
                z = scores[None, :n] * length_factor(method, n, s)
                target = float(softmax(z.copy())[0, 0])
                pmax, H = entropy_from_scores(z)
                per.setdefault((n, method), []).append((target, float(pmax[0]), float(H[0])))
    rows = []
    for (n, method), vals in per.items():
        arr = np.asarray(vals)
        mean, se = arr.mean(axis=0), arr.std(axis=0) / math.sqrt(len(arr))
        rows.append({"n": n, "method": method, "factor": length_factor(method, n, s),
                     "target_weight_mean": float(mean[0]), "target_weight_se": float(se[0]),
                     "max_weight_mean": float(mean[1]), "entropy_mean": float(mean[2]),
                     "ln_n": math.log(n), "uniform_weight": 1.0 / n})
    params = {"n": ns, "d_k": d_k, "rho": rho, "trials": trials, "s": s, "seed": seed,
              "target_logit_mean": rho * math.sqrt(d_k)}
    return result("ssmax_measured", "numpy", params, rows)


def length_section(seed: int = 0) -> dict[str, Any]:
    """The toy case and the measurement together, for one page call."""
    return {"toy": toy(), "measured": measured(seed=seed)}


def cli_result(ns: Sequence[int] = TOY_NS, d_k: int = 64, trials: int = 24, seed: int = 0) -> Result:
    """The toy rows and the measured rows in one table (`source`: "toy" or "sampled")."""
    t, m = toy(ns), measured(ns, d_k=d_k, trials=trials, seed=seed)
    rows = [{"source": "toy", **r} for r in t["rows"]]
    rows += [{"source": "sampled", "max_weight": r["max_weight_mean"], **r} for r in m["rows"]]
    return result("ssmax", "numpy", {"toy": t["params"], "sampled": m["params"]}, rows)
