"""Overview: the formula and the four-step story, live for the current settings."""

import streamlit as st

from core import figure_budget, views
from core.page_claims import gradients as grad_claims
from core.page_claims import overview as claims
from pages.ui.chart.charts import HEIGHT, show_chart, sweep_figure
from pages.ui.compute import run_with_progress
from pages.ui.format import fmt_num, scale_label
from pages.ui.i18n import current_lang, t
from pages.ui.layout import formula, metric_row
from pages.ui.sidebar import settings


def say(statement: grad_claims.Statement, suffix: str = "") -> str:
    """A statement of core.page_claims (its key + `suffix`) in the page's language, its figures as the app
    writes them (a figure that is itself a statement, in words)."""
    return t(statement.key + suffix, **{k: shown(v) for k, v in statement.params.items()})


def shown(value: object) -> object:
    if isinstance(value, grad_claims.Statement):
        return say(value)
    return fmt_num(value, 3) if isinstance(value, float) else value


def step(statement: grad_claims.Statement) -> None:
    """A step of the story: its statement in bold, the measured figures behind it under it."""
    st.markdown(f"**{say(statement)}**")
    st.caption(say(statement, ".detail"))


s = settings()
st.title(t("overview.title"))
st.markdown(t("overview.claim"))
formula(r"\operatorname{Attention}(Q,K,V)=\operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V,"
        r"\qquad \operatorname{Var}(q\cdot k)=d_k \;\Rightarrow\; "
        r"\operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1")
st.caption(t("overview.symbols"))

summary = run_with_progress(views.overview_summary, dks=figure_budget.sweep_dks(s.dk),
                            n=s.n, scales=s.scales, trials=s.trials,
                            seed=s.seed, backend=s.backend, dtype=s.dtype)
if summary is not None:
    here = views.at_dk(summary, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    rows, scales = summary["rows"], summary["scales"]
    st.subheader(t("overview.story"))
    st.markdown(t("overview.c2_rule"))
    left, right = st.columns(2, gap="medium")
    with left:
        step(claims.step1(rows))
        fig = sweep_figure(rows, "var_scaled", t("overview.axis.var"), scales, s.dk,
                           columns=("dk", "scale", "var_scaled", "theory_var_scaled"),
                           title=t("overview.chart.var"), height=HEIGHT - 40,
                           tooltips=(("theory_var_scaled", "theory"),))
        show_chart(fig, name="overview-variance")
    with right:
        step(claims.step2(rows))
        fig = sweep_figure(rows, "max_weight_mean", t("overview.axis.max_weight"), scales, s.dk,
                           columns=("dk", "scale", "max_weight_mean", "entropy_mean"),
                           log_y=False, y_domain=(0.0, 1.0), title=t("overview.chart.max_weight"),
                           height=HEIGHT - 40)
        show_chart(fig, name="overview-saturation")
    left, right = st.columns(2, gap="medium")
    with left:
        step(claims.step3(rows, s.n))
        fig = sweep_figure(rows, "grad_q_norm_median", t("overview.axis.grad"), scales, s.dk,
                           columns=("dk", "scale", "grad_q_norm_median", "grad_q_norm_mean"),
                           title=t("overview.chart.grad"), height=HEIGHT - 40,
                           tooltips=(("grad_q_norm_mean", "mean"),))
        show_chart(fig, name="overview-gradients")
    with right:
        step(claims.step4(rows))
        st.caption(t("overview.at_dk", dk=s.dk, n=s.n))
        for row in here["rows"]:
            metrics = metric_row(title=scale_label(row["scale"]))
            metrics.metric(t("overview.metric.var"), fmt_num(row["var_scaled"]), help=t("overview.var_help"))
            metrics.metric(t("overview.metric.max_weight"), fmt_num(row["max_weight_mean"]),
                           help=t("overview.max_weight_help"))
            metrics.metric(t("overview.metric.entropy"), fmt_num(row["entropy_mean"]),
                           help=t("overview.entropy_help", ln_n=fmt_num(summary["ln_n"])))
            metrics.metric(t("overview.metric.grad"), fmt_num(row["grad_q_norm_median"]),
                           help=t("overview.grad_help"))
        st.caption(say(grad_claims.verdict(rows, s.dk, s.n)))
    trials = summary["trials"]
    st.caption(t("overview.trials", var=trials["variance"], sat=trials["saturation"],
                 grad=trials["gradients"]))
    sep = "" if current_lang() == "zh" else " "  # Chinese sentences follow each other without a space
    notice = sep.join(say(part) for part in claims.notice(rows, s.n)) or t("overview.notice.none")
    st.info(f"**{t('common.what_to_notice')}** — {notice}", icon=":material/visibility:")
    st.caption(t("overview.caveat"))

st.subheader(t("overview.pages"))
STEPS = ("variance", "saturation", "gradients", "precision")
# Two links a line (one on a phone): four in a row cut the longer labels off at 1280 px.
for k, topic in enumerate(STEPS):
    if k % 2 == 0:
        cols = st.columns(2)
    cols[k % 2].page_link(f"pages/{topic}.py", label=t(f"{topic}.nav"), icon=":material/arrow_forward:")
