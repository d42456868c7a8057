"""An Altair chart as the Vega-Lite the browser draws: its tables as Arrow bytes under names that do
not depend on the data, the container's width, legends that fold and titles that wrap on a narrow
plot (a phone). Nothing process-wide is switched (Altair's data transformers are global), and
nothing is validated: the specs the pages send are validated by the tests (tests/test_charts.py).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import altair as alt
import pandas as pd

from pages.ui.chart.channels import add_second_channels

# Fonts with CJK glyphs first, so Chinese renders in the browser and in PNG/SVG exports alike.
FONT = "Noto Sans CJK SC, Noto Sans SC, Source Han Sans SC, Noto Sans, DejaVu Sans, sans-serif"


def _arrow_bytes(df: pd.DataFrame) -> bytes:
    """The table as Arrow IPC stream bytes, as Streamlit itself sends chart data."""
    import pyarrow as pa

    table = pa.Table.from_pandas(df)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def frame_bytes(df: pd.DataFrame) -> int:
    """An upper estimate of a chart table's memory for the figure cache's byte bound: 64 bytes a
    cell (a number is 8, the short labels of these tables a few dozen). Asking pandas
    (`memory_usage(deep=True)`) took about 0.8 ms a table, several times per chart, on every
    chart built for new settings."""
    return 64 * len(df) * max(1, df.shape[1])


_VIEW_LISTS = ("layer", "hconcat", "vconcat", "concat")


def name_data(chart: Any, frames: dict[str, tuple[pd.DataFrame, bytes]],
               names: dict[bytes, str] | None = None) -> Any:
    """A shallow copy of `chart` whose DataFrames, at every level, are named datasets; `frames`
    collects name → (DataFrame, Arrow bytes). Nothing process-wide is switched (Altair's data
    transformers are global), and nothing is validated.

    Names follow the order the tables first appear in (equal tables share one), not their
    content: when new settings change only the data, the spec text stays the same and the
    browser swaps the data in the chart it has instead of building a new one."""
    names = {} if names is None else names
    c = chart.copy(deep=False)
    data = c._get("data")
    if isinstance(data, pd.DataFrame):
        raw = _arrow_bytes(data)
        digest = hashlib.blake2b(raw, digest_size=16).digest()
        name = names.setdefault(digest, f"data-{len(names)}")
        frames[name] = (data, raw)
        c.data = alt.NamedData(name=name)
    for attr in _VIEW_LISTS:
        views = c._get(attr)
        if isinstance(views, list):
            c[attr] = [name_data(v, frames, names) if isinstance(v, alt.SchemaBase) else v for v in views]
    spec = c._get("spec")
    if isinstance(c, (alt.FacetChart, alt.RepeatChart)) and isinstance(spec, alt.SchemaBase):
        c.spec = name_data(spec, frames, names)
    return c


def _vega_lite(chart: Any) -> tuple[dict[str, Any], dict[str, tuple[pd.DataFrame, bytes]]]:
    """(spec without data, its datasets): the chart's Vega-Lite dict, Altair's theme left out (as
    st.altair_chart leaves it out)."""
    frames: dict[str, tuple[pd.DataFrame, bytes]] = {}
    spec = name_data(chart, frames).to_dict(validate=False)
    theme = alt.theme.get()
    config = spec.get("config")
    if theme is not None and isinstance(config, dict):
        for key, value in (theme().get("config") or {}).items():
            mine = config.get(key)
            if isinstance(mine, dict) and isinstance(value, dict):
                for k, v in value.items():
                    if mine.get(k) == v:
                        del mine[k]
                if not mine:
                    del config[key]
            elif mine == value:
                del config[key]
        if not config:
            del spec["config"]
    return spec, frames


# Chart text (axis labels and titles, legends, titles, facet headers) at 12.6:1 on white: Streamlit's
# chart theme draws it in a faded grey (#808495, 3.8:1), under the 4.5:1 that text needs (WCAG 1.4.3).
# A chart's own colour for one of these (the lesson's projector mode: black) is kept.
CHART_TEXT = "#333333"
TEXT_COLOURS = {"axis": ("labelColor", "titleColor"), "legend": ("labelColor", "titleColor"),
                "title": ("color", "subtitleColor"), "header": ("labelColor", "titleColor")}


def text_colours(spec: dict[str, Any]) -> None:
    """Give every kind of chart text CHART_TEXT in `spec`'s config, unless the chart sets its own."""
    config = spec.setdefault("config", {})
    for part, props in TEXT_COLOURS.items():
        mine = config.setdefault(part, {})
        for prop in props:
            mine.setdefault(prop, CHART_TEXT)


NARROW_PLOT = 360  # px: below this plot width, legends under or over a chart list their entries in one column
# px: the narrowest plot the app draws: a 360-px phone, a chart inside an expander, its y axis beside
# it. A title narrower than this never needs a second line.
NARROWEST_PLOT = 200
# Vega's own default legend layout, and the same with legends under (or over) the plot stacked
# instead of side by side — two legends in a row are too wide for a phone.
_LEGEND_LAYOUT = ("{offset: 18, direction: 'horizontal', left: {direction: 'vertical'}, "
                  "right: {direction: 'vertical'}")
_STACKED = "bottom: {direction: 'vertical', anchor: 'start'}, top: {direction: 'vertical', anchor: 'start'}"
LEGEND_LAYOUT_EXPR = f"width < {NARROW_PLOT} ? {_LEGEND_LAYOUT}, {_STACKED}}} : {_LEGEND_LAYOUT}}}"


def _narrow_legends(node: Any, seen: set[str] | None = None) -> set[str]:
    """Legends under (or over) a chart keep their columns — or their single row — on a wide screen,
    and become one column when the plot is narrower than NARROW_PLOT (a phone, a third of a
    desktop): a row of entries does not wrap by itself and would stick out. Returns the distinct
    such legends by field (layers repeating a legend, and colour with its dash or shape, share one)."""
    seen = set() if seen is None else seen
    if isinstance(node, dict):
        for value in node.values():
            legend = value.get("legend") if isinstance(value, dict) else None
            if isinstance(legend, dict) and legend.get("orient") in ("bottom", "top"):
                seen.add(str(value.get("field")))  # channels of one field share one legend
                columns = legend.get("columns", 0)
                if isinstance(columns, (int, float)) and columns != 1:
                    legend["columns"] = {"expr": f"width < {NARROW_PLOT} ? 1 : {int(columns)}"}
            else:
                _narrow_legends(value, seen)
    elif isinstance(node, list):
        for value in node:
            _narrow_legends(value, seen)
    return seen


def _text_width(text: str, size: float = 13) -> float:
    """Rough rendered width of `text` in px: Latin characters about half the size, CJK ones a little
    wider than it (the chart titles' bold CJK fallback font: 14.3 px a character at size 13)."""
    return sum(1.15 * size if ord(ch) > 0x2E80 else 0.55 * size for ch in text)


def _split_title(text: str) -> list[str]:
    """`text` as two lines, broken near its middle: before a parenthesis, else at a space or comma."""
    middle = len(text) / 2
    cuts = [i for i, ch in enumerate(text) if ch in " ,，（(" and 0 < i < len(text) - 1]
    if not cuts:
        cut = round(middle)
    else:
        cut = min(cuts, key=lambda i: abs(i - middle) - (3 if text[i] in "(（" else 0))
    first, second = text[:cut].rstrip(" ,"), text[cut:].lstrip(" ")
    if text[cut] in ",，":
        first, second = text[:cut + 1], text[cut + 1:].lstrip(" ")
    return [first, second]


def _wrap_title(spec: dict[str, Any]) -> None:
    """A chart title too long for a narrow plot (a phone) goes onto two lines there instead of
    being cut off with an ellipsis; on a wide plot it stays one line."""
    title = spec.get("title")
    params = title if isinstance(title, dict) else {"text": title}
    text = params.get("text")
    if not isinstance(text, str):
        return
    size = params.get("fontSize", 13)
    need = _text_width(text, size if isinstance(size, (int, float)) else 13)
    if need < NARROWEST_PLOT:
        return
    lines, whole = json.dumps(_split_title(text), ensure_ascii=False), json.dumps(text, ensure_ascii=False)
    spec["title"] = {**params, "text": {"expr": f"width < {round(need)} ? {lines} : {whole}"}}


# Above this many rows of data, a view's marks are not described one by one to screen readers: a
# heat map's 1,024 cells would each be a stop to step through (and an ARIA label for the browser to
# build); the chart's own description and its table (pages/ui/chart/chart_text.py) say what they hold.
MARK_ARIA_ROWS = 256


def view(chart: Any, frames_out: dict[str, pd.DataFrame] | None = None) -> tuple[dict[str, Any], int]:
    """One panel as the browser draws it: the container's width (`fit-x`: the plot, axes and legend
    fill it; the height stays the plot's), legends that fold on a narrow plot, data as Arrow bytes,
    a second channel beside colour (pages/ui/chart/channels.py). Returns (spec, approx bytes); `frames_out`,
    given, receives the datasets by name as DataFrames."""
    spec, frames = _vega_lite(chart)
    add_second_channels(spec)
    text_colours(spec)
    if frames_out is not None:
        frames_out.update({name: df for name, (df, _) in frames.items()})
    if any(len(df) > MARK_ARIA_ROWS for df, _ in frames.values()):
        config = spec.setdefault("config", {})
        config["mark"] = {"aria": False, **config.get("mark", {})}
    spec.pop("width", None)
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    _wrap_title(spec)
    if len(_narrow_legends(spec)) > 1:
        config = spec.setdefault("config", {})
        config["legend"] = {**config.get("legend", {}), "layout": {"expr": LEGEND_LAYOUT_EXPR}}
    # What st.vega_lite_chart would patch in place on every call (a null colour legend title).
    colour = (spec.get("encoding") or {}).get("color")
    if isinstance(colour, dict):
        if "title" in colour and colour["title"] is None:
            colour["title"] = " "
        legend = colour.get("legend")
        if isinstance(legend, dict) and "title" in legend and legend["title"] is None:
            legend["title"] = " "
    spec["datasets"] = {name: raw for name, (_, raw) in frames.items()}
    size = 4 * len(json.dumps({k: v for k, v in spec.items() if k != "datasets"}))
    size += sum(len(raw) + frame_bytes(df) for df, raw in frames.values())
    return spec, size
