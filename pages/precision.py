"""Precision: naive vs stable softmax in float16 / bfloat16 / float32 as d_k grows, and the −1e9 mask."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from core.page_claims import precision as claims
from pages.ui.chart.charts import (
    SMALL_WIDTH,
    WIDTH,
    dk_axis,
    dk_rule,
    layered,
    show_chart,
    side_by_side,
    with_scale_labels,
)
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import run_with_progress
from pages.ui.format import fmt_num, fmt_pct, scale_colours, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row, show_table
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import settings

DTYPES = ("float16", "bfloat16", "float32")
STABLE_DASH = (6, 4)  # the stable softmax's curves (the naive ones are solid)


def _colour(scales: list[str]) -> alt.Color:
    return alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                     legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))


@figure_cache
def logit_figure(rows: list[dict], scales: list[str], dk: int, overflow_logit: float, fp16_max: float
                 ) -> Figure:
    """The largest logit vs d_k per scale, with float16's limits as labelled rules."""
    df = with_scale_labels(rows)
    logits = df[df["dtype"] == "float32"][["dk", "scale", "scale_label", "max_logit"]]
    base = alt.Chart(logits).encode(
        x=dk_axis(), y=alt.Y("max_logit:Q", title=t("precision.logit.y"), scale=alt.Scale(type="log")),
        color=_colour(scales),
        tooltip=[alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
                 alt.Tooltip("dk:Q", title="d_k"),
                 alt.Tooltip("max_logit:Q", format=".4g", title=t("precision.logit.y"))])
    # The two limits are told apart by their dash and named in the chart's subtitle, above the plot:
    # a label drawn on a rule inside the plot is crossed by every line that passes the limit near it.
    limits = pd.DataFrame({"y": [overflow_logit, fp16_max],
                           "label": [t("precision.logit.exp_line"), t("precision.logit.max_line")]})
    tip = [alt.Tooltip("label:N", title=t("precision.logit.limits"))]
    exp_rule = alt.Chart(limits.iloc[[0]]).mark_rule(color="#555555", strokeWidth=1.5, strokeDash=[2, 3])
    max_rule = alt.Chart(limits.iloc[[1]]).mark_rule(color="#555555", strokeWidth=1.5,
                                                      strokeDash=[8, 3, 2, 3])
    chart = layered(
        base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=36),
        exp_rule.encode(y=alt.Y("y:Q"), tooltip=tip), max_rule.encode(y=alt.Y("y:Q"), tooltip=tip),
        dk_rule(dk), width=WIDTH, height=320,
        title=alt.TitleParams(t("precision.logit.title"), anchor="start",
                              subtitle=[t("precision.logit.key_exp"), t("precision.logit.key_max")]))
    return figure(chart, logits[["dk", "scale", "max_logit"]])


@figure_cache
def nan_figure(rows: list[dict], scales: list[str], dk: int) -> Figure:
    """Rows with a non-finite weight vs d_k, naive vs stable softmax, one panel per dtype. The
    download is one picture with both legends; on screen the panels sit side by side (stacked on a
    phone), the first carrying the scale legend and the second the method legend."""
    df = with_scale_labels(rows)
    long = df.melt(id_vars=["dk", "scale", "scale_label", "dtype"], var_name="method", value_name="fraction",
                   value_vars=["naive_nonfinite_fraction", "stable_nonfinite_fraction"])
    names = {"naive_nonfinite_fraction": t("precision.method.naive"),
             "stable_nonfinite_fraction": t("precision.method.stable")}
    long["method"] = long["method"].map(names)

    def panel(dtype: str, colour_legend: bool = True, dash_legend: bool = True) -> alt.LayerChart:
        colour = _colour(scales)
        if not colour_legend:
            colour = colour.legend(None)
        dash = alt.StrokeDash("method:N", title=t("precision.method"),
                              scale=alt.Scale(domain=list(names.values()), range=[[1, 0], list(STABLE_DASH)]),
                              legend=alt.Legend(orient="bottom", labelLimit=260, symbolType="stroke",
                                                symbolStrokeColor="#555555", symbolStrokeWidth=2,
                                                symbolSize=400) if dash_legend else None)
        base = alt.Chart(long[long["dtype"] == dtype]).encode(
            x=dk_axis(), y=alt.Y("fraction:Q", title=t("precision.nan.y"), scale=alt.Scale(domain=[0, 1]),
                                 axis=alt.Axis(format="%")),
            color=colour,
            tooltip=[alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
                     alt.Tooltip("method:N", title=t("precision.method")), alt.Tooltip("dk:Q", title="d_k"),
                     alt.Tooltip("fraction:Q", format=".1%", title=t("precision.nan.y"))])
        naive = base.transform_filter(alt.datum.method == names["naive_nonfinite_fraction"])
        stable = base.transform_filter(alt.datum.method == names["stable_nonfinite_fraction"])
        # The stable curves are drawn last, dashed over the solid naive ones, with larger hollow
        # markers (each scale keeps its shape); where two stable curves coincide their dashes
        # alternate (each scale's dash shifted by its share of the period), so every curve shows.
        period = sum(STABLE_DASH)
        stable_lines = [stable.transform_filter(alt.datum.scale == name).mark_line(
            strokeWidth=2, strokeDashOffset=i * period / len(scales)).encode(strokeDash=dash)
            for i, name in enumerate(scales)]
        return layered(naive.mark_line(strokeWidth=3).encode(strokeDash=dash),
                       naive.mark_point(size=20, filled=True), *stable_lines,
                       stable.mark_point(size=80, filled=False, strokeWidth=1.5),
                       dk_rule(dk), width=SMALL_WIDTH - 20, height=200, title=dtype)

    chart = side_by_side(*[panel(d) for d in DTYPES]).properties(
        title=alt.TitleParams(t("precision.nan.title"), anchor="start"))
    shown = [panel(DTYPES[0], dash_legend=False), panel(DTYPES[1], colour_legend=False),
             panel(DTYPES[2], colour_legend=False, dash_legend=False)]
    return figure(chart, long[["dk", "scale", "dtype", "method", "fraction"]], panels=shown)


def verdict_text(v: claims.PrecisionVerdict) -> str:
    """The page's one-line verdict on float16 and √d_k, in words, from its measured figures."""
    if v.kind == claims.INCOMPLETE:
        return t("precision.verdict.incomplete", none=scale_label("none"), sqrt=scale_label("sqrt"))
    return t(f"precision.verdict.{v.kind}", dk=v.dk, other=v.naive_fail_dk, naive_none=fmt_pct(v.naive_none),
             naive_sqrt=fmt_pct(v.naive_sqrt), stable_none=fmt_pct(v.stable_none),
             stable_sqrt=fmt_pct(v.stable_sqrt))


def coincide_text(rows: list[dict]) -> str:
    """Which curves of the NaN-rows panels lie on one another (core.page_claims), panels with the
    same groups named together."""
    method = {"naive": t("precision.method.naive_short"), "stable": t("precision.method.stable_short")}
    panels: dict[str, list[str]] = {}
    for d in DTYPES:
        for group in claims.coinciding_series(rows, d):
            members = " ".join(t("precision.nan.series", method=method[m], scale=scale_label(sc))
                               for sc, m in group)
            panels.setdefault(members, []).append(d)
    if not panels:
        return t("precision.nan.coincide.none")
    sep = t("precision.nan.dtype_sep")
    groups = [t("precision.nan.group", dtype=sep.join(ds), members=m) for m, ds in panels.items()]
    return t("precision.nan.coincide", groups=t("precision.nan.group_sep").join(groups))


def fmt_mask(value: float) -> str:
    """−1e9 as the dtype stores it, every digit shown (−998,244,352 in bfloat16)."""
    return fmt_num(value) if value in (float("inf"), float("-inf")) else f"{value:,.0f}"


s = settings()
st.title(t("precision.title"))
st.markdown(t("precision.claim"))
formula(r"\operatorname{softmax}(s)_j=\frac{e^{s_j}}{\sum_l e^{s_l}}=\frac{e^{s_j-m}}{\sum_l e^{s_l-m}},"
        r"\quad m=\max_l s_l;\qquad e^{s}>65504\iff s>\ln 65504\approx 11.09\ \text{(float16)}")

view = run_with_progress(views.precision_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials, seed=s.seed)
if view is not None:
    here = views.at_dk(view, s.dk)
    verdict = claims.precision_verdict(view["rows"], s.dk)
    st.markdown(f"**{t('precision.verdict.label')}** {verdict_text(verdict)}")
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    fp16 = [r for r in here["rows"] if r["dtype"] == "float16"]
    cols = st.columns(max(1, len(fp16)))
    for column, row in zip(cols, fp16, strict=False):
        metrics = metric_row(column, title=scale_label(row["scale"]))  # two a line on a phone
        metrics.metric(t("precision.metric.max_logit"), fmt_num(row["max_logit"]))
        metrics.metric(t("precision.metric.naive"), fmt_pct(row["naive_nonfinite_fraction"]))
        metrics.metric(t("precision.metric.stable"), fmt_pct(row["stable_nonfinite_fraction"]))
    st.caption(t("precision.metrics_caption", dk=s.dk, n=s.n, rows=view["trials"] * view["queries"],
                 trials=view["trials"], queries=view["queries"]))

    left, right = st.columns([5, 4], gap="medium")
    with left:
        fig = logit_figure(view["rows"], view["scales"], s.dk, view["fp16_overflow_logit"], view["fp16_max"])
        show_chart(fig, name="precision-max-logit")
    with right:
        st.markdown(f"**{t('precision.mask.title')}**")
        st.caption(t("precision.mask.intro"))
        mask = pd.DataFrame({t("common.legend.dtype"): list(view["mask"]),
                             t("precision.mask.value"): [fmt_mask(v) for v in view["mask"].values()]})
        show_table(mask)
        st.caption(t("precision.mask.explain"))

    st.markdown(f"**{t('precision.cross.title')}**")
    never = t("precision.cross.never")
    table = pd.DataFrame([{
        t("precision.cross.scale"): scale_label(c["scale"]),
        t("precision.cross.exp"): never if c["dk_exp_overflow"] is None else str(c["dk_exp_overflow"]),
        t("precision.cross.inf"): never if c["dk_logit_inf"] is None else str(c["dk_logit_inf"]),
        t("precision.cross.nan"): never if c["dk_naive_nan"] is None else str(c["dk_naive_nan"]),
    } for c in view["crossings"]])
    show_table(table)

    show_chart(nan_figure(view["rows"], view["scales"], s.dk), name="precision-nan-rows")
    bf16 = next((r for r in here["rows"] if r["dtype"] == "bfloat16"), None)
    bf16_res = fmt_num(bf16["resolution_at_max"]) if bf16 else "—"
    st.caption(coincide_text(view["rows"]))
    st.caption(t("precision.nan.caption", dk=s.dk, bf16_res=bf16_res))
    what_to_notice("precision.notice")
