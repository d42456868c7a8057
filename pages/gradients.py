"""Gradient collapse: the softmax Jacobian of one row, ‖∂L/∂q‖ and ‖J‖₂ vs d_k, and a check of ∂L/∂q against
torch autograd in an expander bound to `?grad_check=1`, computed only while it is open: the page opens
without torch."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from pages.ui.charts import WIDTH, dk_axis, dk_rule, layered, show_chart, sweep_figure, with_scale_labels
from pages.ui.compute import cached, run_with_progress
from pages.ui.controls import page_expander, page_select
from pages.ui.figure import Figure, figure, figure_cache
from pages.ui.format import fmt_num, scale_colours, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row, show_table
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import settings

JAC_SIDE = 340  # the Jacobian heat map's plot, px (square on a desktop)


@figure_cache
def norm_figure(rows: list[dict], scales: list[str], dk: int) -> Figure:
    """Median and mean ‖∂L/∂q‖ vs d_k per scale (solid and dashed)."""
    df = with_scale_labels(rows)
    long = df.melt(id_vars=["dk", "scale", "scale_label"], var_name="stat", value_name="norm",
                   value_vars=["grad_q_norm_median", "grad_q_norm_mean"])
    long["stat"] = long["stat"].map({"grad_q_norm_median": t("gradients.stat.median"),
                                     "grad_q_norm_mean": t("gradients.stat.mean")})
    colour = alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                       legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))
    dash = alt.StrokeDash("stat:N", title=t("gradients.stat"),
                          scale=alt.Scale(domain=[t("gradients.stat.median"), t("gradients.stat.mean")],
                                          range=[[1, 0], [6, 4]]),
                          legend=alt.Legend(orient="bottom"))
    base = alt.Chart(long).encode(
        x=dk_axis(), y=alt.Y("norm:Q", title=t("gradients.norm.y"), scale=alt.Scale(type="log")),
        color=colour, strokeDash=dash,
        tooltip=[alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
                 alt.Tooltip("stat:N", title=t("gradients.stat")), alt.Tooltip("dk:Q", title="d_k"),
                 alt.Tooltip("norm:Q", format=".3g", title=t("gradients.norm.y"))])
    chart = layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=30), dk_rule(dk)
                      ).properties(width=WIDTH, height=300, title=alt.TitleParams(
                          t("gradients.norm.title"), anchor="start"))
    return figure(chart, long[["dk", "scale", "stat", "norm"]])


@figure_cache
def jacobian_figure(cells: list[dict], scale: str) -> Figure:
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
        t("gradients.jac.title", scale=scale_label(scale)), anchor="start"))
    return figure(chart, jac, max_width=JAC_SIDE + 70)


s = settings()
st.title(t("gradients.title"))
st.markdown(t("gradients.claim"))
formula(r"L=g\cdot p,\quad p=\operatorname{softmax}(c\,Kq),\quad "
        r"\frac{\partial L}{\partial q}=c\,K^{\top}Jg,\quad J=\operatorname{diag}(p)-pp^{\top},\quad "
        r"\|J\|_2\le 1-\|p\|^2\le 2\,(1-\max_j p_j)")

view = run_with_progress(views.gradient_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials, seed=s.seed,
                         backend=s.backend, dtype=s.dtype)
if view is not None:
    here = views.at_dk(view, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    cols = st.columns(max(1, len(here["rows"])))
    for column, row in zip(cols, here["rows"], strict=False):
        metrics = metric_row(column, title=scale_label(row["scale"]))  # two a line on a phone
        metrics.metric(t("gradients.metric.median"), fmt_num(row["grad_q_norm_median"]))
        metrics.metric(t("gradients.metric.mean"), fmt_num(row["grad_q_norm_mean"]))
        metrics.metric(t("gradients.metric.jnorm"), fmt_num(row["jacobian_norm_median"]))
    st.caption(t("gradients.metrics_caption", dk=s.dk, n=s.n, trials=view["trials"]))

    left, right = st.columns(2, gap="medium")
    with left:
        show_chart(norm_figure(view["rows"], view["scales"], s.dk), name="gradients-norm")
        st.caption(t("gradients.gap"))
    with right:
        fig = sweep_figure(view["rows"], "jacobian_norm_median", t("gradients.jnorm.y"), view["scales"], s.dk,
                           columns=("dk", "n", "scale", "jacobian_norm_median", "jacobian_norm_mean"),
                           title=t("gradients.jnorm.title"), height=300)
        show_chart(fig, name="gradients-jacobian-norm")

    usable = [x for x in view["scales"] if x not in here["skipped"]] or ["none"]
    scale = page_select("grad_scale", "gradients.scale", usable, usable[0], format_func=scale_label)
    left, right = st.columns(2, gap="medium")
    draw = cached(views.one_draw, dk=s.dk, n=s.n, scale=scale, seed=s.seed, query=0)
    if draw is not None:
        with left:
            show_chart(jacobian_figure(draw["jacobian"], scale), name="gradients-jacobian")
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
    what_to_notice("gradients.notice")
