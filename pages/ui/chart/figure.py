"""Figures: charts built once, drawn cheaply.

Turning an Altair chart into a Vega-Lite spec (validation included) costs tens of milliseconds per
chart, and a page has up to eight: that was most of a warm rerun. A page therefore builds each chart
in a function decorated with `@figure_cache`: the function runs once per distinct arguments (and
language) for every session of the server, and every rerun reuses the `Figure` it returned, drawn
with st.vega_lite_chart from a ready dict whose data are already Arrow bytes (pages/ui/chart/charts.py).

Importing this module changes nothing outside it: the app's start (pages/ui/app_start.py) registers
`FIGURES.drop_unused` with the server's janitor and calls `altair_without_debug_mode()`
(docs/architecture.md#start-up).
"""

from __future__ import annotations

import dis
import functools
import hashlib
import marshal
import pickle
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import pandas as pd
from altair.utils import schemapi

from pages.ui.chart.describe import Panel, describe, read_panel
from pages.ui.chart.export import Export
from pages.ui.chart.vega import frame_bytes, view
from pages.ui.i18n import current_lang
from server.cache import SharedCache

FIGURE_CACHE_BYTES = 48 * 2**20  # every built chart, all sessions together
FIGURE_CACHE_ENTRIES = 1024


def altair_without_debug_mode() -> None:
    """Switch Altair's debug mode off for the whole process, once, as the app starts.

    Altair checks every schema object against the Vega-Lite schema as it is created ("debug mode"),
    which cost a tenth of building a chart. It is never switched back: Altair's own copy() brackets
    itself with `debug_mode(False)`, saving and restoring this one global, so with sessions building
    charts on several threads at once it could end up either way at random anyway. The specs the
    pages send are validated against the schema by the tests instead (tests/test_charts.py)."""
    schemapi.disable_debug_mode()


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
    export:    chart and data pickled, for the download buttons (Export);
    description: the chart in one or two sentences, its text alternative (pages/ui/chart/describe.py),
               also each view's Vega-Lite `description` (the accessible name of the drawn chart);
    panels:    what each view shows, read from its spec and data (the data tables are built from it);
    cache:     what is built from it only when first asked for (pages/ui/chart/chart_text.py: the tables).
    """

    chart: Any
    data: pd.DataFrame
    views: tuple[dict[str, Any], ...]
    title: str | None
    max_width: int | None
    nbytes: int
    export: Export
    description: str = ""
    panels: tuple[Panel, ...] = ()
    cache: dict[str, Any] = field(default_factory=dict)  # parts built on first use (the data tables)


def _title_text(title: Any) -> str | None:
    if isinstance(title, alt.TitleParams):
        title = title.text
    if isinstance(title, (list, tuple)):
        return " ".join(str(x) for x in title)
    return None if title is alt.Undefined or title is None else str(title)


def figure(chart: Any, data: pd.DataFrame, *, panels: list[Any] | None = None,
           max_width: int | None = None, description: str | None = None) -> Figure:
    """A Figure from an Altair chart at its fixed desktop size (what the downloads render).

    Side-by-side charts (an hconcat, or `panels` given for a facet) are drawn as separate panels in
    columns, which stack on a phone; their common title goes above them. `max_width` keeps a
    heat map near square on a wide screen. The text alternative is computed from each panel's spec
    and data (pages/ui/chart/describe.py) unless the builder gives its own `description`.
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
    views, read, size = [], [], 0
    for panel in panels or [chart]:
        frames: dict[str, pd.DataFrame] = {}
        spec, n = view(panel, frames)
        views.append(spec)
        read.append(read_panel(spec, frames, _title_text(panel._get("title"))))
        size += n
    if description is None:
        description = describe(read, title)
    for spec, panel in zip(views, read, strict=True):  # each drawn panel is named by its own part
        spec["description"] = description if len(views) == 1 else describe([panel], title)
    size += frame_bytes(data) + 4 * len(description)
    export = Export(chart, data, description)
    return Figure(chart=chart, data=data, views=tuple(views), title=title, max_width=max_width,
                  nbytes=size + export.nbytes, export=export, description=description, panels=tuple(read))


FIGURES: SharedCache[Figure] = SharedCache(FIGURE_CACHE_BYTES, FIGURE_CACHE_ENTRIES, lambda fig: fig.nbytes)
# the janitor empties it of what no session used lately: registered by the app's start (app_start.py)


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
        return FIGURES.get_or_compute(key, lambda _flight: build(*args, **kwargs))

    return cached_build
