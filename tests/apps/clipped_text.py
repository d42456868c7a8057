"""A page for the browser test of the clipped-text check (tools/app_driver.py: CLIPPED_JS).
`?mode=faulty` draws what the check must report: a chart whose label sits on a rule that a line
crosses, a legend label Vega shortens to fit, pills in a third of the page (on a desktop their row
scrolls behind a fading edge) and a line of text cut off with an ellipsis; `?mode=fixed` draws the
same content the way the app draws it (the label in the chart's subtitle, the pills across the
page, the text wrapping). Run by tests/test_browser_screens.py."""

import sys
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pages.ui.chart.charts import layered, show_chart
from pages.ui.chart.figure import figure

faulty = st.query_params.get("mode") == "faulty"
name = "a rather long series name that Vega has to shorten" if faulty else "unscaled"
df = pd.DataFrame({"dk": [1, 2, 4, 8, 16, 32, 64], "logit": [2.0, 4, 8, 12, 16, 30, 60],
                   "series": [name] * 7})
LABEL = "ln 65504 ≈ 11.09: exp overflows"
line = alt.Chart(df).mark_line().encode(x="dk:Q", y="logit:Q")
rule = alt.Chart(pd.DataFrame({"y": [11.09], "label": [LABEL]}))
st.title("Clipped text")
if faulty:
    chart = layered(line.encode(color=alt.Color("series:N", legend=alt.Legend(labelLimit=60))),
                    rule.mark_rule().encode(y="y:Q"),
                    rule.mark_text(align="left", dx=4, dy=-6).encode(y="y:Q", text="label:N", x=alt.value(0)),
                    height=200, title="Largest logit")
else:
    chart = layered(line.encode(color=alt.Color("series:N", legend=alt.Legend(labelLimit=200))),
                    rule.mark_rule(strokeDash=[2, 3]).encode(y="y:Q"), height=200,
                    title=alt.TitleParams("Largest logit", subtitle=[f"dotted: {LABEL}"]))
show_chart(figure(chart, df), name="clipped", downloads=False)
where = st.columns(3)[0] if faulty else st  # a third of a desktop's width (a phone stacks columns)
where.pills("Number of tokens n", ["64-512", "128-1024", "256-2048", "512-4096"], default="64-512",
            key="ranges")
style = "white-space: nowrap; overflow: hidden; text-overflow: ellipsis; width: 120px" if faulty else ""
st.html(f'<p style="{style}">a sentence too long for its box, cut off at its end</p>')
