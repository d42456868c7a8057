"""Charts: the Altair specs' second channels (channels.py), Vega-Lite at the edge (vega.py), exports
(export.py), each chart's description read from its spec (describe.py), a cached chart with its text
alternative (figure.py), the tables and text beside it (chart_table.py, chart_text.py), and drawing
one on the page (charts.py). docs/architecture.md names each module's part.
"""
