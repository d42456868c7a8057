"""Streamlit's floor with one chart: a title and one small Altair line chart, as wide as its
container (see tools/page_floor/__init__.py)."""

import altair as alt
import pandas as pd
import streamlit as st


def draw() -> None:
    """The title and the chart."""
    st.title("Attention")
    frame = pd.DataFrame({"d_k": [2**i for i in range(11)], "variance": [float(2**i) for i in range(11)]})
    st.altair_chart(alt.Chart(frame).mark_line(point=True).encode(x="d_k:Q", y="variance:Q"), width="stretch")


if __name__ == "__main__":  # `streamlit run` runs it as __main__; app_shell.py imports draw
    draw()
