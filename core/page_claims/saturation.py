"""The saturation page's statements, each worded from the page's own measurement (docs/science.md §2,
"What the variance and saturation pages say, and when it holds").

The page reads core.views.saturation_view: per d_k of the sweep and per scale, the mean and the median
(`max_weight_q50`) of a row's max weight max_j p_ij, the mean entropy H = −Σ_j p_ij ln p_ij (nats), the
mean effective keys e^H and the fraction of saturated rows (max weight > 0.99). Two levels name how
peaked a row is:

- *one key wins*: in at least half the rows the top key takes more than half the weight (more than all
  the other keys together), i.e. the median max weight exceeds 1/2. With n = 2 keys this always holds
  (the larger of two weights is at least 1/2), so the page says so.
- *one key takes (nearly) all*: more than half the rows are saturated (max weight > 0.99).

Each function returns a `Statement`: its `kind` names the wording the page shows (a key of
pages/ui/text/saturation.py) and `values` the measured figures the wording quotes, so a property test
(tests/test_page_claims_saturation.py) can run them over a grid of (d_k, n) and check each wording
shown against the view's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

UNSCALED, SCALED = "none", "sqrt"
MOST = 0.5          # "most of the weight": more than all the other keys together
MOST_ROWS = 0.5     # "most rows": more than half of them
FLAT_SHARE = 0.1    # "the same at every d_k": the mean entropy moves by at most this fraction of ln n

# Levels of one (d_k, scale) row, from the most peaked.
ALL, WINS, SPREAD = "all", "wins", "spread"
# Extra kinds of the page's sentences.
LATER, NEVER, ABSENT = "later", "never", "absent"
HOLDS, UNSEEN = "holds", "unseen"
RISES_ALL, RISES, NO_RISE = "rises_all", "rises", "no_rise"
FLAT, VARIES = "flat", "varies"


@dataclass(frozen=True)
class Statement:
    """One sentence of the page: which wording (`kind`) and the measured figures it quotes."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)


Row = dict[str, Any]


def level(row: Row) -> str:
    """How peaked a (d_k, scale) row of the view is: ALL when most rows are saturated (fraction with
    max weight > 0.99 above 1/2), WINS when the median max weight is above 1/2, else SPREAD."""
    if row["saturated_fraction"] > MOST_ROWS:
        return ALL
    if row["max_weight_q50"] > MOST:
        return WINS
    return SPREAD


def _at_least(lvl: str, floor: str) -> bool:
    order = (SPREAD, WINS, ALL)
    return order.index(lvl) >= order.index(floor)


def by_dk(view: dict[str, Any], scale: str) -> dict[int, Row]:
    """The view's rows of one scale, by d_k."""
    return {int(r["dk"]): r for r in view["rows"] if r["scale"] == scale}


def holds_from(rows: dict[int, Row], test: Callable[[Row], bool]) -> int | None:
    """The smallest d_k of the sweep from which `test` holds at every larger d_k of the sweep ("once
    d_k ≳ X"), or None when it fails at the largest."""
    first = None
    for d in sorted(rows, reverse=True):
        if not test(rows[d]):
            break
        first = d
    return first


def _row_values(row: Row, n: int) -> dict[str, Any]:
    return {"dk": int(row["dk"]), "n": n, "mean": row["max_weight_mean"], "median": row["max_weight_q50"],
            "sat": row["saturated_fraction"], "entropy": row["entropy_mean"],
            "effective": row["effective_keys_mean"], "ln_n": math.log(n)}


def title(view: dict[str, Any]) -> Statement:
    """"Large scores saturate the softmax": HOLDS when some row of the view (any scale, any d_k) has most
    of its rows saturated, the page's own evidence; quotes the first such (d_k, scale). UNSEEN otherwise
    (the reader's scales keep every row spread): the page then asks how peaked the softmax gets."""
    for scale in view["scales"]:
        rows = by_dk(view, scale)
        first = next((d for d in sorted(rows) if level(rows[d]) == ALL), None)
        if first is not None:
            return Statement(HOLDS, {"scale": scale, "dk": first, "sat": rows[first]["saturated_fraction"]})
    return Statement(UNSEEN)


def one_key_wins(view: dict[str, Any], dk: int, n: int) -> Statement:
    """The claim "without scaling, one key wins", at the reader's (d_k, n):

    ALL (most rows saturated at d_k), WINS (median max weight > 1/2 at d_k; `all_from` is the d_k from
    which most rows are saturated, or None), LATER (not yet at d_k; `from` is the d_k from which one key
    wins at every larger d_k of the sweep), NEVER (one key does not win at the largest d_k of the sweep),
    ABSENT (the reader's scales leave out c = 1)."""
    rows = by_dk(view, UNSCALED)
    if dk not in rows:
        return Statement(ABSENT, {"dk": dk, "n": n})
    v = {**_row_values(rows[dk], n), "sd": math.sqrt(dk), "dk_max": max(rows)}
    lvl = level(rows[dk])
    if lvl == ALL:
        return Statement(ALL, v)
    if lvl == WINS:
        return Statement(WINS, {**v, "all_from": holds_from(rows, lambda r: level(r) == ALL)})
    start = holds_from(rows, lambda r: _at_least(level(r), WINS))
    if start is None:
        return Statement(NEVER, v)
    return Statement(LATER, {**v, "from": start, "from_median": rows[start]["max_weight_q50"]})


def scaled_spread(view: dict[str, Any], dk: int, n: int) -> Statement:
    """What 1/√d_k does at the reader's (d_k, n): the level of its row (SPREAD: the weights stay spread;
    WINS: with few keys the top one still takes more than half in most rows; ALL), or ABSENT."""
    rows = by_dk(view, SCALED)
    if dk not in rows:
        return Statement(ABSENT, {"dk": dk, "n": n})
    return Statement(level(rows[dk]), _row_values(rows[dk], n))


def unscaled_trend(view: dict[str, Any]) -> Statement:
    """"Without scaling the rows turn one-hot as d_k grows": RISES_ALL when the mean max weight at the
    largest d_k of the sweep exceeds the one at the smallest and most rows are saturated there (the heat
    map shows isolated bright cells), RISES when it exceeds it without that, NO_RISE when it does not;
    ABSENT without c = 1."""
    rows = by_dk(view, UNSCALED)
    if len(rows) < 2:
        return Statement(ABSENT)
    lo, hi = min(rows), max(rows)
    v = {"dk_lo": lo, "dk_hi": hi, "lo": rows[lo]["max_weight_mean"], "hi": rows[hi]["max_weight_mean"],
         "sat_hi": rows[hi]["saturated_fraction"]}
    if v["hi"] <= v["lo"]:
        return Statement(NO_RISE, v)
    return Statement(RISES_ALL if level(rows[hi]) == ALL else RISES, v)


def scaled_entropy(view: dict[str, Any], n: int) -> Statement:
    """"With 1/√d_k the entropy stays near the same value at every d_k": FLAT when the mean entropy's
    range over the sweep is at most FLAT_SHARE·ln n, VARIES otherwise (the range is quoted), ABSENT
    without 1/√d_k."""
    rows = by_dk(view, SCALED)
    if len(rows) < 2:
        return Statement(ABSENT)
    hs = [r["entropy_mean"] for r in rows.values()]
    v = {"lo": min(hs), "hi": max(hs), "ln_n": math.log(n), "dk_lo": min(rows), "dk_hi": max(rows)}
    return Statement(FLAT if v["hi"] - v["lo"] <= FLAT_SHARE * v["ln_n"] else VARIES, v)
