"""The gradients page's statements, each chosen from the page's own measured sweep (docs/science.md §2,
"Where the unscaled gradient collapses").

∂L/∂q = c·Kᵀ J g (docs/science.md §1). Unscaled (c = 1) two factors pull against each other as d_k
grows: the keys' length ‖k‖ ≈ √d_k makes the gradient larger, while the softmax saturates and its
Jacobian J = diag(p) − p pᵀ shrinks. With c = 1/√d_k neither moves. So at a small d_k the unscaled
gradient is the *larger* one; it falls below the scaled one only past a crossing d_k that grows with
the number of keys n, and collapses (below a hundredth of the scaled one) later still.

Every function takes the rows of core.views.gradient_view (or of core.views.overview_summary, which
carry the same gradient columns) and returns a `Statement`: a translation key naming the wording that
applies and the measured figures it quotes. tests/test_page_claims_gradients.py checks, over a grid of
(d_k, n), that each wording chosen is true of the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

UNSCALED, SCALED = "none", "sqrt"
MEDIAN, MEAN, JNORM = "grad_q_norm_median", "grad_q_norm_mean", "jacobian_norm_median"
MEDIAN_LO, MEDIAN_HI = "grad_q_norm_median_lo", "grad_q_norm_median_hi"  # the median's 95 % interval
# "Collapsed": the unscaled median gradient below a hundredth of the scaled one (two orders of magnitude).
COLLAPSE_FACTOR = 100.0
TINY = 1e-300  # a zero gradient (saturated beyond float precision) on a log scale


@dataclass(frozen=True)
class Statement:
    """A wording (a translation key) and the measured figures it quotes (ints: d_k or n; floats: values)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Crossing:
    """Where the unscaled median gradient falls below the scaled one and stays below, over the sweep.

    kind: "inside" (between the sweep's d_k values `lo` and `hi`, ≈ `at` by interpolation on log axes),
    "from_start" (below at every d_k of the sweep), "beyond" (not below at the sweep's largest d_k) or
    "missing" (the sweep lacks c = 1 or c = 1/√d_k). `first` and `last`: the sweep's d_k range."""

    kind: str
    n: int
    lo: int | None = None
    hi: int | None = None
    at: float | None = None
    first: int | None = None
    last: int | None = None


def pairs(rows: Sequence[dict[str, Any]], stat: str = MEDIAN, ref: str | None = None
          ) -> list[tuple[int, float, float]]:
    """(d_k, unscaled `stat`, scaled `ref` (default: `stat`)) at every d_k where both scales were measured."""
    ref = ref or stat
    un = {int(r["dk"]): float(r[stat]) for r in rows if r["scale"] == UNSCALED and stat in r}
    sc = {int(r["dk"]): float(r[ref]) for r in rows if r["scale"] == SCALED and ref in r}
    return [(d, un[d], sc[d]) for d in sorted(un) if d in sc]


def _n(rows: Sequence[dict[str, Any]], n: int | None) -> int:
    if n is not None:
        return int(n)
    return int(rows[0]["n"]) if rows and "n" in rows[0] else 0


def crossing(rows: Sequence[dict[str, Any]], n: int | None = None, stat: str = MEDIAN) -> Crossing:
    """Where the unscaled median ‖∂L/∂q‖ (or another column `stat` of the unscaled rows: an end of the
    median's 95 % interval) falls below the scaled median and stays below (see Crossing).

    The interpolated d_k solves ln(unscaled/scaled) = 0 on the segment between the last d_k where the
    unscaled value is not below and the first of the run where it stays below, linear in ln d_k."""
    n = _n(rows, n)
    p = pairs(rows, stat, MEDIAN)
    if not p:
        return Crossing("missing", n)
    first, last = p[0][0], p[-1][0]
    below = [u < s for _, u, s in p]
    if not below[-1]:
        return Crossing("beyond", n, first=first, last=last)
    k = len(below) - 1
    while k > 0 and below[k - 1]:
        k -= 1
    if k == 0:
        return Crossing("from_start", n, first=first, last=last)
    (d1, u1, s1), (d2, u2, s2) = p[k - 1], p[k]
    r1, r2 = math.log(max(u1, TINY) / s1), math.log(max(u2, TINY) / s2)  # r1 ≥ 0 > r2
    t = r1 / (r1 - r2)
    at = math.exp(math.log(d1) + t * (math.log(d2) - math.log(d1)))
    return Crossing("inside", n, lo=d1, hi=d2, at=at, first=first, last=last)


def rounded_dk(c: Crossing) -> float | None:
    """The interpolated crossing to two significant figures (within 5 % of it), kept inside [lo, hi];
    an int when whole (190, 2000), else a float (8.1)."""
    if c.at is None or c.lo is None or c.hi is None:
        return None
    r = min(float(c.hi), max(float(c.lo), float(f"{c.at:.2g}")))
    return int(r) if r.is_integer() else r


def _end(c: Crossing) -> Statement:
    """One end of the crossing's interval in words: ≈ a d_k, "the smallest d_k", or "beyond the largest"."""
    if c.kind == "inside":
        return Statement("gradients.band.at", {"at": rounded_dk(c)})
    if c.kind == "from_start":
        return Statement("gradients.band.start", {"first": c.first})
    return Statement("gradients.band.beyond", {"last": c.last})


def band(rows: Sequence[dict[str, Any]], n: int | None = None) -> Statement | None:
    """Where the crossing could lie given the median's 95 % intervals (few trials at a large n make them
    wide): from where the interval's lower end falls below the scaled median (the earliest) to where
    its upper end does (the latest). None without the intervals."""
    if not pairs(rows, MEDIAN_LO, MEDIAN) or not pairs(rows, MEDIAN_HI, MEDIAN):
        return None
    early, late = crossing(rows, n, MEDIAN_LO), crossing(rows, n, MEDIAN_HI)
    return Statement("gradients.band", {"early": _end(early), "late": _end(late)})


def collapse_from(rows: Sequence[dict[str, Any]]) -> int | None:
    """The smallest d_k of the sweep from which the unscaled median gradient stays below a hundredth of
    the scaled one (COLLAPSE_FACTOR), or None where it never does up to the sweep's largest d_k."""
    p = pairs(rows)
    found = None
    for d, u, s in reversed(p):
        if u * COLLAPSE_FACTOR < s:
            found = d
        else:
            break
    return found


def regime_at(rows: Sequence[dict[str, Any]], dk: int) -> Statement:
    """How the unscaled median gradient compares with the scaled one at the reader's d_k:
    "larger", "equal" (d_k = 1, where c = 1 for both), "below", "collapsed" (below a hundredth of
    it) or "missing" (one of the two scales was not measured there)."""
    here = {d: (u, s) for d, u, s in pairs(rows)}
    if dk not in here:
        return Statement("missing", {"dk": dk})
    u, s = here[dk]
    params = {"dk": dk, "none": u, "sqrt": s}
    if u > s:
        return Statement("larger", {**params, "ratio": u / s})
    if u == s:
        return Statement("equal", params)
    if u * COLLAPSE_FACTOR < s:
        return Statement("collapsed", params)
    return Statement("below", {**params, "ratio": s / u})


def title(rows: Sequence[dict[str, Any]], dk: int) -> Statement:
    """The page's title for the regime at the reader's d_k ("gradients.title" where unscaled is larger)."""
    kind = regime_at(rows, dk).key
    return Statement("gradients.title" if kind == "larger" else f"gradients.title.{kind}")


def verdict(rows: Sequence[dict[str, Any]], dk: int, n: int) -> Statement:
    """The sentence at the reader's d_k: which gradient is larger there, with both medians."""
    r = regime_at(rows, dk)
    return Statement(f"gradients.verdict.{r.key}", {**r.params, "n": int(n)})


def crossing_statement(rows: Sequence[dict[str, Any]], n: int) -> Statement:
    """Where the unscaled median falls below the scaled one for this n, and where it collapses."""
    c = crossing(rows, n)
    params: dict[str, Any] = {"n": int(n), "first": c.first, "last": c.last}
    if c.kind == "inside":
        params.update(lo=c.lo, hi=c.hi, at=rounded_dk(c))
    gone = collapse_from(rows)
    key = f"gradients.cross.{c.kind}"
    if c.kind in ("inside", "from_start"):
        if gone is None:
            key += ".no_collapse"
        else:
            params["collapse"] = gone
    return Statement(key, params)


def comparison(rows: Sequence[dict[str, Any]], dk: int) -> Statement:
    """The cards compared at the reader's d_k: unscaled ÷ scaled for the median and mean gradient and
    the median ‖J‖₂ (ratios, so "3.3×" larger or "0.02×" as large)."""
    ratios = {}
    for name, stat in (("median", MEDIAN), ("mean", MEAN), ("jnorm", JNORM)):
        here = {d: (u, s) for d, u, s in pairs(rows, stat)}
        if dk not in here or here[dk][1] <= 0:
            return Statement("gradients.compare.missing", {"dk": dk})
        ratios[name] = here[dk][0] / here[dk][1]
    return Statement("gradients.compare", {"dk": dk, **ratios})


def course(rows: Sequence[dict[str, Any]]) -> Statement:
    """The unscaled median's course over the sweep: "peaks" (rises to an inner maximum, then falls),
    "falls" (largest at the smallest d_k), "rises" (largest at the largest d_k), or "missing"."""
    p = pairs(rows)
    if len(p) < 2:
        return Statement("gradients.notice.missing")
    values = [u for _, u, _ in p]
    top = max(range(len(values)), key=values.__getitem__)
    params = {"first": p[0][0], "last": p[-1][0], "v_first": values[0], "v_last": values[-1],
              "peak_dk": p[top][0], "peak": values[top]}
    if top == 0:
        return Statement("gradients.notice.falls", params)
    if top == len(values) - 1:
        return Statement("gradients.notice.rises", params)
    return Statement("gradients.notice.peaks", params)


def mean_vs_median(rows: Sequence[dict[str, Any]]) -> Statement | None:
    """At the sweep's largest d_k: the unscaled mean is ≥ 10× the median ("apart": rare near-ties carry
    the mean), or not; None without an unscaled row."""
    med, mean = pairs(rows, MEDIAN), pairs(rows, MEAN)
    if not med:
        return None
    (d, m, _), (_, a, _) = med[-1], mean[-1]
    if m <= 0 or a >= 10 * m:
        return Statement("gradients.notice.mean_apart", {"last": d, "mean": a, "median": m})
    return Statement("gradients.notice.mean_close", {"last": d, "mean": a, "median": m})


def scaled_range(rows: Sequence[dict[str, Any]]) -> Statement | None:
    """The scaled median's smallest and largest value over the sweep (it barely moves), or None."""
    vals = [float(r[MEDIAN]) for r in rows if r["scale"] == SCALED]
    if not vals:
        return None
    return Statement("gradients.notice.scaled", {"lo": min(vals), "hi": max(vals)})


def notice(rows: Sequence[dict[str, Any]]) -> list[Statement]:
    """"What to notice": the unscaled median's course, its mean against its median, the scaled range,
    and the Jacobian's bound (a fact of algebra, ‖J‖₂ ≤ 2(1 − max p))."""
    parts = [course(rows), mean_vs_median(rows), scaled_range(rows), Statement("gradients.notice.jacobian")]
    return [s for s in parts if s is not None]


def row_caption(draw: dict[str, Any], top_max_weight: float) -> Statement:
    """Which row of the draw the Jacobian shows (core.views.one_draw): the most saturated one (its
    largest weight the largest of any row), or the reader's, with the most saturated row named."""
    params = {"i": int(draw["query"]), "top": int(draw["most_saturated_query"]), "n": len(draw["row"]["j"]),
              "maxw": float(draw["row_max_weight"]), "top_maxw": float(top_max_weight)}
    if draw["query"] == draw["most_saturated_query"]:
        return Statement("gradients.row.top", params)
    return Statement("gradients.row.chosen", params)
