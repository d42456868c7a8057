"""The precision page's verdict: is float16 a reason for the 1/√d_k scale? (docs/science.md §4, "Low
precision").

A naive softmax exp(s_j)/Σ_l exp(s_l) overflows in float16 once a logit s exceeds ln 65504 ≈ 11.09
(exp(s) = ∞, then ∞/∞ = NaN); the stable softmax exp(s_j − m)/Σ_l exp(s_l − m), m = max_l s_l, has every
exponent ≤ 0 and fails only once a logit itself is ∞ (|s| > 65504). So the verdict reads the page's
own float16 rows: with the stable softmax precision is no reason for √d_k; for a naive kernel it is,
from the first d_k of the sweep where unscaled (c = 1) rows turn NaN while scaled (c = 1/√d_k) ones
stay finite.

`precision_verdict` words the verdict at the reader's d_k from the measured rows; `verdict_holds`
checks each statement of it against the rows again, one fact at a time, so a page can show only a
verdict its measurement supports and a property test can run both over a grid of (d_k, n).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DTYPE = "float16"
UNSCALED, SCALED = "none", "sqrt"
# The verdict's kinds, from the most to the least common at the app's settings.
NAIVE_HERE = "naive_here"        # unscaled naive rows fail at this d_k; scaled and stable ones do not
NAIVE_LATER = "naive_later"      # nothing fails at this d_k; unscaled naive rows fail at another one
NAIVE_NEVER = "naive_never"      # no row fails anywhere in the sweep, naive or stable
SCALED_FAILS = "scaled_fails"    # even scaled naive rows fail at this d_k
STABLE_FAILS = "stable_fails"    # even the stable softmax fails at this d_k (the logits are ∞)
INCOMPLETE = "incomplete"        # the rows lack c = 1 or c = 1/√d_k at this d_k
KINDS = (NAIVE_HERE, NAIVE_LATER, NAIVE_NEVER, SCALED_FAILS, STABLE_FAILS, INCOMPLETE)


@dataclass(frozen=True)
class PrecisionVerdict:
    """What the page says about float16 and √d_k at d_k = `dk`, with the measured figures it quotes:
    the fraction of rows with a NaN/∞ weight for the naive and stable softmax, unscaled (c = 1) and
    scaled (c = 1/√d_k); the d_k of the sweep the page names where unscaled naive rows fail (None:
    nowhere): d_k itself when they fail there, else the nearest larger d_k where they do, else the
    nearest smaller one;
    whether the stable softmax stayed finite, both scales, at every d_k of the sweep."""

    kind: str
    dk: int
    naive_none: float = 0.0
    naive_sqrt: float = 0.0
    stable_none: float = 0.0
    stable_sqrt: float = 0.0
    naive_fail_dk: int | None = None
    stable_everywhere: bool = True


def _fp16(rows: Sequence[dict[str, Any]]) -> dict[tuple[int, str], dict[str, Any]]:
    return {(int(r["dk"]), r["scale"]): r for r in rows if r["dtype"] == DTYPE}


def precision_verdict(rows: Sequence[dict[str, Any]], dk: int) -> PrecisionVerdict:
    """The verdict at d_k = `dk` from the precision sweep's rows (core.views.precision_view's "rows":
    one per d_k, scale and dtype, with naive_nonfinite_fraction and stable_nonfinite_fraction)."""
    by = _fp16(rows)
    here_none, here_sqrt = by.get((dk, UNSCALED)), by.get((dk, SCALED))
    if here_none is None or here_sqrt is None:
        return PrecisionVerdict(INCOMPLETE, dk)
    sweep = sorted(d for d, s in by if s == UNSCALED and (d, SCALED) in by)
    failing = [d for d in sweep if by[(d, UNSCALED)]["naive_nonfinite_fraction"] > 0]
    above, below = [d for d in failing if d >= dk], [d for d in failing if d < dk]
    named = above[0] if above else (below[-1] if below else None)
    stable_all = all(by[(d, s)]["stable_nonfinite_fraction"] == 0 for d in sweep for s in (UNSCALED, SCALED))
    v = {"dk": dk, "naive_none": here_none["naive_nonfinite_fraction"],
         "naive_sqrt": here_sqrt["naive_nonfinite_fraction"],
         "stable_none": here_none["stable_nonfinite_fraction"],
         "stable_sqrt": here_sqrt["stable_nonfinite_fraction"],
         "naive_fail_dk": named, "stable_everywhere": stable_all}
    if v["stable_none"] > 0 or v["stable_sqrt"] > 0:
        kind = STABLE_FAILS
    elif v["naive_sqrt"] > 0:
        kind = SCALED_FAILS
    elif v["naive_none"] > 0:
        kind = NAIVE_HERE
    elif named is not None:
        kind = NAIVE_LATER
    else:
        kind = NAIVE_NEVER
    return PrecisionVerdict(kind, **v)


def verdict_holds(verdict: PrecisionVerdict, rows: Sequence[dict[str, Any]]) -> bool:
    """Whether every statement the page makes with `verdict` is true of `rows`, checked one fact at
    a time: the quoted fractions are the rows' own; for NAIVE_HERE unscaled naive rows fail at d_k
    while scaled naive and both stable ones do not; for NAIVE_LATER no row fails at d_k and unscaled
    naive rows fail at naive_fail_dk, with no failing d_k nearer to d_k on its side; for NAIVE_NEVER no
    naive or stable row of either scale fails anywhere; "the stable softmax never fails in this
    sweep" only when no stable row of either scale has a NaN/∞ at any d_k."""
    by = _fp16(rows)
    if verdict.kind == INCOMPLETE:
        return (verdict.dk, UNSCALED) not in by or (verdict.dk, SCALED) not in by
    try:
        none, sqrt = by[(verdict.dk, UNSCALED)], by[(verdict.dk, SCALED)]
    except KeyError:
        return False
    quoted = (none["naive_nonfinite_fraction"] == verdict.naive_none
              and sqrt["naive_nonfinite_fraction"] == verdict.naive_sqrt
              and none["stable_nonfinite_fraction"] == verdict.stable_none
              and sqrt["stable_nonfinite_fraction"] == verdict.stable_sqrt)
    stable_rows = [r["stable_nonfinite_fraction"] for (_, s), r in by.items() if s in (UNSCALED, SCALED)]
    if not quoted or verdict.stable_everywhere != all(f == 0 for f in stable_rows):
        return False
    naive_none = {d: r["naive_nonfinite_fraction"] for (d, s), r in by.items() if s == UNSCALED}
    stable_here = none["stable_nonfinite_fraction"] == 0 and sqrt["stable_nonfinite_fraction"] == 0
    if verdict.kind == NAIVE_HERE:
        return naive_none[verdict.dk] > 0 and sqrt["naive_nonfinite_fraction"] == 0 and stable_here
    if verdict.kind == NAIVE_LATER:
        named, dk = verdict.naive_fail_dk, verdict.dk
        if named is None or named == dk or naive_none.get(named, 0) == 0 or naive_none[dk] > 0:
            return False
        between = [d for d in naive_none if min(dk, named) < d < max(dk, named)]
        larger_exists = any(f > 0 for d, f in naive_none.items() if d > dk)
        return (all(naive_none[d] == 0 for d in between) and (named > dk or not larger_exists)
                and sqrt["naive_nonfinite_fraction"] == 0 and stable_here)
    if verdict.kind == NAIVE_NEVER:
        naive_rows = [r["naive_nonfinite_fraction"] for (_, s), r in by.items() if s in (UNSCALED, SCALED)]
        return all(f == 0 for f in naive_rows + stable_rows)
    if verdict.kind == SCALED_FAILS:
        return sqrt["naive_nonfinite_fraction"] > 0 and stable_here
    if verdict.kind == STABLE_FAILS:
        return not stable_here
    return False


METHODS = ("naive", "stable")


def coinciding_series(rows: Sequence[dict[str, Any]], dtype: str) -> list[list[tuple[str, str]]]:
    """The series of the NaN-rows chart's `dtype` panel that lie on one another: groups (of two or
    more) of (scale, method) whose fraction of NaN/∞ rows is equal at every d_k of the sweep, method
    "naive" or "stable"; in the rows' scale order, naive before stable. A page says which series
    coincide, so a line drawn under another is still accounted for."""
    scales = list(dict.fromkeys(r["scale"] for r in rows))
    curves: dict[tuple[str, str], tuple[tuple[int, float], ...]] = {}
    for s in scales:
        mine = sorted((int(r["dk"]), r) for r in rows if r["scale"] == s and r["dtype"] == dtype)
        for m in METHODS:
            curves[(s, m)] = tuple((d, float(r[f"{m}_nonfinite_fraction"])) for d, r in mine)
    groups: dict[tuple[tuple[int, float], ...], list[tuple[str, str]]] = {}
    for key in sorted(curves, key=lambda k: (METHODS.index(k[1]), scales.index(k[0]))):
        if curves[key]:
            groups.setdefault(curves[key], []).append(key)
    return [g for g in groups.values() if len(g) > 1]
