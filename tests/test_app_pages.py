"""Every page under AppTest: defaults, Chinese, extremes and malformed values from the URL.

Each run must finish without an exception, and one displayed metric must equal what core
computes for the same settings (formatted the way the page formats it).
"""

from __future__ import annotations

import re

import pytest
from conftest import MY_PAGES, count_calls, run_page

from core import experiments as ex
from core import figure_budget, views
from pages.ui.format import fmt_num, fmt_pct
from pages.ui.i18n import text_for

CJK = re.compile(r"[\u4e00-\u9fff]")


def scale_text(name: str, lang: str) -> str:
    kind, _, param = name.partition(":")
    if kind == "power":
        return text_for("common.scale.power_a", lang).format(a=param)
    return text_for(f"common.scale.{kind}", lang)


def at_dk(result: dict, dk: int) -> dict:
    return next(r for r in result["rows"] if r["dk"] == dk)


def last_scale(s) -> str | None:
    """The last of the settings' scales defined at their d_k (the last one a page draws), or None."""
    ok = [x for x in s.scales if views._defined(x, s.dk)]
    return ok[-1] if ok else None


def expected_metric(page: str, s) -> tuple[str, str] | None:
    """(label, value) of one metric the page shows, recomputed from core for settings `s`.

    Core is called over the page's own d_k sweep: a row's random stream depends on the chunk
    size, which core derives from the largest d_k of the call, and the gradient sweep shares its
    draws across the d_k values (core.experiments.gradient_sweep).
    """
    name, lang = last_scale(s), s.lang
    if name is None:
        return None
    dks = [d for d in figure_budget.sweep_dks(s.dk) if views._defined(name, d)]
    common = {"seed": s.seed, "backend": s.backend, "dtype": s.dtype}
    if page == "overview":
        trials = figure_budget.gradient_trials(s.trials, s.n, dks, len(s.scales))
        row = at_dk(ex.gradient_sweep(dks, n=s.n, scales=[name], trials=trials, **common), s.dk)
        return text_for("overview.metric.grad", lang), fmt_num(row["grad_q_norm_median"])
    if page == "variance":
        samples = figure_budget.variance_samples(s.trials, s.n, dks)
        row = at_dk(ex.variance(dks, [name], trials=samples, **common), s.dk)
        return text_for("variance.metric.var_raw", lang), fmt_num(row["var_raw"])
    if page == "saturation":
        trials = figure_budget.saturation_trials(s.trials, s.n, dks, len(s.scales))
        row = at_dk(ex.saturation(dks, n=s.n, scales=[name], trials=trials, **common), s.dk)
        return text_for("saturation.metric.entropy", lang), fmt_num(row["entropy_mean"])
    if page == "gradients":
        trials = figure_budget.gradient_trials(s.trials, s.n, dks, len(s.scales))
        row = at_dk(ex.gradient_sweep(dks, n=s.n, scales=[name], trials=trials, **common), s.dk)
        return text_for("gradients.metric.median", lang), fmt_num(row["grad_q_norm_median"])
    if page == "precision":
        trials = figure_budget.precision_trials(s.trials, s.n, dks, len(s.scales))
        rows = ex.precision(dks, n=s.n, scales=[name], trials=trials, seed=s.seed)["rows"]
        row = next(r for r in rows if r["dtype"] == "float16" and r["dk"] == s.dk)
        return text_for("precision.metric.naive", lang), fmt_pct(row["naive_nonfinite_fraction"])
    raise AssertionError(page)


def check_page(at, page: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    s = at.session_state["_ase_run"].settings
    expected = expected_metric(page, s)
    if expected is None:
        return
    label, value = expected
    shown = [m.value for m in at.metric if m.label == label]
    assert shown, f"no metric labelled {label!r}; shown: {[m.label for m in at.metric]}"
    # The scale recomputed is the last one drawn (`expected_metric`): its metric is the last so labelled.
    assert shown[-1] == value, f"{label}: page shows {shown}, core computes {value} for the last scale"
    if page in ("gradients", "precision"):  # a heading names each scale's metrics
        heading = f"**{scale_text(last_scale(s), s.lang)}**"
        assert heading in [m.value for m in at.markdown], f"no heading {heading!r} over the metrics"


@pytest.mark.parametrize("page", MY_PAGES)
def test_page_at_defaults_in_english(page):
    at = run_page(page, {"lang": "en"})
    check_page(at, page)
    assert at.title[0].value == text_for(f"{page}.title", "en")
    assert not at.warning, [w.value for w in at.warning]


@pytest.mark.parametrize("page", MY_PAGES)
def test_page_in_chinese_has_chinese_title_metrics_and_captions(page):
    at = run_page(page, {"lang": "zh"})
    check_page(at, page)
    assert at.title[0].value == text_for(f"{page}.title", "zh")
    for metric in at.metric:
        english = re.search(r"[A-Za-z]{5,}", metric.label.replace("float", ""))
        assert CJK.search(metric.label) or not english, f"English metric label in Chinese: {metric.label!r}"
    assert all(CJK.search(c.value) for c in at.caption if re.search(r"[A-Za-z]{4,} [A-Za-z]{4,}", c.value)), \
        "English caption on the Chinese page"


@pytest.mark.parametrize("page", MY_PAGES)
def test_page_at_the_small_extreme(page):
    at = run_page(page, {"dk": "1", "n": "2", "scales": "none,sqrt,log"})
    check_page(at, page)
    s = at.session_state["_ase_run"].settings
    assert (s.dk, s.n) == (1, 2)
    if page != "overview":
        assert any("d_k = 1" in c.value for c in at.caption), "log at d_k = 1 is not explained"


@pytest.mark.slow
@pytest.mark.parametrize("page", MY_PAGES)
def test_page_at_the_large_extreme(page):
    at = run_page(page, {"dk": "4096", "n": "1024", "lang": "zh"})
    check_page(at, page)
    s = at.session_state["_ase_run"].settings
    assert (s.dk, s.n) == (4096, 1024)


@pytest.mark.parametrize("page", MY_PAGES)
def test_page_with_malformed_and_out_of_range_url_values(page):
    at = run_page(page, {"dk": "9999", "n": "abc", "scales": "bogus", "trials": "-3", "seed": "1.5",
                         "backend": "tpu", "lang": "en"})
    check_page(at, page)
    s = at.session_state["_ase_run"].settings
    assert (s.dk, s.n, s.scales, s.trials, s.seed, s.backend) == (4096, 32, ["none", "sqrt"], 10, 0, "numpy")
    notices = " ".join(w.value for w in at.warning)
    for param in ("dk=9999", "n=abc", "scales=bogus", "trials=-3", "seed=1.5", "backend=tpu"):
        assert param in notices, f"no notice for {param}: {notices}"


def test_progress_throttle_shows_growing_percents_at_most_once_per_interval():
    from pages.ui.compute import ProgressThrottle

    now = [0.0]
    throttle = ProgressThrottle(interval=0.1, clock=lambda: now[0])
    shown = []
    for k in range(121):  # a 120-cell grid reporting after each cell, 5 ms apart
        pct = throttle(k / 120)
        if pct is not None:
            shown.append(pct)
        now[0] += 0.005
    assert shown[0] == 0
    assert shown == sorted(set(shown))
    assert len(shown) <= 7  # 0.6 s of work: one update per 0.1 s, not 121

    throttle = ProgressThrottle(interval=0.1, clock=lambda: now[0])
    assert throttle(0.5) == 50
    assert throttle(0.7) is None  # too soon
    now[0] += 0.2
    assert throttle(0.4) is None  # never backwards
    assert throttle(2.0) == 100  # clamped


def test_the_saturation_pages_rarely_read_charts_are_computed_only_once_opened(monkeypatch):
    calls = count_calls(monkeypatch, views, "entropy_grid")
    query = {"lang": "en", "n": "8", "trials": "20", "seed": "41"}  # settings no other test uses
    at = run_page("saturation", query)
    assert not at.exception
    assert any(e.label == text_for("saturation.more", "en") for e in at.expander)
    assert len(at.main.get("vega_lite_chart")) == 4 and not calls  # heat map, weights, max weight, entropy
    assert "sat_more" not in at.query_params

    at.session_state["sat_more"] = True  # the reader opens it: the page reruns and draws it
    at.run()
    assert not at.exception
    assert len(at.main.get("vega_lite_chart")) == 7 and len(calls) == 1
    assert at.query_params["sat_more"] == "1"  # the link now opens it too

    linked = run_page("saturation", {**query, "lang": "zh", "sat_more": "1"})  # a link opens it
    assert not linked.exception and len(linked.main.get("vega_lite_chart")) == 7
    assert len(calls) == 1  # the grid was computed once, for both sessions

    bad = run_page("saturation", {**query, "sat_more": "[open](https://example.com)"})
    assert not bad.exception and len(bad.main.get("vega_lite_chart")) == 4
    (notice,) = [w.value for w in bad.warning if "sat_more" in w.value]
    assert "default 0" in notice


def test_a_page_whose_charts_come_early_sends_no_preload_chart():
    """Only the cost and real-model pages preload the chart code (pages.ui.layout)."""
    at = run_page("variance", {"lang": "en"})
    assert at.main.get("vega_lite_chart") and not at.sidebar.get("vega_lite_chart")
