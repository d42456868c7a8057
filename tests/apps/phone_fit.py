"""A page for the browser test of the phone-width check: `?mode=fixed` draws a chart and a formula
the way the app drew them before (a fixed-width Altair chart, st.latex) and a box that scrolls
sideways but is itself wider than a phone; `?mode=fitted` draws them the way the app does now
(show_chart of a Figure, formula) and a nine-column table that scrolls inside its own box
(show_table, as the cost page's). Run by tests/test_browser.py."""

import sys
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pages.ui.chart.charts import WIDE_WIDTH, show_chart
from pages.ui.chart.figure import figure
from pages.ui.layout import formula, show_table

TEX = (r"\operatorname{Attention}(Q,K,V)=\operatorname{softmax}\!\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V,"
       r"\qquad \operatorname{Var}(q\cdot k)=d_k \;\Rightarrow\; "
       r"\operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1")

df = pd.DataFrame({"dk": [1, 2, 4, 8, 16, 32, 64], "var": [1, 2, 4, 8, 16, 32, 64]})
chart = alt.Chart(df).mark_line(point=True).encode(x="dk:Q", y="var:Q").properties(
    width=WIDE_WIDTH, height=200, title="Var(q·k) against d_k")
st.title("Phone fit")
if st.query_params.get("mode") == "fixed":
    st.latex(TEX)
    st.altair_chart(chart.properties(autosize=alt.AutoSizeParams(type="pad")), width="content")
    st.html('<div style="width: 560px; overflow-x: auto"><p style="width: 720px">a box that scrolls '
            'sideways, itself wider than a phone</p></div>')
else:
    formula(TEX)
    show_chart(figure(chart, df), name="phone-fit")
    show_table(pd.DataFrame([{f"column {c}": f"{1000 * r + c:,} s" for c in range(9)} for r in range(4)]))
