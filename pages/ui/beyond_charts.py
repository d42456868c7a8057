"""The beyond page's initialisation chart: the logit variance each real initialisation gives after ÷√d_k
(bars), its theory (ticks) and the 1 the √d_k argument assumes (pages/beyond.py, section 4)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pages.ui.chart.charts import WIDTH, layered
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.format import OKABE_ITO
from pages.ui.i18n import t


@figure_cache
def init_figure(rows: list[dict], d_model: int, dk: int) -> Figure:
    """Var of the scaled logit per initialisation scheme (bars), its theory (ticks) and 1."""
    df = pd.DataFrame(rows)
    df["scheme_label"] = df["scheme"].map(lambda m: t(f"beyond.scheme.{m}"))
    labels = list(df["scheme_label"])
    bars = (
        alt.Chart(df)
        .mark_bar(color=OKABE_ITO[0], opacity=0.85)
        .encode(
            y=alt.Y("scheme_label:N", title=None, sort=labels,
                    axis=alt.Axis(labelLimit=260)),  # "nn.MultiheadAttention" whole on a phone
            x=alt.X("var_logit:Q", title=t("beyond.init.chart.y")),
            tooltip=[
                alt.Tooltip("scheme_label:N"),
                alt.Tooltip("var_logit:Q", format=".4g"),
                alt.Tooltip("theory_var_logit:Q", format=".4g"),
                alt.Tooltip("var_logit_se:Q", format=".2g"),
            ],
        )
    )
    ticks = (
        alt.Chart(df)
        .mark_tick(color="#000000", thickness=2, size=22)
        .encode(y=alt.Y("scheme_label:N", sort=labels), x=alt.X("theory_var_logit:Q"))
    )
    one = (
        alt.Chart(pd.DataFrame({"x": [1.0], "label": [t("beyond.init.one")]}))
        .mark_rule(strokeDash=[4, 4], color=OKABE_ITO[1])
        .encode(x=alt.X("x:Q"), tooltip=[alt.Tooltip("label:N")])
    )
    chart = layered(bars, ticks, one).properties(
        width=WIDTH,
        height=200,
        title=alt.TitleParams(t("beyond.init.chart.title", d_model=d_model, dk=dk), anchor="start"),
    )
    return figure(chart, df.drop(columns=["scheme_label"]))
