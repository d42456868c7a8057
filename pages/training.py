"""Training dynamics: one tiny attention model per (d_k, scale), trained on the same batches."""

from functools import partial

import altair as alt
import pandas as pd
import streamlit as st

from core import training as tr
from core.stability import length as stab_length
from core.stability import model as stab_model
from core.stability import sweep as stab_sweep
from pages.ui.chart.charts import SMALL_HEIGHT, layered, show_chart, with_scale_labels
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import cached, run_when_asked
from pages.ui.controls import (
    asked_work_settings,
    columns_when,
    page_expander,
    page_select,
    page_slider,
    page_toggle,
)
from pages.ui.format import OKABE_ITO, fmt_num, fmt_pct, scale_colours, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, show_table
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import settings
from pages.ui.stability.stability_view import show_collapse, show_length, show_sweep

DK_CHOICES = tr.DEFAULT_DKS  # 16, 64, 256, 1024
FACET_WIDTH = 210
LR_CHOICES = ("auto", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "1")
LR_AUTO = {"adam": 0.01, "sgd": 0.5}
APP_TIME_BUDGET_S = 90.0
LOG_METRICS = ("grad_wq_norm", "max_logit")


@figure_cache
def metric_figure(rows: list[dict], metric: str, dks: list[int], scales: list[str],
                  ref: tuple[float, str] | None) -> Figure:
    """One training metric per step, one panel per d_k (a facet in the downloads), a line per scale,
    with the metric's reference level (ln n, chance accuracy) as a dashed rule."""
    df = with_scale_labels(rows)
    # The charts carry only the columns they draw: the rows hold every quantity, and each column
    # more is data the browser decodes for each of the four panels of a new tab.
    drawn = df[["dk", "step", metric, "scale_label"]]
    title = t(f"training.metric.{metric}")

    def layers(domain: list[float] | None, legend: bool = True) -> list[alt.Chart]:
        colour = alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                           legend=alt.Legend(orient="bottom", labelLimit=260) if legend else None)
        y_scale = alt.Scale(type="log") if metric in LOG_METRICS else alt.Scale(zero=False)
        if metric == "accuracy":
            y_scale = alt.Scale(domain=[0, 1])
        elif domain is not None:  # the panels share the facet's y scale
            y_scale = alt.Scale(type="log" if metric in LOG_METRICS else "linear", domain=domain, nice=True)
        base = alt.Chart().encode(
            x=alt.X("step:Q", title=t("training.axis.step")),
            y=alt.Y(f"{metric}:Q", title=title, scale=y_scale),
            color=colour,
            tooltip=[alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
                     alt.Tooltip("dk:Q", title="d_k"), alt.Tooltip("step:Q", title=t("training.axis.step")),
                     alt.Tooltip(f"{metric}:Q", title=title, format=".4g")])
        line = base.mark_line(strokeWidth=1.8, clip=True)
        if metric in LOG_METRICS:  # a log axis cannot show 0; exact zeros are counted below
            line = line.transform_filter(f"datum.{metric} > 0")
        out = [line]
        if ref is not None:
            value, label = ref
            out.append(alt.Chart().mark_rule(strokeDash=[4, 4], color=OKABE_ITO[6]).encode(
                y=alt.datum(value), tooltip=alt.value(f"{label} = {fmt_num(value)}")))
        return out

    chart = layered(*layers(None), data=drawn).properties(width=FACET_WIDTH, height=SMALL_HEIGHT - 40).facet(
        column=alt.Column("dk:O", title=None, sort=sorted(dks),
                          header=alt.Header(labelFontSize=13, labelExpr="'d_k = ' + datum.value"))
    ).properties(title=alt.TitleParams(title, anchor="start", fontSize=14))
    values = df[metric][df[metric] > 0] if metric in LOG_METRICS else df[metric]
    values = [float(v) for v in values.dropna()] + ([ref[0]] if ref is not None else [])
    domain = [min(values), max(values)] if values else None
    panels = [layered(*layers(domain, legend=i == 0), data=drawn[drawn["dk"] == dk]).properties(
        width=FACET_WIDTH, height=SMALL_HEIGHT - 40, title=f"d_k = {dk}") for i, dk in enumerate(sorted(dks))]
    return figure(chart, df[["dk", "scale", "c", "step", metric]], panels=panels)

s = settings()
st.title(t("training.title"))
st.markdown(t("training.intro"))
formula(r"q = W_Q e_{\text{query}},\quad k_j = W_K e_{\text{key}_j},\quad s_j = c\,(q\cdot k_j),\quad "
        r"p = \operatorname{softmax}(s),\quad z = W_O \sum_j p_j\, v_j,\quad "
        r"L = -\ln \operatorname{softmax}(z)_y")
formula(r"\frac{\partial L}{\partial s} = J\,\frac{\partial L}{\partial p},\qquad "
        r"J = \operatorname{diag}(p) - p p^{\top}")
st.caption(t("training.formula_caption"))

# ---------------------------------------------------------------- controls
box, shown = asked_work_settings("train_set", "training.controls", asked="train_run")
with box:
    if shown:
        st.markdown(f"**{t('training.dks')}**")
    dk_cols = columns_when(shown, len(DK_CHOICES))
    dks = [dk for dk, col in zip(DK_CHOICES, dk_cols, strict=True)
           if page_toggle(f"train_dk{dk}", f"training.dk_toggle.{dk}", default=True, container=col,
                          shown=shown)]
    if not dks:
        st.warning(t("training.no_dk"))
        dks = [DK_CHOICES[-1]]
    left, right = columns_when(shown, 2, gap="large")
    steps = page_slider("train_steps", "training.steps", 20, 1000, 200, step=20, container=left, shown=shown)
    n = page_slider("train_n", "training.n", 4, 64, 16, step=1, container=right, shown=shown)
    left, right = columns_when(shown, [1, 2], gap="large")
    optimizer = page_select("train_opt", "training.optimizer", tr.OPTIMIZERS, "adam",
                            option_prefix="training.opt", container=left, shown=shown)
    lr_text = page_select("train_lr", "training.lr", LR_CHOICES, "auto", option_prefix="training.lr",
                          container=right, help_key="training.lr_help", shown=shown)
    add_linear = page_toggle("train_linear", "training.linear", default=True, shown=shown)
    scales = list(dict.fromkeys([*s.scales, *(["linear"] if add_linear else [])]))
    if shown:
        st.caption(t("training.scales_note", scales=", ".join(scale_label(x) for x in scales)))
lr = LR_AUTO[optimizer] if lr_text == "auto" else float(lr_text)
device = "auto" if s.backend == "cupy" else "cpu"

# ---------------------------------------------------------------- one call into core
# Seconds of training: run on opening only once asked for, or when its result is stored.
result = run_when_asked(tr.training, "train_run", "training.ask", dks=dks, scales=scales, n=n,
                        steps=steps, lr=lr, optimizer=optimizer, seed=s.seed, device=device,
                        time_budget=APP_TIME_BUDGET_S)

if result is not None:
    p = result["params"]
    runs = result["runs"]
    st.caption(t("training.ran", runs=len(runs), steps=p["steps"], batch=p["batch"], seed=p["seed"],
                 seconds=fmt_num(p["seconds_total"], 3),
                 device=t(f"training.device.{p['device']}")))
    refs = {"entropy": (p["ln_n"], t("training.ln_n")),
            "accuracy": (p["chance_accuracy"], t("training.chance"))}

    st.subheader(t("training.curves"))
    # One quantity at a time: four panels (one per d_k) instead of twenty for the browser to draw.
    metric = page_select("train_metric", "training.metric_pick", tr.METRICS, "loss",
                         format_func=lambda m: t(f"training.metric.{m}"))
    show_chart(metric_figure(result["rows"], metric, p["dk"], p["scale"], refs.get(metric)),
               name=f"training-{metric}")
    if metric == "grad_wq_norm":
        for r in runs:
            if r["grad_zero_steps"]:
                st.caption(t("training.zero_grad", dk=r["dk"], scale=scale_label(r["scale"]),
                             count=r["grad_zero_steps"]))

    st.subheader(t("training.summary"))
    # A static table of formatted cells (show_table): the interactive grid would cost a new tab
    # its 1.2 MB of browser code for a dozen rows.
    three = partial(fmt_num, digits=3)
    cells = {"dk": str, "scale": scale_label, "c": three, "entropy_first": three, "max_logit_first": three,
             "grad_wq_norm_first": three, "loss_last": three, "accuracy_final": fmt_pct,
             "step_to_90": lambda x: "—" if x is None else str(x)}
    show_table(pd.DataFrame([{t(f"training.col.{c}"): fmt(r[c]) for c, fmt in cells.items()} for r in runs]))

    st.markdown(f"**{t('training.observed')}**")
    for r in runs:
        if r["dk"] != max(p["dk"]):
            continue
        fmt = {"dk": r["dk"], "scale": scale_label(r["scale"]), "acc": fmt_pct(r["accuracy_final"])}
        if r["step_to_90"] is None:
            st.markdown("- " + t("training.never", steps=p["steps"], **fmt))
        else:
            st.markdown("- " + t("training.reached", step=r["step_to_90"], **fmt))

    what_to_notice("training.notice")
    st.caption(t("training.caveat"))

# ---------------------------------------------------------------- why modern models bound the logits
# docs/science.md, "Why modern models bound the logits": a learning-rate sweep of a two-layer
# transformer in four variants, one run's collapse, and softmax against s·ln n as n grows.
st.divider()
st.header(t("training.stab.title"))
mini = stab_model.ModelConfig()
st.markdown(t("training.stab.intro", layers=mini.layers, d_model=mini.d_model, heads=mini.heads,
              lrs=len(stab_sweep.DEFAULT_LRS), cap=fmt_num(stab_model.SOFT_CAP, 3),
              z=fmt_num(stab_model.Z_LOSS, 3)))
formula(r"s_{ij} = \frac{q_i\cdot k_j}{\sqrt{d_k}},\quad "
        r"s_{ij} = \frac{\operatorname{LN}(q_i)\cdot \operatorname{LN}(k_j)}{\sqrt{d_k}},\quad "
        r"s_{ij} \leftarrow c\,\tanh(s_{ij}/c),\quad L + \lambda_z (\ln Z)^2")
# Folded unless opened: the sweep's one setting is rarely changed, and an open control costs a new tab.
box, shown = page_expander("stab_set", "training.stab.controls", default=False)
with box:
    stab_steps = page_slider("stab_steps", "training.stab.steps", 10, 300, stab_sweep.DEFAULT_STEPS, step=10,
                             shown=shown)
sweep_out = run_when_asked(stab_sweep.sweep, "stab_run", "training.stab.ask", steps=stab_steps, seed=s.seed,
                           time_budget=stab_sweep.APP_TIME_BUDGET_S)
if sweep_out is not None:
    show_sweep(sweep_out, stab_sweep.findings(sweep_out))
    show_collapse(stab_sweep.collapse_view(sweep_out), sweep_out["params"]["collapse_nats"])
    length_out = cached(stab_length.length_section, seed=s.seed)
    if length_out is not None:
        show_length(length_out)
