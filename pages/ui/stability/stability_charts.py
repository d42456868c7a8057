"""The charts of /training's section "Why modern models bound the logits" (core.stability): final loss and
peak attention logit against the learning rate, one line per variant; the collapse of one run beside
its QK-norm twin; softmax against Scalable-Softmax as n grows. Colours are fixed per variant, and the
dash and marker that go with each colour (pages/ui/chart/channels.py) tell them apart without colour."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from pages.ui.chart.charts import HEIGHT, WIDTH, layered, side_by_side
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.format import OKABE_ITO
from pages.ui.i18n import t

VARIANT_COLOURS = {"baseline": OKABE_ITO[1], "qk-norm": OKABE_ITO[0], "soft-cap": OKABE_ITO[2],
                   "z-loss": OKABE_ITO[4]}
METHOD_COLOURS = {"none": OKABE_ITO[1], "ssmax": OKABE_ITO[0]}
GREY = "#666666"


def variant_label(v: str) -> str:
    return t(f"training.stab.variant.{v}")


def _colour(field: str, title: str, names: list[str], labels: list[str],
            colours: dict[str, str]) -> alt.Color:
    scale = alt.Scale(domain=labels, range=[colours[n] for n in names])
    return alt.Color(f"{field}:N", title=title, scale=scale,
                     legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))


def _lr_axis() -> alt.X:
    return alt.X("lr:Q", title=t("training.stab.axis.lr"), scale=alt.Scale(type="log"),
                 axis=alt.Axis(format=".2~g"))


@figure_cache
def sweep_figure(rows: list[dict[str, Any]], variants: list[str], ln_values: float) -> Figure:
    """Final loss (with chance ln V dashed) and the peak attention logit against η, a line per variant."""
    df = pd.DataFrame(rows)
    df["variant_label"] = df["variant"].map(variant_label)
    df = df[["variant", "variant_label", "lr", "loss_final", "max_logit_peak", "entropy_min_final"]]
    colour = _colour("variant_label", t("training.stab.legend.variant"), variants,
                     [variant_label(v) for v in variants], VARIANT_COLOURS)
    loss_t, peak_t = t("training.stab.axis.final_loss"), t("training.stab.axis.peak_logit")
    tips = [alt.Tooltip("variant_label:N", title=t("training.stab.legend.variant")),
            alt.Tooltip("lr:Q", title="η", format=".3g")]

    def lines(y: str, title: str, log: bool) -> alt.Chart:
        scale = alt.Scale(type="log") if log else alt.Scale(zero=True)
        return alt.Chart().encode(x=_lr_axis(), y=alt.Y(f"{y}:Q", title=title, scale=scale), color=colour,
                                  tooltip=[*tips, alt.Tooltip(f"{y}:Q", title=title, format=".4g")])

    chance = alt.Chart().mark_rule(strokeDash=[4, 4], color=GREY).encode(
        y=alt.datum(ln_values), tooltip=alt.value(f"{t('training.stab.chance')} = {ln_values:.3g}"))
    left = lines("loss_final", loss_t, False)
    right = lines("max_logit_peak", peak_t, True).transform_filter("datum.max_logit_peak > 0")
    chart = side_by_side(
        layered(left.mark_line(strokeWidth=2), left.mark_point(filled=True, size=50), chance, data=df,
                width=WIDTH, height=HEIGHT, title=loss_t),
        layered(right.mark_line(strokeWidth=2), right.mark_point(filled=True, size=50), data=df,
                width=WIDTH, height=HEIGHT, title=peak_t),
        title=alt.TitleParams(t("training.stab.sweep_title"), anchor="start", fontSize=14))
    return figure(chart, df)


@figure_cache
def collapse_figure(curves: list[dict[str, Any]], collapse_step: int | None, collapse_nats: float) -> Figure:
    """Max attention logit (log axis) and the smallest head entropy against step, the baseline and its
    QK-norm twin in each panel; the step where the baseline's attention collapsed marked."""
    df = pd.DataFrame(curves)
    df["variant_label"] = df["variant"].map(variant_label)
    df = df[["variant", "variant_label", "lr", "step", "max_logit", "entropy_min", "loss"]].dropna()
    names = [v for v in ("baseline", "qk-norm") if v in set(df["variant"])]
    colour = _colour("variant_label", t("training.stab.legend.variant"), names,
                     [variant_label(v) for v in names], VARIANT_COLOURS)
    step_x = alt.X("step:Q", title=t("training.axis.step"))
    logit_t, ent_t = t("training.stab.axis.max_logit"), t("training.stab.axis.entropy_min")

    def panel(y: str, title: str, log: bool, extra: list[Any]) -> Any:
        scale = alt.Scale(type="log") if log else alt.Scale(zero=True)
        tips = [alt.Tooltip("variant_label:N", title=t("training.stab.legend.variant")),
                alt.Tooltip("step:Q", title=t("training.axis.step")),
                alt.Tooltip(f"{y}:Q", title=title, format=".4g")]
        base = alt.Chart().encode(x=step_x, y=alt.Y(f"{y}:Q", title=title, scale=scale), color=colour,
                                  tooltip=tips)
        line = base.mark_line(strokeWidth=2)
        if log:
            line = line.transform_filter(f"datum.{y} > 0")
        return layered(line, *extra, data=df, width=WIDTH, height=HEIGHT, title=title)

    marks: list[Any] = []
    if collapse_step is not None:
        marks.append(alt.Chart().mark_rule(strokeDash=[2, 2], color=GREY, strokeWidth=2).encode(
            x=alt.datum(collapse_step),
            tooltip=alt.value(t("training.stab.collapse_at", step=collapse_step))))
    floor = alt.Chart().mark_rule(strokeDash=[6, 3], color=GREY).encode(
        y=alt.datum(collapse_nats), tooltip=alt.value(t("training.stab.collapse_line", nats=collapse_nats)))
    chart = side_by_side(panel("max_logit", logit_t, True, marks),
                         panel("entropy_min", ent_t, False, [*marks, floor]),
                         title=alt.TitleParams(t("training.stab.collapse_title"), anchor="start",
                                               fontSize=14))
    return figure(chart, df)


@figure_cache
def length_figure(rows: list[dict[str, Any]]) -> Figure:
    """Mean weight on the matching key against n (log axes), softmax and SSMax, with 1/n dashed."""
    df = pd.DataFrame(rows)
    df["method_label"] = df["method"].map(lambda m: t(f"training.stab.method.{m}"))
    df = df[["n", "method", "method_label", "target_weight_mean", "target_weight_se", "max_weight_mean",
             "uniform_weight"]]
    methods = [m for m in ("none", "ssmax") if m in set(df["method"])]
    colour = _colour("method_label", t("training.stab.legend.method"), methods,
                     [t(f"training.stab.method.{m}") for m in methods], METHOD_COLOURS)
    y_t = t("training.stab.axis.target_weight")
    x = alt.X("n:Q", title=t("training.stab.axis.n"), scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))
    base = alt.Chart().encode(x=x, y=alt.Y("target_weight_mean:Q", title=y_t, scale=alt.Scale(type="log")),
                              color=colour,
                              tooltip=[alt.Tooltip("method_label:N", title=t("training.stab.legend.method")),
                                       alt.Tooltip("n:Q", title="n"),
                                       alt.Tooltip("target_weight_mean:Q", title=y_t, format=".3g"),
                                       alt.Tooltip("max_weight_mean:Q", format=".3g",
                                                   title=t("training.stab.axis.max_weight"))])
    uniform = alt.Chart().mark_line(strokeDash=[4, 4], color=GREY).encode(
        x=x, y=alt.Y("uniform_weight:Q"), tooltip=alt.value(t("training.stab.uniform")))
    chart = layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=50), uniform, data=df,
                    width=WIDTH + 100, height=HEIGHT, title=alt.TitleParams(t("training.stab.length_title"),
                                                                            anchor="start", fontSize=14))
    return figure(chart, df)
