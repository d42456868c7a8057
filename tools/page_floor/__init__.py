"""Reference apps for `python -m tools.page_timing --floor`: what Streamlit itself costs a browser,
with none of this app's code. `empty.py` draws a title and one line of text; `one_chart.py` adds one
small Altair chart drawn as the app's pages draw theirs (Vega-Lite in the browser). A page of the
app can be no faster than these on the same machine."""
