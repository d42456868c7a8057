"""Drawing a page's figures: `show_chart`, the helpers that build charts without Altair's copies, and
the d_k sweep every topic page draws.

- `show_chart(fig, name=…)`: a Figure (pages/ui/chart/figure.py) at its container's width (panels side by
  side, stacked on a phone), plus CSV / PNG / SVG downloads at the chart's fixed desktop size
  (pages/ui/chart/export.py, rendered only when clicked);
- `layered()` / `side_by_side()`: alt.layer / alt.hconcat without their deep copies where there is
  nothing to reconcile;
- `dk_axis()`, `dk_rule()`, `sweep_figure()`: the log₂ d_k axis, the current d_k marked, and one line
  per scale of a quantity against d_k.
"""

from __future__ import annotations

import re
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from altair.vegalite.v6.schema import core as vl_core

from pages.ui.chart.chart_text import show_description, show_tables, tables_shown
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.format import scale_colours, scale_label
from pages.ui.i18n import current_lang, t

WIDTH, HEIGHT = 400, 260        # one chart in a two-column row (plot area; axes and legend add ~90 px)
WIDE_WIDTH = 900                # one chart across the page
SMALL_WIDTH, SMALL_HEIGHT = 280, 200


def _md_text(text: str) -> str:
    """Our own text, shown literally inside Markdown (titles hold d_k, ρ, …)."""
    return re.sub(r"([\\`*_\[\]$<>~])", r"\\\1", text)


def show_chart(fig: Figure, name: str = "chart", container: Any = None, downloads: bool = True) -> None:
    """Draw a Figure at its container's width, with its data as CSV and itself as PNG / SVG (at its
    fixed desktop size) behind a download button; its text alternative before it, for screen
    readers, and its data as tables under it when the reader asked for them (pages/ui/chart/chart_text.py).

    The files are produced only when a button is clicked (callables), so a rerun stays fast.
    `name` is the file stem ("saturation-entropy"); the language is appended. `downloads=False`
    draws the chart alone (the lesson's projector screen has no room for the button).
    """
    where = container or st
    width: int | str = fig.max_width or "stretch"
    show_description(fig, where)
    if len(fig.views) == 1:
        where.vega_lite_chart(spec=fig.views[0], width=width)
    elif fig.views:
        if fig.title:
            where.markdown(f"**{_md_text(fig.title)}**")
        for col, view in zip(where.columns(len(fig.views), gap="small"), fig.views, strict=True):
            col.vega_lite_chart(spec=view, width=width)
    if tables_shown():
        show_tables(fig, where)
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
