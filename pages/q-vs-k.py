"""Q and K are not interchangeable: softmax over keys vs over queries, tying, autograd gradients.

Controls → core.qk.view (NumPy) → heatmaps and the tying table; the gradient section (core.qk.grad_view,
torch autograd) is an expander bound to `?qk_grad=1`, computed only while it is open: the page opens
without importing torch, and a link can open it with the section shown.
"""

import altair as alt
import pandas as pd
import streamlit as st

from core import qk
from pages.ui.chart.charts import SMALL_HEIGHT, WIDTH, layered, show_chart, side_by_side
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import run_with_progress
from pages.ui.controls import page_expander, page_slider, page_toggle
from pages.ui.format import HEATMAP_SCHEME, OKABE_ITO, fmt_num, fmt_pct, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row, show_table
from pages.ui.notices import reduced_trials_note, what_to_notice
from pages.ui.sidebar import settings

DK_MAX = 256
HEAT = 250
WRT = ("∂L/∂Q", "∂L/∂K")


@figure_cache
def normalisations_figure(cells: list[dict]) -> Figure:
    """S, softmax over keys, softmax over queries (transposed): three heat maps side by side."""
    frame = pd.DataFrame(cells)
    x = alt.X("j:O", title=t("qk.axis.key"))
    y = alt.Y("i:O", title=t("qk.axis.query"))
    panels = []
    for field, title, legend in (
        ("S", t("qk.heat.S"), t("qk.legend.score")),
        ("A", t("qk.heat.A"), t("qk.legend.weight")),
        ("A_swap_T", t("qk.heat.B"), t("qk.legend.weight")),
    ):
        colour = alt.Color(
            f"{field}:Q",
            title=legend,
            scale=alt.Scale(scheme=HEATMAP_SCHEME),
            legend=alt.Legend(orient="bottom", gradientLength=HEAT - 40),
        )
        panels.append(
            alt.Chart(frame)
            .mark_rect()
            .encode(x=x, y=y, color=colour,
                    tooltip=[alt.Tooltip("i:O"), alt.Tooltip("j:O"), alt.Tooltip(f"{field}:Q", format=".3f")])
            .properties(
                width=HEAT,
                height=HEAT,
                title=alt.TitleParams(title, anchor="start", fontSize=12, limit=HEAT + 40),
            )
        )
    heat = side_by_side(*panels).resolve_scale(color="independent")
    return figure(heat, frame, max_width=HEAT + 70)


@figure_cache
def grad_rows_figure(example: dict, sc: str) -> Figure:
    """‖∂L/∂Q‖ and ‖∂L/∂K‖ per row of one draw, as paired bars."""
    rows = pd.DataFrame(
        [
            {"row": i, "wrt": w, "norm": val}
            for w, key in zip(WRT, ("Q", "K"), strict=True)
            for i, val in enumerate(example[key])
        ]
    )
    wrt_colour = alt.Color(
        "wrt:N",
        title=t("qk.grad.wrt"),
        scale=alt.Scale(domain=list(WRT), range=[OKABE_ITO[0], OKABE_ITO[1]]),
        legend=alt.Legend(orient="bottom"),
    )
    chart = (
        alt.Chart(rows)
        .mark_bar(strokeWidth=1.5)
        .encode(
            x=alt.X("row:O", title=t("qk.grad.row")),
            xOffset=alt.XOffset("wrt:N"),
            y=alt.Y("norm:Q", title=t("qk.grad.norm")),
            color=wrt_colour,
            stroke=wrt_colour,
            # ∂L/∂Q filled, ∂L/∂K hollow: not told apart by colour alone (the legend shows both)
            fillOpacity=alt.FillOpacity("wrt:N", title=t("qk.grad.wrt"), legend=alt.Legend(orient="bottom"),
                                        scale=alt.Scale(domain=list(WRT), range=[1.0, 0.15])),
            tooltip=[alt.Tooltip("wrt:N"), alt.Tooltip("row:O"), alt.Tooltip("norm:Q", format=".3g")],
        )
        .properties(
            width=WIDTH,
            height=SMALL_HEIGHT,
            title=alt.TitleParams(t("qk.grad.bars.title", scale=scale_label(sc)), anchor="start"),
        )
    )
    return figure(chart, rows)


@figure_cache
def pairs_figure(norms: dict, scale: str) -> Figure:
    """‖∂L/∂Q‖ against ‖∂L/∂K‖ over many draws, with the diagonal."""
    pairs = pd.DataFrame({"dQ": norms["Q"], "dK": norms["K"]})
    dots = (
        alt.Chart(pairs)
        .mark_circle(size=28, opacity=0.8, color=OKABE_ITO[0])  # 3.6:1 on white (0.6 had 2.7)
        .encode(
            x=alt.X("dK:Q", title="‖∂L/∂K‖_F", scale=alt.Scale(zero=False)),
            y=alt.Y("dQ:Q", title="‖∂L/∂Q‖_F", scale=alt.Scale(zero=False)),
            tooltip=[alt.Tooltip("dQ:Q", format=".3g"), alt.Tooltip("dK:Q", format=".3g")],
        )
    )
    diag = alt.Chart(pairs).mark_line(color="#777777", strokeDash=[4, 4]).encode(
        x=alt.X("dK:Q"), y=alt.Y("dK:Q"))
    chart = layered(diag, dots).properties(
        width=WIDTH,
        height=260,
        title=alt.TitleParams(t("qk.grad.scatter.title", scale=scale_label(scale)), anchor="start"),
    )
    return figure(chart, pairs)

s = settings()
st.title(t("qk.title"))
st.markdown(t("qk.intro"))
formula(
    r"A=\operatorname{softmax}_{\text{row}}\!\Big(\frac{QK^\top}{\sqrt{d_k}}\Big),\quad "
    r"A_{ij}=\frac{e^{S_{ij}}}{\sum_{j'}e^{S_{ij'}}}\qquad\text{vs}\qquad "
    r"\operatorname{softmax}_{\text{row}}\!\Big(\frac{KQ^\top}{\sqrt{d_k}}\Big)_{ji}=\frac{e^{S_{ij}}}{\sum_{i'}e^{S_{i'j}}}"
)
formula(
    r"\frac{\partial L}{\partial Q}=c\,dS\,K,\qquad \frac{\partial L}{\partial K}=c\,dS^\top Q,\qquad "
    r"dS=A\odot\big(dA-\operatorname{rowsum}(A\odot dA)\big)"
)

c1, c2 = st.columns(2)
n = page_slider("qk_n", "qk.n", 4, 32, 8, container=c1)
with c2:
    tie = page_toggle("qk_tie", "qk.tie", default=False)
dk = min(s.dk, DK_MAX)
if dk < s.dk:
    st.info(t("qk.clamped", max=DK_MAX, used=dk), icon=":material/tune:")

v = run_with_progress(qk.view, n=n, d_k=dk, d_model=dk, seed=s.seed, tie=tie, trials=s.trials)
if v is not None:
    reduced_trials_note(v["params"]["trials"], v["params"]["trials_asked"], n)
    st.header(t("qk.norm.header"))
    m = v["draw"]["metrics"]
    metrics = metric_row()
    metrics.metric(t("qk.metric.diff"), fmt_num(m["max_abs_diff_swap"], 3))
    metrics.metric(t("qk.metric.colsum"), f"{fmt_num(m['col_sum_min'], 3)} … {fmt_num(m['col_sum_max'], 3)}")
    metrics.metric(t("qk.metric.asym"), fmt_num(m["asymmetry"], 3))
    metrics.metric(t("qk.metric.diag", u=fmt_num(m["uniform_weight"], 3)), fmt_num(m["diag_weight_mean"], 3))

    show_chart(normalisations_figure(v["cells"]), name="qk-normalisations")

    tying = pd.DataFrame(v["tying"])
    st.markdown(f"**{t('qk.tying.title', trials=v['params']['trials'])}**")
    theory = fmt_num(tying["theory_diag_score"].max(), 3)
    show_table(
        pd.DataFrame(
            {
                t("qk.tying.col.case"): tying["tie"].map(
                    lambda x: t("qk.tying.tied") if x else t("qk.tying.untied")
                ),
                t("qk.tying.col.diag"): tying["diag_weight_mean"].map(lambda x: fmt_num(x, 3)),
                t("qk.tying.col.se"): tying["diag_weight_se"].map(lambda x: fmt_num(x, 2)),
                t("qk.tying.col.self"): tying["argmax_diag_fraction"].map(fmt_pct),
                t("qk.tying.col.asym"): tying["asymmetry_mean"].map(lambda x: fmt_num(x, 3)),
                t("qk.tying.col.diag_score", theory=theory): tying["diag_score_mean"].map(
                    lambda x: fmt_num(x, 3)
                ),
            }
        )
    )
    st.caption(t("qk.tying.caption"))

# The gradient half needs torch (its import is most of a cold first view) and is read less often:
# computed only while its section is open.
grad_box, grad_open = page_expander("qk_grad", "qk.grad.header")
if v is not None and grad_open:
    with grad_box:
        g = run_with_progress(qk.grad_view, n=n, d_k=dk, d_model=dk, seed=s.seed, trials=s.trials)
        if g is not None:
            grads = pd.DataFrame(g["grads"])
            err = grads["max_abs_err_vs_closed_form"].max()
            st.markdown(t("qk.grad.text", err=fmt_num(err, 2)))
            scale = g["scale"]
            cols = st.columns(2, gap="medium")
            for col, sc in zip(cols, ("none", scale), strict=True):
                with col:
                    show_chart(grad_rows_figure(g["example"][sc], sc), name=f"qk-grad-rows-{sc}")

            table = grads[grads["wrt"] != "ratio"]
            show_table(
                pd.DataFrame(
                    {
                        t("qk.grad.col.scale"): table["scale"].map(scale_label),
                        t("qk.grad.col.wrt"): table["wrt"],
                        t("qk.grad.col.frob"): table["frob_mean"].map(lambda x: fmt_num(x, 3)),
                        t("qk.grad.col.cv"): table["row_cv_mean"].map(lambda x: fmt_num(x, 3)),
                        t("qk.grad.col.top", u=fmt_num(1 / n, 3)): table["top_row_share_mean"].map(
                            lambda x: fmt_num(x, 3)
                        ),
                    }
                )
            )
            for _, r in grads[grads["wrt"] == "ratio"].iterrows():
                st.markdown(
                    "- "
                    + t(
                        "qk.grad.ratio",
                        scale=scale_label(r["scale"]),
                        mean=fmt_num(r["ratio_mean"], 3),
                        se=fmt_num(r["ratio_se"], 2),
                        rel=fmt_pct(r["rel_diff_mean"]),
                    )
                )

            show_chart(pairs_figure(g["pairs"][scale], scale), name="qk-grad-pairs")

what_to_notice("qk.notice")
