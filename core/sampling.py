"""Random queries and keys (docs/science.md §1): iid components of variance 1, optionally correlated.

    normal      N(0, 1)
    uniform     U(−√3, √3)
    rademacher  ±1 with probability ½
Correlated keys: k = ρ·q + √(1 − ρ²)·z with z iid N(0, 1), so E[q·k] = ρ·d_k.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.errors import InputError

DISTRIBUTIONS: tuple[str, ...] = ("normal", "uniform", "rademacher")
# E[x⁴] of each unit-variance distribution: Var(q·k) = d_k·(1 + ρ²(κ − 2)) (κ = 3 gives d_k(1 + ρ²)).
KURTOSIS: dict[str, float] = {"normal": 3.0, "uniform": 9.0 / 5.0, "rademacher": 1.0}


def check_distribution(dist: str) -> str:
    if dist not in DISTRIBUTIONS:
        raise InputError(f"unknown distribution {dist!r}; choose one of {', '.join(DISTRIBUTIONS)}")
    return dist


def check_rho(rho: float) -> float:
    if not isinstance(rho, (int, float)) or math.isnan(rho) or not -1.0 <= rho <= 1.0:
        raise InputError(f"rho must lie in [-1, 1], got {rho}")
    return float(rho)


def sub_seed(seed: int, *keys: int) -> int:
    """A seed for one combination of parameters, so a row never depends on which other rows ran."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


def draw(rng: Any, shape: tuple[int, ...], dist: str, dtype: str) -> Any:
    """Components iid with mean 0 and variance 1 from the named distribution."""
    if dist == "normal":
        return rng.standard_normal(shape, dtype=dtype)
    if dist == "uniform":
        x = rng.random(shape, dtype=dtype)
        x *= 2 * math.sqrt(3.0)
        x -= math.sqrt(3.0)
        return x
    if dist == "rademacher":
        return (rng.integers(0, 2, shape, dtype="int8") * 2 - 1).astype(dtype)
    raise InputError(f"unknown distribution {dist!r}")


def correlate(rng: Any, q: Any, rho: float, dtype: str) -> Any:
    """k = ρ·q + √(1 − ρ²)·z, z iid N(0, 1), same shape as q."""
    z = rng.standard_normal(q.shape, dtype=dtype)
    if rho == 0.0:
        return z
    z *= math.sqrt(max(0.0, 1.0 - rho * rho))
    z += q * q.dtype.type(rho)
    return z


def dot_products(rng: Any, t: int, d: int, rho: float, dist: str, dtype: str) -> Any:
    """t samples of q·k for q, k with d components each (k correlated with q at ρ), in float64.

    Normal components are drawn exactly in distribution without forming q or k: by the rotation
    invariance of z ~ N(0, I_d), q·z = ‖q‖·z₁ with z₁ ~ N(0, 1) independent of q, so with
    ‖q‖² ~ χ²_d,
        q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z₁
    (two draws a sample instead of 2·d). Uniform and Rademacher components are drawn and
    multiplied, products summed in float64 (`dtype` is the dtype of the draws).
    """
    if dist == "normal":
        r2 = rng.chisquare(float(d), size=t)
        z = rng.standard_normal(t, dtype="float64")
        z *= r2**0.5
        if rho == 0.0:
            return z
        z *= math.sqrt(max(0.0, 1.0 - rho * rho))
        z += rho * r2
        return z
    q = draw(rng, (t, d), dist, dtype)
    k = correlate(rng, q, rho, dtype) if rho else draw(rng, (t, d), dist, dtype)
    return (q * k).sum(axis=1, dtype="float64")


def dot_cost(d: int, dist: str) -> float:
    """Random draws one q·k sample costs (dot_products): 2 for normal components, else 2·d."""
    return 2.0 if dist == "normal" else 2.0 * d


def dot_bytes(d: int, dist: str, itemsize: int) -> int:
    """Bytes one q·k sample holds in dot_products: three float64 numbers for normal components,
    else three d-vectors of the draws' dtype (q, k and their product)."""
    return 3 * 8 if dist == "normal" else 3 * d * itemsize


def theory_variance(d_k: int, rho: float, dist: str) -> float:
    """Var(q·k) = d_k·(1 + ρ²(κ − 2)); for normal components d_k·(1 + ρ²) (docs/science.md §1)."""
    return d_k * (1.0 + rho * rho * (KURTOSIS[dist] - 2.0))


def gram_scores(rng: Any, trials: int, n: int, d: int, rho: float, dtype: str) -> Any:
    """Raw scores Q Kᵀ (trials × n × n) for iid N(0, 1) components, drawn without forming Q or K.

    Exact in distribution when d ≥ n. Write Q = L U with L the lower-triangular Bartlett
    factor of the Wishart matrix Q Qᵀ ~ W_n(d, I) (L_ii = √χ²_{d−i}, L_ij ~ N(0, 1) below the
    diagonal) and U a Haar-random n × d matrix with orthonormal rows. For K = ρ Q + √(1−ρ²) Z,
        Q Kᵀ = ρ L Lᵀ + √(1 − ρ²) L (U Zᵀ),
    and U Zᵀ is an n × n matrix of iid N(0, 1) independent of L (rotation invariance of Z).
    Cost per trial is O(n²) draws and an n × n product instead of 2·n·d draws.
    """
    if d < n:
        raise ValueError("gram_scores needs d ≥ n")
    from core.attention import array_module

    L = rng.standard_normal((trials, n, n), dtype=dtype)
    xp = array_module(L)
    idx = xp.arange(n)
    L *= xp.tril(xp.ones((n, n), dtype=dtype))
    chi2 = rng.chisquare(xp.asarray(d - np.arange(n), dtype="float64"), size=(trials, n))
    L[:, idx, idx] = xp.sqrt(chi2).astype(dtype)
    Z = rng.standard_normal((trials, n, n), dtype=dtype)
    S = L @ Z
    if rho:
        S *= S.dtype.type(math.sqrt(max(0.0, 1.0 - rho * rho)))
        S += (L @ L.swapaxes(-1, -2)) * S.dtype.type(rho)
    return S

