"""The saturation page's statements (core/page_claims/saturation.py) are true of the numbers they quote:
run over d_k = 2 … 4096 and n ∈ {2, 8, 32, 128, 1024}, each wording the page would show is checked
against the measured rows, fact by fact, here; and the page at its defaults shows a headline that agrees
with its own cards and a worked example that is the draw's most saturated row."""

from __future__ import annotations

import pytest
from conftest import run_page

from core import views
from core.figure_budget import DK_GRID, sweep_dks
from core.page_claims import saturation as sat
from pages.ui.format import fmt_num, fmt_pct
from pages.ui.i18n import text_for

NS = (2, 8, 32, 128, 1024)
TRIALS = 12  # small: the grid's five views take a few seconds


@pytest.fixture(scope="module")
def grid() -> dict[int, dict]:
    return {n: views.saturation_view(list(DK_GRID), n=n, scales=["none", "sqrt"], trials=TRIALS, seed=3)
            for n in NS}


def below(rows: dict[int, dict], d: int) -> dict | None:
    """The sweep's row just below d_k = d, or None at the smallest."""
    lower = [x for x in rows if x < d]
    return rows[max(lower)] if lower else None


def wins(row: dict) -> bool:
    return row["max_weight_q50"] > 0.5 or row["saturated_fraction"] > 0.5


def check_claim(st: sat.Statement, un: dict[int, dict], dk: int) -> None:
    row, v = un[dk], st.values
    assert (v["median"], v["sat"], v["mean"]) == (row["max_weight_q50"], row["saturated_fraction"],
                                                 row["max_weight_mean"])
    if st.kind == sat.ALL:  # "one key takes nearly all": most rows above 0.99
        assert row["saturated_fraction"] > 0.5
    elif st.kind == sat.WINS:  # "the top key takes more than half the weight in at least half the rows"
        assert row["max_weight_q50"] > 0.5 and row["saturated_fraction"] <= 0.5
        x = v["all_from"]
        if x is None:  # "up to d_k = max, most rows never are (saturated)": not at the largest
            assert un[max(un)]["saturated_fraction"] <= 0.5
        else:  # "most rows are (saturated) once d_k ≳ x": at x and every larger d_k, not just below x
            assert all(un[d]["saturated_fraction"] > 0.5 for d in un if d >= x)
            assert x > dk and below(un, x)["saturated_fraction"] <= 0.5
    elif st.kind == sat.LATER:  # "not yet at d_k; one key wins once d_k ≳ x"
        x = v["from"]
        assert row["max_weight_q50"] <= 0.5 and x > dk
        assert all(wins(un[d]) for d in un if d >= x) and not wins(below(un, x))
    elif st.kind == sat.NEVER:  # "no d_k up to the largest makes one key win"
        assert not wins(un[max(un)]) and not wins(row)
    else:
        raise AssertionError(st.kind)


def test_every_claim_the_saturation_page_can_show_is_true_of_its_numbers(grid):
    seen = set()
    for n, view in grid.items():
        un, sc = sat.by_dk(view, "none"), sat.by_dk(view, "sqrt")
        title = sat.title(view)
        saturated_somewhere = any(r["saturated_fraction"] > 0.5 for r in view["rows"])
        assert (title.kind == sat.HOLDS) == saturated_somewhere, n
        for dk in DK_GRID:
            claim = sat.one_key_wins(view, dk, n)
            check_claim(claim, un, dk)
            seen.add(claim.kind)
            scaled = sat.scaled_spread(view, dk, n)
            q50, frac = sc[dk]["max_weight_q50"], sc[dk]["saturated_fraction"]
            expected = sat.ALL if frac > 0.5 else sat.WINS if q50 > 0.5 else sat.SPREAD
            assert scaled.kind == expected and scaled.values["median"] == q50, (n, dk)
    # The grid reaches every wording that the reader's range of settings can produce.
    assert {sat.ALL, sat.WINS, sat.LATER} <= seen


def test_the_headline_holds_at_the_defaults_and_one_key_wins_later_with_more_keys(grid):
    """At d_k = 64 and n = 32 one key wins without scaling, and 1/√d_k keeps the rows spread; with more
    keys one key needs a larger d_k to win (the crossing the page words moves up with n)."""
    assert sat.one_key_wins(grid[32], 64, 32).kind in (sat.WINS, sat.ALL)
    assert sat.scaled_spread(grid[32], 64, 32).kind == sat.SPREAD
    starts = [sat.holds_from(sat.by_dk(grid[n], "none"), wins) for n in (8, 128, 1024)]
    assert all(s is not None for s in starts) and starts == sorted(starts) and starts[0] < starts[-1]


def test_with_two_keys_one_key_always_wins_and_the_page_never_says_it_does_not(grid):
    for row in grid[2]["rows"]:
        assert row["max_weight_q50"] >= 0.5  # the larger of two weights is at least one half
    assert {sat.one_key_wins(grid[2], dk, 2).kind for dk in DK_GRID} <= {sat.WINS, sat.ALL}


def test_the_notice_is_true_of_the_numbers_and_scaling_leaves_the_effect_of_n(grid):
    for n, view in grid.items():
        un, sc = sat.by_dk(view, "none"), sat.by_dk(view, "sqrt")
        trend = sat.unscaled_trend(view)
        lo, hi = un[min(un)], un[max(un)]
        if trend.kind == sat.NO_RISE:
            assert hi["max_weight_mean"] <= lo["max_weight_mean"]
        else:
            assert hi["max_weight_mean"] > lo["max_weight_mean"]
            assert (trend.kind == sat.RISES_ALL) == (hi["saturated_fraction"] > 0.5)
        flat = sat.scaled_entropy(view, n)
        spread = max(r["entropy_mean"] for r in sc.values()) - min(r["entropy_mean"] for r in sc.values())
        assert (flat.kind == sat.FLAT) == (spread <= 0.1 * view["ln_n"]), (n, spread)
    # "It does not remove the effect of n": at every d_k the scaled entropy grows with n.
    for dk in DK_GRID:
        hs = [sat.by_dk(grid[n], "sqrt")[dk]["entropy_mean"] for n in NS]
        assert hs == sorted(hs) and hs[0] < hs[-1], (dk, hs)


def test_without_the_unscaled_curve_the_page_claims_nothing_about_it():
    view = views.saturation_view(list(DK_GRID), n=32, scales=["sqrt"], trials=TRIALS, seed=3)
    assert sat.one_key_wins(view, 64, 32).kind == sat.ABSENT
    assert sat.unscaled_trend(view).kind == sat.ABSENT
    assert sat.title(view).kind == sat.UNSEEN  # no row of 1/√d_k is saturated: the title asks instead


def test_once_from_is_the_start_of_the_last_run_that_holds():
    rows = {d: {"ok": ok} for d, ok in zip((2, 4, 8, 16, 32), (False, True, False, True, True), strict=True)}
    assert sat.holds_from(rows, lambda r: r["ok"]) == 16  # not 4: it fails again at 8
    assert sat.holds_from({**rows, 32: {"ok": False}}, lambda r: r["ok"]) is None


# ------------------------------------------------------------------ the page (AppTest)


def test_the_saturation_headline_at_the_defaults_quotes_the_cards_below_it():
    at = run_page("saturation", {"lang": "en"})
    assert not at.exception and at.title[0].value == text_for("saturation.title", "en")
    s = at.session_state["_ase_run"].settings
    view = views.saturation_view(sweep_dks(s.dk), n=s.n, scales=s.scales, trials=s.trials, seed=s.seed,
                                 backend=s.backend, dtype=s.dtype)
    row = sat.by_dk(view, "none")[s.dk]
    claim = next(m.value for m in at.markdown if m.value.startswith("Without scaling"))
    assert "one key wins" in claim and row["max_weight_q50"] > 0.5  # true of the numbers
    mean_card = next(m.value for m in at.metric if m.label == text_for("saturation.metric.max_weight", "en"))
    sat_card = next(m.value for m in at.metric if m.label == text_for("saturation.metric.saturated", "en"))
    assert f"mean {mean_card}" in claim and f"Only {sat_card} of rows" in claim  # the c = 1 cards come first
    assert mean_card == fmt_num(row["max_weight_mean"]) and sat_card == fmt_pct(row["saturated_fraction"])
    assert text_for("saturation.level.wins", "en") in [c.value for c in at.caption]
    assert any(text_for("saturation.terms", "en")[:40] in c.value for c in at.caption)  # terms defined


def test_the_worked_example_is_the_most_saturated_row_and_says_so():
    at = run_page("saturation", {"lang": "en"})
    assert not at.exception
    s = at.session_state["_ase_run"].settings
    draw = views.one_draw(s.dk, s.n, "none", seed=s.seed)
    cells = draw["heatmap"]  # n = 32: every weight, no down-sampling
    k = max(range(len(cells["value"])), key=cells["value"].__getitem__)
    assert draw["query"] == draw["most_saturated_query"] == cells["i"][k]  # the largest weight's row
    assert draw["row_max_weight"] == pytest.approx(cells["value"][k])
    shown = text_for("saturation.bars.shown_top", "en").format(i=draw["query"],
                                                             maxw=fmt_num(draw["row_max_weight"]))
    assert shown in [c.value for c in at.caption]
    assert at.toggle(key="sat_top").value is True and "sat_top" not in at.query_params


def test_an_old_link_with_a_row_still_shows_that_row_and_the_toggle_round_trips_through_the_url():
    at = run_page("saturation", {"lang": "en", "sat_query": "5"})
    assert not at.exception and at.toggle(key="sat_top").value is False
    assert at.slider(key="sat_query").value == 5
    assert any(c.value.startswith("Shown: row i = 5, as chosen") for c in at.caption)
    assert at.query_params["sat_query"] == "5" and "sat_top" not in at.query_params

    at.toggle(key="sat_top").set_value(True).run()  # back to the most saturated row
    assert not at.exception and at.query_params["sat_top"] == "1"  # the link names a row: say "on"
    assert any("the most saturated row of this draw" in c.value for c in at.caption)
    again = run_page("saturation", {"lang": "en", **{k: at.query_params[k] for k in at.query_params}})
    assert again.toggle(key="sat_top").value is True

    picked = run_page("saturation", {"lang": "en", "sat_query": "20"})
    picked.slider(key="n").set_value(8).run()  # fewer rows than the one picked: the last row instead
    assert not picked.exception and picked.slider(key="sat_query").value == 7

    off = run_page("saturation", {"lang": "en", "sat_top": "0"})  # row 0 picked by hand
    assert not off.exception and off.slider(key="sat_query").value == 0
    assert any(c.value.startswith("Shown: row i = 0, as chosen") for c in off.caption)
