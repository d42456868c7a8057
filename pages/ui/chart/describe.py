"""A chart's text alternative, computed from its own Vega-Lite and data (WCAG 1.1.1): one or two
sentences a screen reader reads in place of the picture, in the page's language.

`read_panel()` finds what a panel shows — its main layer (a heat map, the solid lines, the points,
the bars), its x, y and colour fields with their axis titles, the series — and `describe_panel()`
says it in words:

- lines and swept points: per series its first and last values and a verdict — "stays near m" when
  its values vary by at most STAY_RELATIVE (20 %) of their largest magnitude, or, beside other
  series, by at most STAY_SHARE (10 %) of the spread of all series together (on a log axis measured
  in decades); else "rises" / "falls" (from the first value to the last), or "peaks" / "dips" when
  an inner extreme passes both ends by more than STAY_RELATIVE of the series' spread;
- scattered points: how many, and the range of x and of y;
- bars (a histogram, one query's weights): the range of the bars and where the highest is;
- heat maps: the grid's size, the range of the colour and where its maximum is.

Numbers are written by the app's formatter (pages/ui/format.py). A builder whose chart a generic
sentence would misread passes its own (figure(…, description=…)). Layer filters are not applied: a
chart that splits one table over layers by a filter (one style per series) is read as the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pages.ui.chart.channels import mark_type
from pages.ui.format import fmt_num
from pages.ui.i18n import current_lang, text_for

STAY_RELATIVE = 0.2
STAY_SHARE = 0.1
VALUE_DIGITS, X_DIGITS = 3, 6  # a value's significant digits; an x setting's (d_k = 16384)
CATEGORICAL = ("nominal", "ordinal")
SERIES_CHANNELS = ("color", "strokeDash", "shape", "fillOpacity", "detail")
# The layer a panel is read from, best first: a heat map, plain lines, points, bars, a reference line
# (dashed, or in one fixed colour), an area, ticks.
RANK = {"heatmap": 0, "line": 1, "point": 2, "circle": 2, "square": 2, "bar": 3, "reference": 4,
        "area": 5, "tick": 6}


@dataclass(frozen=True)
class Field:
    """A data column and the title the chart gives it."""

    name: str
    title: str
    categorical: bool = False


@dataclass(frozen=True)
class Panel:
    """What one panel of a chart shows. kind: "heatmap", "lines", "points", "scatter", "bars" or ""
    (nothing readable); x and y: the axes' fields (for bars x holds the categories, y the lengths,
    whichever way they are drawn); value: a heat map's colour field; series: the fields that tell
    lines, points or bars apart; extra: other numbers drawn from the same table (for the data table)."""

    kind: str
    title: str | None
    data: pd.DataFrame | None = None
    x: Field | None = None
    y: Field | None = None
    value: Field | None = None
    series: tuple[Field, ...] = ()
    extra: tuple[Field, ...] = ()
    log_y: bool = False
    order: tuple[str, ...] = ()  # the first series field's categories in the legend's order


def _text(title: Any) -> str | None:
    if isinstance(title, list):
        return " ".join(str(x) for x in title)
    if isinstance(title, dict):
        return _text(title.get("text"))
    return title if isinstance(title, str) and title.strip() else None


def _units(spec: dict[str, Any], data: str | None = None) -> list[tuple[dict[str, Any], str | None]]:
    """(unit spec, the name of the data it draws) for every mark, layers included."""
    own = spec.get("data")
    data = own.get("name", data) if isinstance(own, dict) else data
    found = [(spec, data)] if "mark" in spec else []
    for sub in spec.get("layer") or []:
        found += _units(sub, data)
    return found


def _channels(enc: dict[str, Any]) -> list[dict[str, Any]]:
    """The encoding's field channels, the drawn ones before the tooltip (whose titles are terser)."""
    out = []
    for _, value in sorted(enc.items(), key=lambda kv: kv[0] == "tooltip"):
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict) and isinstance(v.get("field"), str):
                out.append(v)
    return out


def _role(unit: dict[str, Any]) -> str | None:
    kind, enc = mark_type(unit), unit.get("encoding") or {}
    mark = unit["mark"] if isinstance(unit["mark"], dict) else {}
    has = {c for c in ("x", "y", "color") if isinstance(enc.get(c), dict) and enc[c].get("field")}
    if kind == "rect" and has == {"x", "y", "color"} and enc["color"].get("type") == "quantitative":
        return "heatmap"
    if not {"x", "y"} <= has:
        return None
    if kind == "line" and ("strokeDash" in mark or ("color" in mark and "color" not in has)):
        return "reference"
    return kind if kind in RANK else None


def read_panel(spec: dict[str, Any], frames: dict[str, pd.DataFrame], title: str | None = None,
               lang: str | None = None) -> Panel:
    """What the panel `spec` (Vega-Lite, its datasets named in `frames`) shows; see Panel."""
    lang = lang or current_lang()
    units = _units(spec)
    titles: dict[str, str] = {}
    for unit, _ in units:
        for ch in _channels(unit.get("encoding") or {}):
            if (text := _text(ch.get("title"))) is not None:
                titles.setdefault(ch["field"], text)
    ranked = [(RANK[r], i, unit, data) for i, (unit, data) in enumerate(units)
              if (r := _role(unit)) is not None and data in frames]
    if not ranked:
        return Panel(kind="", title=title, data=next(iter(frames.values()), None))
    _, _, unit, data = min(ranked, key=lambda r: r[:2])
    enc, role, df = unit["encoding"], _role(unit), frames[data]

    def field(ch: dict[str, Any]) -> Field:
        categorical = ch.get("type") in CATEGORICAL
        # a field the chart leaves untitled (labels that speak for themselves) is named generically
        fallback = text_for("charts.desc.category", lang) if categorical else ch["field"]
        return Field(ch["field"], titles.get(ch["field"], fallback), categorical)

    x, y = field(enc["x"]), field(enc["y"])
    if role == "bar" and y.categorical and not x.categorical:
        x, y = y, x  # horizontal bars: the categories are on y
    value = field(enc["color"]) if role == "heatmap" else None
    series: list[Field] = []
    for channel in SERIES_CHANNELS:
        for ch in enc.get(channel) if isinstance(enc.get(channel), list) else [enc.get(channel)]:
            if (isinstance(ch, dict) and ch.get("field") in df and ch.get("type") in CATEGORICAL
                    and ch["field"] not in {x.name, y.name} | {s.name for s in series}):
                series.append(field(ch))
    order: tuple[str, ...] = ()
    if series:
        domain = ((enc.get("color") or {}).get("scale") or {}).get("domain")
        order = tuple(str(v) for v in domain) if isinstance(domain, list) else ()
    skip = {x.name, y.name, *(s.name for s in series), *([value.name] if value else [])}
    extra: list[Field] = []
    for other, name in units:
        if name != data:
            continue
        oe = other.get("encoding") or {}
        for ch in [oe.get("y"), oe.get("y2"), *(oe.get("tooltip") or [])]:
            if (isinstance(ch, dict) and ch.get("field") in df and ch.get("type") == "quantitative"
                    and ch["field"] not in skip):
                skip.add(ch["field"])
                extra.append(field(ch))
    kind = {"heatmap": "heatmap", "bar": "bars", "line": "lines", "reference": "lines"}.get(role, "points")
    if kind == "points" and not _swept(df, x.name, [s.name for s in series]):
        kind = "scatter"
    log_y = ((enc["y"].get("scale") or {}).get("type") == "log") if kind != "bars" else False
    return Panel(kind=kind, title=title, data=df, x=x, y=y, value=value, series=tuple(series),
                 extra=tuple(extra), log_y=log_y, order=order)


def _swept(df: pd.DataFrame, x: str, series: list[str]) -> bool:
    """Points read as a sweep (a value per setting of x) when each series lists its x values in
    increasing order, once each; measured x values in no order make a scatter."""
    groups = df.groupby(series, sort=False)[x] if series else [(None, df[x])]
    return all(pd.Series(v).is_monotonic_increasing and pd.Series(v).is_unique for _, v in groups)


def _num(v: Any, digits: int = VALUE_DIGITS) -> str:
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return fmt_num(float(v), digits)
    return str(v)


def series_groups(panel: Panel) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows) per series of the panel, in the legend's order; one unnamed group without series."""
    df = panel.data
    if not panel.series:
        return [("", df)]
    rank = {v: i for i, v in enumerate(panel.order)}
    groups = []
    for value, rows in df.groupby([s.name for s in panel.series], sort=False):
        key = value if isinstance(value, tuple) else (value,)
        groups.append((rank.get(str(key[0]), len(rank)), ", ".join(str(k) for k in key), rows))
    return [(label, rows) for _, label, rows in sorted(groups, key=lambda g: g[0])]


def _cleaned(xs: np.ndarray, ys: np.ndarray, log: bool) -> tuple[np.ndarray, np.ndarray]:
    """One series' x and y without NaNs (nor, on a log axis, values it cannot show), sorted by x."""
    keep = ~pd.isna(xs) & np.isfinite(ys) & ((ys > 0) if log else True)
    xs, ys = xs[keep], ys[keep]
    if np.issubdtype(xs.dtype, np.number):
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
    return xs, ys


def series_arrays(panel: Panel, x: str, y: str, log: bool) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(label, x, y) per series, in the legend's order, sorted by x, without NaNs (nor, on a log axis,
    values it cannot show): from one grouping of row positions instead of a DataFrame per
    series (a chart is described each time it is built: for a page of new charts this was half of
    building them)."""
    df = panel.data
    xs_all = df[x].to_numpy()
    ys_all = pd.to_numeric(df[y], errors="coerce").to_numpy(dtype=float)
    if not panel.series:
        return [("", *_cleaned(xs_all, ys_all, log))]
    rank = {v: i for i, v in enumerate(panel.order)}
    groups = []
    for value, positions in df.groupby([s.name for s in panel.series], sort=False).indices.items():
        key = value if isinstance(value, tuple) else (value,)
        groups.append((rank.get(str(key[0]), len(rank)), int(positions[0]), ", ".join(str(k) for k in key),
                       positions))
    groups.sort(key=lambda g: g[:2])  # the legend's order; equal ranks in order of appearance
    return [(label, *_cleaned(xs_all[pos], ys_all[pos], log)) for _, _, label, pos in groups]


def verdict(xs: np.ndarray, ys: np.ndarray, log: bool, all_spread: float, x_title: str, lang: str) -> str:
    """One series' course in words (see the module's docstring for the thresholds)."""
    def say(key: str, **kw: Any) -> str:
        return text_for(f"charts.desc.{key}", lang).format(**kw)

    if len(ys) == 1:
        return say("one_point", a=_num(ys[0]), x=x_title, at=_num(xs[0], X_DIGITS))
    v = np.log10(ys) if log else ys
    spread = float(v.max() - v.min())
    if (float(ys.max() - ys.min()) <= STAY_RELATIVE * float(np.abs(ys).max())
            or (all_spread > 0 and spread <= STAY_SHARE * all_spread)):
        return say("stays", m=_num(float(np.median(ys))))
    a, b = _num(ys[0]), _num(ys[-1])
    hi, lo = int(np.argmax(v)), int(np.argmin(v))
    margin = STAY_RELATIVE * spread
    if 0 < hi < len(v) - 1 and v[hi] - max(v[0], v[-1]) > margin:
        return say("peaks", a=a, b=b, m=_num(ys[hi]), x=x_title, at=_num(xs[hi], X_DIGITS))
    if 0 < lo < len(v) - 1 and min(v[0], v[-1]) - v[lo] > margin:
        return say("dips", a=a, b=b, m=_num(ys[lo]), x=x_title, at=_num(xs[lo], X_DIGITS))
    return say("rises" if ys[-1] > ys[0] else "falls", a=a, b=b)


def describe_panel(panel: Panel, lang: str) -> str:
    """One panel in words (without its title)."""
    def say(key: str, **kw: Any) -> str:
        return text_for(f"charts.desc.{key}", lang).format(**kw)

    df = panel.data
    if not panel.kind or df is None or panel.x is None or panel.y is None or df.empty:
        return say("rows", rows=0 if df is None else len(df))
    x, y = panel.x, panel.y
    sep = say("sep")

    def named(label: str, part: str) -> str:
        return say("named", name=label, part=part) if label else part

    if panel.kind == "heatmap":
        value = panel.value
        xs, ys = df[x.name].to_numpy(), df[y.name].to_numpy()
        values = pd.to_numeric(df[value.name], errors="coerce").to_numpy(dtype=float)
        keep = ~pd.isna(xs) & ~pd.isna(ys) & ~np.isnan(values)
        xs, ys, values = xs[keep], ys[keep], values[keep]
        if not len(values):
            return say("rows", rows=len(df))
        top = int(np.argmax(values))
        return say("heatmap", value=value.title, x=x.title, y=y.title, nx=len(pd.unique(xs)),
                   ny=len(pd.unique(ys)), lo=_num(values.min()), hi=_num(values.max()),
                   xa=_num(xs[top], X_DIGITS), ya=_num(ys[top], X_DIGITS))
    if panel.kind == "scatter":
        xs, ys = df[x.name].astype(float), df[y.name].astype(float)
        return say("scatter", count=len(df), x=x.title, y=y.title, x0=_num(xs.min()), x1=_num(xs.max()),
                   y0=_num(ys.min()), y1=_num(ys.max()))
    if panel.kind == "bars":
        parts = []
        for label, rows in series_groups(panel):
            part = rows[[x.name, y.name]].dropna()
            top = part.loc[part[y.name].idxmax()]
            lengths = part[y.name]
            parts.append(named(label, say("bar_part", lo=_num(lengths.min()), hi=_num(lengths.max()),
                                          x=x.title, at=_num(top[x.name], X_DIGITS))))
        cats = df[x.name].drop_duplicates()
        if x.categorical and not pd.api.types.is_numeric_dtype(cats):
            return say("bars_nominal", y=y.title, x=x.title, count=len(cats), parts=sep.join(parts))
        return say("bars", y=y.title, x=x.title, count=len(cats), x0=_num(cats.min(), X_DIGITS),
                   x1=_num(cats.max(), X_DIGITS), parts=sep.join(parts))
    cleaned = [(label, xs, ys) for label, xs, ys in series_arrays(panel, x.name, y.name, panel.log_y)
               if len(ys)]
    if not cleaned:
        return say("rows", rows=len(df))
    every = np.concatenate([np.log10(ys) if panel.log_y else ys for _, _, ys in cleaned])
    all_spread = float(every.max() - every.min()) if len(cleaned) > 1 else 0.0
    parts = [named(label, verdict(xs, ys, panel.log_y, all_spread, x.title, lang))
             for label, xs, ys in cleaned]
    xs_all = np.concatenate([xs for _, xs, _ in cleaned])
    numeric = np.issubdtype(xs_all.dtype, np.number)
    return say("sweep", y=y.title, x=x.title, x0=_num(xs_all.min() if numeric else xs_all[0], X_DIGITS),
               x1=_num(xs_all.max() if numeric else xs_all[-1], X_DIGITS), parts=sep.join(parts))


def describe(panels: list[Panel], title: str | None = None, lang: str | None = None) -> str:
    """The whole chart in words: its common title, then each panel with its own title."""
    lang = lang or current_lang()
    lead = text_for("charts.desc.lead", lang)
    out = [lead.format(title=title.rstrip(". 。")) if title else ""]
    for panel in panels:
        head = lead.format(title=panel.title.rstrip(". 。")) if panel.title and panel.title != title else ""
        out.append(head + describe_panel(panel, lang))
    return " ".join(" ".join(p for p in out if p).split())  # one line, single spaces
