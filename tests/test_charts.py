"""Figures: built once and reused (the cache is exact and bounded), drawn at the container's width,
downloaded at the fixed desktop size; formulas split where a phone may wrap them."""

from __future__ import annotations

import json
import re
import types

import altair as alt
import pandas as pd
import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema import core as vl_schema
from conftest import ROOT, run_page

from pages.ui.chart import charts, vega
from pages.ui.chart.charts import sweep_figure
from pages.ui.chart.export import Export, export_spec
from pages.ui.chart.figure import FIGURES, Figure, _digest, figure, figure_cache
from pages.ui.layout import STRUT, TABLE_CLASS, formula_parts, table_html
from server.cache import SharedCache

ROWS = [{"dk": dk, "n": 8, "scale": sc, "max_weight_mean": 0.1 * i + (0.2 if sc == "none" else 0.0)}
        for i, dk in enumerate((1, 4, 16, 64)) for sc in ("none", "sqrt")]


def _sweep(rows: list[dict] = ROWS, dk: int = 16) -> Figure:
    return sweep_figure(rows, "max_weight_mean", "max weight", ["none", "sqrt"], dk,
                        columns=("dk", "scale", "max_weight_mean"), log_y=False)


def _fresh(rows: list[dict] = ROWS, dk: int = 16) -> Figure:
    """The same figure built without the cache."""
    return sweep_figure.__wrapped__(rows, "max_weight_mean", "max weight", ["none", "sqrt"], dk,
                                    columns=("dk", "scale", "max_weight_mean"), log_y=False)


def test_the_cache_returns_what_a_fresh_build_returns():
    cached = _sweep()
    fresh = _fresh()
    assert cached.views == fresh.views  # the dicts the browser gets, Arrow bytes included
    assert export_spec(cached.chart) == export_spec(fresh.chart)
    assert cached.data.equals(fresh.data)


def test_equal_arguments_reuse_the_figure_and_other_arguments_do_not():
    first = _sweep()
    copy = [dict(r) for r in ROWS]  # equal values, other objects (a cached core result's copy)
    assert _sweep(copy) is first
    assert _sweep(dk=64) is not first
    changed = [dict(r, max_weight_mean=r["max_weight_mean"] + 1e-9) for r in ROWS]
    assert _sweep(changed) is not first


def test_equal_values_digest_alike_however_their_objects_are_shared():
    shared = "sqrt"
    a = [{"scale": shared, "x": 1.0}, {"scale": shared, "x": 2.0}]
    b = [{"scale": "".join(["sq", "rt"]), "x": 1.0}, {"scale": "".join(["sq", "rt"]), "x": 2.0}]
    assert _digest((a,), {}) == _digest((b,), {})
    assert _digest((a,), {}) != _digest((a[:1],), {})


def test_the_cache_is_bounded_by_bytes_and_by_entries():
    fig = _fresh()
    size = lambda f: f.nbytes  # noqa: E731 (as FIGURES counts)
    by_bytes = SharedCache(max_bytes=3 * fig.nbytes, max_entries=100, size=size)
    for i in range(10):
        by_bytes.get_or_compute(i, lambda _flight: fig)
    entries, held = by_bytes.stats()
    assert entries == 3 and held <= 3 * fig.nbytes
    by_count = SharedCache(max_bytes=10**12, max_entries=4, size=size)
    for i in range(10):
        by_count.get_or_compute(i, lambda _flight: fig)
    assert by_count.stats()[0] == 4
    built = []
    by_count.get_or_compute(9, lambda _flight: built.append(1) or fig)  # the most recent one is still there
    by_count.get_or_compute(0, lambda _flight: built.append(1) or fig)  # the oldest was dropped
    assert built == [1]


def test_a_figure_knows_its_size():
    fig = _fresh()
    arrow = sum(len(raw) for view in fig.views for raw in view["datasets"].values())
    assert fig.nbytes > arrow > 0


def reachable(root: object, limit: int = 20000) -> list[object]:
    """Objects reachable from `root` through references, modules, classes and functions' globals
    left out (what a callable kept by Streamlit keeps alive of its own)."""
    import gc
    import types

    seen, todo, out = {id(root)}, [root], []
    while todo and len(out) < limit:
        obj = todo.pop()
        out.append(obj)
        for ref in gc.get_referents(obj):
            shared = isinstance(ref, (types.ModuleType, type, types.FunctionType)) or (
                isinstance(ref, dict) and "__builtins__" in ref)  # a module's globals
            if id(ref) not in seen and not shared:
                seen.add(id(ref))
                todo.append(ref)
    return out


@pytest.mark.slow  # every page's downloads rendered: about 8 s
def test_a_pages_download_buttons_hold_a_blob_of_the_chart_not_its_objects(monkeypatch):
    """Streamlit keeps a closed tab's download callables until it drops the session: they hold one
    pickled blob per chart (Export), not the Figure, its Altair objects or its table, and render
    from it exactly what the Figure renders."""
    from streamlit.delta_generator import DeltaGenerator

    kept: list[tuple[str, object]] = []
    real = DeltaGenerator.download_button

    def record(self, label, data, *args, **kwargs):
        kept.append((kwargs.get("file_name", ""), data))
        return real(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", record)
    at = run_page("saturation")
    assert not at.exception and kept
    figures = {id(fig): fig for fig in FIGURES._entries.values()}
    for file_name, data in kept:
        assert callable(data) and isinstance(data.__self__, Export), file_name
        held = reachable(data)
        assert not [o for o in held if isinstance(o, (Figure, alt.TopLevelMixin, pd.DataFrame))], file_name
        assert sum(len(o) for o in held if isinstance(o, bytes)) > 1000, file_name
    by_export = {id(fig.export): fig for fig in figures.values()}
    for file_name, data in kept:
        fig = by_export[id(data.__self__)]
        if file_name.endswith(".csv"):
            assert data() == fig.data.to_csv(index=False).encode("utf-8")
        else:  # the same spec rendered (vl-convert numbers its SVG gradients per call)
            assert export_spec(data.__self__.parts()[0]) == export_spec(fig.chart), file_name
    svg = next(data for file_name, data in kept if file_name.endswith(".svg"))()
    png = next(data for file_name, data in kept if file_name.endswith(".png"))()
    assert svg.startswith("<svg") and png.startswith(b"\x89PNG")


def test_the_browser_gets_the_container_width_and_the_download_the_desktop_size():
    fig = _fresh()
    (view,) = fig.views
    assert "width" not in view and view["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert view["height"] == charts.HEIGHT
    assert all(isinstance(raw, bytes) for raw in view["datasets"].values())
    exported = json.loads(export_spec(fig.chart))
    assert exported["width"] == charts.WIDTH and exported["height"] == charts.HEIGHT
    assert exported["autosize"] == {"type": "pad"} and exported["config"]["font"] == vega.FONT
    assert all(isinstance(v, list) for v in exported["datasets"].values())


def test_legends_under_a_chart_fold_into_one_column_on_a_narrow_plot():
    (view,) = _fresh().views
    legend = view["layer"][0]["encoding"]["color"]["legend"]  # sweep_lines: 2 columns, at the bottom
    assert legend["columns"] == {"expr": f"width < {vega.NARROW_PLOT} ? 1 : 2"}
    exported = json.loads(export_spec(_fresh().chart))
    assert exported["layer"][0]["encoding"]["color"]["legend"]["columns"] == 2  # the download as before


def test_two_legends_under_a_chart_stack_on_a_narrow_plot():
    df = pd.DataFrame({"x": [1, 2, 1, 2], "y": [1, 2, 2, 3], "a": list("ppqq"), "b": list("uvuv")})
    base = alt.Chart(df).encode(x="x:Q", y="y:Q", color=alt.Color("a:N", legend=alt.Legend(orient="bottom")))
    both = base.encode(strokeDash=alt.StrokeDash("b:N", legend=alt.Legend(orient="bottom")))
    (one_view,) = figure(alt.layer(base.mark_line(), base.mark_point()), df).views
    (two_view,) = figure(both.mark_line(), df).views
    assert "layout" not in one_view["config"]["legend"]  # one legend, shared by two layers: nothing to stack
    assert two_view["config"]["legend"]["layout"] == {"expr": vega.LEGEND_LAYOUT_EXPR}


def test_a_long_title_goes_onto_two_lines_on_a_narrow_plot_only():
    df = pd.DataFrame({"x": [1, 2], "y": [3, 4]})
    base = alt.Chart(df).mark_line().encode(x="x:Q", y="y:Q")
    long = "Attention weights p_ij of one draw (none: c = 1)"
    (view,) = figure(base.properties(title=alt.TitleParams(long, anchor="start")), df).views
    expr = view["title"]["text"]["expr"]
    assert expr.startswith("width < ") and '["Attention weights p_ij of", "one draw (none: c = 1)"]' in expr
    assert expr.endswith(f'"{long}"') and view["title"]["anchor"] == "start"
    (short,) = figure(base.properties(title="Largest |logit| vs d_k"), df).views
    assert short["title"] == "Largest |logit| vs d_k"
    assert json.loads(export_spec(figure(base.properties(title=long), df).chart))["title"] == long
    # 250 px of Chinese: cut off inside an expander on a phone (q-vs-k's gradient section) before
    zh = "一次抽样的各行范数，平方根：c = 1/√d_k"
    (view,) = figure(base.properties(title=alt.TitleParams(zh, anchor="start")), df).views
    assert '["一次抽样的各行范数，", "平方根：c = 1/√d_k"]' in view["title"]["text"]["expr"]


def test_dataset_names_do_not_depend_on_the_data():
    """New data under the same chart keeps the spec text, so the browser updates it in place."""
    a, b = _fresh(dk=16), _fresh(dk=64)
    strip = [{k: v for k, v in view.items() if k != "datasets"} for view in (a.views[0], b.views[0])]
    assert strip[0] == strip[1]
    assert a.views[0]["datasets"] != b.views[0]["datasets"]


def test_side_by_side_charts_become_panels_under_their_title():
    df = pd.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2]})
    left = alt.Chart(df).mark_line().encode(x="x:Q", y="y:Q").properties(width=200, height=100)
    right = alt.Chart(df).mark_bar().encode(x="x:O", y="y:Q").properties(width=200, height=100)
    fig = figure(alt.hconcat(left, right).properties(title="both"), df)
    assert len(fig.views) == 2 and fig.title == "both"
    assert [v["mark"]["type"] for v in fig.views] == ["line", "bar"]
    assert "hconcat" in json.loads(export_spec(fig.chart))  # the download stays one picture


def test_altair_theme_defaults_are_left_out_as_streamlit_leaves_them_out():
    (view,) = _fresh().views
    config = view["config"]  # only the chart text's colours (pages/ui/chart/vega.py), none of Altair's theme
    assert set(config) == set(vega.TEXT_COLOURS)
    assert {v for part in config.values() for v in part.values()} == {vega.CHART_TEXT}


def test_a_builder_that_reads_page_state_is_refused():
    namespace: dict = {"figure_cache": figure_cache, "figure": figure, "settings": {"dk": 64}}
    exec(  # a page's builder reading the page variable `settings` instead of an argument
        "def leaky(rows):\n    return figure(rows, settings['dk'])\n", namespace)
    with pytest.raises(TypeError, match="settings"):
        figure_cache(namespace["leaky"])
    exec("MAX = 3\ndef pure(rows, dk):\n    return figure(rows, dk + MAX)\n", namespace)
    figure_cache(namespace["pure"])  # arguments, functions and UPPER_CASE constants are fine


# Every chart each page can show: q-vs-k's gradients and saturation's "More" open, each beyond section.
CHART_VIEWS = [*((p, {}) for p in ("overview", "variance", "gradients", "precision")),
               ("q-vs-k", {"qk_grad": "1"}), ("saturation", {"sat_more": "1"}),
               *(("beyond", {"beyond_part": part, "lang": "zh"}) for part in ("corr", "norm", "len", "init"))]


@pytest.mark.parametrize(("page", "extra"), CHART_VIEWS)
def test_every_chart_a_page_sends_is_valid_vega_lite_without_a_fixed_width(page, extra):
    at = run_page(page, {"lang": "en", "n": "8", "trials": "20", **extra})
    assert not at.exception, [e.value for e in at.exception]
    specs = [json.loads(c.proto.spec) for c in at.main.get("vega_lite_chart")]
    assert specs
    schema = vl_schema.load_schema()
    for spec in specs:
        assert validate_jsonschema(spec, schema, raise_error=False) is None, spec.get("title")
        assert "width" not in spec and spec["autosize"]["type"] == "fit-x"


def test_a_page_formula_is_shown_as_pieces_that_can_wrap():
    at = run_page("overview", {"lang": "en", "n": "8", "trials": "20"})
    (shown,) = [m.value for m in at.markdown if "\\displaystyle" in m.value]
    pieces = shown.split(" \u2003 ")
    assert len(pieces) == 2  # "Attention(Q,K,V) = …," and "Var(q·k) = d_k ⇒ …"
    assert all(p.startswith("$\\displaystyle " + STRUT) and p.endswith("$") for p in pieces)
    assert not at.latex  # no st.latex left: it cannot wrap


def test_formulas_split_at_top_level_wide_gaps_only():
    assert formula_parts(r"a=b,\qquad c=\frac{1}{d}\qquad e") == ["a=b,", r"c=\frac{1}{d}", "e"]
    assert formula_parts(r"x_{a\qquad b}\qquad y") == [r"x_{a\qquad b}", "y"]  # inside braces: kept
    assert formula_parts(r"\{ a \qquad b") == [r"\{ a", "b"]  # an escaped brace opens nothing
    assert formula_parts(r"a\qquadx") == [r"a\qquadx"]  # another command, not the separator



def test_a_static_table_is_html_with_every_cell_escaped_and_reads_back_as_shown():
    """show_table's HTML: the header and every cell as text (no index), markup in a cell escaped, and
    what tests read back (conftest.tables) is what the frame held."""
    from conftest import tables

    frame = pd.DataFrame({"series": ["<b>dot</b> & co", "additive"], "c": ["1/√d_k", "0.125"], "n": [5, 12]})
    html = table_html(frame)
    assert html.startswith(f'<div class="{TABLE_CLASS}" tabindex="0" role="region"') and "<b>" not in html
    assert "&lt;b&gt;dot&lt;/b&gt; &amp; co" in html and html.count("<tr>") == 3 and "<th" in html

    class Shown:  # the part of an AppTest run that conftest.tables reads
        def get(self, kind):
            assert kind == "html"
            return [types.SimpleNamespace(value="<style>p {}</style>"), types.SimpleNamespace(value=html)]

    (back,) = tables(Shown())
    assert list(back.columns) == ["series", "c", "n"]
    assert back.values.tolist() == [["<b>dot</b> & co", "1/√d_k", "5"], ["additive", "0.125", "12"]]
    # numbers are right-aligned by column (a column with one label stays left); floats left unformatted
    # by the page get 6 significant digits, as the app shows numbers, not their 17-digit repr
    assert '<th scope="col" class="num">n</th>' in html and '<th scope="col">c</th>' in html
    raw = table_html(pd.DataFrame({"k": [0, 1], "analytic": [-0.0009063751069487755, 9.469483575027514e-05],
                                   "x": [float("nan"), float("inf")], "note": ["—", "1.5"]}))
    assert "<td class=\"num\">-0.000906375</td>" in raw and "9.46948e-05" in raw
    assert "NaN" in raw and "∞" in raw and raw.count('<th scope="col" class="num">') == 4
    assert '<th scope="col">none</th>' in table_html(pd.DataFrame({"none": ["—", "—"]}))
    # a number with a short unit is a number too (right-aligned, kept on one line); a label is not
    units = table_html(pd.DataFrame({"t": ["0.116 s", "4 MiB", "99.9 %"], "impl": ["dot", "n", "1/√d_k"]}))
    assert '<td class="num">0.116 s</td>' in units and '<td>1/√d_k</td>' in units


def test_no_page_draws_a_table_with_streamlits_table_or_grid_code():
    """st.table and st.dataframe cost a new tab 0.74 MB and 1.2 MB of browser code: the pages' small
    tables go through show_table; the one grid is the real-model page's, opened on request."""
    for path in sorted([*(ROOT / "pages").glob("*.py"), *(ROOT / "pages" / "ui").rglob("*.py")]):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"\.table\(", source), path.name
        assert not re.search(r"\.dataframe\(", source) or path.name == "real-model.py", path.name


def test_no_chart_encodes_a_channel_from_a_shorthand_string():
    # Altair resolves a string ("dk:Q") against its whole schema on every build (~9 ms a channel);
    # alt.X("dk:Q") and friends give the same spec without that.
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1] / "pages"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "encode"):
                continue
            for kw in node.keywords:
                items = kw.value.elts if isinstance(kw.value, (ast.List, ast.Tuple)) else []
                for v in (kw.value, *items):
                    text = isinstance(v, ast.Constant) and isinstance(v.value, str)
                    if text or isinstance(v, ast.JoinedStr):
                        found.append(f"{path.name}:{v.lineno} {kw.arg}")
    assert not found, found


def _layers() -> list[tuple[tuple, dict]]:
    """Layer combinations the pages use: shared data, a rule with its own data, top-level data."""
    df = pd.DataFrame({"dk": [1, 4, 16], "y": [0.5, 1.0, 2.0], "s": ["a", "b", "a"]})
    base = alt.Chart(df).encode(x=charts.dk_axis(), y=alt.Y("y:Q", scale=alt.Scale(type="log")),
                                color=alt.Color("s:N", legend=alt.Legend(orient="bottom")))
    rule = alt.Chart(pd.DataFrame({"dk": [4]})).mark_rule(strokeDash=[4, 4]).encode(x=alt.X("dk:Q"))
    bare = alt.Chart().mark_point().encode(x=alt.X("dk:Q"))
    return [((base.mark_line(), base.mark_point(filled=True)), {}),
            ((base.mark_line(), base.mark_point(), rule), {"width": 300, "height": 200,
                                                          "title": alt.TitleParams("t", anchor="start")}),
            ((base.mark_line(), bare), {"data": df}),
            ((bare, bare.mark_line()), {"data": df}),
            ((base.mark_line(), rule), {"data": df})]


@pytest.mark.parametrize("case", range(5))
def test_layered_gives_the_vega_lite_of_alt_layer_and_copies_without_reconciling(case, monkeypatch):
    parts, props = _layers()[case]
    mine = charts.layered(*parts, **props)
    assert isinstance(mine, charts.PlainLayerChart)
    assert mine.to_dict() == alt.layer(*parts, **props).to_dict()  # validated against the schema too
    # Its copies (properties(), shallow and deep) never run alt.LayerChart's reconciling again.
    monkeypatch.setattr(alt.LayerChart, "__init__", lambda *a, **k: pytest.fail("layers reconciled again"))
    resized = mine.properties(height=123)
    assert resized.to_dict()["height"] == 123 and resized.to_dict()["layer"] == mine.to_dict()["layer"]
    assert mine.copy().to_dict() == mine.to_dict()


def test_layers_with_their_own_sizes_or_parameters_go_through_alt_layer():
    df = pd.DataFrame({"x": [1, 2]})
    sized = alt.Chart(df).mark_point().encode(x=alt.X("x:Q")).properties(width=100)
    picked = alt.Chart(df).mark_point().encode(x=alt.X("x:Q")).add_params(alt.selection_point())
    for parts in ((sized, sized.mark_line()), (picked, alt.Chart(df).mark_line().encode(x=alt.X("x:Q")))):
        chart = charts.layered(*parts)
        assert not isinstance(chart, charts.PlainLayerChart)
        assert chart.to_dict() == alt.layer(*parts).to_dict()


def test_schema_objects_are_not_validated_one_by_one_as_they_are_created():
    from altair.utils import schemapi

    from pages.ui.chart.figure import altair_without_debug_mode

    altair_without_debug_mode()  # as the app's start does (app_start.py); the page specs are validated below
    assert schemapi.DEBUG_MODE is False
    alt.Scale(type="not-a-scale-type")  # would raise while debug mode is on


def test_side_by_side_gives_the_vega_lite_of_alt_hconcat_and_copies_without_reconciling(monkeypatch):
    df = pd.DataFrame({"dk": [1, 4, 16], "y": [0.5, 1.0, 2.0]})
    base = alt.Chart(df).encode(x=alt.X("dk:Q"), y=alt.Y("y:Q"))
    left = charts.layered(base.mark_line(), base.mark_point(), width=200, height=150, title="a")
    right = alt.Chart(pd.DataFrame({"dk": [2], "y": [1.0]})).mark_rect().encode(x=alt.X("dk:O"))
    right = right.properties(width=100)
    for parts in ((left, right), (left, left.properties(title="b")), (base.mark_line(), base.mark_point())):
        mine = charts.side_by_side(*parts, title="t")
        assert isinstance(mine, charts.PlainHConcatChart)
        assert mine.to_dict() == alt.hconcat(*parts, title="t").to_dict()
    resolved = charts.side_by_side(left, right).resolve_scale(color="independent")
    assert resolved.to_dict() == alt.hconcat(left, right).resolve_scale(color="independent").to_dict()
    monkeypatch.setattr(alt.HConcatChart, "__init__", lambda *a, **k: pytest.fail("panels reconciled again"))
    assert mine.properties(title="u").to_dict()["title"] == "u"
    picked = base.mark_point().add_params(alt.selection_point())
    monkeypatch.undo()
    assert not isinstance(charts.side_by_side(picked, base.mark_line()), charts.PlainHConcatChart)


def test_frame_bytes_bounds_a_chart_table_from_above():
    import numpy as np

    from pages.ui.chart.vega import frame_bytes

    n = 200
    tables = [
        pd.DataFrame({"dk": np.arange(n), "value": np.random.default_rng(0).random(n)}),
        pd.DataFrame({"dk": np.arange(n), "scale": ["power:0.75", "none"] * (n // 2),
                      "label": ["缩放点积注意力 1/√d_k"] * n, "x": np.ones(n)}),
        pd.DataFrame({"i": np.arange(n), "j": np.arange(n), "value": np.zeros(n, dtype="float32")}),
    ]
    for df in tables:
        assert frame_bytes(df) >= int(df.memory_usage(deep=True).sum())
