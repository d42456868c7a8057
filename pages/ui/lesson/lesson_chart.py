"""The lesson step's figure: context rows always, answer rows once revealed (pages/lesson.py, the
handout). Reference lines dashed, measured series with a marker as well as a colour."""

from __future__ import annotations

import altair as alt
import pandas as pd

from core import lesson
from pages.ui.chart.charts import layered
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.format import DASHES, OKABE_ITO, SCALE_COLOURS, scale_label
from pages.ui.i18n import t
from pages.ui.words import method_label

CHART_HEIGHT = 180  # the plot area; axes and the legend below it add about 120 px
REFERENCE_SERIES = ("theory_dk", "uniform", "all_keys", "uniform_n", "theory_match", "mup_rho",
                    "cand_one", "cand_sqrt_dk", "cand_dk", "cand_dk2", "cand_inv_dk", "cand_quarter",
                    "cand_half")  # dashed, no points
BLUE, VERMILLION, GREEN, ORANGE, PURPLE = (OKABE_ITO[i] for i in range(5))
REFERENCE_GREY = "#777777"  # 4.5:1 on white, as the other pages' references
SERIES_COLOURS = {"measured": VERMILLION, "measured_double": VERMILLION, "theory_dk": "#000000",
                  "uniform": REFERENCE_GREY, "all_keys": REFERENCE_GREY, "uniform_n": REFERENCE_GREY,
                  "log-n": GREEN, "matching": VERMILLION, "theory_match": "#000000",
                  "mup_rho": BLUE, "grown": VERMILLION, "qk-norm": GREEN, "cosine": PURPLE, "softcap": ORANGE,
                  "naive": BLUE, "stable": VERMILLION, "temperature": BLUE, "absorbed": VERMILLION,
                  "cand_one": REFERENCE_GREY, "cand_sqrt_dk": BLUE, "cand_dk": GREEN, "cand_dk2": PURPLE,
                  "cand_inv_dk": BLUE, "cand_quarter": GREEN, "cand_half": PURPLE}
# The measured series' markers: the second channel beside colour (a grayscale print, a washed-out
# projector or a colour-blind student still tells the series apart); references are dashed lines.
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge", "stroke")
REFERENCE_DASHES = ((2, 3), (10, 3, 2, 3), (4, 2), (1, 4), (12, 4))  # unlike the measured lines' DASHES
# Line widths and type (px): as on a laptop, and in projector mode (lines at least 3 px).
STYLE = {False: {"line": 3, "reference": 2, "point": 60, "axis": 11, "title": 12, "legend": 12},
         True: {"line": 5, "reference": 3, "point": 140, "axis": 16, "title": 18, "legend": 17}}



def series_label(series: str, args: dict) -> str:
    if series in SCALE_COLOURS:
        return scale_label(series)
    if series in lesson.NORM_REMEDIES:
        return method_label(series, formula=True)
    return t(f"lesson.series.{series}", **args)



@figure_cache
def step_chart(chart: dict, revealed: bool, projector: bool = False, width: int | None = None) -> Figure:
    """The step's figure at its container's width: context rows always, answer rows once revealed;
    in projector mode with heavier lines and larger type. Built once per (data, revealed, projector,
    language) for every session."""
    px = STYLE[projector]
    args = chart["series_args"]
    df = pd.DataFrame(chart["rows"], columns=["x", "y", "series", "stage"])
    if not revealed:  # the answer's series, and their names in the legend, come with the reveal
        df = df[df["stage"] == "context"]
    order = list(dict.fromkeys(df["series"]))
    labels = {name: series_label(name, args) for name in order}
    colours = [SERIES_COLOURS.get(name, SCALE_COLOURS.get(name, OKABE_ITO[i % len(OKABE_ITO)]))
               for i, name in enumerate(order)]
    df = df.assign(label=df["series"].map(labels), reference=df["series"].isin(REFERENCE_SERIES))
    y_scale = alt.Scale(type="log") if chart["y_log"] else alt.Scale(zero=False)
    if chart["y_domain"]:
        y_scale = alt.Scale(type="log" if chart["y_log"] else "linear", domain=chart["y_domain"])
    names = [labels[n] for n in order]  # every scale's domain: one legend for colour, dash and marker
    kth = {n: j for j, n in enumerate(n for n in order if n not in REFERENCE_SERIES)}  # measured series
    palette = alt.Scale(domain=names, range=colours)
    legend = alt.Legend(orient="bottom", direction="vertical", labelLimit=320, rowPadding=2,
                        symbolSize=px["point"] + 10, labelFontSize=px["legend"], padding=0,
                        symbolStrokeWidth=px["reference"])
    colour = alt.Color("label:N", title=None, scale=palette, legend=legend)
    measured = [labels[n] for n in order if n not in REFERENCE_SERIES]
    # every label in the shape scale, so the one legend shows a measured series' marker and a
    # reference's line ("stroke"), not a default circle for the references
    shapes = ["stroke" if n in REFERENCE_SERIES else SHAPES[kth[n] % len(SHAPES)] for n in order]
    shape = alt.Shape("label:N", title=None, legend=legend, scale=alt.Scale(domain=names, range=shapes))
    ticks = sorted({r["x"] for r in chart["rows"]})
    x = alt.X("x:Q", title=t(f"lesson.axis.{chart['x']}"), scale=alt.Scale(type="log", base=2),
              axis=alt.Axis(values=ticks, format="~g", labelOverlap=True))
    tiny = chart["y_log"] and bool(len(df)) and df["y"].min() < 1e-4  # 1e-7, not 0.0000001
    y = alt.Y("y:Q", title=t(f"lesson.axis.{chart['y']}"), scale=y_scale,
              axis=alt.Axis(format=".0e" if tiny else "~g", labelOverlap=True))
    tips = [alt.Tooltip("label:N", title=t("lesson.legend")), alt.Tooltip("x:Q", format="~g"),
            alt.Tooltip("y:Q", format=".4g")]
    base = alt.Chart(df).encode(x=x, y=y, color=colour, tooltip=tips)
    # one dash per label, measured series and references alike, in one scale the layers share (so
    # a line keeps its dash at the reveal) and whose legend merges with the colour's
    dashes = [list(REFERENCE_DASHES[i % len(REFERENCE_DASHES)]) if n in REFERENCE_SERIES
              else list(DASHES[kth[n] % len(DASHES)]) for i, n in enumerate(order)]
    dash = alt.StrokeDash("label:N", title=None, legend=legend, scale=alt.Scale(domain=names, range=dashes))
    layers = [] if not measured else [
        base.transform_filter("!datum.reference").mark_line(strokeWidth=px["line"]).encode(strokeDash=dash),
        base.transform_filter("!datum.reference").mark_point(filled=True, size=px["point"])
        .encode(shape=shape),
    ]
    # references last, so a measurement lying on its theory leaves the theory visible
    # each reference its own dash as well as its colour: several candidates share a chart before the reveal
    layers.append(base.transform_filter("datum.reference").mark_line(strokeWidth=px["reference"])
                  .encode(strokeDash=dash))
    if chart["current"] is not None:
        here = pd.DataFrame({"x": [chart["current"]]})
        rule = alt.Chart(here).mark_rule(color="#555555", strokeDash=[2, 3], strokeWidth=px["reference"])
        layers.append(rule.encode(x=alt.X("x:Q")))
    # fit-x: the width follows the container (a phone's 360 px or a projector's half screen), the
    # plot keeps its height, and the axes and legend are added below it instead of squeezing it.
    drawn = layered(*layers).properties(height=CHART_HEIGHT,
                                        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    if width is not None:  # a file's fixed size (the handout), not its container's
        drawn = drawn.properties(width=width, autosize=alt.AutoSizeParams(type="pad"))
    if projector:
        black = "#000000"
        drawn = drawn.configure_axis(labelFontSize=px["axis"], titleFontSize=px["title"], labelColor=black,
                                     titleColor=black, domainColor=black, tickColor=black
                                     ).configure_legend(labelColor=black)
    return figure(drawn, df.drop(columns=["reference"]))
