"""The variance page's statements (core/page_claims/variance.py) are true of the numbers they quote: run
over d_k = 2 … 4096 and n ∈ {2, 8, 32, 128, 1024} (and correlated or non-normal components), each
wording the page would show is checked against the measured rows here; the page at its defaults opens
with the c² rule and quotes its own cards, and draws 1/d_k for comparison, labelled as such."""

from __future__ import annotations

import math

import pytest
from conftest import run_page

from core import views
from core.figure_budget import DK_GRID
from core.page_claims import variance as var
from core.sampling import KURTOSIS
from pages.ui.chart import charts
from pages.ui.format import fmt_num
from pages.ui.i18n import text_for

NS = (2, 8, 32, 128, 1024)
SCALES = ["none", "sqrt", "linear"]
TRIALS = 10  # small: trials × n samples per d_k


@pytest.fixture(scope="module")
def grid() -> dict[tuple[int, float, str], dict]:
    cases = [(n, 0.0, "normal") for n in NS] + [(32, 0.5, "normal"), (32, 0.5, "uniform"),
                                                 (32, 0.0, "rademacher"), (8, 1.0, "rademacher")]
    return {(n, rho, dist): views.variance_view(list(DK_GRID), n=n, scales=SCALES, trials=TRIALS, seed=5,
                                                rho=rho, dist=dist) for n, rho, dist in cases}


def end_slope(rows: dict[int, dict], field: str) -> float:
    """The slope between the sweep's two ends on the log–log chart."""
    lo, hi = min(rows), max(rows)
    return math.log(rows[hi][field] / rows[lo][field]) / math.log(hi / lo)


def test_every_statement_the_variance_page_can_show_is_true_of_its_numbers(grid):
    for (n, rho, dist), view in grid.items():
        raw = var.raw_by_dk(view)
        fixed = rho == 1.0 and dist == "rademacher"  # k = q: q·k = d_k exactly
        title = var.title(view)
        if title.kind == var.GROWS:  # "the dot product grows with d_k"
            assert raw[max(raw)]["var_raw"] > 100 * raw[min(raw)]["var_raw"]
        else:
            assert fixed and all(r["var_raw"] == 0 for r in raw.values())
        for dk in DK_GRID:
            rule = var.rule(view, dk)
            kappa = KURTOSIS[dist]
            assert rule.values["theory"] == pytest.approx(dk * (1 + rho**2 * (kappa - 2)))
            assert rule.kind == (var.FIXED if fixed else var.UNIT if rho == 0 else var.CORRELATED)
            if rule.kind == var.UNIT:  # "Var(q·k) = d_k, c = 1/√d_k gives 1, c = 1/d_k gives 1/d_k"
                assert rule.values["theory"] == dk
                assert rule.values["sqrt_theory"] == pytest.approx(1.0)
                assert rule.values["linear_theory"] == pytest.approx(1.0 / dk)
            # The quoted ×c² values are the chart's own points (Var(c·q·k) = c²·Var(q·k)).
            by = {s: var.by_dk(view, s)[dk]["var_scaled"] for s in ("sqrt", "linear")}
            assert rule.values["sqrt"] == pytest.approx(by["sqrt"], rel=1e-12, abs=1e-300)
            assert rule.values["linear"] == pytest.approx(by["linear"], rel=1e-12, abs=1e-300)
            agree = var.agreement(view, dk)
            off = abs(raw[dk]["var_raw"] - raw[dk]["theory_var"])
            assert (agree.kind == var.AGREE) == (off <= 3 * raw[dk]["var_raw_se"]), (n, rho, dist, dk)
        for st in var.slopes(view):
            rows = var.by_dk(view, st.values["scale"])
            ends = end_slope(rows, "var_scaled")
            if st.kind == var.MATCHES:  # "slope s (rule: t)"
                assert abs(ends - st.values["theory"]) <= 0.15, (n, rho, dist, st)
        level = var.scaled_level(view)
        sq = var.by_dk(view, "sqrt")
        theory = 1 + rho**2 * (KURTOSIS[dist] - 2)
        near = all(abs(r["var_scaled"] - theory) <= max(0.1 * theory, 3 * r["var_scaled_se"])
                   for r in sq.values())
        assert (level.kind == var.STAYS) == near and level.values["theory"] == pytest.approx(theory)
        assert var.shape(view).kind == (var.SHAPE_FREE if rho == 0 else var.SHAPE_MATTERS)


def test_at_rho_zero_the_slopes_are_one_zero_and_minus_one(grid):
    """The contrast the page draws: unscaled climbs one decade per decade, 1/√d_k is flat, 1/d_k falls."""
    for n in NS:
        got = {st.values["scale"]: st for st in var.slopes(grid[(n, 0.0, "normal")])}
        theory = {s: got[s].values["theory"] for s in SCALES}
        assert theory == pytest.approx({"none": 1, "sqrt": 0, "linear": -1})
        assert all(got[s].kind == var.MATCHES for s in SCALES), n


def test_a_measurement_far_from_theory_is_said_to_differ():
    view = {"rows": [{"dk": 64, "scale": "none", "var_raw": 80.0, "var_raw_se": 4.0, "theory_var": 64.0}]}
    assert var.agreement(view, 64).kind == var.DIFFER and var.agreement(view, 64).values["z"] == 4.0
    view["rows"][0]["var_raw"] = 70.0
    assert var.agreement(view, 64).kind == var.AGREE


# ------------------------------------------------------------------ the page (AppTest)


def shown_figures(monkeypatch, query: dict[str, str]):
    """Run the variance page; (the AppTest, {chart name: Figure}) for the charts it showed."""
    shown = {}
    real = charts.show_chart

    def record(fig, name="chart", *args, **kwargs):
        shown[name] = fig
        return real(fig, name, *args, **kwargs)

    monkeypatch.setattr(charts, "show_chart", record)
    at = run_page("variance", query)
    assert not at.exception, [e.value for e in at.exception]
    return at, shown


def test_the_variance_page_opens_with_the_c2_rule_and_quotes_its_cards(monkeypatch):
    at, shown = shown_figures(monkeypatch, {"lang": "en"})
    assert at.title[0].value == text_for("variance.title", "en")
    first = at.markdown[0].value  # the sentence right under the title
    assert first == text_for("variance.rule.unit", "en")
    assert "Var(c·X) = c²·Var(X)" in first and "d_k/d_k = 1" in first and "1/d_k, which shrinks" in first
    numbers = at.markdown[1].value
    cards = {m.label: m.value for m in at.metric}
    measured = cards[text_for("variance.metric.var_raw", "en")]
    sqrt = text_for("common.scale.sqrt", "en")
    scaled = cards[text_for("variance.metric.var_scaled", "en").format(scale=sqrt)]
    assert f"measured {measured} (theory {cards[text_for('variance.metric.theory', 'en')]})" in numbers
    assert f"× (1/√d_k)² gives {scaled}" in numbers
    # The 1/d_k line is drawn by default, though the sidebar's scales (none, sqrt) leave it out, and the
    # legend says it is there for comparison; its value in the sentence is the chart's point.
    sweep = shown["variance-sweep"].data
    linear = sweep[sweep["scale"] == "linear"]
    at_64 = fmt_num(linear[linear["dk"] == 64]["var_scaled"].iloc[0])
    assert f"× (1/d_k)² gives {at_64}" in numbers
    label = text_for("variance.sweep.reference", "en").format(scale=text_for("common.scale.linear", "en"))
    assert label in str(shown["variance-sweep"].views) and label in shown["variance-sweep"].description
    assert text_for("variance.sweep.reference_note", "en") in [c.value for c in at.caption]


def test_the_comparison_line_follows_the_sidebar_and_the_toggle(monkeypatch):
    at, shown = shown_figures(monkeypatch, {"lang": "en", "scales": "none,sqrt,linear"})
    label = text_for("variance.sweep.reference", "en").format(scale=text_for("common.scale.linear", "en"))
    assert "linear" in set(shown["variance-sweep"].data["scale"])  # a chosen scale: drawn as one
    assert label not in str(shown["variance-sweep"].views)
    assert "var_linear" not in [w.key for w in at.toggle]  # nothing to switch: 1/d_k is a chosen scale
    assert text_for("variance.sweep.reference_note", "en") not in [c.value for c in at.caption]
    at, shown = shown_figures(monkeypatch, {"lang": "en", "var_linear": "0"})
    assert "linear" not in set(shown["variance-sweep"].data["scale"])
    assert at.query_params["var_linear"] == "0"


def test_research_asides_sit_in_more_and_open_from_the_link():
    at = run_page("variance", {"lang": "en"})
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "χ²" not in text and "Binomial" not in text and "Tensor Programs" not in text
    opened = run_page("variance", {"lang": "zh", "var_more": "1"})
    assert not opened.exception
    more = " ".join(m.value for m in opened.markdown)
    for key in ("variance.more.kappa", "variance.more.sampling", "variance.more.band", "variance.more.mup"):
        assert text_for(key, "zh") in more
    assert "卡方" in more and "峰度" in more and "二项分布" in more and "μP" in more
