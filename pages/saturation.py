"""Softmax saturation: one draw as a heatmap, one query's weights, metrics vs d_k, entropy over (n, d_k)."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from core.page_claims import saturation as claims
from pages.ui.chart.charts import SMALL_HEIGHT, WIDTH, show_chart, sweep_figure
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import cached, run_with_progress
from pages.ui.controls import page_expander, page_select, page_slider
from pages.ui.format import HEATMAP_SCHEME, fmt_num, fmt_pct, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row
from pages.ui.sidebar import settings
from pages.ui.url_state import from_url, parse_flag, want

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
def row_figure(weights: list[dict], query: int, top: bool) -> Figure:
    """One query's weights over the keys, as bars; `top`: it is the draw's most saturated row."""
    row = pd.DataFrame(weights)
    axis = alt.Axis(labelOverlap=True, labelAngle=0)
    chart = alt.Chart(row).mark_bar(color="#0072B2").encode(
        x=alt.X("j:O", title=t("saturation.heat.key"), axis=axis),
        y=alt.Y("weight:Q", title=t("saturation.heat.weight"), scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("j:O", title=t("saturation.heat.key")),
                 alt.Tooltip("score:Q", format=".3f", title="c·q·k"),
                 alt.Tooltip("weight:Q", format=".4f", title=t("saturation.heat.weight"))],
    ).properties(width=WIDTH, height=300, title=alt.TitleParams(
        t("saturation.bars.title_top" if top else "saturation.bars.title", i=query), anchor="start"))
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


def query_control(n: int, container: object) -> int | None:
    """The row the bars show: None (the draw's most saturated row, core.views.one_draw) while "Show the
    most saturated row" is on, else the slider's row. Bound to the URL as ?sat_top=0|1 and ?sat_query=i:
    a link that names a row but not the toggle (the links made before the toggle) shows that row, so the
    toggle's default is on only when the link names no row, and it goes to the URL when it differs
    from what a fresh load of the link would infer."""
    from_url("sat_top", lambda raw: parse_flag(raw, "sat_query" not in st.query_params))
    container.toggle(t("saturation.query.auto"), key="sat_top", help=t("saturation.query.auto_help"))
    auto = bool(st.session_state["sat_top"])
    if st.session_state.get("sat_query", 0) > n - 1:  # n went down since the row was picked
        st.session_state["sat_query"] = n - 1
    row = page_slider("sat_query", "saturation.query", 0, n - 1, 0, container=container, shown=not auto)
    want("sat_top", auto, row == 0)  # a fresh load infers "on" exactly when ?sat_query is absent (row 0)
    return None if auto else row


def say(statement: claims.Statement, prefix: str, **extra: object) -> str:
    """A statement's wording, its measured figures formatted as the page formats numbers."""
    v = {k: (fmt_pct(x) if k == "sat" else fmt_num(x) if isinstance(x, float) else x)
         for k, x in statement.values.items()}
    return t(f"{prefix}.{statement.kind}", **{**v, **extra})


s = settings()
head = st.container()  # the title, worded once the page has measured (core/page_claims/saturation.py)
st.markdown(t("saturation.intro"))
# Each \qquad part fits a phone's width, so a formula wraps between parts, never inside one.
formula(r"p_{ij}=\frac{e^{c\,s_{ij}}}{\sum_{l} e^{c\,s_{il}}},\qquad H(p_i)=-\sum_j p_{ij}\ln p_{ij},"
        r"\qquad 0\le H(p_i)\le\ln n,\qquad 1\le e^{H(p_i)}\le n,\qquad \max_j p_{ij}>0.99")
st.caption(t("saturation.terms"))
claim_box = st.container()

view = run_with_progress(views.saturation_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials,
                         seed=s.seed, backend=s.backend, dtype=s.dtype)
title = claims.title(view) if view is not None else claims.Statement(claims.HOLDS)
head.title(t("saturation.title" if title.kind == claims.HOLDS else "saturation.title.unseen"))
if view is not None:
    claim = claims.one_key_wins(view, s.dk, s.n)
    more = ""
    if claim.kind == claims.WINS:
        start = claim.values["all_from"]
        more = t("saturation.claim.all_from", d=start) if start is not None else \
            t("saturation.claim.all_never", d=claim.values["dk_max"])
    text = say(claim, "saturation.claim", start=claim.values.get("from"), more=more)
    scaled = claims.scaled_spread(view, s.dk, s.n)
    sep = "" if s.lang == "zh" else " "  # sentences follow each other without a space in Chinese
    if scaled.kind != claims.ABSENT:
        text += sep + say(scaled, "saturation.scaled")
    if s.n == 2:
        text += sep + t("saturation.claim.two_keys")
    claim_box.markdown(text)

    here = views.at_dk(view, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    for row in here["rows"]:
        metrics = metric_row(title=scale_label(row["scale"]))
        metrics.metric(t("saturation.metric.max_weight"), fmt_num(row["max_weight_mean"]),
                       help=t("saturation.help.max_weight"))
        metrics.metric(t("saturation.metric.entropy"), fmt_num(row["entropy_mean"]),
                       help=t("saturation.help.entropy"))
        metrics.metric(t("saturation.metric.effective"), fmt_num(row["effective_keys_mean"]),
                       help=t("saturation.help.effective"))
        metrics.metric(t("saturation.metric.saturated"), fmt_pct(row["saturated_fraction"]),
                       help=t("saturation.help.saturated"))
        st.caption(t(f"saturation.level.{claims.level(row)}"))
    st.caption(t("saturation.metrics_caption", rows=view["trials"] * s.n, trials=view["trials"], n=s.n,
                 dk=s.dk, ln_n=fmt_num(view["ln_n"])))

    c1, c2 = st.columns(2)
    usable = [x for x in view["scales"] if x not in here["skipped"]] or ["none"]
    scale = page_select("sat_scale", "saturation.scale", usable, usable[0], container=c1,
                        format_func=scale_label)
    query = query_control(s.n, c2)

    draw = cached(views.one_draw, dk=s.dk, n=s.n, scale=scale, seed=s.seed, query=query)
    if draw is not None:
        top = draw["query"] == draw["most_saturated_query"]
        left, right = st.columns(2, gap="medium")
        with left:
            show_chart(heatmap_figure(draw["heatmap"], scale), name="saturation-heatmap")
            if draw["heat_factor"] > 1:
                st.caption(t("saturation.heat.downsampled", n=s.n, f=draw["heat_factor"]))
        with right:
            show_chart(row_figure(draw["row"], draw["query"], top), name="saturation-row")
            shown = {"i": draw["query"], "maxw": fmt_num(draw["row_max_weight"]),
                     "top": draw["most_saturated_query"]}
            st.caption(t("saturation.bars.shown_top" if top else "saturation.bars.shown_pick", **shown))
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
    notes = (claims.unscaled_trend(view), claims.scaled_entropy(view, s.n))
    notice = [say(x, "saturation.notice") for x in notes if x.kind != claims.ABSENT]
    if notice:
        st.info(f"**{t('common.what_to_notice')}** — {sep.join(notice)}", icon=":material/visibility:")
