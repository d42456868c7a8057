"""Softmax saturation: one draw as a heatmap, one query's weights, metrics vs d_k, entropy over (n, d_k)."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from pages.ui.charts import SMALL_HEIGHT, WIDTH, show_chart, sweep_figure
from pages.ui.compute import cached, run_with_progress
from pages.ui.controls import page_expander, page_select, page_slider
from pages.ui.figure import Figure, figure, figure_cache
from pages.ui.format import HEATMAP_SCHEME, fmt_num, fmt_pct, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import settings

HEAT_SIDE = 340  # the attention heat map's plot, px (square on a desktop)


@figure_cache
def heatmap_figure(cells: list[dict], scale: str) -> Figure:
    """One draw's n×n attention weights."""
    heat = pd.DataFrame(cells).rename(columns={"value": "weight"})
    axis = alt.Axis(labelOverlap=True, labelAngle=0)
    chart = alt.Chart(heat).mark_rect().encode(
        x=alt.X("j:O", title=t("saturation.heat.key"), axis=axis),
        y=alt.Y("i:O", title=t("saturation.heat.query"), axis=alt.Axis(labelOverlap=True)),
        color=alt.Color("weight:Q", title=t("saturation.heat.weight"),
                        scale=alt.Scale(scheme=HEATMAP_SCHEME, domain=[0, 1]),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        tooltip=[alt.Tooltip("i:O", title=t("saturation.heat.query")),
                 alt.Tooltip("j:O", title=t("saturation.heat.key")),
                 alt.Tooltip("weight:Q", format=".4f", title=t("saturation.heat.weight"))],
    ).properties(width=HEAT_SIDE, height=HEAT_SIDE, title=alt.TitleParams(
        t("saturation.heat.title", scale=scale_label(scale)), anchor="start"))
    return figure(chart, heat, max_width=HEAT_SIDE + 70)


@figure_cache
def row_figure(weights: list[dict], query: int) -> Figure:
    """One query's weights over the keys, as bars."""
    row = pd.DataFrame(weights)
    axis = alt.Axis(labelOverlap=True, labelAngle=0)
    chart = alt.Chart(row).mark_bar(color="#0072B2").encode(
        x=alt.X("j:O", title=t("saturation.heat.key"), axis=axis),
        y=alt.Y("weight:Q", title=t("saturation.heat.weight"), scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("j:O", title=t("saturation.heat.key")),
                 alt.Tooltip("score:Q", format=".3f", title="c·q·k"),
                 alt.Tooltip("weight:Q", format=".4f", title=t("saturation.heat.weight"))],
    ).properties(width=WIDTH, height=300,
                 title=alt.TitleParams(t("saturation.bars.title", i=query), anchor="start"))
    return figure(chart, row)


@figure_cache
def grid_figure(rows: list[dict], scale: str) -> Figure:
    """Mean entropy over (n, d_k) for one scale."""
    gdf = pd.DataFrame(rows)
    chart = alt.Chart(gdf).mark_rect().encode(
        x=alt.X("dk:O", title=t("common.axis.dk"), axis=alt.Axis(labelAngle=0)),
        y=alt.Y("n:O", title=t("common.axis.n"), sort="descending"),
        color=alt.Color("entropy_mean:Q", title=t("saturation.grid.entropy"),
                        scale=alt.Scale(scheme=HEATMAP_SCHEME)),
        tooltip=[alt.Tooltip("n:O", title="n"), alt.Tooltip("dk:O", title="d_k"),
                 alt.Tooltip("entropy_mean:Q", format=".3f", title=t("saturation.grid.entropy")),
                 alt.Tooltip("entropy_se:Q", format=".2g", title=t("saturation.grid.se")),
                 alt.Tooltip("ln_n:Q", format=".3f", title="ln n"),
                 alt.Tooltip("entropy_fraction:Q", format=".2f", title=t("saturation.grid.fraction"))],
    ).properties(width=WIDTH + 120, height=300, title=alt.TitleParams(
        t("saturation.grid.title", scale=scale_label(scale)), anchor="start"))
    return figure(chart, gdf, max_width=WIDTH + 120 + 160)


s = settings()
st.title(t("saturation.title"))
st.markdown(t("saturation.claim"))
formula(r"p_{ij}=\frac{e^{c\,s_{ij}}}{\sum_{l} e^{c\,s_{il}}},\quad H(p_i)=-\sum_j p_{ij}\ln p_{ij}"
        r"\in[0,\ln n],\qquad e^{H(p_i)}\in[1,n],\qquad \max_j p_{ij}>0.99")

view = run_with_progress(views.saturation_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials,
                         seed=s.seed, backend=s.backend, dtype=s.dtype)
if view is not None:
    here = views.at_dk(view, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    for row in here["rows"]:
        metrics = metric_row(title=scale_label(row["scale"]))
        metrics.metric(t("saturation.metric.max_weight"), fmt_num(row["max_weight_mean"]))
        metrics.metric(t("saturation.metric.entropy"), fmt_num(row["entropy_mean"]))
        metrics.metric(t("saturation.metric.effective"), fmt_num(row["effective_keys_mean"]))
        metrics.metric(t("saturation.metric.saturated"), fmt_pct(row["saturated_fraction"]))
    st.caption(t("saturation.metrics_caption", rows=view["trials"] * s.n, trials=view["trials"], n=s.n,
                 dk=s.dk, ln_n=fmt_num(view["ln_n"])))

    c1, c2 = st.columns(2)
    usable = [x for x in view["scales"] if x not in here["skipped"]] or ["none"]
    scale = page_select("sat_scale", "saturation.scale", usable, usable[0], container=c1,
                        format_func=scale_label)
    query = page_slider("sat_query", "saturation.query", 0, s.n - 1, 0, container=c2)

    draw = cached(views.one_draw, dk=s.dk, n=s.n, scale=scale, seed=s.seed, query=query)
    if draw is not None:
        left, right = st.columns(2, gap="medium")
        with left:
            show_chart(heatmap_figure(draw["heatmap"], scale), name="saturation-heatmap")
            if draw["heat_factor"] > 1:
                st.caption(t("saturation.heat.downsampled", n=s.n, f=draw["heat_factor"]))
        with right:
            show_chart(row_figure(draw["row"], query), name="saturation-row")
            st.caption(t("saturation.bars.caption", maxw=fmt_num(draw["row_max_weight"]),
                         h=fmt_num(draw["row_entropy"]), eff=fmt_num(draw["row_effective_keys"]),
                         sat=draw["saturated_rows"], n=s.n))

    st.subheader(t("saturation.curves"))
    metrics = [("max_weight_mean", "saturation.axis.max_weight", False, (0.0, 1.0)),
               ("entropy_mean", "saturation.axis.entropy", False, None),
               ("effective_keys_mean", "saturation.axis.effective", True, None),
               ("saturated_fraction", "saturation.axis.saturated", False, (0.0, 1.0))]

    def curves(pair: list[tuple[str, str, bool, tuple[float, float] | None]]) -> None:
        cols = st.columns(2, gap="medium")
        for col, (field, key, log_y, domain) in zip(cols, pair, strict=True):
            with col:
                fig = sweep_figure(view["rows"], field, t(key), view["scales"], s.dk,
                                   columns=("dk", "n", "scale", field), log_y=log_y, y_domain=domain,
                                   height=SMALL_HEIGHT + 20)
                show_chart(fig, name=f"saturation-{field}")

    curves(metrics[:2])
    # Read less often, and the grid is the page's costliest computation: drawn only when opened.
    more, more_open = page_expander("sat_more", "saturation.more")
    if more_open:
        with more:
            curves(metrics[2:])
            grid = run_with_progress(views.entropy_grid, scale=scale, trials=s.trials, seed=s.seed,
                                     backend=s.backend, dtype=s.dtype)
            if grid is not None:
                show_chart(grid_figure(grid["rows"], scale), name="saturation-entropy-grid")
                st.caption(t("saturation.grid.caption"))
    what_to_notice("saturation.notice")
