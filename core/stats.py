"""Power-law fits t ∝ x^b with Student-t confidence and prediction intervals (quantiles from scipy.special).

The cost page fits measured time against size on log–log axes: ordinary least squares on
log t = a + b·log x, the exponent's interval b ± t_{(1+level)/2, m−2}·se(b), and a prediction
interval for one new point where a size is extrapolated rather than measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.errors import InputError

CI_LEVEL = 0.95


@lru_cache(maxsize=512)
def t_quantile(p: float, df: float) -> float:
    """The t with P(T ≤ t) = p for Student's t with df > 0 degrees of freedom: scipy.special's
    stdtrit, the function behind scipy.stats.t.ppf (the same values, without loading scipy.stats,
    which took 0.5-1.2 s of the cost page's first view on a fresh server)."""
    if not 0.0 < p < 1.0:
        raise InputError(f"quantile level must lie in (0, 1), got {p}")
    if not df > 0:
        raise InputError(f"degrees of freedom must be positive, got {df}")
    from scipy.special import stdtrit  # imported on first use

    return float(stdtrit(df, p))


@dataclass(frozen=True)
class PowerFit:
    """t ≈ e^a · x^b fitted by OLS on (log x, log t); b is the exponent, [b_lo, b_hi] its CI."""

    exponent: float
    ci_low: float
    ci_high: float
    intercept: float  # a, natural log
    points: int
    r2: float
    level: float
    resid_std: float  # s, the residual standard deviation in log space (NaN when m < 3)
    x_mean: float  # mean of log x (for prediction intervals)
    sxx: float  # Σ (log x − mean)²

    def predict(self, x: float) -> float:
        """e^a · x^b."""
        return math.exp(self.intercept + self.exponent * math.log(x))

    def interval(self, x: float) -> tuple[float, float]:
        """Prediction interval for one new log t at x: ŷ ± t_q·s·√(1 + 1/m + (log x − x̄)²/Sxx).

        Returns (low, high) in seconds; the point estimate on both sides when m < 3.
        """
        y = self.intercept + self.exponent * math.log(x)
        if self.points < 3 or not math.isfinite(self.resid_std):
            return math.exp(y), math.exp(y)
        tq = t_quantile(0.5 + self.level / 2.0, self.points - 2)
        half = tq * self.resid_std * math.sqrt(1.0 + 1.0 / self.points
                                               + (math.log(x) - self.x_mean) ** 2 / self.sxx)
        return math.exp(y - half), math.exp(y + half)


def fit_power_law(x: Sequence[float], t: Sequence[float], level: float = CI_LEVEL) -> PowerFit:
    """Exponent b of t ∝ x^b by ordinary least squares on y = log t against u = log x.

        b = Σ(u − ū)(y − ȳ) / Σ(u − ū)²,   a = ȳ − b ū,
        s² = Σ (y − a − b u)² / (m − 2),   se(b) = s / √Σ(u − ū)²,
        CI = b ± t_{(1+level)/2, m−2} · se(b).
    Needs m ≥ 2 distinct positive x and positive t; with m = 2 the line is exact and the CI is
    unknown (NaN on both sides).
    """
    if not 0.0 < level < 1.0:
        raise InputError(f"confidence level must lie in (0, 1), got {level}")
    if len(x) != len(t):
        raise InputError("x and t must have the same length")
    pairs = [(float(a), float(b)) for a, b in zip(x, t, strict=True)]
    if any(not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)) for a, b in pairs):
        raise InputError("a log–log fit needs positive, finite x and t")
    u = [math.log(a) for a, _ in pairs]
    y = [math.log(b) for _, b in pairs]
    m = len(u)
    if m < 2 or len(set(u)) < 2:
        raise InputError("a fit needs at least two distinct sizes")
    u_mean, y_mean = sum(u) / m, sum(y) / m
    sxx = sum((ui - u_mean) ** 2 for ui in u)
    sxy = sum((ui - u_mean) * (yi - y_mean) for ui, yi in zip(u, y, strict=True))
    b = sxy / sxx
    a = y_mean - b * u_mean
    ssr = sum((yi - a - b * ui) ** 2 for ui, yi in zip(u, y, strict=True))
    syy = sum((yi - y_mean) ** 2 for yi in y)
    r2 = 1.0 - ssr / syy if syy > 0 else 1.0
    if m >= 3:
        s = math.sqrt(ssr / (m - 2))
        half = t_quantile(0.5 + level / 2.0, m - 2) * s / math.sqrt(sxx)
        lo, hi = b - half, b + half
    else:
        s, lo, hi = float("nan"), float("nan"), float("nan")
    return PowerFit(exponent=b, ci_low=lo, ci_high=hi, intercept=a, points=m, r2=r2, level=level,
                    resid_std=s, x_mean=u_mean, sxx=sxx)
