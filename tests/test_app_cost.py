"""The cost page (pages/cost.py) through Streamlit's AppTest, at small sizes; its translations."""

import json
import re
import string
from pathlib import Path

import pytest
from conftest import run_page, tables
from streamlit.testing.v1 import AppTest

from core.cli import build_parser
from pages.ui.text.cost import TEXT

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"cost_n": "64-512", "cost_d": "8-64", "cost_repeats": "2"}


def _cost_page(**params: str) -> AppTest:
    return run_page("cost", {"cost_run": "1", **params}, timeout=240)  # the timing asked for


def _charts(at: AppTest) -> list:
    return at.main.get("vega_lite_chart")


def wide_title(text: str | dict) -> str:
    """A chart title as drawn on a wide plot (a long one is an expression that folds it on a phone)."""
    if isinstance(text, dict):
        return json.loads(text["expr"].rsplit(" : ", 1)[1])
    return text


def _cli(at) -> str:
    """The page's command-line equivalent (inline code)."""
    found = [m.value.strip("`") for m in at.markdown if m.value.startswith("`python -m core cost")]
    assert len(found) == 1, [m.value for m in at.markdown]
    return found[0]


def test_page_renders_charts_tables_and_notice_in_english():
    at = _cost_page(lang="en", **SMALL)
    assert not at.exception
    assert at.title[0].value == TEXT["cost.title"]["en"]
    specs = [json.loads(c.proto.spec) for c in _charts(at)]
    assert len(specs) == 4  # time vs n, time vs d, ratio, GFLOP/s
    titles = [wide_title(s["title"]["text"]) for s in specs]
    assert titles == [TEXT[k]["en"] for k in ("cost.chart.time_n", "cost.chart.time_d", "cost.chart.ratio",
                                              "cost.chart.gflops")]
    assert "log" in json.dumps(specs[0]["layer"][0]["encoding"]["y"]["scale"])
    assert len(tables(at)) == 3  # fitted exponents, their intervals (under "More"), model vs clock
    fits = tables(at)[0]
    assert set(fits.iloc[:, 1]) == {"n", "d"} and len(fits) == 10  # 5 series × 2 axes
    assert any("dot-product · torch" in s for s in fits.iloc[:, 0])
    assert not any("NaN" in s for s in tables(at)[1].iloc[:, 2])  # a two-point fit has no interval: "—"
    assert "What to notice" in at.info[0].body
    code = _cli(at)
    assert code.startswith("python -m core cost --fit --n 64 128 256 512 --d 8 16 32 64")
    assert "--repeats 2" in code
    args = build_parser().parse_args(code.split()[3:])  # the command is one the CLI accepts
    assert args.fit and args.d_at == 64 and args.repeats == 2 and args.naive_max_seconds == 0.1
    # asked for in the link: the results first, the model and the settings folded (drawn when opened)
    assert {TEXT["cost.formulas"]["en"], TEXT["cost.controls"]["en"]} <= {e.label for e in at.main.expander}
    assert not [m for m in at.markdown if "\\displaystyle" in m.value]
    assert not at.main.pills and not at.main.slider
    opened = _cost_page(lang="en", cost_model="1", cost_set="1", **SMALL)
    assert len([m for m in opened.markdown if "\\displaystyle" in m.value]) >= 3  # the formulas
    assert opened.slider(key="cost_repeats").value == 2 and opened.pills(key="cost_n").value == "64-512"
    assert not at.warning  # valid URL: no notices
    # the chart code is preloaded by one hidden chart in the sidebar (pages.ui.layout)
    from pages.ui.layout import PRELOAD_CSS, PRELOAD_KEY

    assert len(at.sidebar.get("vega_lite_chart")) == 1
    assert f".st-key-{PRELOAD_KEY} {{ display: none; }}" in PRELOAD_CSS


def test_page_in_chinese():
    # naive additive under a 2-s cap: a loaded machine must not drop its points, and so one of the six fits
    at = _cost_page(lang="zh", cost_torch="0", cost_naive_ms="2000", **SMALL)
    assert not at.exception
    assert at.title[0].value == TEXT["cost.title"]["zh"]
    assert "值得注意" in at.info[0].body
    assert "--no-torch" in _cli(at)
    fits = tables(at)[0]
    assert len(fits) == 6 and not any("torch" in s for s in fits.iloc[:, 0])


@pytest.mark.slow
def test_bad_url_values_are_corrected_with_a_visible_notice():
    at = _cost_page(lang="en", cost_n="lots", cost_d="8-64", cost_repeats="999", cost_naive_ms="abc",
                    cost_torch="0")
    assert not at.exception
    notices = " ".join(w.value for w in at.warning)
    assert "cost_n=lots" in notices and "cost_repeats=999" in notices and "cost_naive_ms=abc" in notices
    code = _cli(at)
    assert "--n 128 256 512 1024" in code  # the default range
    assert "--repeats 15" in code  # clamped to the slider's maximum
    assert "--naive-max-seconds 0.1" in code  # the default 100 ms


def test_every_cost_string_has_english_and_real_chinese_with_the_same_fields():
    assert "cost.nav" in TEXT
    fields = string.Formatter()
    for key, entry in TEXT.items():
        assert key.startswith("cost."), key
        assert entry.get("en") and entry.get("zh"), key
        en = {f for _, f, _, _ in fields.parse(entry["en"]) if f}
        zh = {f for _, f, _, _ in fields.parse(entry["zh"]) if f}
        assert en == zh, key
        letters = re.sub(r"\{[^}]*\}|[^A-Za-z\u4e00-\u9fff]", "", entry["en"])
        if len(letters) > 12:  # prose, not a symbol or a formula
            assert re.search(r"[\u4e00-\u9fff]", entry["zh"]), key


def test_the_page_stays_thin():
    src = (ROOT / "pages" / "cost.py").read_text(encoding="utf-8")
    assert "import numpy" not in src and "np." not in src
    assert src.count("run_when_asked(") == 1  # one call into core (once asked for)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_charts_fit_their_column_with_a_fixed_height(lang):
    """On screen a chart takes its column's width (a phone's too) and keeps its height; the
    downloads render it at its fixed desktop size."""
    from pages.ui.chart import charts
    from pages.ui.chart.export import export_spec

    shown = []
    show = charts.show_chart
    charts.show_chart = lambda fig, *a, **k: (shown.append(fig), show(fig, *a, **k))[1]
    try:
        at = _cost_page(lang=lang, cost_torch="0", **SMALL)
    finally:
        charts.show_chart = show
    for c in _charts(at):
        spec = json.loads(c.proto.spec)
        assert "width" not in spec and spec["autosize"]["type"] == "fit-x"
        assert isinstance(spec["height"], int)
    assert len(shown) == 4
    for fig in shown:
        spec = json.loads(export_spec(fig.chart))
        assert isinstance(spec["width"], int) and isinstance(spec["height"], int)


def test_numbers_on_screen_are_the_ones_core_measured():
    """The page's cached core result (same key) must be what the notice and the table show."""
    from pages.ui.format import fmt_num
    from server.results import result_key
    from server.shared import RESULTS

    at = _cost_page(lang="en", cost_torch="0", **SMALL)
    kwargs = {"ns": (64, 128, 256, 512), "ds": (8, 16, 32, 64), "d_h": None, "d_at": 64, "torch_ref": False,
              "backend": "numpy", "dtype": "float32", "repeats": 2, "seed": 0, "naive_max_seconds": 0.1,
              "time_budget": 60.0}
    res, _ = RESULTS.peek(result_key("core.cost:explore", kwargs))  # stored: no new measurement
    additive = next(r for r in res["ratios"] if r["impl"] == "additive" and r["n"] == 512)
    assert f"takes {fmt_num(additive['ratio'], 3)}× the time" in at.info[0].body
    table = tables(at)[2]
    dot = next(r for r in res["table"] if r["impl"] == "dot")
    assert table.iloc[0, 4] == f"{fmt_num(dot['seconds'], 3)} s"


def test_a_fit_through_two_points_shows_no_interval():
    # a 10 ms cap on the naive additive path leaves it two or three points on this grid
    at = _cost_page(lang="en", cost_torch="0", **{**SMALL, "cost_naive_ms": "10"})
    assert not at.exception
    fits = tables(at)[1]  # under "More": the intervals beside the number of points
    for points, ci in zip(fits.iloc[:, 3], fits.iloc[:, 2], strict=True):
        assert (ci == "—") == (int(points) <= 2), (points, ci)
        assert "NaN" not in ci


def _expander(at: AppTest, key: str, lang: str = "en"):
    found = [e for e in at.main.expander if e.label == TEXT[key][lang]]
    assert len(found) == 1, [e.label for e in at.main.expander]
    return found[0]


def test_the_prediction_is_asked_before_the_timing_and_compared_after_it():
    """Before the timing the page asks for a prediction (pills bound to ?cost_guess=); pressing
    Measure keeps it, folds the question away and compares it with the measured ratio at the
    largest n, the one core measured (guess_verdict's words: 5× against the measured ratio)."""
    from core.page_claims.cost import judge_prediction
    from pages.ui.format import fmt_num
    from server.results import result_key
    from server.shared import RESULTS

    fresh = {**SMALL, "cost_repeats": "4"}  # settings no other test measures: nothing stored yet
    at = run_page("cost", {"lang": "en", "cost_torch": "0", **fresh}, timeout=240)
    assert not at.exception and not _charts(at)  # nothing measured yet
    guess = at.pills(key="cost_guess")
    assert guess.value == "none" and guess.label == TEXT["cost.guess.label"]["en"]
    guess.set_value("5").run()
    assert at.query_params["cost_guess"] == ["5"] or at.query_params["cost_guess"] == "5"
    at.button(key="cost_run_ask").click().run()
    assert not at.exception and len(_charts(at)) == 4
    assert "cost_guess" not in [w.key for w in at.main.pills]  # the question is gone once asked for
    kwargs = {"ns": (64, 128, 256, 512), "ds": (8, 16, 32, 64), "d_h": None, "d_at": 64, "torch_ref": False,
              "backend": "numpy", "dtype": "float32", "repeats": 4, "seed": 0, "naive_max_seconds": 0.1,
              "time_budget": 60.0}
    res, _ = RESULTS.peek(result_key("core.cost:explore", kwargs))
    ratio = next(r["ratio"] for r in res["ratios"] if r["impl"] == "additive" and r["n"] == 512)
    said = [m.value for m in at.markdown if m.value.startswith(f"**{TEXT['cost.guess.result']['en']}**")]
    assert len(said) == 1, [m.value for m in at.markdown]
    assert f"5×; measured {fmt_num(ratio, 3)}× at n = 512" in said[0]
    kind, _ = judge_prediction(5.0, ratio)
    word = {"close": "close", "higher": "slower than you predicted", "lower": "smaller than you predicted"}
    assert word[kind] in said[0], said[0]


@pytest.mark.parametrize(("guess", "measured", "kind", "off"), [
    (None, 7.0, "none", 1.0), (5.0, 7.0, "close", 1.4), (10.0, 5.0, "close", 2.0), (2.0, 7.0, "higher", 3.5),
    (30.0, 6.0, "lower", 5.0)])
def test_a_prediction_is_judged_by_the_factor_between_it_and_the_measurement(guess, measured, kind, off):
    """Close within a factor of 2 either way; otherwise how many times off, in which direction."""
    from core.page_claims.cost import judge_prediction

    assert judge_prediction(guess, measured) == (kind, pytest.approx(off))
    with pytest.raises(ValueError):
        judge_prediction(0.0, measured)


def test_terms_are_defined_and_research_asides_sit_under_more():
    """GEMM and least squares are defined where they first appear (both languages); the fitted
    exponents' confidence intervals and the least-squares note sit in the "More" expander; one
    sentence ties the page to √d_k."""
    assert "GEMM: general matrix–matrix multiplication" in TEXT["cost.formulas.note"]["en"]
    assert "GEMM：通用矩阵–矩阵乘法" in TEXT["cost.formulas.note"]["zh"]
    assert "least squares (the straight line" in TEXT["cost.fits.caption"]["en"]
    assert "最小二乘（" in TEXT["cost.fits.caption"]["zh"]
    at = _cost_page(lang="en", cost_torch="0", **SMALL)
    assert TEXT["cost.why_sqrt"]["en"] in [m.value for m in at.markdown]
    more = _expander(at, "cost.fits.more")
    captions = [c.value for c in more.get("caption")]
    assert any("least squares" in c for c in captions), captions
    visible = tables(at)[0]
    assert not any("CI" in c for c in visible.columns), list(visible.columns)
    assert any("CI" in c for c in tables(at)[1].columns)
