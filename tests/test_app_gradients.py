"""AppTest: the gradients page's check against torch autograd, an expander bound to `?grad_check=1`
and computed only once opened; what it shows is what core computes."""

import pytest
from conftest import count_calls, run_page, tables
from streamlit.testing.v1 import AppTest

from core import views
from pages.ui.format import fmt_num
from pages.ui.i18n import text_for

QUERY = {"seed": "47", "dk": "32", "n": "16"}  # settings no other test uses: a fresh check


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("gradients", {"lang": lang, **params})
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at: AppTest, lang: str) -> dict[str, str]:
    labels = {text_for(f"gradients.check.{k}", lang) for k in ("abs", "rel", "norm")}
    return {m.label: m.value for m in at.metric if m.label in labels}


def test_the_check_is_computed_only_once_opened(monkeypatch):
    calls = count_calls(monkeypatch, views, "autograd_check")
    at = _page("en", **QUERY)
    assert text_for("gradients.check.header", "en") in [e.label for e in at.expander]
    assert not calls and not _shown(at, "en") and not at.success and not tables(at)
    assert "grad_check" not in at.query_params

    at.session_state["grad_check"] = True  # the reader opens it: the page reruns and draws it
    at.run()
    assert not at.exception
    assert len(calls) == 1 and len(tables(at)) == 1
    assert at.query_params["grad_check"] == "1"  # the link now opens it too
    scale = at.session_state["grad_scale"]
    check = views.autograd_check.__wrapped__(32, 16, scale, seed=47)  # core's own, uncounted
    assert _shown(at, "en") == {text_for("gradients.check.abs", "en"): fmt_num(check["max_abs_diff"], 2),
                                text_for("gradients.check.rel", "en"): fmt_num(check["max_rel_diff"], 2),
                                text_for("gradients.check.norm", "en"): fmt_num(check["grad_norm"])}
    assert check["agrees"] and at.success[0].value == text_for(
        "gradients.check.ok", "en").format(tol=fmt_num(check["tolerance"], 2))

    linked = _page("zh", **QUERY, grad_check="1")  # a link opens it; the result is shared
    assert len(calls) == 1 and len(_shown(linked, "zh")) == 3
    assert linked.success[0].value.startswith(text_for("gradients.check.ok", "zh").split("：")[0])
    header = list(tables(linked)[0].columns)
    assert header == [text_for(f"gradients.check.{k}", "zh") for k in ("component", "analytic", "autograd")]


@pytest.mark.parametrize("scale", ["none", "sqrt"])
def test_the_check_follows_the_chosen_scale(scale):
    at = _page("en", **QUERY, grad_check="1", grad_scale=scale)
    check = views.autograd_check(32, 16, scale, seed=47)
    assert _shown(at, "en")[text_for("gradients.check.norm", "en")] == fmt_num(check["grad_norm"])


def test_a_malformed_link_keeps_the_check_closed_and_says_so(monkeypatch):
    calls = count_calls(monkeypatch, views, "autograd_check")
    bad = _page("en", **QUERY, grad_check="**open**")
    assert not calls and not _shown(bad, "en")
    assert any("grad_check" in w.value and "default 0" in w.value for w in bad.warning)


# ------------------------------------------------------------------ the headline, cards and chart agree


def _shown_figures(monkeypatch) -> dict:
    """Every Figure the page draws, by name (the page imports show_chart from pages.ui.chart.charts
    each run)."""
    from pages.ui.chart import charts

    shown: dict = {}
    original = charts.show_chart

    def show(fig, name="chart", *args, **kwargs):
        shown[name] = fig
        original(fig, name, *args, **kwargs)

    monkeypatch.setattr(charts, "show_chart", show)
    return shown


def test_at_the_defaults_the_headline_cards_and_chart_say_the_same(monkeypatch):
    """d_k = 64, n = 32: the title says the unscaled gradient is the larger one; the cards, the sentence
    under the title, the comparison and the chart's data show it, and the chart's grey line sits where the
    caption says the unscaled median falls below the scaled one."""
    import json

    from core import figure_budget
    from core.page_claims import gradients as claims

    figures = _shown_figures(monkeypatch)
    at = _page("en")
    assert at.title[0].value == text_for("gradients.title", "en")
    medians = [m.value for m in at.metric if m.label == text_for("gradients.metric.median", "en")]
    assert len(medians) == 2 and float(medians[0]) > float(medians[1])  # none first, then sqrt
    data = figures["gradients-norm"].data
    at_dk = data[(data["dk"] == 64) & (data["stat"] == text_for("gradients.stat.median", "en"))]
    chart = dict(zip(at_dk["scale"], at_dk["norm"], strict=True))
    assert [fmt_num(chart["none"]), fmt_num(chart["sqrt"])] == medians
    view = views.gradient_view(figure_budget.sweep_dks(64), 32, ["none", "sqrt"], 100, seed=0)
    verdict = text_for("gradients.verdict.larger", "en").format(
        dk=64, n=32, none=fmt_num(chart["none"], 3), sqrt=fmt_num(chart["sqrt"], 3),
        ratio=fmt_num(chart["none"] / chart["sqrt"], 3))
    assert verdict in [m.value for m in at.markdown]
    cross = claims.crossing(view["rows"], 32)
    shown_at = claims.rounded_dk(cross)
    assert cross.kind == "inside" and chart["none"] > chart["sqrt"] and shown_at > 64
    captions = " ".join(c.value for c in at.caption)
    assert f"between d_k = {cross.lo} and {cross.hi} (≈ {shown_at}" in captions
    spec = figures["gradients-norm"].views[0]
    rules = [layer for layer in spec["layer"] if (layer.get("mark") or {}).get("type") == "rule"
             and (layer["mark"].get("strokeDash") is None)]
    assert len(rules) == 1 and str(shown_at) in figures["gradients-norm"].description
    ratio = fmt_num(chart["none"] / chart["sqrt"], 3)
    assert f"median ‖∂L/∂q‖ {ratio}×" in captions
    assert json.dumps(spec["layer"][0]["encoding"]["strokeWidth"]["scale"]["range"]) == "[3, 1]"


def test_median_and_mean_differ_by_width_and_the_dash_means_the_scale_in_both_sweeps(monkeypatch):
    """Two statistics, told apart by line width and filled vs open points (with a legend of two strokes
    of different widths); the dash is the scale's, as in the ‖J‖₂ chart beside it."""
    from pages.ui.chart.channels import units

    figures = _shown_figures(monkeypatch)
    _page("en", n="8", trials="20")
    norm, jnorm = (figures[k].views[0] for k in ("gradients-norm", "gradients-jacobian-norm"))
    line = next(u for u in units(norm) if (u.get("mark") or {}).get("type") == "line")
    width = line["encoding"]["strokeWidth"]
    assert width["legend"]["symbolType"] == "stroke" and len(set(width["scale"]["range"])) == 2
    dashes = {u["encoding"]["strokeDash"]["field"] for spec in (norm, jnorm) for u in units(spec)
              if (u.get("mark") or {}).get("type") == "line" and "strokeDash" in u.get("encoding", {})}
    assert dashes == {"scale_label"}  # the dash means the scale on both charts, never the statistic
    points = [u for u in units(norm) if (u.get("mark") or {}).get("type") == "point"]
    fills = sorted(u["mark"].get("filled") for u in points)
    assert fills == [False, True]


def test_the_jacobian_shows_the_most_saturated_row_unless_the_reader_picks_one():
    params = {"dk": "64", "n": "16", "seed": "5"}
    at = _page("en", **params)
    top = views.one_draw(64, 16, "none", seed=5)
    every = [views.one_draw(64, 16, "none", seed=5, query=i)["row_max_weight"] for i in range(16)]
    assert top["row_max_weight"] == max(every)
    said = text_for("gradients.row.top", "en").format(i=top["query"], n=16,
                                                      maxw=fmt_num(top["row_max_weight"], 3))
    assert said in [c.value for c in at.caption]
    assert "grad_pick" not in at.query_params and "grad_query" not in at.query_params

    other = (top["query"] + 3) % 16
    linked = _page("zh", **params, grad_pick="1", grad_query=str(other))  # a link reproduces the row
    chosen = views.one_draw(64, 16, "none", seed=5, query=other)
    said = text_for("gradients.row.chosen", "zh").format(
        i=other, n=16, maxw=fmt_num(chosen["row_max_weight"], 3), top=top["query"],
        top_maxw=fmt_num(top["row_max_weight"], 3))
    assert said in [c.value for c in linked.caption]
    assert linked.query_params["grad_query"] == str(other)
