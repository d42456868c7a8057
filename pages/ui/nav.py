"""The sidebar's page links, drawn by the app.

Streamlit's own sidebar navigation (`st.navigation(..., position="sidebar")`) renders each section
as `<ul>` whose children are `<div>`s wrapping the `<li>`s: a list that screen readers cannot count
and that axe-core reports as serious on every view (rules `list` and `listitem`). The router
therefore hides Streamlit's navigation (`position="hidden"`) and this module draws the same links
with `st.page_link`: one link per page, grouped under its section's name, the current page marked
by Streamlit (`aria-current="page"`). A link switches pages inside the session, as the built-in
navigation did, so the settings travel with it and the router writes them to the new page's URL.
"""

from __future__ import annotations

import html

import streamlit as st

from pages.ui.a11y import APP_CSS

# Each section's name is a small label above its links, not a heading: the page's own title is the
# document's h1, and headings in the sidebar would come before it in a screen reader's outline.
SECTION_CSS = ("<style>.ase-nav-section { font-size: 0.875rem; font-weight: 600; margin: 0.75rem 0 0; "
               "color: inherit; }</style>")


def app_rules() -> None:
    """The app's rules alone (a view without the sidebar's links, which carry them otherwise)."""
    st.html(APP_CSS)


def render_nav(sections: dict[str, list[st.Page]]) -> None:
    """Draw `sections` (section name → pages, in order) as page links at the top of the sidebar."""
    sb = st.sidebar
    for i, (name, pages) in enumerate(sections.items()):
        rules = APP_CSS + SECTION_CSS if i == 0 else ""  # the app's rules, sent once per run
        sb.html(rules + f'<p class="ase-nav-section">{html.escape(name)}</p>')
        # Links 28 px apart: each is 20 px tall, and WCAG 2.2 asks for 24 px targets or that much room.
        links = sb.container(gap="small")
        for page in pages:
            links.page_link(page, width="stretch")
    sb.divider()
