"""What a chart says in text beside its picture, on the page (WCAG 1.1.1):

- `show_description(fig)`: the chart's text alternative (Figure.description) in the page, just before
  the chart, read by screen readers and not drawn: Streamlit gives no way to put a label on its chart
  element, and the chart's own accessible name (its Vega-Lite description, on the SVG) is not read
  by every screen reader in browse mode. Visually hidden rather than a visible caption: the pages
  already say in words what to notice, and a sentence of numbers under each of eight charts would
  crowd a phone. The text is escaped: never markup.
- `show_tables(fig)`: the chart's data as HTML tables (pages/ui/chart/chart_table.py), under the chart,
  when the reader asked for them (`tables_shown()`: the setting `tables=1` in the link, set by the
  sidebar's toggle `tables_toggle()`). One setting for every chart rather than an expander per
  chart: a closed page costs no widget per chart, and a keyboard user switches it on once.
"""

from __future__ import annotations

from html import escape
from typing import Any

import streamlit as st

from pages.ui.a11y import SR_CLASS
from pages.ui.chart.chart_table import panel_table
from pages.ui.chart.figure import Figure
from pages.ui.i18n import t
from pages.ui.layout import TABLE_CSS
from pages.ui.url_state import from_url, parse_flag, want

TABLES_KEY = "tables"  # the setting's key in the session and in the link (?tables=1)


def description_html(fig: Figure) -> str:
    """The hidden paragraph holding the chart's text alternative, escaped."""
    return f'<p class="{SR_CLASS}">{escape(t("charts.desc.prefix") + fig.description)}</p>'


def show_description(fig: Figure, container: Any = None) -> None:
    """The chart's text alternative, hidden from sight, read by screen readers (module docstring;
    the hiding rule is the app's, pages/ui/a11y.py, sent once per run by the router)."""
    (container or st).html(description_html(fig))


def tables_shown() -> bool:
    """Whether the reader asked for every chart's data as a table (`?tables=1`; the sidebar toggle)."""
    from_url(TABLES_KEY, parse_flag)
    shown = bool(st.session_state[TABLES_KEY])
    want(TABLES_KEY, shown, False)
    return shown


def tables_toggle(container: Any = None) -> bool:
    """The sidebar's toggle of tables_shown(), bound to `?tables=1` in the link."""
    from_url(TABLES_KEY, parse_flag)
    (container or st).toggle(t("charts.tables.label"), key=TABLES_KEY, help=t("charts.tables.help"))
    return tables_shown()


def tables_html(fig: Figure) -> str:
    """Every panel's table of a Figure, built once per Figure (it is built in one language)."""
    cached = fig.cache.get("tables")
    if cached is None:
        cached = fig.cache["tables"] = "".join(panel_table(p, fig.title) for p in fig.panels)
    return cached


def show_tables(fig: Figure, container: Any = None) -> None:
    """The chart's data as tables, under it (module docstring)."""
    (container or st).html(TABLE_CSS + tables_html(fig))
