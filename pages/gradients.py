"""Gradients through the softmax: the title, the sentence under it, the cards' comparison, the crossing on the
‖∂L/∂q‖ chart and "what to notice" worded from the measured sweep (core.page_claims.gradients, docs/science.md
§2); ‖J‖₂ vs d_k; the softmax Jacobian of the draw's most saturated row (or the reader's, `?grad_pick=1&
grad_query=i`); and a check of ∂L/∂q against torch autograd in an expander bound to `?grad_check=1`, computed
only while it is open: the page opens without torch."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from core.page_claims import gradients as claims
from pages.ui.chart.charts import (
    WIDTH,
    dk_axis,
    dk_rule,
    layered,
    show_chart,
    sweep_figure,
    with_scale_labels,
)
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.chart.vega import CHART_TEXT
from pages.ui.compute import cached, run_with_progress
from pages.ui.controls import page_expander, page_select, page_slider, page_toggle
from pages.ui.format import REFERENCE_GREY, fmt_num, scale_colours, scale_label
from pages.ui.i18n import current_lang, t
from pages.ui.layout import formula, metric_row, show_table
from pages.ui.sidebar import settings

JAC_SIDE = 340  # the Jacobian heat map's plot, px (square on a desktop)


@figure_cache
def norm_figure(rows: list[dict], scales: list[str], dk: int, crossing: float | None) -> Figure:
    """Median and mean ‖∂L/∂q‖ vs d_k per scale: colour and dash per scale (as every sweep draws them),
    the median thick with filled points, the mean thin with open points; a solid grey line where the
    unscaled median falls below the scaled one (`crossing`, core.page_claims.gradients), labelled."""
    df = with_scale_labels(rows)
    long = df.melt(id_vars=["dk", "scale", "scale_label"], var_name="stat", value_name="norm",
                   value_vars=["grad_q_norm_median", "grad_q_norm_mean"])
    median, mean = t("gradients.stat.median"), t("gradients.stat.mean")
    long["stat"] = long["stat"].map({"grad_q_norm_median": median, "grad_q_norm_mean": mean})
    colour = alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                       legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))
    width = alt.StrokeWidth("stat:N", title=t("gradients.stat"),
                            scale=alt.Scale(domain=[median, mean], range=[3, 1]),
                            legend=alt.Legend(orient="bottom", symbolType="stroke", symbolSize=300))
    y = alt.Y("norm:Q", title=t("gradients.norm.y"), scale=alt.Scale(type="log"))
    tips = [alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
            alt.Tooltip("stat:N", title=t("gradients.stat")), alt.Tooltip("dk:Q", title="d_k"),
            alt.Tooltip("norm:Q", format=".3g", title=t("gradients.norm.y"))]
    lines = alt.Chart(long).mark_line().encode(x=dk_axis(), y=y, color=colour, strokeWidth=width,
                                               detail=alt.Detail("stat:N"), tooltip=tips)
    dots = [alt.Chart(long[long["stat"] == stat]).mark_point(filled=filled, size=40, strokeWidth=1.5).encode(
        x=dk_axis(), y=y, color=colour, tooltip=tips) for stat, filled in ((median, True), (mean, False))]
    layers = [lines, *dots, dk_rule(dk)]
    if crossing is not None:
        mark = pd.DataFrame({"dk": [crossing], "label": [t("gradients.norm.crossing", at=crossing)]})
        rule = alt.Chart(mark).encode(x=alt.X("dk:Q"))
        layers += [rule.mark_rule(color=REFERENCE_GREY, strokeWidth=2).encode(
                       tooltip=[alt.Tooltip("label:N", title=" ")]),
                   rule.mark_text(align="left", dx=4, dy=6, baseline="top", color=CHART_TEXT).encode(
                       y=alt.value(0), text=alt.Text("label:N"))]
    chart = layered(*layers).properties(width=WIDTH, height=300, title=alt.TitleParams(
        t("gradients.norm.title"), anchor="start"))
    data = long[["dk", "scale", "stat", "norm"]]
    if crossing is None:
        return figure(chart, data)
    plain = figure(chart, data)  # the text alternative read from the chart, then the crossing's line
    told = t("gradients.norm.crossing_desc", at=crossing)
    return figure(chart, data, description=f"{plain.description} {told}")


@figure_cache
def jacobian_figure(cells: list[dict], scale: str, row: int) -> Figure:
    """One row's softmax Jacobian J = diag(p) − ppᵀ as a heat map."""
    jac = pd.DataFrame(cells).rename(columns={"value": "J"})
    chart = alt.Chart(jac).mark_rect().encode(
        x=alt.X("j:O", title=t("gradients.jac.col"), axis=alt.Axis(labelOverlap=True, labelAngle=0)),
        y=alt.Y("i:O", title=t("gradients.jac.row"), axis=alt.Axis(labelOverlap=True)),
        color=alt.Color("J:Q", title=t("gradients.jac.value"),
                        scale=alt.Scale(scheme="blueorange", domainMid=0),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        tooltip=[alt.Tooltip("i:O", title="i"), alt.Tooltip("j:O", title="j"),
                 alt.Tooltip("J:Q", format=".3g", title=t("gradients.jac.value"))],
    ).properties(width=JAC_SIDE, height=JAC_SIDE, title=alt.TitleParams(
        t("gradients.jac.title", i=row, scale=scale_label(scale)), anchor="start"))
    return figure(chart, jac, max_width=JAC_SIDE + 70)


def say(statement: claims.Statement) -> str:
    """A statement of core.page_claims in the page's language, its figures written as the app writes them
    (a figure that is itself a statement, in words)."""
    return t(statement.key, **{k: shown(v) for k, v in statement.params.items()})


def shown(value: object) -> object:
    if isinstance(value, claims.Statement):
        return say(value)
    return fmt_num(value, 3) if isinstance(value, float) else value


s = settings()
title_box = st.empty()  # the title words the regime at the reader's d_k, known once the sweep is measured
st.markdown(t("gradients.claim"))
formula(r"L=g\cdot p,\qquad p=\operatorname{softmax}(c\,Kq),\qquad "  # \qquad: where a phone may wrap
        r"\frac{\partial L}{\partial q}=c\,K^{\top}Jg,\qquad J=\operatorname{diag}(p)-pp^{\top},\qquad "
        r"\|J\|_2\le 1-\|p\|^2\le 2\,(1-\max_j p_j)")
st.caption(t("gradients.symbols"))

view = run_with_progress(views.gradient_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials, seed=s.seed,
                         backend=s.backend, dtype=s.dtype)
if view is None:
    title_box.title(t("gradients.title.missing"))
else:
    rows = view["rows"]
    title_box.title(say(claims.title(rows, s.dk)))
    st.markdown(say(claims.verdict(rows, s.dk, s.n)))
    here = views.at_dk(view, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    cols = st.columns(max(1, len(here["rows"])))
    for column, row in zip(cols, here["rows"], strict=False):
        metrics = metric_row(column, title=scale_label(row["scale"]))  # two a line on a phone
        metrics.metric(t("gradients.metric.median"), fmt_num(row["grad_q_norm_median"]),
                       help=t("gradients.metric.median.help"))
        metrics.metric(t("gradients.metric.mean"), fmt_num(row["grad_q_norm_mean"]),
                       help=t("gradients.metric.mean.help"))
        metrics.metric(t("gradients.metric.jnorm"), fmt_num(row["jacobian_norm_median"]),
                       help=t("gradients.metric.jnorm.help"))
    st.caption(say(claims.comparison(rows, s.dk)))
    st.caption(t("gradients.metrics_caption", dk=s.dk, n=s.n, trials=view["trials"]))

    crossing = claims.rounded_dk(claims.crossing(rows, s.n))
    left, right = st.columns(2, gap="medium")
    with left:
        show_chart(norm_figure(rows, view["scales"], s.dk, crossing), name="gradients-norm")
        st.caption(say(claims.crossing_statement(rows, s.n)))
        if (interval := claims.band(rows, s.n)) is not None:
            st.caption(say(interval))
        st.caption(t("gradients.norm.styles"))
    with right:
        fig = sweep_figure(rows, "jacobian_norm_median", t("gradients.jnorm.y"), view["scales"], s.dk,
                           columns=("dk", "n", "scale", "jacobian_norm_median", "jacobian_norm_mean"),
                           title=t("gradients.jnorm.title"), height=300)
        show_chart(fig, name="gradients-jacobian-norm")
        st.caption(t("gradients.gap"))

    usable = [x for x in view["scales"] if x not in here["skipped"]] or ["none"]
    scale = page_select("grad_scale", "gradients.scale", usable, usable[0], format_func=scale_label)
    # The worked example: by default the draw's most saturated row, where the effect shows most;
    # the reader may pick another (docs/science.md §2).
    top = cached(views.one_draw, dk=s.dk, n=s.n, scale=scale, seed=s.seed, query=None)
    draw = top
    if top is not None and page_toggle("grad_pick", "gradients.row.pick"):
        if st.session_state.get("grad_query", 0) > s.n - 1:  # a row kept from a larger n
            st.session_state["grad_query"] = s.n - 1
        query = page_slider("grad_query", "gradients.row.query", 0, s.n - 1, top["query"])
        draw = cached(views.one_draw, dk=s.dk, n=s.n, scale=scale, seed=s.seed, query=query)
    left, right = st.columns(2, gap="medium")
    if draw is not None and top is not None:
        with left:
            show_chart(jacobian_figure(draw["jacobian"], scale, draw["query"]), name="gradients-jacobian")
            st.caption(say(claims.row_caption(draw, top["row_max_weight"])))
            st.caption(t("gradients.jac.caption", norm=fmt_num(draw["jacobian_norm"]), inv_n=fmt_num(1 / s.n),
                         maxw=fmt_num(draw["row_max_weight"])))
            if draw["jacobian_factor"] > 1:
                st.caption(t("gradients.jac.downsampled", n=s.n, f=draw["jacobian_factor"]))
    # The check needs torch, whose import is most of a fresh server's first /gradients (about a second
    # of the interpreter, beside the browser on a small server) and is read less often than the story:
    # computed only while its section is open (?grad_check=1 opens it from a link).
    check_box, check_open = page_expander("grad_check", "gradients.check.header", container=right)
    if check_open:
        with check_box:  # its progress, or why it cannot run, shows inside the section
            check = cached(views.autograd_check, dk=s.dk, n=s.n, scale=scale, seed=s.seed)
            if check is not None:
                st.caption(t("gradients.check.intro"))
                metrics = metric_row()
                metrics.metric(t("gradients.check.abs"), fmt_num(check["max_abs_diff"], 2))
                metrics.metric(t("gradients.check.rel"), fmt_num(check["max_rel_diff"], 2))
                metrics.metric(t("gradients.check.norm"), fmt_num(check["grad_norm"]))
                if check["grad_norm_autograd"] == 0 and check["grad_norm"] == 0:
                    st.info(t("gradients.check.zero"))
                elif check["agrees"]:
                    st.success(t("gradients.check.ok", tol=fmt_num(check["tolerance"], 2)),
                               icon=":material/check_circle:")
                else:
                    st.error(t("gradients.check.bad"))
                comp = pd.DataFrame({t("gradients.check.component"): range(min(8, s.dk)),
                                     t("gradients.check.analytic"): check["analytic"][:8],
                                     t("gradients.check.autograd"): check["autograd"][:8]})
                show_table(comp)
    sep = "" if current_lang() == "zh" else " "  # Chinese sentences follow each other without a space
    notice = sep.join(say(part) for part in claims.notice(rows))
    st.info(f"**{t('common.what_to_notice')}** — {notice}", icon=":material/visibility:")
