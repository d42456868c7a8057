"""The overview's four steps and its "what to notice" (core.page_claims.overview) over the URL's range:
for every d_k in powers of two from 2 to 4096 (and d_k = 1, and d_k off the grid) and n in
{2, 8, 32, 128, 1024}, the wording chosen is true of the numbers the page measured, checked here from
the rows themselves."""

from __future__ import annotations

import numpy as np
import pytest

from core import figure_budget, views
from core.page_claims import gradients as grad_claims
from core.page_claims import overview as claims
from pages.ui.i18n import LANGS, text_for

NS = (2, 8, 32, 128, 1024)
GRID = tuple(2**i for i in range(1, 13))  # 2 … 4096
EXTRA = ((1, 32), (100, 32), (3000, 1024))
TRIALS = 100  # the page's default


def summary(dk: int, n: int, scales: tuple[str, ...] = ("none", "sqrt")) -> dict:
    """What the overview measures at these settings (its own sweep: the grid plus the reader's d_k)."""
    return views.overview_summary(figure_budget.sweep_dks(dk), n, list(scales), TRIALS, seed=0)


def column(rows: list[dict], scale: str, stat: str) -> dict[int, float]:
    return {r["dk"]: r[stat] for r in sorted(rows, key=lambda r: r["dk"]) if r["scale"] == scale}


def medians(rows: list[dict]) -> tuple[dict[int, float], dict[int, float]]:
    """The median gradient per d_k, unscaled and scaled."""
    return column(rows, "none", "grad_q_norm_median"), column(rows, "sqrt", "grad_q_norm_median")


def renders(statement: grad_claims.Statement, *suffixes: str) -> None:
    """The wording (and its detail line) exists in both languages and takes the figures given."""
    for suffix in ("", *suffixes):
        for lang in LANGS:
            text_for(statement.key + suffix, lang).format(**statement.params)


@pytest.fixture(scope="module")
def sweeps() -> dict[tuple[int, int], dict]:
    """One sweep per n serves every d_k of the grid (the sweep is the grid); the extras have their own."""
    out = {}
    for n in NS:
        s = summary(64, n)
        out.update({(dk, n): s for dk in GRID})
    out.update({(dk, n): summary(dk, n) for dk, n in EXTRA})
    return out


def test_step1_says_grows_like_dk_only_where_the_measured_slope_is_near_one(sweeps):
    for (dk, n), s in sweeps.items():
        var = column(s["rows"], "none", "var_scaled")
        slope = np.polyfit(np.log(list(var)), np.log(list(var.values())), 1)[0]
        said = claims.step1(s["rows"])
        near = claims.SLOPE_RANGE[0] <= slope <= claims.SLOPE_RANGE[1]
        assert said.key == ("overview.step1" if near else "overview.step1.other"), (dk, n, slope)
        if near:
            assert said.params["slope"] == pytest.approx(slope)
        renders(said, ".detail")


def test_step2_says_saturates_only_where_the_max_weight_reaches_the_threshold(sweeps):
    for s in sweeps.values():
        w = list(column(s["rows"], "none", "max_weight_mean").values())
        said = claims.step2(s["rows"])
        if said.key == "overview.step2":
            assert w[-1] >= claims.SATURATED and w[-1] > w[0]
        elif said.key == "overview.step2.partial":
            assert w[0] < w[-1] < claims.SATURATED
        else:
            assert said.key == "overview.step2.other" and w[-1] <= w[0]
        if said.params:
            assert (said.params["a"], said.params["b"]) == (w[0], w[-1])
        renders(said, ".detail")


def test_step3_names_the_crossing_and_the_collapse_the_gradients_show(sweeps):
    for (_, n), s in sweeps.items():
        un, sc = medians(s["rows"])
        said = claims.step3(s["rows"], n)
        kind = said.key.split(".")[2]
        below = {d: un[d] < sc[d] for d in un}
        if kind == "inside":
            lo, hi = said.params["lo"], said.params["hi"]
            assert not below[lo] and all(below[d] for d in un if d >= hi)
        elif kind == "beyond":
            assert not below[max(un)]
        else:
            assert kind == "from_start" and all(below.values())
        if said.key.endswith(".collapse"):
            gone = said.params["collapse"]
            assert all(un[d] * grad_claims.COLLAPSE_FACTOR < sc[d] for d in un if d >= gone)
        elif kind != "beyond":
            assert un[max(un)] * grad_claims.COLLAPSE_FACTOR >= sc[max(un)]
        renders(said, ".detail")


def test_step4_says_flat_only_where_every_scaled_quantity_stays_in_its_band(sweeps):
    for (dk, n), s in sweeps.items():
        said = claims.step4(s["rows"])
        ranges = {stat: (min(v), max(v)) for stat in claims.FLAT
                  for v in [list(column(s["rows"], "sqrt", stat).values())]}
        vlo, vhi = ranges["var_scaled"]
        flat = (claims.VAR_BAND[0] <= vlo and vhi <= claims.VAR_BAND[1]
                and all(hi <= claims.FLAT[stat] * lo for stat, (lo, hi) in ranges.items()))
        assert said.key == ("overview.step4" if flat else "overview.step4.other"), (dk, n, ranges)
        assert (said.params["glo"], said.params["ghi"]) == ranges["grad_q_norm_median"]
        renders(said, ".detail")


def test_the_cards_verdict_is_the_measured_comparison_at_the_readers_dk(sweeps):
    for (dk, n), s in sweeps.items():
        u = column(s["rows"], "none", "grad_q_norm_median")[dk]
        v = column(s["rows"], "sqrt", "grad_q_norm_median")[dk]
        said = grad_claims.verdict(s["rows"], dk, n)
        expected = ("larger" if u > v else "equal" if u == v
                    else "collapsed" if u * grad_claims.COLLAPSE_FACTOR < v else "below")
        assert said.key == f"gradients.verdict.{expected}", (dk, n, u, v)
        renders(said)


def test_what_to_notice_holds_part_by_part(sweeps):
    for (_, n), s in sweeps.items():
        parts = {p.key: p for p in claims.notice(s["rows"], n)}
        assert ("overview.notice.var" in parts) == (claims.step1(s["rows"]).key == "overview.step1")
        if "overview.notice.max_weight" in parts:
            w = column(s["rows"], "none", "max_weight_mean")
            assert parts["overview.notice.max_weight"].params["b"] == w[max(w)]
        un, sc = medians(s["rows"])
        if "overview.notice.grad.inside" in parts:  # "the longer keys first make it larger"
            assert any(un[d] > sc[d] for d in un) and un[max(un)] < sc[max(un)]
        if "overview.notice.grad.beyond" in parts:
            assert un[max(un)] >= sc[max(un)]
        if "overview.notice.flat" in parts:
            var = column(s["rows"], "sqrt", "var_scaled").values()
            assert claims.VAR_BAND[0] <= min(var) and max(var) <= claims.VAR_BAND[1]
        for part in parts.values():
            renders(part)


def test_at_the_defaults_every_step_holds_in_its_strong_wording():
    s = summary(64, 32)
    assert claims.step1(s["rows"]).key == "overview.step1"
    assert claims.step2(s["rows"]).key == "overview.step2"
    assert claims.step3(s["rows"], 32).key == "overview.step3.inside.collapse"
    assert claims.step4(s["rows"]).key == "overview.step4"


def test_the_c_squared_rule_holds_for_the_measured_scores():
    """The story's sentence: Var(c·X) = c²·Var(X), so 1/√d_k gives 1 and 1/d_k gives 1/d_k."""
    s = summary(64, 8, ("none", "sqrt", "linear"))
    for d in GRID:
        raw = column(s["rows"], "none", "var_scaled")[d]
        assert column(s["rows"], "sqrt", "var_scaled")[d] == pytest.approx(raw / d, rel=1e-4)
        assert column(s["rows"], "linear", "var_scaled")[d] == pytest.approx(raw / d**2, rel=1e-4)
        assert 0.5 < column(s["rows"], "sqrt", "var_scaled")[d] < 2
        assert 0.5 < column(s["rows"], "linear", "var_scaled")[d] * d < 2


def test_a_sweep_without_the_unscaled_scores_makes_no_claim_about_them():
    s = summary(64, 32, ("sqrt", "linear"))
    assert claims.step1(s["rows"]).key == "overview.step1.other"
    assert claims.step2(s["rows"]).key == "overview.step2.other"
    assert claims.step3(s["rows"], 32).key == "overview.step3.missing"
    notice = [p.key for p in claims.notice(s["rows"], 32)]
    assert not [k for k in notice if k in ("overview.notice.var", "overview.notice.max_weight")]
