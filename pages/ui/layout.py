"""Layout that fits a 360-px phone and still reads as before on a desktop or a projector.

- `metric_row()`: a row of metrics that wraps (four side by side on a desktop, two per line on a
  phone) where st.columns would stack them one per line or squash them;
- `show_table(frame)`: a small static table (st.table: no grid code for the browser to load) whose
  cells may break anywhere on a phone, so six columns fit 360 px instead of scrolling sideways;
- `formula(tex)`: a display formula that wraps between its parts on a narrow screen where
  st.latex would cut it off at the right edge;
- `preload_chart_code()`: a hidden one-point chart in the sidebar, sent by a page whose first chart
  comes late, so a new tab loads the browser's chart code while the page still computes.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

SEPARATOR = r"\qquad"
# An invisible strut (1.6 em above the baseline, 1 em below) opening each part of a formula: inline
# math sizes a line to its own content, so a wrapped line of tall fractions would touch the next.
STRUT = r"\rule[-1em]{0pt}{2.6em}"
# A metric in a row is at least this wide, so a 360-px phone fits two per line (three would squash
# their numbers) while a desktop still spreads four or five across the page.
METRIC_MIN_WIDTH = "8rem"
# (a metric directly in the row, or a metric with its caption in a small container in the row)
METRIC_CSS = ('<style>[data-testid="stHorizontalBlock"] > [data-testid="stElementContainer"]'
              ':has(> [data-testid="stMetric"]), [data-testid="stHorizontalBlock"] > '
              '[data-testid="stLayoutWrapper"]:has(> [data-testid="stVerticalBlock"] '
              f'[data-testid="stMetric"]) {{ min-width: {METRIC_MIN_WIDTH}; }}</style>')
# On a narrow screen a table's cells take smaller type (each column at least 3.5 em, so a short
# header is not broken a character a line), and its first column (labels, not numbers; at least
# 6.5 em wide) may break inside a long name ("nn.Multihead-Attention"), so a table of up to seven
# columns fits the screen; a wider one (the cost page's nine) scrolls sideways inside its own box.
# From 640 px on, tables are as Streamlit draws them.
TABLE_CSS = ('<style>[data-testid="stTable"] { overflow-x: auto; } @media (max-width: 640px) { '
             '[data-testid="stTable"] :is(th, td) { font-size: 0.75rem; padding: 0.25rem 0.3rem; '
             'min-width: 3.5em; } [data-testid="stTable"] td:first-child { min-width: 6.5em; } '
             '[data-testid="stTable"] td:first-child * { overflow-wrap: anywhere; } }</style>')


# The browser loads its Vega code (about 0.8 MB to fetch and compile) only once the first chart of
# a page arrives. On the cost and real-model pages that comes late (after the controls, a live
# timing or a model's forward pass): a hidden chart sent at the top of the page starts the load
# early (new tabs 0.12-0.13 s sooner, README). On pages whose charts come early it gained nothing
# (the browser compiles the code on the same cores as the server), so only those two send it.
PRELOAD_KEY = "ase_chart_code"
PRELOAD_CSS = f"<style>.st-key-{PRELOAD_KEY} {{ display: none; }}</style>"
PRELOAD_SPEC = {"data": {"values": [{"x": 0}]}, "mark": "point",
                "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def preload_chart_code() -> None:
    """A hidden one-point Vega-Lite chart in the sidebar (see PRELOAD_KEY): the browser's chart
    code loads while the page computes. Not shown, not read by screen readers (display: none), no
    space taken; the page's own charts are those in the main area. Call it near the top of a page."""
    st.sidebar.html(PRELOAD_CSS)  # a style, nothing drawn
    st.sidebar.container(key=PRELOAD_KEY).vega_lite_chart(PRELOAD_SPEC)  # the key names the box


def metric_row(container: Any = None) -> Any:
    """A row for metrics: call .metric(...) on it. Spread across the width like st.columns on a
    desktop; on a phone the metrics wrap two per line instead of stacking one per line."""
    where = container or st
    where.html(METRIC_CSS)  # the same rule every time: a style, nothing drawn
    return where.container(horizontal=True, gap="small")


def show_table(frame: Any, container: Any = None) -> None:
    """`frame` (a small DataFrame of ready-formatted cells) as a static table without its index.
    st.table rather than st.dataframe: the interactive grid costs a new tab about 1.2 MB of
    browser code to load and compile, for tables of a few rows. A table wider than a phone (the
    cost page's nine columns) scrolls sideways inside its own box, as the grid does."""
    where = container or st
    where.html(TABLE_CSS)  # the same rule every time: a style, nothing drawn
    where.table(frame, hide_index=True)


def formula_parts(tex: str) -> list[str]:
    r"""`tex` cut at its top-level \qquad separators (not inside braces), each part stripped."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        ch = tex[i]
        end = i + len(SEPARATOR)
        if depth == 0 and tex.startswith(SEPARATOR, i) and not tex[end:end + 1].isalpha():
            parts.append(tex[start:i])
            i = start = end
            continue
        if ch == "\\":
            i += 2  # an escaped character (\{, \\) never opens or closes a group
            continue
        depth += (ch == "{") - (ch == "}")
        i += 1
    parts.append(tex[start:])
    return [p.strip() for p in parts if p.strip()]


def formula(tex: str, container: Any = None) -> None:
    r"""Show `tex` centred in display style, as st.latex would, but free to wrap: each part between
    top-level \qquad separators is its own piece of math (KaTeX also breaks inside a part after a
    relation such as = or ⇒), so a phone shows the formula on several lines instead of cutting it."""
    pieces = [f"$\\displaystyle {STRUT}{p}$" for p in formula_parts(tex)]
    (container or st).markdown(" \u2003 ".join(pieces), text_alignment="center")
