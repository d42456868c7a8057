"""The variance page's statements, each worded from the page's own measurement (docs/science.md §2,
"What the variance and saturation pages say, and when it holds").

The rule the page opens with: Var(c·X) = c²·Var(X). The score q·k has Var(q·k) = d_k·(1 + ρ²(κ − 2))
(κ = E[x⁴] of a component; d_k at ρ = 0 whatever the distribution), so c = 1/√d_k gives
Var = 1 + ρ²(κ − 2), the same at every d_k (1 at ρ = 0), and c = 1/d_k gives (1 + ρ²(κ − 2))/d_k,
shrinking with d_k.

The page reads core.views.variance_view: per d_k and scale, the measured var_raw (with its standard
error var_raw_se), the theory theory_var, c and var_scaled = c²·var_raw. Each function returns a
`Statement` whose `kind` names the wording the page shows (a key of pages/ui/text/variance.py) and whose
`values` are the measured figures it quotes; tests/test_page_claims_variance.py runs them over a grid
of (d_k, n) and checks each wording shown against the view's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.sampling import KURTOSIS
from core.scales import parse_scale, scale_factor

UNSCALED, SCALED, LINEAR = "none", "sqrt", "linear"
AGREE_SE = 3.0        # measured within this many standard errors of the theory: "agrees"
SLOPE_TOL = 0.1       # a fitted log–log slope within this of the theory's: "as the rule says"
LEVEL_TOL = 0.1       # 1/√d_k's variance within this fraction of its theory (or AGREE_SE) at every d_k

GROWS, FIXED = "grows", "fixed"                 # title
UNIT, CORRELATED = "unit", "correlated"         # the rule at the reader's d_k
AGREE, DIFFER = "agree", "differ"               # measured vs theory
MATCHES, OFF = "matches", "off"                 # a line's slope vs the rule's
STAYS, RANGE, ABSENT = "stays", "range", "absent"  # 1/√d_k's level over the sweep
SHAPE_FREE, SHAPE_MATTERS = "shape_free", "shape_matters"


@dataclass(frozen=True)
class Statement:
    """One sentence of the page: which wording (`kind`) and the measured figures it quotes."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)


Row = dict[str, Any]


def raw_by_dk(view: dict[str, Any]) -> dict[int, Row]:
    """One row per d_k of the sweep (var_raw, its standard error and theory do not depend on the scale)."""
    out: dict[int, Row] = {}
    for r in view["rows"]:
        out.setdefault(int(r["dk"]), r)
    return out


def by_dk(view: dict[str, Any], scale: str) -> dict[int, Row]:
    """The view's rows of one scale, by d_k."""
    name = parse_scale(scale).name
    return {int(r["dk"]): r for r in view["rows"] if r["scale"] == name}


def log_slope(dks: Sequence[float], values: Sequence[float]) -> float | None:
    """Least-squares slope of log values against log d_k (the power of d_k a line on the log–log chart
    follows), over the points with d_k ≥ 2 and a positive value; None with fewer than two."""
    pts = [(math.log(d), math.log(v)) for d, v in zip(dks, values, strict=True) if d >= 2 and v > 0]
    if len(pts) < 2:
        return None
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def kappa(dist: str) -> float:
    """κ = E[x⁴] of one component (3 normal, 9/5 uniform, 1 Rademacher; core.sampling.KURTOSIS)."""
    return KURTOSIS[dist]


def title(view: dict[str, Any]) -> Statement:
    """"Why the dot product grows with d_k": GROWS when the measured Var(q·k) rises with d_k over the
    sweep (fitted log–log slope > 1/2; `slope` quoted). FIXED when it does not, which happens only
    when q·k has no spread at all (ρ = 1 with Rademacher components: k = q, q·k = d_k exactly)."""
    raw = raw_by_dk(view)
    slope = log_slope(list(raw), [r["var_raw"] for r in raw.values()])
    if slope is not None and slope > 0.5:
        return Statement(GROWS, {"slope": slope})
    return Statement(FIXED, {"slope": slope})


def rule(view: dict[str, Any], dk: int) -> Statement:
    """The c² rule at the reader's d_k: Var(q·k) measured and in theory, then ×c² for c = 1/√d_k and
    c = 1/d_k (`sqrt`, `linear`: c²·var_raw with core.scales' factors; theory `sqrt_theory`,
    `linear_theory`). UNIT at ρ = 0 (theory d_k), CORRELATED at ρ > 0, FIXED when theory is 0."""
    r = raw_by_dk(view)[dk]
    theory = r["theory_var"]
    v = {"dk": dk, "var_raw": r["var_raw"], "theory": theory, "rho": r["rho"], "dist": r["dist"],
         "kappa": kappa(r["dist"]),
         "sqrt": scale_factor(SCALED, dk) ** 2 * r["var_raw"],
         "linear": scale_factor(LINEAR, dk) ** 2 * r["var_raw"],
         "sqrt_theory": scale_factor(SCALED, dk) ** 2 * theory,
         "linear_theory": scale_factor(LINEAR, dk) ** 2 * theory}
    if theory <= 0:
        return Statement(FIXED, v)
    return Statement(UNIT if r["rho"] == 0 else CORRELATED, v)


def agreement(view: dict[str, Any], dk: int) -> Statement:
    """Measured Var(q·k) against theory at the reader's d_k: AGREE when within AGREE_SE standard errors
    of the sample variance (`z`: the difference in standard errors, `z_abs` its size), DIFFER otherwise."""
    r = raw_by_dk(view)[dk]
    diff = r["var_raw"] - r["theory_var"]
    se = r["var_raw_se"]
    z = diff / se if se > 0 else (0.0 if diff == 0 else math.inf)
    return Statement(AGREE if abs(z) <= AGREE_SE else DIFFER,
                     {"dk": dk, "var_raw": r["var_raw"], "theory": r["theory_var"], "se": se, "z": z,
                      "z_abs": abs(z)})


def slopes(view: dict[str, Any]) -> list[Statement]:
    """Per scale of the view: the fitted log–log slope of Var(c·q·k) over the sweep (`slope`) and the
    rule's (`theory`: the slope of c²·theory_var, 1 − 2a for c = d_k^(−a)); MATCHES within SLOPE_TOL,
    OFF otherwise. A scale with fewer than two usable points is left out."""
    out = []
    for scale in view["scales"]:
        rows = by_dk(view, scale)
        ds = sorted(rows)
        slope = log_slope(ds, [rows[d]["var_scaled"] for d in ds])
        theory = log_slope(ds, [rows[d]["theory_var_scaled"] for d in ds])
        if slope is None or theory is None:
            continue
        kind = MATCHES if abs(slope - theory) <= SLOPE_TOL else OFF
        out.append(Statement(kind, {"scale": scale, "slope": slope, "theory": theory}))
    return out


def scaled_level(view: dict[str, Any]) -> Statement:
    """"1/√d_k keeps the variance the same at every d_k": STAYS when every measured point of the 1/√d_k
    line lies within max(LEVEL_TOL·theory, AGREE_SE standard errors) of its theory 1 + ρ²(κ − 2);
    RANGE otherwise; both quote the measured range `lo`–`hi` and `theory`. ABSENT without 1/√d_k."""
    rows = by_dk(view, SCALED)
    if not rows:
        return Statement(ABSENT)
    vals = [r["var_scaled"] for r in rows.values()]
    theory = next(iter(rows.values()))["theory_var_scaled"]
    near = all(abs(r["var_scaled"] - r["theory_var_scaled"])
               <= max(LEVEL_TOL * r["theory_var_scaled"], AGREE_SE * r["var_scaled_se"])
               for r in rows.values())
    v = {"lo": min(vals), "hi": max(vals), "theory": theory, "dk_lo": min(rows), "dk_hi": max(rows)}
    return Statement(STAYS if near else RANGE, v)


def shape(view: dict[str, Any]) -> Statement:
    """Whether the components' distribution matters: SHAPE_FREE at ρ = 0 (Var(q·k) = d_k for any
    components of mean 0 and variance 1), SHAPE_MATTERS at ρ > 0 (through κ)."""
    r = next(iter(view["rows"]))
    v = {"rho": r["rho"], "dist": r["dist"], "kappa": kappa(r["dist"]),
         "factor": 1.0 + r["rho"] ** 2 * (kappa(r["dist"]) - 2.0)}
    return Statement(SHAPE_FREE if r["rho"] == 0 else SHAPE_MATTERS, v)
