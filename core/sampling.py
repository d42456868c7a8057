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

from core.budget import CHUNK_BYTES
from core.errors import InputError

DISTRIBUTIONS: tuple[str, ...] = ("normal", "uniform", "rademacher")
# E[x⁴] of each unit-variance distribution: Var(q·k) = d_k·(1 + ρ²(κ − 2)) (κ = 3 gives d_k(1 + ρ²)).
KURTOSIS: dict[str, float] = {"normal": 3.0, "uniform": 9.0 / 5.0, "rademacher": 1.0}
# Components whose q·k samples take two draws at most, whatever d_k (dot_products).
FEW_DRAWS: tuple[str, ...] = ("normal", "rademacher")


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

    Drawn exactly in distribution with as few draws as each case allows. The correlated key is
    k = ρ·q + √(1 − ρ²)·z with z ~ N(0, I_d) (`correlate`), and by the rotation invariance of z,
    q·z = ‖q‖·z₁ with z₁ ~ N(0, 1) independent of q, so
        q·k = ρ‖q‖² + √(1 − ρ²)·‖q‖·z₁;
    - normal: ‖q‖² ~ χ²_d, two draws a sample (with ρ = 0 too: z is then k itself);
    - rademacher: ‖q‖² = d exactly, one draw a sample; with ρ = 0, k is ±1 too, every q_i·k_i is an
      independent ±1, and q·k = 2·B − d with B ~ Binomial(d, ½): one draw;
    - uniform: ‖q‖² from q's d draws (d + 1 a sample instead of 2·d); with ρ = 0, q and k are drawn
      and multiplied, products summed in float64 (`dtype` is the dtype of the draws).
    """
    if dist == "normal":
        r2 = rng.chisquare(float(d), size=t)
        norm = r2**0.5
    elif dist == "rademacher" and rho != 0.0:
        r2, norm = float(d), math.sqrt(d)
    elif dist == "rademacher" or rho == 0.0:  # k independent of q, from the same distribution
        if dist == "rademacher" and hasattr(rng, "binomial"):
            b = rng.binomial(d, 0.5, size=t).astype("float64")
            b *= 2.0
            b -= d
            return b
        # uniform components (the caller's chunks bound them), or ±1 ones on a backend without
        # `binomial`: drawn and multiplied, in blocks of bounded size
        block = None if dist == "uniform" else max(1, CHUNK_BYTES // (3 * d))
        return _products(rng, t, d, dist, dtype, block=block)
    else:
        q = draw(rng, (t, d), dist, dtype)
        r2 = (q * q).sum(axis=1, dtype="float64")
        norm = r2**0.5
    z = rng.standard_normal(t, dtype="float64")
    z *= norm
    if rho == 0.0:
        return z
    z *= math.sqrt(max(0.0, 1.0 - rho * rho))
    z += rho * r2
    return z


def _products(rng: Any, t: int, d: int, dist: str, dtype: str, block: int | None = None) -> Any:
    """q·k for independent q and k drawn from `dist` and multiplied, summed in float64, `block`
    samples at a time (all at once when None)."""
    from core.attention import array_module

    block = t if block is None else max(1, block)
    parts = []
    for start in range(0, t, block):
        size = min(block, t - start)
        q = draw(rng, (size, d), dist, dtype)
        parts.append((q * draw(rng, (size, d), dist, dtype)).sum(axis=1, dtype="float64"))
    return parts[0] if len(parts) == 1 else array_module(parts[0]).concatenate(parts)


def dot_cost(d: int, dist: str) -> float:
    """Random draws one q·k sample costs (dot_products), at most: 2 for normal and Rademacher
    components, 2·d for uniform ones."""
    return 2.0 if dist in FEW_DRAWS else 2.0 * d


def dot_bytes(d: int, dist: str, itemsize: int) -> int:
    """Bytes one q·k sample holds in dot_products, at most: three float64 numbers for normal and
    Rademacher components, else three d-vectors of the draws' dtype (q, k and their product)."""
    return 3 * 8 if dist in FEW_DRAWS else 3 * d * itemsize


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
    L = _bartlett(rng, trials, n, d, dtype)
    Z = rng.standard_normal((trials, n, n), dtype=dtype)
    S = L @ Z
    if rho:
        S *= S.dtype.type(math.sqrt(max(0.0, 1.0 - rho * rho)))
        S += (L @ L.swapaxes(-1, -2)) * S.dtype.type(rho)
    return S


def _bartlett(rng: Any, trials: int, n: int, d: int, dtype: str) -> Any:
    """Lower-triangular L with L Lᵀ ~ W_n(d, I) (Bartlett): L_ii = √χ²_{d−i}, L_ij ~ N(0, 1) below."""
    from core.attention import array_module

    L = rng.standard_normal((trials, n, n), dtype=dtype)
    xp = array_module(L)
    idx = xp.arange(n)
    L *= xp.tril(xp.ones((n, n), dtype=dtype))
    chi2 = rng.chisquare(xp.asarray(d - np.arange(n), dtype="float64"), size=(trials, n))
    L[:, idx, idx] = xp.sqrt(chi2).astype(dtype)
    return L


def cross_scores(rng: Any, trials: int, m: int, n: int, d: int, dtype: str) -> Any:
    """Raw scores Q Kᵀ (trials × m × n) for m queries and n keys with iid N(0, 1) components and
    d ≥ n, drawn without forming Q or K: with K = L U (L the Bartlett factor of K Kᵀ ~ W_n(d, I),
    U Haar-random n × d with orthonormal rows), Q Kᵀ = (Q Uᵀ) Lᵀ and Q Uᵀ is an m × n matrix of
    iid N(0, 1) independent of L. Exact in distribution; O(n² + m·n) draws and an m × n × n
    product per trial instead of (m + n)·d draws and an m × n × d product."""
    if d < n:
        raise ValueError("cross_scores needs d ≥ n")
    L = _bartlett(rng, trials, n, d, dtype)
    Z = rng.standard_normal((trials, m, n), dtype=dtype)
    return Z @ L.swapaxes(-1, -2)
