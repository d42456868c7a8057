"""The verdict rules: a claim's points (claimed vs measured, with a tolerance) decide holds / partly / fails.

    a point agrees     eq:     |m − c| ≤ tol
                       below:  m ≤ c − tol          (significantly below a reference c)
                       above:  m ≥ c + tol
                       within: lo ≤ c ≤ hi          (c is a plausible single draw of m's distribution)
    one statement      holds when every point agrees, partly when at least half do, else fails
    several statements holds when every statement agrees, partly when at least one does, else fails

Tolerances: `Z_TOL` standard errors of the measurement, plus half a unit in the last digit the notes
printed (a claimed "2.1" stands for [2.05, 2.15]), plus the modelling slack named per claim (the
constants below). An exact computation (float64, no sampling) has error 0 and only the printed slack.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import InputError

VERDICTS: tuple[str, ...] = ("holds", "partly", "fails")
RELATIONS: tuple[str, ...] = ("eq", "below", "above", "within")

Z_TOL = 3.0  # standard errors a measurement may sit from the claim and still agree
PARTLY_FRACTION = 0.5  # one-statement claims: at least this fraction of points agree → partly holds
UNIFORM_TOL = 0.05  # "near-uniform" = entropy within 5% of ln n (uniform attention)
SLOPE_TOL = 0.25  # a local log-log slope within a quarter of a power of the claimed exponent
EXPONENT_TOL = 0.5  # a cost exponent within half a power of the claimed one
TIME_TOL = 0.5  # "slower" = a median time ratio of at least 1 + 0.5 (timings are not Gaussian)
PLAUSIBLE = 0.99  # a printed single-draw output is plausible inside the central 99% of its distribution
RHO_TRAINED = 0.5  # q/k correlation standing in for "after training" (docs/science.md §3b)
NORMAL_KURT_TOL = 0.05  # "is N(0, 1)": excess kurtosis within 0.05 of a normal's 0 …
NORMAL_TAIL_REL = 0.10  # … and the mass beyond 3σ within 10% of a normal's 0.27 %
FEW_KEYS = 2.0  # "a few positions" = at most 2 effective keys exp(H); "spread" = more than 2
VANISH_TOL = 0.1  # "≈ 0" for a gradient = below a tenth of the same quantity with ÷√d_k
STABLE_REL = 0.1  # "stays stable" = neighbouring values within 10% of each other
NEGLIGIBLE_SHARE = 0.1  # "costs almost nothing" = under a tenth of the attention forward's time
ORDERS = 100.0  # "orders of magnitude faster" = at least two orders, a time ratio ≥ 100
TINY_REL = 0.1  # a "tiny" difference between two matrices = under a tenth of their size
DROP_TOL = 0.1  # a "significant" drop in accuracy = at least 10 percentage points
NEAR = 0.01  # "≈ 1" / "≈ 0" for a weight or a Jacobian entry = within 0.01
MAY_FRACTION = 0.01  # "may contain" an event = it happens in at least 1 % of draws
MANY_FRACTION = 0.1  # "many" values = at least 10 % of them
ROUNDING = 1e-9  # float64 formulas agree with autograd / each other to this relative size
FLOAT32_ROUNDING = 1e-5  # float32 results (a softmax row sum of a few terms) agree to this size
N_NOTES = 10  # the notes' code: Q = torch.randn(1, 10, d_k)


@dataclass(frozen=True)
class Point:
    """One comparison: the claimed value c against the measured value m (± error, one standard error).

    `quantity` names what is compared (a translation key on screen), `part` the statement of the
    claim the point tests; `dk`, `n`, `scale` say where it was measured (`where` for anything else).
    """

    quantity: str
    claimed: float
    measured: float
    error: float
    tolerance: float
    relation: str = "eq"
    part: str = "main"
    dk: int | None = None
    n: int | None = None
    scale: str | None = None
    lo: float | None = None
    hi: float | None = None
    where: str | None = None

    @property
    def agrees(self) -> bool:
        return point_agrees(self.relation, self.claimed, self.measured, self.tolerance, self.lo, self.hi)


def point_agrees(
    relation: str,
    claimed: float,
    measured: float,
    tolerance: float,
    lo: float | None = None,
    hi: float | None = None,
) -> bool:
    """The relation a point needs (see the module docstring); NaN measurements never agree."""
    if relation not in RELATIONS:
        raise InputError(f"unknown relation {relation!r}")
    if relation == "within":
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
            return False
        return lo <= claimed <= hi
    if math.isnan(measured) or math.isnan(tolerance):
        return False
    if relation == "eq":
        return abs(measured - claimed) <= tolerance
    if relation == "below":
        return measured <= claimed - tolerance
    return measured >= claimed + tolerance


def verdict(points: Sequence[Point]) -> str:
    """holds / partly / fails from the points alone (rules in the module docstring)."""
    if not points:
        raise InputError("a verdict needs at least one point")
    parts: dict[str, list[bool]] = {}
    for p in points:
        parts.setdefault(p.part, []).append(p.agrees)
    if len(parts) == 1:
        (ok,) = parts.values()
        frac = sum(ok) / len(ok)
        if frac == 1.0:
            return "holds"
        return "partly" if frac >= PARTLY_FRACTION else "fails"
    whole = [all(v) for v in parts.values()]
    if all(whole):
        return "holds"
    return "partly" if any(whole) else "fails"


def eq(
    quantity: str, claimed: float, measured: float, error: float, slack: float = 0.0, **where: object
) -> Point:
    """|m − c| ≤ Z_TOL·error + slack."""
    return Point(quantity, float(claimed), float(measured), float(error), Z_TOL * error + slack, **where)


def below(
    quantity: str, claimed: float, measured: float, error: float, slack: float = 0.0, **where: object
) -> Point:
    """m ≤ c − (Z_TOL·error + slack): significantly below the reference c."""
    return Point(
        quantity,
        float(claimed),
        float(measured),
        float(error),
        Z_TOL * error + slack,
        relation="below",
        **where,
    )


def above(
    quantity: str, claimed: float, measured: float, error: float, slack: float = 0.0, **where: object
) -> Point:
    """m ≥ c + (Z_TOL·error + slack): significantly above the reference c."""
    return Point(
        quantity,
        float(claimed),
        float(measured),
        float(error),
        Z_TOL * error + slack,
        relation="above",
        **where,
    )


def half_unit(printed: str) -> float:
    """Half a unit in the last printed digit: "2.1" → 0.05, "0.342" → 0.0005, "16" → 0.5,
    "5.18e21" → 0.005e21 (the mantissa's last digit, scaled)."""
    mantissa, _, exponent = printed.strip().lower().partition("e")
    _, _, frac = mantissa.partition(".")
    return 0.5 * 10.0 ** (-len(frac)) * 10.0 ** (int(exponent) if exponent else 0)


def local_slopes(
    xs: Sequence[float], ys: Sequence[float], errs: Sequence[float]
) -> list[tuple[float, float]]:
    """Slopes d ln y / d ln x between neighbours, with their standard error by the delta method:

    b = ln(y₂/y₁) / ln(x₂/x₁),   se(b) = √((σ₁/y₁)² + (σ₂/y₂)²) / ln(x₂/x₁).
    """
    out = []
    for i in range(len(xs) - 1):
        lx = math.log(xs[i + 1] / xs[i])
        y1, y2 = ys[i], ys[i + 1]
        if y1 <= 0 or y2 <= 0:
            out.append((float("nan"), float("nan")))
            continue
        se = math.hypot(errs[i] / y1, errs[i + 1] / y2) / lx
        out.append((math.log(y2 / y1) / lx, se))
    return out


def fraction_error(p: float, count: int) -> float:
    """Standard error of a fraction p of `count` independent events, at least 1/count: a fraction
    measured as 0 is only known to lie under about Z_TOL/count (the rule of three)."""
    return max(math.sqrt(max(p * (1.0 - p), 0.0) / max(count, 1)), 1.0 / max(count, 1))


def tolerances() -> dict[str, float]:
    """The tolerance constants, for the page and the CLI to state them."""
    return {
        "z": Z_TOL,
        "partly": PARTLY_FRACTION,
        "uniform": UNIFORM_TOL,
        "slope": SLOPE_TOL,
        "exponent": EXPONENT_TOL,
        "time": TIME_TOL,
        "plausible": PLAUSIBLE,
        "rho": RHO_TRAINED,
        "normal_kurtosis": NORMAL_KURT_TOL,
        "normal_tail": NORMAL_TAIL_REL,
        "few_keys": FEW_KEYS,
        "vanish": VANISH_TOL,
        "stable": STABLE_REL,
        "negligible": NEGLIGIBLE_SHARE,
        "orders": ORDERS,
        "tiny": TINY_REL,
        "drop": DROP_TOL,
        "may": MAY_FRACTION,
        "near": NEAR,
        "many": MANY_FRACTION,
        "rounding": ROUNDING,
    }
