"""Charts that speak: the text alternative computed from a chart's own data (pages/ui/chart/describe.py), its
data as tables (pages/ui/chart/chart_table.py, chart_text.py), and colour never the only channel
(pages/ui/chart/channels.py) — on synthetic charts and on every chart every page draws, in both languages."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import pytest
from conftest import run_page

from pages.ui.chart import charts
from pages.ui.chart.channels import colour_only_fields, units
from pages.ui.chart.chart_table import MAX_COLUMNS, MAX_ROWS, panel_rows, panel_table
from pages.ui.chart.chart_text import SR_CLASS, description_html, tables_html
from pages.ui.chart.describe import describe, read_panel
from pages.ui.chart.figure import figure
from pages.ui.chart.vega import view
from pages.ui.format import SCALE_COLOURS

SCALES = {"none": "c = 1", "sqrt": "c = 1/√d_k"}
DKS = [16, 64, 256, 1024, 4096]


def _panels(chart, lang: str = "en"):
    frames: dict[str, pd.DataFrame] = {}
    spec, _ = view(chart, frames)
    return spec, [read_panel(spec, frames, None, lang)]


def _sweep(lang: str = "en"):
    """Entropy falls without scaling and stays with 1/√d_k; a third series rises."""
    falls = [2.1, 1.2, 0.4, 0.1, 0.03]
    stays = [2.05, 2.0, 2.02, 1.98, 2.0]
    rises = [0.5, 0.9, 1.4, 1.8, 2.1]
    df = pd.DataFrame([{"dk": d, "scale": s, "h": v} for s, vals in
                       (("c = 1", falls), ("c = 1/√d_k", stays), ("c = 1/d_k", rises))
                       for d, v in zip(DKS, vals, strict=True)])
    colour = alt.Color("scale:N", title="scale", scale=alt.Scale(
        domain=["c = 1", "c = 1/√d_k", "c = 1/d_k"],
        range=[SCALE_COLOURS["none"], SCALE_COLOURS["sqrt"], SCALE_COLOURS["linear"]]))
    base = alt.Chart(df).encode(x=alt.X("dk:Q", title="d_k"), y=alt.Y("h:Q", title="Entropy (nats)"),
                                color=colour)
    return charts.layered(base.mark_line(), base.mark_point()), df


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sweep_says_what_each_series_does_with_its_first_and_last_values(lang):
    chart, _ = _sweep()
    _, panels = _panels(chart, lang)
    text = describe(panels, "Entropy vs d_k", lang)
    if lang == "en":
        assert text.startswith("Entropy vs d_k. Entropy (nats) against d_k from 16 to 4096: ")
        assert "c = 1 falls from 2.1 to 0.03" in text
        assert "c = 1/√d_k stays near 2" in text
        assert "c = 1/d_k rises from 0.5 to 2.1" in text
    else:
        assert "c = 1 从 2.1 降至 0.03" in text and "c = 1/√d_k 保持在 2 附近" in text
        assert "c = 1/d_k 从 0.5 升至 2.1" in text and "（16 到 4096）" in text


def test_an_inner_extreme_is_a_peak_and_a_log_axis_is_measured_in_decades():
    df = pd.DataFrame({"x": [1, 2, 3, 4, 5], "y": [1.0, 3.0, 9.0, 3.0, 2.0]})
    base = alt.Chart(df).encode(x=alt.X("x:Q", title="n"), y=alt.Y("y:Q", title="time"))
    _, panels = _panels(base.mark_line())
    assert "rises from 1 to a peak of 9 at n = 3, then falls to 2" in describe(panels, lang="en")
    # on a log axis, 1 → 1.1 beside a series spanning four decades stays; alone it would not
    two = pd.DataFrame({"x": [1, 2, 3] * 2, "s": ["a"] * 3 + ["b"] * 3,
                        "y": [1.0, 1.05, 1.1, 1.0, 100.0, 10000.0]})
    base = alt.Chart(two).encode(x=alt.X("x:Q"), y=alt.Y("y:Q", scale=alt.Scale(type="log")),
                                 color=alt.Color("s:N"))
    _, panels = _panels(base.mark_line())
    text = describe(panels, lang="en")
    assert "a stays near 1.05" in text and "b rises from 1 to 1e+04" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_heat_map_gives_its_range_and_where_its_maximum_is(lang):
    cells = pd.DataFrame([{"i": i, "j": j, "w": (i + 1) * (j + 1) / 16} for i in range(4) for j in range(4)])
    cells.loc[(cells["i"] == 1) & (cells["j"] == 2), "w"] = 5.0
    chart = alt.Chart(cells).mark_rect().encode(
        x=alt.X("j:O", title="key j"), y=alt.Y("i:O", title="query i"),
        color=alt.Color("w:Q", title="weight"))
    _, panels = _panels(chart, lang)
    text = describe(panels, lang=lang)
    if lang == "en":
        assert text == ("weight over key j and query i (4 × 4 cells): from 0.0625 to 5, "
                        "the largest at key j = 2, query i = 1.")
    else:
        assert "（4 × 4 个格子）" in text and "最大值位于 key j = 2、query i = 1" in text
    header, rows, note = panel_rows(panels[0])
    assert header[1:] == ["0", "1", "2", "3"] and rows[1][0] == 1 and rows[1][3] == 5.0 and note is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_histogram_gives_its_range_and_peak(lang):
    hist = pd.DataFrame({"x0": [-2.0, -1.0, 0.0, 1.0], "x1": [-1.0, 0.0, 1.0, 2.0],
                         "d": [0.1, 0.3, 0.45, 0.15]})
    chart = alt.Chart(hist).mark_bar().encode(x=alt.X("x0:Q", title="score"), x2=alt.X2("x1:Q"),
                                              y=alt.Y("d:Q", title="density"))
    _, panels = _panels(chart, lang)
    text = describe(panels, lang=lang)
    if lang == "en":
        assert text == ("density for 4 values of score from -2 to 1: "
                        "from 0.1 to 0.45, the highest at score = 0.")
    else:
        assert "从 0.1 到 0.45，最高处在 score = 0" in text


def test_long_series_and_wide_grids_are_thinned_with_a_note():
    long = pd.DataFrame({"step": range(300), "loss": [1 / (i + 1) for i in range(300)]})
    base = alt.Chart(long).encode(x=alt.X("step:Q"), y=alt.Y("loss:Q", title="loss"))
    _, panels = _panels(base.mark_line())
    header, rows, note = panel_rows(panels[0])
    assert header == ["step", "loss"] and len(rows) <= MAX_ROWS + 1 and rows[-1][0] == 299 and "300" in note
    grid = pd.DataFrame([{"i": i, "j": j, "w": i - j} for i in range(64) for j in range(64)])
    chart = alt.Chart(grid).mark_rect().encode(x=alt.X("j:O"), y=alt.Y("i:O"), color=alt.Color("w:Q"))
    _, panels = _panels(chart)
    header, rows, note = panel_rows(panels[0])
    assert len(header) == MAX_COLUMNS + 1 and len(rows) == MAX_COLUMNS and "64 × 64" in note


def test_a_builder_may_give_its_own_description_and_text_is_never_markup():
    chart, df = _sweep()
    fig = figure(chart, df, description="<b>mine</b> 1")
    assert fig.description == "<b>mine</b> 1" and fig.views[0]["description"] == "<b>mine</b> 1"
    assert "&lt;b&gt;mine&lt;/b&gt;" in description_html(fig) and "<b>" not in description_html(fig)
    evil = df.assign(scale=df["scale"].replace("c = 1", "<script>x</script>"))
    base = alt.Chart(evil).encode(x=alt.X("dk:Q"), y=alt.Y("h:Q"), color=alt.Color("scale:N"))
    html = tables_html(figure(base.mark_line(), evil))
    assert "<script>" not in html and "&lt;script&gt;" in html and "<caption>" in html


def test_lines_get_a_dash_and_points_a_shape_fixed_per_colour_in_the_colours_legend():
    chart, _ = _sweep()
    spec, _ = _panels(chart)
    line, point = units(spec)
    assert line["encoding"]["strokeDash"]["scale"]["range"][:2] == [[6, 3], [1, 0]]  # none, sqrt
    assert point["encoding"]["shape"]["scale"]["range"][:2] == ["square", "circle"]
    assert line["encoding"]["strokeDash"]["title"] == line["encoding"]["color"]["title"]
    assert colour_only_fields(spec) == set()


# ------------------------------------------------------------------ every chart of every page

PAGE_VIEWS = [("overview", {}), ("variance", {}), ("gradients", {}), ("precision", {}),
              ("q-vs-k", {"qk_grad": "1"}), ("saturation", {"sat_more": "1"}),
              *(("beyond", {"beyond_part": p}) for p in ("corr", "norm", "len", "init")),
              ("cost", {"cost_run": "1", "cost_n": "64-512", "cost_d": "8-64", "cost_repeats": "2"}),
              ("training", {"train_run": "1", "train_steps": "20", "train_n": "8", "train_dk16": "0",
                            "train_dk256": "0"}),
              ("lesson", {})]


@pytest.fixture(scope="module")
def shown_charts():
    """(page, lang, name, Figure, the page's html elements) for every chart every page shows, both
    languages, with the tables asked for (?tables=1)."""
    original = charts.show_chart
    out, current = [], []

    def show(fig, name="chart", *args, **kwargs):
        current.append((name, fig))
        original(fig, name, *args, **kwargs)

    charts.show_chart = show
    try:
        for page, extra in PAGE_VIEWS:
            for lang in ("en", "zh"):
                current.clear()
                query = {"lang": lang, "n": "8", "trials": "20", "tables": "1", **extra}
                at = run_page(page, query, timeout=300)
                assert not at.exception, (page, [e.value for e in at.exception])
                html = [h.value for h in at.get("html")]
                out += [(page, lang, name, fig, html) for name, fig in current]
    finally:
        charts.show_chart = original
    assert {p for p, *_ in out} == {p for p, _ in PAGE_VIEWS}
    return out


@pytest.mark.slow  # every page in both languages: 26 s of setup
def test_every_chart_has_a_text_alternative_with_a_number_in_the_page_and_in_its_spec(shown_charts):
    for page, lang, name, fig, html in shown_charts:
        assert re.search(r"\d", fig.description), (page, lang, name, fig.description)
        assert all(v.get("description") for v in fig.views), (page, name)
        assert any(SR_CLASS in h and _escaped(fig.description) in h for h in html), (page, lang, name)
        if lang == "zh":
            assert re.search(r"[\u4e00-\u9fff]", fig.description), (page, name, fig.description)


def _escaped(text: str) -> str:
    from html import escape

    return escape(text)


@pytest.mark.slow  # every page in both languages: 26 s of setup
def test_every_chart_shows_its_data_as_a_table_when_asked(shown_charts):
    for page, lang, name, fig, html in shown_charts:
        tables = tables_html(fig)
        assert tables.count("<table>") == len(fig.views), (page, name)
        assert tables.count('<th scope="col"') >= 2 and "<caption>" in tables, (page, name)
        assert any(tables in h for h in html), (page, lang, name)
        for panel in fig.panels:
            assert panel_table(panel, fig.title)


@pytest.mark.slow  # every page in both languages: 26 s of setup
def test_every_chart_tells_its_series_apart_by_more_than_colour(shown_charts):
    for page, _, name, fig, _ in shown_charts:
        for spec in fig.views:
            assert colour_only_fields(spec) == set(), (page, name)


@pytest.mark.slow  # every page in both languages: 26 s of setup
def test_every_chart_colour_has_the_contrast_wcag_asks(shown_charts):
    """Marks that carry information ≥ 3:1 on the chart background, text in a chart ≥ 4.5:1
    (tests/test_chart_colours.py measures them)."""
    from test_chart_colours import MARK_MIN, TEXT_MIN, chart_colours, contrast

    low = set()
    for page, _, name, fig, _ in shown_charts:
        for spec in fig.views:
            marks, texts = chart_colours(spec)
            low |= {(page, name, where, c) for where, c in marks if contrast(c) < MARK_MIN}
            low |= {(page, name, where, c) for where, c in texts if contrast(c) < TEXT_MIN}
    assert not low, sorted(low)
