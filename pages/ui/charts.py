"""Charts, cached compute and notices: the pieces every page uses between its controls and its text.

- `@figure_cache` on a function that builds an Altair chart and returns `figure(chart, data)`: the
  chart is turned into Vega-Lite once per distinct arguments and language, shared by all sessions.
- `show_chart(fig, name=…)`: the Figure at its container's width (panels side by side, stacked on
  a phone), plus CSV / PNG / SVG downloads at the chart's fixed desktop size (PNG and SVG rendered
  by vl-convert only when clicked). An Altair chart is accepted too (converted, cached by content).
- `metric_row()` and `formula()`: rows of metrics that wrap, formulas that wrap on a phone.
- Colour-blind-safe colours: Okabe–Ito for categories (one fixed colour per scale), viridis for heatmaps.
- `cached(fn, **kwargs)` / `run_with_progress(fn, **kwargs)`: a core function computed once for
  every session of the server (pages/ui/compute.py), the second with a progress bar; both turn
  core's InputError / BudgetError / BackendError into a translated notice and return None.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import hashlib
import json
import marshal
import math
import pickle
import re
import threading
import time
import types
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from altair.utils import schemapi
from altair.vegalite.v6.schema import core as vl_core

from core.errors import BackendError, BudgetError, InputError
from core.memo import drop_idle
from core.scales import parse_scale
from pages.ui.compute import is_stored, shared_call
from pages.ui.controls import page_value, parse_flag
from pages.ui.i18n import current_lang, t
from pages.ui.shared_work import JANITOR
from pages.ui.user_text import literal

# Okabe & Ito (2008), safe for the common colour-vision deficiencies.
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9",
                              "#000000", "#F0E442")
SCALE_COLOURS: dict[str, str] = {"sqrt": "#0072B2", "none": "#D55E00", "linear": "#009E73",
                                 "log": "#E69F00", "double-sqrt": "#CC79A7", "power": "#56B4E9",
                                 "const": "#000000"}
DTYPE_COLOURS: dict[str, str] = {"float16": "#D55E00", "bfloat16": "#E69F00", "float32": "#0072B2",
                                 "float64": "#009E73"}
HEATMAP_SCHEME = "viridis"
# Fonts with CJK glyphs first, so Chinese renders in the browser and in PNG/SVG exports alike.
FONT = "Noto Sans CJK SC, Noto Sans SC, Source Han Sans SC, Noto Sans, DejaVu Sans, sans-serif"

WIDTH, HEIGHT = 400, 260        # one chart in a two-column row (plot area; axes and legend add ~90 px)
WIDE_WIDTH = 900                # one chart across the page
SMALL_WIDTH, SMALL_HEIGHT = 280, 200

FIGURE_CACHE_BYTES = 48 * 2**20  # every built chart, all sessions together
FIGURE_CACHE_ENTRIES = 1024
FIGURE_WAIT_S = 0.25             # how often a session waiting for another's build looks again

# Altair checks every schema object against the Vega-Lite schema as it is created ("debug mode"),
# which cost a tenth of building a chart. It is switched off here once, when the server first
# imports this module, and never switched back: Altair's own copy() brackets itself with
# `debug_mode(False)`, saving and restoring this one global, so with sessions building charts on
# several threads at once it could end up either way at random anyway. The specs the pages send
# are validated against the schema by the tests instead (tests/test_charts.py).
schemapi.disable_debug_mode()


# ---------------------------------------------------------------- labels and colours


def scale_label(name: str) -> str:
    """A canonical scale name ("sqrt", "power:0.75") as a translated legend label."""
    s = parse_scale(name)
    if s.kind == "power":
        return t("common.scale.power_a", a=f"{s.param:g}")
    if s.kind == "const":
        return t("common.scale.const", c=f"{s.param:g}")
    return t(f"common.scale.{s.kind}")


def scale_colours(names: list[str]) -> alt.Scale:
    """Colour scale over the translated labels of `names`, one fixed colour per scale kind."""
    domain = [scale_label(n) for n in names]
    colours = [SCALE_COLOURS.get(parse_scale(n).kind, "#000000") for n in names]
    return alt.Scale(domain=domain, range=colours)


def dtype_colours(names: list[str]) -> alt.Scale:
    return alt.Scale(domain=list(names), range=[DTYPE_COLOURS.get(n, "#000000") for n in names])


def fmt_num(x: float | None, digits: int = 4) -> str:
    """The one number format of metrics on screen (tests compare against it)."""
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def fmt_pct(x: float) -> str:
    return f"{100.0 * float(x):.1f} %"


# ---------------------------------------------------------------- figures: built once, drawn cheaply
#
# Turning an Altair chart into a Vega-Lite spec (validation included) costs tens of milliseconds
# per chart, and a page has up to eight: that was most of a warm rerun. A page therefore builds each
# chart in a function decorated with @figure_cache: the function runs once per distinct arguments
# (and language), and every rerun of every session reuses the Figure it returned, drawn with
# st.vega_lite_chart from a ready dict whose data are already Arrow bytes.


class Export:
    """What a chart's three download buttons render (CSV, PNG, SVG), kept as one pickled blob of
    (chart, table) and unpickled only when a button is clicked.

    Streamlit keeps a tab's download callables until it drops the session, and it drops a closed
    tab's session only once server.disconnectedSessionTTL has passed and another tab connects.
    Callables holding the Figure kept each closed tab's last charts alive, after the shared cache
    had let them go, as thousands of small objects spread over the interpreter's 1 MiB arenas (an
    arena is given back only once it is empty). A blob is one block, freed whole. Pickling costs
    about a millisecond once per Figure; a chart that cannot be pickled is kept as it is.
    """

    __slots__ = ("_blob", "_parts")

    def __init__(self, chart: Any, data: pd.DataFrame | None) -> None:
        try:
            self._blob: bytes | None = pickle.dumps((chart, data), protocol=pickle.HIGHEST_PROTOCOL)
            self._parts: tuple[Any, pd.DataFrame | None] | None = None
        except (pickle.PicklingError, TypeError, AttributeError):
            self._blob, self._parts = None, (chart, data)

    @property
    def nbytes(self) -> int:
        return len(self._blob) if self._blob is not None else 0

    def parts(self) -> tuple[Any, pd.DataFrame | None]:
        """(chart, table), unpickled afresh (a copy each time) or as kept."""
        return pickle.loads(self._blob) if self._blob is not None else self._parts

    def csv(self) -> bytes:
        return self.parts()[1].to_csv(index=False).encode("utf-8")

    def png(self) -> bytes:
        return _png(export_spec(self.parts()[0]))

    def svg(self) -> str:
        return _svg(export_spec(self.parts()[0]))


@dataclass(frozen=True, eq=False)
class Figure:
    """A chart ready to draw.

    chart:     the Altair chart at its fixed desktop size — what the PNG / SVG downloads render;
    data:      the table the CSV download holds;
    views:     the Vega-Lite specs the browser draws (one per panel), sized to their container,
               their datasets as Arrow IPC bytes;
    title:     the panels' common title (drawn above them), or None;
    max_width: the widest (px) a view may grow, or None for the container's width;
    nbytes:    the Figure's approximate size in memory (the cache is bounded by it);
    export:    chart and data pickled, for the download buttons (Export).
    """

    chart: Any
    data: pd.DataFrame
    views: tuple[dict[str, Any], ...]
    title: str | None
    max_width: int | None
    nbytes: int
    export: Export


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


def _name_data(chart: Any, frames: dict[str, tuple[pd.DataFrame, bytes]],
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
            c[attr] = [_name_data(v, frames, names) if isinstance(v, alt.SchemaBase) else v for v in views]
    spec = c._get("spec")
    if isinstance(c, (alt.FacetChart, alt.RepeatChart)) and isinstance(spec, alt.SchemaBase):
        c.spec = _name_data(spec, frames, names)
    return c


def _vega_lite(chart: Any) -> tuple[dict[str, Any], dict[str, tuple[pd.DataFrame, bytes]]]:
    """(spec without data, its datasets): the chart's Vega-Lite dict, Altair's theme left out (as
    st.altair_chart leaves it out)."""
    frames: dict[str, tuple[pd.DataFrame, bytes]] = {}
    spec = _name_data(chart, frames).to_dict(validate=False)
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
    such legends (layers repeating a legend share it)."""
    seen = set() if seen is None else seen
    if isinstance(node, dict):
        for channel, value in node.items():
            legend = value.get("legend") if isinstance(value, dict) else None
            if isinstance(legend, dict) and legend.get("orient") in ("bottom", "top"):
                seen.add(f"{channel}:{value.get('field')}")
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


def _view(chart: Any) -> tuple[dict[str, Any], int]:
    """One panel as the browser draws it: the container's width (`fit-x`: the plot, axes and legend
    fill it; the height stays the plot's), legends that fold on a narrow plot, data as Arrow bytes.
    Returns (spec, approx bytes)."""
    spec, frames = _vega_lite(chart)
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


def _title_text(title: Any) -> str | None:
    if isinstance(title, alt.TitleParams):
        title = title.text
    if isinstance(title, (list, tuple)):
        return " ".join(str(x) for x in title)
    return None if title is alt.Undefined or title is None else str(title)


def figure(chart: Any, data: pd.DataFrame, *, panels: list[Any] | None = None,
           max_width: int | None = None) -> Figure:
    """A Figure from an Altair chart at its fixed desktop size (what the downloads render).

    Side-by-side charts (an hconcat, or `panels` given for a facet) are drawn as separate panels in
    columns, which stack on a phone; their common title goes above them. `max_width` keeps a
    heat map near square on a wide screen.
    """
    if panels is None and isinstance(chart, alt.HConcatChart):
        top, config = chart._get("data"), chart._get("config")
        panels = []
        for sub in chart.hconcat:
            panel = sub.copy(deep=False)
            if isinstance(top, pd.DataFrame) and panel._get("data") is alt.Undefined:
                panel.data = top
            if config is not alt.Undefined:
                panel.config = config
            panels.append(panel)
    title = _title_text(chart._get("title")) if panels else None
    views, size = [], 0
    for panel in panels or [chart]:
        view, n = _view(panel)
        views.append(view)
        size += n
    size += frame_bytes(data)
    export = Export(chart, data)
    return Figure(chart=chart, data=data, views=tuple(views), title=title, max_width=max_width,
                  nbytes=size + export.nbytes, export=export)


class FigureCache:
    """Figures by key, least recently used first out, bounded by total bytes and by count.
    Shared by every session of the server (Figures are never modified once built). A figure is
    built once however many sessions ask for it at the same time (a class opening one link): the
    others wait for it instead of each building its own while holding the interpreter."""

    def __init__(self, max_bytes: int, max_entries: int):
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._items: OrderedDict[Any, Figure] = OrderedDict()
        self._used: dict[Any, float] = {}
        self._building: dict[Any, threading.Event] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.built = 0  # builds started, for tests

    def get(self, key: Any, build: Callable[[], Figure]) -> Figure:
        while True:
            with self._lock:
                fig = self._items.get(key)
                if fig is not None:
                    self._items.move_to_end(key)
                    self._used[key] = time.monotonic()
                    return fig
                done = self._building.get(key)
                if done is None:
                    done = self._building[key] = threading.Event()
                    self.built += 1
                    break
            done.wait(FIGURE_WAIT_S)  # another session builds it; if its run stops, one of us will
        try:
            fig = build()  # outside the lock: other figures are drawn meanwhile
            with self._lock:
                if key not in self._items:
                    self._items[key] = fig
                    self._used[key] = time.monotonic()
                    self._bytes += fig.nbytes
                while self._items and (self._bytes > self.max_bytes or len(self._items) > self.max_entries):
                    old_key, old = self._items.popitem(last=False)
                    self._used.pop(old_key, None)
                    self._bytes -= old.nbytes
            return fig
        finally:
            with self._lock:
                self._building.pop(key, None)
            done.set()

    def drop_unused(self, idle_s: float) -> int:
        """Drop the figures nobody has drawn for `idle_s` seconds; how many were dropped."""
        with self._lock:
            dropped, freed = drop_idle(self._items, self._used, idle_s, lambda fig: fig.nbytes)
            self._bytes -= freed
        return dropped

    def stats(self) -> tuple[int, int]:
        """(entries, bytes) held now."""
        with self._lock:
            return len(self._items), self._bytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._used.clear()
            self._bytes = 0


FIGURES = FigureCache(FIGURE_CACHE_BYTES, FIGURE_CACHE_ENTRIES)
JANITOR.evictors.append(FIGURES.drop_unused)  # once per process: this module is imported once


class _HashSink:
    def __init__(self) -> None:
        self.hash = hashlib.blake2b(digest_size=20)

    def write(self, b: bytes) -> None:
        self.hash.update(b)


def _digest(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """A digest of the arguments' values. Pickle without its memo ("fast" mode), so equal values
    give equal bytes however their objects are shared (a fresh core result and its cached copy)."""
    sink = _HashSink()
    pickler = pickle.Pickler(sink, protocol=5)
    pickler.fast = True
    pickler.dump((args, sorted(kwargs.items())))
    return sink.hash.hexdigest()


_CHECKED: set[str] = set()


def _check_reads_no_page_state(build: Callable[..., Any], key: str) -> None:
    """A cached builder must depend on its arguments only: refuse one that reads a page variable
    (`s`, `view`, …), which would silently serve a stale chart. Module constants (UPPER_CASE),
    functions, classes and modules are fine."""
    if key in _CHECKED:
        return
    codes = [build.__code__]
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for ins in dis.get_instructions(code):
            if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                continue
            name = str(ins.argval)
            if name not in build.__globals__ or name.isupper():
                continue
            value = build.__globals__[name]
            if not (callable(value) or isinstance(value, types.ModuleType)):
                raise TypeError(f"figure builder {build.__qualname__} reads the page's variable `{name}`; "
                                "pass it as an argument")
    _CHECKED.add(key)


def figure_cache(build: Callable[..., Figure]) -> Callable[..., Figure]:
    """Decorator: `build(*args, **kwargs) -> Figure` runs once per distinct arguments (compared by
    value) and language; later calls, from any session, return that Figure from FIGURES."""
    code = build.__code__
    ident = f"{code.co_filename}:{build.__qualname__}:" + hashlib.blake2b(
        marshal.dumps(code), digest_size=8).hexdigest()
    _check_reads_no_page_state(build, ident)

    @functools.wraps(build)
    def cached_build(*args: Any, **kwargs: Any) -> Figure:
        key = (ident, current_lang(), _digest(args, kwargs))
        return FIGURES.get(key, lambda: build(*args, **kwargs))

    return cached_build


def _figure_of_chart(chart: Any, data: pd.DataFrame) -> Figure | None:
    """show_chart's path for a page that still hands over an Altair chart: the Figure cached by the
    chart's content (its construction is still paid by the page); None when it cannot be converted
    here (st.altair_chart then draws it)."""
    try:
        key = ("chart", _digest((chart, data), {}))
    except Exception:  # an unpicklable chart: convert it every time
        key = None
    try:
        return FIGURES.get(key, lambda: figure(chart, data)) if key else figure(chart, data)
    except Exception:
        return None


def export_spec(fig: Figure | Any) -> str:
    """The Vega-Lite JSON a download renders: the chart at its fixed desktop size, its data inline,
    the CJK-capable font (as the PNG / SVG exports always were)."""
    chart = fig.chart if isinstance(fig, Figure) else fig
    if chart._get("autosize") is alt.Undefined:
        chart = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    if chart._get("config") is alt.Undefined:
        chart = chart.configure(font=FONT)
    frames: dict[str, tuple[pd.DataFrame, bytes]] = {}
    spec = _name_data(chart, frames).to_dict(validate=False)
    spec["datasets"] = {**spec.get("datasets", {}),
                        **{name: alt.to_values(df)["values"] for name, (df, _) in frames.items()}}
    return json.dumps(spec)


def _png(spec: str) -> bytes:
    import vl_convert as vlc

    return vlc.vegalite_to_png(spec, scale=2)


def _svg(spec: str) -> str:
    import vl_convert as vlc

    return vlc.vegalite_to_svg(spec)


def _md_text(text: str) -> str:
    """Our own text, shown literally inside Markdown (titles hold d_k, ρ, …)."""
    return re.sub(r"([\\`*_\[\]$<>~])", r"\\\1", text)


def show_chart(chart: Figure | Any, data: pd.DataFrame | None = None, name: str = "chart",
               container: Any = None, downloads: bool = True) -> None:
    """Draw a Figure (or an Altair chart, converted and cached by content) at its container's width,
    with its data as CSV and itself as PNG / SVG (at its fixed desktop size) behind a download button.

    The files are produced only when a button is clicked (callables), so a rerun stays fast.
    `name` is the file stem ("saturation-entropy"); the language is appended. `downloads=False`
    draws the chart alone (the lesson's projector screen has no room for the button).
    """
    where = container or st
    fig = chart if isinstance(chart, Figure) else _figure_of_chart(chart, data)
    if fig is None:  # a chart our converter refused: Streamlit's own conversion, at its fixed size
        fig = Figure(chart=chart, data=data, views=(), title=None, max_width=None, nbytes=0,
                     export=Export(chart, data))
        where.altair_chart(chart, width="content")
    width: int | str = fig.max_width or "stretch"
    if len(fig.views) == 1:
        where.vega_lite_chart(spec=fig.views[0], width=width)
    elif fig.views:
        if fig.title:
            where.markdown(f"**{_md_text(fig.title)}**")
        for col, view in zip(where.columns(len(fig.views), gap="small"), fig.views, strict=True):
            col.vega_lite_chart(spec=view, width=width)
    if not downloads:
        return
    export = fig.export  # the buttons hold the blob, not the Figure (Export)
    stem = f"{name}-{current_lang()}"
    holder = where.popover(t("common.download.label"), icon=":material/download:")
    holder.download_button(t("common.download.csv"), data=export.csv,
                           file_name=f"{stem}.csv", mime="text/csv", on_click="ignore",
                           key=f"dl-{name}-csv")
    holder.download_button(t("common.download.png"), data=export.png,
                           file_name=f"{stem}.png", mime="image/png", on_click="ignore",
                           key=f"dl-{name}-png")
    holder.download_button(t("common.download.svg"), data=export.svg,
                           file_name=f"{stem}.svg", mime="image/svg+xml", on_click="ignore",
                           key=f"dl-{name}-svg")


def _lift_data(charts: tuple[Any, ...], data: Any) -> tuple[Any, list[Any]]:
    """(top-level data, shallow copies of `charts`): data shared by every chart moves to the top, as
    alt.layer and alt.hconcat move it (or, given `data`, charts holding that same data leave it)."""
    parts = [c.copy(deep=False) for c in charts]
    first = parts[0]._get("data")
    if data is alt.Undefined:
        shared = first is not alt.Undefined and all(c._get("data") is first for c in parts)
        data = first if shared else alt.Undefined
    else:
        shared = all(c._get("data") is alt.Undefined or c._get("data") is data for c in parts)
    if shared:
        for c in parts:
            c.data = alt.Undefined
    return data, parts


def _plain_unit(c: Any, own: tuple[str, ...]) -> bool:
    """A single-view chart without selection parameters, a name or facet channels, nor any of `own`."""
    if not isinstance(c, alt.Chart) or any(c._get(p) is not alt.Undefined for p in ("params", "name", *own)):
        return False
    enc = c._get("encoding")
    return enc is alt.Undefined or all(enc._get(f) is alt.Undefined for f in ("row", "column", "facet"))


_LAYER_SIZES = ("width", "height", "view")  # alt.layer would move these from a layer to the top


def layered(*charts: Any, **props: Any) -> Any:
    """`alt.layer(*charts, **props)`, without its copies where there is nothing to reconcile.

    alt.layer deep-copies every layer two or three times (to lift selection parameters, to name
    views, to move shared data and sizes to the top), re-creating each of their scales, axes and
    legends: a fifth of building a page's charts. For plain layers (no parameters, names or sizes
    of their own) the result is the same chart — the same Vega-Lite, which a test checks — built
    from shallow copies; anything else goes through alt.layer."""
    if not charts or "params" in props or not all(_plain_unit(c, _LAYER_SIZES) for c in charts):
        return alt.layer(*charts, **props)
    data, layers = _lift_data(charts, props.pop("data", alt.Undefined))
    return PlainLayerChart(layer=layers, data=data, **props)


def side_by_side(*charts: Any, **props: Any) -> Any:
    """`alt.hconcat(*charts, **props)` without its deep copies, for panels that are plain charts or
    `layered` charts (nothing to reconcile); anything else goes through alt.hconcat."""
    if not charts or "params" in props or not all(isinstance(c, PlainLayerChart) or _plain_unit(c, ())
                                                  for c in charts):
        return alt.hconcat(*charts, **props)
    data, panels = _lift_data(charts, props.pop("data", alt.Undefined))
    return PlainHConcatChart(hconcat=panels, data=data, **props)


class PlainLayerChart(alt.LayerChart):
    """The LayerChart `layered` builds: its layers were reconciled once, when it was created, so
    its copies (which Altair makes by calling the class again: `.properties()`, naming its data,
    splitting panels) take its parts as they are instead of reconciling — deep-copying — every
    layer again."""

    def __init__(self, data: Any = alt.Undefined, layer: Any = (), **kwargs: Any) -> None:
        vl_core.TopLevelLayerSpec.__init__(self, data=data, layer=list(layer), **kwargs)


class PlainHConcatChart(alt.HConcatChart):
    """The HConcatChart `side_by_side` builds, copied as PlainLayerChart is."""

    def __init__(self, data: Any = alt.Undefined, hconcat: Any = (), **kwargs: Any) -> None:
        vl_core.TopLevelHConcatSpec.__init__(self, data=data, hconcat=list(hconcat), **kwargs)


def dk_rule(dk: int) -> alt.Chart:
    """A dashed vertical rule marking the current d_k on a d_k axis."""
    df = pd.DataFrame({"dk": [dk], "label": [t("common.current_dk")]})
    return alt.Chart(df).mark_rule(strokeDash=[4, 4], color="#777777").encode(
        x=alt.X("dk:Q"), tooltip=[alt.Tooltip("label:N", title=" "), alt.Tooltip("dk:Q", title="d_k")])


def dk_axis(title_key: str = "common.axis.dk") -> alt.X:
    """The log₂ d_k axis used by every sweep."""
    return alt.X("dk:Q", title=t(title_key), scale=alt.Scale(type="log", base=2),
                 axis=alt.Axis(values=[2**i for i in range(13)], format="d"))


# ---------------------------------------------------------------- notices


def show_error(exc: BaseException, container: Any = None) -> None:
    """A core error as a translated notice (never a traceback); the original text as details."""
    where = container or st
    if isinstance(exc, BudgetError):
        where.warning(t("common.error.budget"), icon=":material/hourglass_top:")
    elif isinstance(exc, BackendError):
        where.warning(t("common.error.backend"), icon=":material/memory:")
    elif isinstance(exc, InputError):
        where.warning(t("common.error.input"), icon=":material/info:")
    else:
        where.error(t("common.error.unexpected"), icon=":material/error:")
    where.caption(t("common.error.details", msg=literal(str(exc) or type(exc).__name__, limit=300)))


@contextlib.contextmanager
def notices(container: Any = None) -> Iterator[None]:
    """`with notices(): …` shows core errors raised inside as notices instead of tracebacks."""
    try:
        yield
    except (InputError, ValueError, MemoryError) as exc:
        show_error(exc, container)


def reduced_trials_note(used: int, asked: int, n: int) -> None:
    if used < asked:
        st.caption(t("common.trials_reduced", used=used, asked=asked, n=n))


def what_to_notice(key: str) -> None:
    """The page's "what to notice" box."""
    st.info(f"**{t('common.what_to_notice')}** — {t(key)}", icon=":material/visibility:")


# ---------------------------------------------------------------- shared compute


def cached(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """fn(**kwargs) computed once for every session (pages/ui/compute.py); core errors → translated
    notice and None."""
    try:
        return shared_call(fn, kwargs, container)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


def run_with_progress(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """Like `cached`, with a progress bar while it computes (fn takes progress=callable); a heavy
    job waits for its turn, its place shown."""
    try:
        return shared_call(fn, kwargs, container, progress=True)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


def ask_first(key: str, asked_key: str, stored: Callable[[], bool], container: Any = None) -> bool:
    """Whether a page's heavy work (a live timing, a training grid, a model run) goes ahead now:
    once the reader has asked for it, with the button shown here or with `?key=1` in the link (the
    button writes it there, so a shared link runs it again), or when its result is already stored
    (`stored()`, looked up only while the reader has not asked). Until then the page shows
    `asked_key`'s text and the button, and the rest of it at once: a cold server's first page, or a
    link opened before anyone computed it, is drawn in well under the seconds the work takes. Once
    asked, the session's later settings run at once."""
    if page_value(key, parse_flag, False) or stored():
        return True
    box = (container or st).container(border=True)
    box.markdown(t(asked_key))
    box.button(t(f"{asked_key}.button"), key=f"{key}_ask", type="primary", icon=":material/play_arrow:",
               on_click=_ask, args=(key,))
    return False


def _ask(key: str) -> None:
    st.session_state[key] = True


def run_when_asked(fn: Callable[..., Any], key: str, asked_key: str, container: Any = None,
                   **kwargs: Any) -> Any:
    """run_with_progress(fn, **kwargs) once `ask_first` says so; None until then."""
    if not ask_first(key, asked_key, lambda: is_stored(fn, kwargs), container):
        return None
    return run_with_progress(fn, container, **kwargs)


# ---------------------------------------------------------------- common figures


def with_scale_labels(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows from core → DataFrame with a translated `scale_label` column for legends."""
    df = pd.DataFrame(rows)
    if "scale" in df:
        labels = {s: scale_label(s) for s in df["scale"].unique()}
        df["scale_label"] = df["scale"].map(labels)
    return df


def sweep_lines(df: pd.DataFrame, y: str, y_title: str, scales: list[str], dk: int,
                log_y: bool = True, title: str | None = None, width: int = WIDTH, height: int = HEIGHT,
                tooltips: tuple[tuple[str, str], ...] = (), y_domain: tuple[float, float] | None = None,
                ) -> alt.LayerChart:
    """One line (with points) per scale of `y` against d_k on a log₂ axis, the current d_k marked."""
    y_scale = alt.Scale(type="log") if log_y else alt.Scale(zero=False)
    if y_domain is not None:
        y_scale = alt.Scale(type="log" if log_y else "linear", domain=list(y_domain))
    colour = alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                       legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))
    tips = [alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
            alt.Tooltip("dk:Q", title="d_k"), alt.Tooltip(f"{y}:Q", title=y_title, format=".4g")]
    tips += [alt.Tooltip(f"{f}:Q", title=ttl, format=".4g") for f, ttl in tooltips]
    base = alt.Chart(df).encode(x=dk_axis(), y=alt.Y(f"{y}:Q", title=y_title, scale=y_scale),
                                color=colour, tooltip=tips)
    props: dict[str, Any] = {"width": width, "height": height}
    if title:
        props["title"] = alt.TitleParams(title, anchor="start", fontSize=14)
    # Sizes and title given to the layer itself: .properties() would deep-copy the whole chart.
    return layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=36), dk_rule(dk), **props)


@figure_cache
def sweep_figure(rows: list[dict[str, Any]], y: str, y_title: str, scales: list[str], dk: int,
                 columns: tuple[str, ...], log_y: bool = True, title: str | None = None,
                 height: int = HEIGHT, tooltips: tuple[tuple[str, str], ...] = (),
                 y_domain: tuple[float, float] | None = None) -> Figure:
    """`sweep_lines` of core's rows as a cached Figure; the CSV holds `columns`."""
    df = with_scale_labels(rows)
    chart = sweep_lines(df, y, y_title, scales, dk, log_y=log_y, title=title, height=height,
                        tooltips=tooltips, y_domain=y_domain)
    return figure(chart, df[list(columns)])
