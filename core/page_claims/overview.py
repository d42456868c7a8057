"""The overview's four steps, each worded from the overview's own measured sweep (core.views.overview_summary)
so that what it says holds at the reader's settings (docs/science.md §2).

1. the score variance grows like d_k (unscaled: a least-squares slope of ln Var against ln d_k near 1);
2. unscaled, softmax saturates (the mean max weight climbs to at least SATURATED);
3. unscaled, the gradient to the query falls below the scaled one past a crossing d_k that grows with n,
   then collapses (core.page_claims.gradients: the same rule as the gradients page);
4. with 1/√d_k every step stays nearly flat in d_k (within FLAT of its own range).

Each function returns a core.page_claims.gradients.Statement (a translation key and the figures it
quotes); where a statement does not hold for the sweep, the key names a wording that does (".other",
".partial", ".beyond", …). tests/test_page_claims_overview.py checks each choice against the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.page_claims.gradients import SCALED, UNSCALED, Statement, collapse_from, crossing, rounded_dk

SLOPE_RANGE = (0.9, 1.1)  # "grows like d_k": the log–log slope of the unscaled variance
SATURATED = 0.9           # "one key takes almost all the weight": mean max weight at the largest d_k
FLAT = {"var_scaled": 2.0, "max_weight_mean": 1.5, "grad_q_norm_median": 2.0}  # largest ÷ smallest
VAR_BAND = (0.5, 2.0)     # "Var stays near 1" with 1/√d_k


def _series(rows: Sequence[dict[str, Any]], scale: str, stat: str) -> list[tuple[int, float]]:
    return sorted((int(r["dk"]), float(r[stat])) for r in rows if r["scale"] == scale)


def variance_slope(rows: Sequence[dict[str, Any]]) -> float | None:
    """Least-squares slope of ln Var(q·k) against ln d_k, unscaled (theory: 1); None with fewer than two
    d_k values or no unscaled rows."""
    pts = [(math.log(d), math.log(v)) for d, v in _series(rows, UNSCALED, "var_scaled") if v > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 0 else None


def step1(rows: Sequence[dict[str, Any]]) -> Statement:
    """"grows like d_k" where the unscaled slope lies in SLOPE_RANGE; else the formula Var(c·q·k) = c²·d_k."""
    slope = variance_slope(rows)
    if slope is not None and SLOPE_RANGE[0] <= slope <= SLOPE_RANGE[1]:
        return Statement("overview.step1", {"slope": slope})
    return Statement("overview.step1.other")


def step2(rows: Sequence[dict[str, Any]]) -> Statement:
    """"saturates" where the unscaled mean max weight climbs to ≥ SATURATED by the largest d_k;
    "partial" where it climbs but stays below; else a plain description."""
    s = _series(rows, UNSCALED, "max_weight_mean")
    if len(s) < 2 or s[-1][1] <= s[0][1]:
        return Statement("overview.step2.other")
    params = {"first": s[0][0], "last": s[-1][0], "a": s[0][1], "b": s[-1][1]}
    return Statement("overview.step2" if s[-1][1] >= SATURATED else "overview.step2.partial", params)


def step3(rows: Sequence[dict[str, Any]], n: int) -> Statement:
    """Where the unscaled median gradient falls below the scaled one (and whether it collapses)."""
    c = crossing(rows, n)
    gone = collapse_from(rows)
    params: dict[str, Any] = {"n": int(n), "first": c.first, "last": c.last}
    if c.kind == "inside":
        params.update(lo=c.lo, hi=c.hi, at=rounded_dk(c))
    key = f"overview.step3.{c.kind}"
    if c.kind in ("inside", "from_start") and gone is not None:
        key += ".collapse"
        params["collapse"] = gone
    return Statement(key, params)


def scaled_ranges(rows: Sequence[dict[str, Any]]) -> dict[str, tuple[float, float]] | None:
    """(smallest, largest) over the sweep of each step's quantity with 1/√d_k, or None without it."""
    out = {}
    for stat in FLAT:
        vals = [v for _, v in _series(rows, SCALED, stat)]
        if not vals:
            return None
        out[stat] = (min(vals), max(vals))
    return out


def step4(rows: Sequence[dict[str, Any]]) -> Statement:
    """"nearly flat" where, with 1/√d_k, the variance stays in VAR_BAND and each quantity's largest value
    is within FLAT of its smallest; else a plain heading for the cards."""
    r = scaled_ranges(rows)
    if r is None:
        return Statement("overview.step4.other")
    dks = [d for d, _ in _series(rows, SCALED, "var_scaled")]
    (vlo, vhi), (mlo, mhi), (glo, ghi) = r["var_scaled"], r["max_weight_mean"], r["grad_q_norm_median"]
    flat = (VAR_BAND[0] <= vlo and vhi <= VAR_BAND[1]
            and all(lo > 0 and hi <= FLAT[stat] * lo for stat, (lo, hi) in r.items()))
    params = {"first": dks[0], "last": dks[-1], "vlo": vlo, "vhi": vhi, "mlo": mlo, "mhi": mhi,
              "glo": glo, "ghi": ghi}
    return Statement("overview.step4" if flat else "overview.step4.other", params)


def notice(rows: Sequence[dict[str, Any]], n: int) -> list[Statement]:
    """"What to notice", one statement per step that holds (each with its own condition)."""
    out = []
    if step1(rows).key == "overview.step1":
        out.append(Statement("overview.notice.var"))
    s2 = step2(rows)
    if s2.key != "overview.step2.other":
        out.append(Statement("overview.notice.max_weight", {"b": s2.params["b"], "last": s2.params["last"]}))
    c = crossing(rows, n)
    if c.kind == "inside":
        out.append(Statement("overview.notice.grad.inside", {"at": rounded_dk(c), "n": int(n)}))
    elif c.kind == "beyond":
        out.append(Statement("overview.notice.grad.beyond", {"last": c.last, "n": int(n)}))
    elif c.kind == "from_start":
        out.append(Statement("overview.notice.grad.from_start", {"n": int(n)}))
    s4 = step4(rows)
    if s4.key == "overview.step4":
        out.append(Statement("overview.notice.flat", {"vlo": s4.params["vlo"], "vhi": s4.params["vhi"]}))
    return out
