"""The selectors of Streamlit's frontend DOM that the app's CSS uses, in one place.

Streamlit documents no DOM: its elements carry `data-testid` attributes (and a few class names) that
its own end-to-end tests select, and that have changed between versions. The app's rules (the
lesson's layout and projector mode in pages/ui/live/classroom.py, metric rows and formulas in
pages/ui/layout.py, focus and screen-reader text in pages/ui/a11y.py) build their CSS from these
constants; nothing else in the product names a `data-testid`. Each says what it selects and why the
app selects it. The classes Streamlit gives a keyed container (`.st-key-<key>`, documented with
`key=`) are public and stay where they are used.

Checked against Streamlit 1.67.0's frontend: tests/test_st_internals.py pins the version and finds
each name below in the bundle it serves (streamlit/static/static/js), so a name Streamlit drops fails
there. Server-side internals have their own door: server/st_internals.py.
"""

from __future__ import annotations

# The whole app's root (a class on the app's root element): projector mode paints it white.
APP = ".stApp"
# The main area beside the sidebar: projector mode's large type and the scroll padding under the header.
MAIN = '[data-testid="stMain"]'
# The main area's padded block of elements (a class on it): the lesson's own padding.
MAIN_BLOCK = ".stMainBlockContainer"
# The sidebar: hidden in the lesson's locked view.
SIDEBAR = '[data-testid="stSidebar"]'
# The sidebar's scrolling content: scroll padding keeps a focused link below the header.
SIDEBAR_CONTENT = '[data-testid="stSidebarContent"]'
# The button that opens a collapsed sidebar: hidden in the locked view, so students cannot open it.
EXPAND_SIDEBAR_BUTTON = '[data-testid="stExpandSidebarButton"]'
# The box of every element: a screen-reader-only element's box is taken out of the page's flow.
ELEMENT = '[data-testid="stElementContainer"]'
# st.columns' row: a metric in it keeps a minimum width, so a phone shows two per line.
HORIZONTAL_BLOCK = '[data-testid="stHorizontalBlock"]'
# A column of st.columns (and any container's wrapper): a metric inside one keeps the same width.
LAYOUT_WRAPPER = '[data-testid="stLayoutWrapper"]'
# A container's block of elements: a metric with its caption sits in one inside a column.
VERTICAL_BLOCK = '[data-testid="stVerticalBlock"]'
# st.metric: what the rows above hold.
METRIC = '[data-testid="stMetric"]'
# st.markdown's text (and st.caption's): a formula's piece scrolls inside it instead of widening the page.
MARKDOWN = '[data-testid="stMarkdownContainer"]'
# st.caption's box: projector mode sets captions black and larger.
CAPTION = '[data-testid="stCaptionContainer"]'
# A primary button (its kind in the testid): projector mode keeps its label white on the theme colour.
PRIMARY_BUTTON = '[data-testid="stBaseButton-primary"]'

# Every selector above, by name (tests/test_st_internals.py finds each in the frontend's bundle).
SELECTORS: dict[str, str] = {
    name: value for name, value in dict(globals()).items() if name.isupper() and isinstance(value, str)
}
