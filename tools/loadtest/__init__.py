"""A load test for a running app server: many browser-like sessions on Streamlit's websocket protocol.

`python -m tools.loadtest --help`; see docs/performance.md for the figures it produces.
"""
