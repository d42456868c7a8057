"""Random queries and keys (SCIENCE.md §1): iid components of variance 1, optionally correlated.

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


def theory_variance(d_k: int, rho: float, dist: str) -> float:
    """Var(q·k) = d_k·(1 + ρ²(κ − 2)); for normal components d_k·(1 + ρ²) (SCIENCE.md §1)."""
    return d_k * (1.0 + rho * rho * (KURTOSIS[dist] - 2.0))
