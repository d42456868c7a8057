"""Overview: the formula and the four-step story, live for the current settings."""

import streamlit as st

from core import figure_budget, views
from pages.ui.charts import (
    HEIGHT,
    fmt_num,
    run_with_progress,
    scale_label,
    show_chart,
    sweep_lines,
    what_to_notice,
    with_scale_labels,
)
from pages.ui.controls import settings
from pages.ui.i18n import t

s = settings()
st.title(t("overview.title"))
st.markdown(t("overview.claim"))
st.latex(r"\operatorname{Attention}(Q,K,V)=\operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V,"
         r"\qquad \operatorname{Var}(q\cdot k)=d_k \;\Rightarrow\; "
         r"\operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1")

summary = run_with_progress(views.overview_summary, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=s.scales, trials=s.trials,
                            seed=s.seed, backend=s.backend, dtype=s.dtype)
if summary is not None:
    here = views.at_dk(summary, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    df = with_scale_labels(summary["rows"])
    st.subheader(t("overview.story"))
    left, right = st.columns(2, gap="medium")
    with left:
        chart = sweep_lines(df, "var_scaled", t("overview.axis.var"), summary["scales"], s.dk,
                            title=t("overview.step1"), height=HEIGHT - 40,
                            tooltips=(("theory_var_scaled", "theory"),))
        show_chart(chart, df[["dk", "scale", "var_scaled", "theory_var_scaled"]], "overview-variance")
    with right:
        chart = sweep_lines(df, "max_weight_mean", t("overview.axis.max_weight"), summary["scales"], s.dk,
                            log_y=False, y_domain=(0.0, 1.0), title=t("overview.step2"),
                            height=HEIGHT - 40)
        show_chart(chart, df[["dk", "scale", "max_weight_mean", "entropy_mean"]], "overview-saturation")
    left, right = st.columns(2, gap="medium")
    with left:
        chart = sweep_lines(df, "grad_q_norm_median", t("overview.axis.grad"), summary["scales"], s.dk,
                            title=t("overview.step3"), height=HEIGHT - 40,
                            tooltips=(("grad_q_norm_mean", "mean"),))
        show_chart(chart, df[["dk", "scale", "grad_q_norm_median", "grad_q_norm_mean"]],
                   "overview-gradients")
    with right:
        st.markdown(f"**{t('overview.step4')}**")
        st.caption(t("overview.at_dk", dk=s.dk, n=s.n))
        for row in here["rows"]:
            st.markdown(f"**{scale_label(row['scale'])}**")
            cols = st.columns(4)
            cols[0].metric(t("overview.metric.var"), fmt_num(row["var_scaled"]))
            cols[1].metric(t("overview.metric.max_weight"), fmt_num(row["max_weight_mean"]),
                           help=t("overview.max_weight_help"))
            cols[2].metric(t("overview.metric.entropy"), fmt_num(row["entropy_mean"]),
                           help=t("overview.entropy_help", ln_n=fmt_num(summary["ln_n"])))
            cols[3].metric(t("overview.metric.grad"), fmt_num(row["grad_q_norm_median"]))
    trials = summary["trials"]
    st.caption(t("overview.trials", var=trials["variance"], sat=trials["saturation"],
                 grad=trials["gradients"]))
    what_to_notice("overview.notice")
    st.caption(t("overview.caveat"))

st.subheader(t("overview.pages"))
STEPS = ("variance", "saturation", "gradients", "precision")
for col, topic in zip(st.columns(len(STEPS)), STEPS, strict=True):
    col.page_link(f"pages/{topic}.py", label=t(f"{topic}.nav"), icon=":material/arrow_forward:")
