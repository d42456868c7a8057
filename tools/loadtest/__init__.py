"""A load test for a running app server: many browser-like sessions on Streamlit's websocket protocol.

`python -m tools.loadtest --help`; see the README's "Hosting" section for the figures it produces.
"""
