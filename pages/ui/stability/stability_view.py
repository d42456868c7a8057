"""What /training's section "Why modern models bound the logits" shows once its sweep is there: the run's
caption, the sweep's chart and per-variant table, where the miniature agrees with Wortsman et al. 2023
and where it does not (every number from core.stability.sweep.findings), the collapse of one run beside
its QK-norm twin, and softmax against Scalable-Softmax as n grows."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from pages.ui.chart import charts
from pages.ui.format import fmt_num
from pages.ui.i18n import t
from pages.ui.layout import show_table
from pages.ui.stability.stability_charts import collapse_figure, length_figure, sweep_figure, variant_label


def _lrs(lrs: list[float]) -> str:
    return ", ".join(fmt_num(x, 3) for x in lrs) or "—"


def show_sweep(out: dict[str, Any], found: dict[str, Any]) -> None:
    """The sweep: caption, chart, table, and the comparison with the paper."""
    p = out["params"]
    st.caption(t("training.stab.ran", runs=len(out["rows"]), variants=len(p["variants"]), lrs=len(p["lrs"]),
                 steps=p["steps"], batch=p["batch"], seed=p["seed"], seconds=fmt_num(p["seconds_total"], 3),
                 lo=fmt_num(min(p["lrs"]), 3), hi=fmt_num(max(p["lrs"]), 3)))
    charts.show_chart(sweep_figure(out["rows"], p["variants"], p["ln_values"]), name="training-lr-sweep")
    three = {"variant": variant_label, "sensitivity": lambda x: fmt_num(x, 3),
             "loss_best": lambda x: fmt_num(x, 3), "lr_best": lambda x: fmt_num(x, 3),
             "collapsed": str, "diverged": str, "seconds": lambda x: fmt_num(x, 2)}
    show_table(pd.DataFrame([{t(f"training.stab.col.{c}"): f(v[c]) for c, f in three.items()}
                             for v in out["variants"]]))
    st.markdown(f"**{t('training.stab.compare')}**")
    sens = found["sensitivity"]
    lines = []
    if "baseline" in sens and "qk-norm" in sens:
        key = "agree" if sens["qk-norm"] < sens["baseline"] else "disagree"
        lines.append(t(f"training.stab.qk_{key}", qk=fmt_num(sens["qk-norm"], 3),
                       base=fmt_num(sens["baseline"], 3)))
        lines.append(t("training.stab.collapse_count", k=len(found["collapse_only_baseline"]),
                       n=found["twins"], lrs=_lrs(found["collapse_only_baseline"]),
                       nats=fmt_num(p["collapse_nats"], 2),
                       base=fmt_num(found["peak_logit"]["baseline"], 3),
                       qk=fmt_num(found["peak_logit"]["qk-norm"], 3)))
    if found["diverged"]:
        lines.append(t("training.stab.diverged_some", d=found["diverged"], runs=found["runs"]))
    else:
        lines.append(t("training.stab.diverged_none", runs=found["runs"], lnv=fmt_num(p["ln_values"], 3)))
    if "z-loss" in sens and "baseline" in sens:
        lines.append(t("training.stab.zloss", z=fmt_num(sens["z-loss"], 3), base=fmt_num(sens["baseline"], 3),
                       norm=fmt_num(found["logit_norm"]["baseline"], 3)))
    if "soft-cap" in sens and "baseline" in sens:
        lines.append(t("training.stab.softcap", c=fmt_num(sens["soft-cap"], 3),
                       base=fmt_num(sens["baseline"], 3),
                       cap=fmt_num(p["soft_cap"], 3),
                       peak=fmt_num(found["peak_logit"]["soft-cap"], 3)))
    st.markdown("\n".join(f"- {line}" for line in lines))


def show_collapse(view: dict[str, Any], collapse_nats: float) -> None:
    """The baseline at one high learning rate beside its QK-norm twin."""
    st.subheader(t("training.stab.collapse_head"))
    runs = {r["variant"]: r for r in view["runs"]}
    base = runs.get("baseline")
    step = base["collapse_step"] if base else None
    st.caption(t("training.stab.collapse_caption", lr=fmt_num(view["lr"], 3),
                 step="—" if step is None else str(step), nats=fmt_num(collapse_nats, 2)))
    charts.show_chart(collapse_figure(view["curves"], step, collapse_nats), name="training-collapse")


def show_length(length: dict[str, Any]) -> None:
    """The paper's toy case as a table, then our own scores as a chart."""
    st.subheader(t("training.stab.length_head"))
    st.markdown(t("training.stab.length_intro", top=fmt_num(length["toy"]["params"]["top"], 2),
                  s=fmt_num(length["toy"]["params"]["s"], 2)))
    by = {(r["n"], r["method"]): r["max_weight"] for r in length["toy"]["rows"]}
    ns = sorted({r["n"] for r in length["toy"]["rows"]})
    show_table(pd.DataFrame([{t("training.stab.col.n"): str(n),
                              t("training.stab.col.softmax_max"): fmt_num(by[(n, "none")], 2),
                              t("training.stab.col.ssmax_max"): fmt_num(by[(n, "ssmax")], 4)} for n in ns]))
    m = length["measured"]["params"]
    st.markdown(t("training.stab.measured_intro", dk=m["d_k"], rho=fmt_num(m["rho"], 2),
                  logit=fmt_num(m["target_logit_mean"], 2), trials=m["trials"]))
    charts.show_chart(length_figure(length["measured"]["rows"]), name="training-ssmax")
    st.caption(t("training.stab.length_lesson"))
