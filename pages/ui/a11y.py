"""App-wide rules for keyboard and motion (docs/accessibility.md), sent once per run with the
sidebar's links (pages/ui/nav.py).

- **Visible focus**: every focusable element shows a 3 px outline in the theme's primary colour
  (6.8:1 on white) when reached by keyboard (`:focus-visible`), never on a mouse click.
- **Focus not hidden**: Streamlit's header (3.75 rem) is opaque over the top of the page whenever
  the sidebar is collapsed; scrolling a focused element into view keeps it below the header
  (`scroll-padding-top`), and a dialog's focus stays inside the dialog (Streamlit's own).
- **Screen-reader text**: an element of class `SR_CLASS` is read aloud but not drawn (a chart's text
  alternative, the lesson's live region); the element box Streamlit wraps it in is taken out of the
  page's flow too, so it adds no gap.
- **Reduced motion**: when the system asks for reduced motion, nothing animates or slides
  (spinners, expanders, the sidebar, toasts); the change happens at once.
"""

from __future__ import annotations

from pages.ui import st_dom as dom

FOCUS_COLOUR = "#005F96"  # .streamlit/config.toml's primaryColor
SR_CLASS = "ase-sr-only"
# The usual "screen-reader only" rule: visually hidden, still in the accessibility tree.
_HIDDEN = ("position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; "
           "overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0;")

APP_CSS = (
    "<style>"
    f":focus-visible {{ outline: 3px solid {FOCUS_COLOUR} !important; outline-offset: 2px; }} "
    f"html, {dom.MAIN}, {dom.SIDEBAR_CONTENT} {{ scroll-padding-top: 4.5rem; "
    "scroll-padding-bottom: 1rem; } "
    f".{SR_CLASS} {{ {_HIDDEN} }} "
    f"{dom.ELEMENT}:has(.{SR_CLASS}) {{ {_HIDDEN} }} "
    "@media (prefers-reduced-motion: reduce) { *, *::before, *::after { "
    "animation-duration: 0s !important; animation-delay: 0s !important; "
    "animation-iteration-count: 1 !important; transition-duration: 0s !important; "
    "transition-delay: 0s !important; scroll-behavior: auto !important; } }"
    "</style>"
)
