"""App-wide rules for keyboard and motion (docs/accessibility.md), sent once per run with the
sidebar's links (pages/ui/nav.py).

- **Visible focus**: every focusable element shows a 3 px outline in the theme's primary colour
  (7.4:1 on white) when reached by keyboard (`:focus-visible`), never on a mouse click.
- **Focus not hidden**: Streamlit's header (3.75 rem) is opaque over the top of the page whenever
  the sidebar is collapsed; scrolling a focused element into view keeps it below the header
  (`scroll-padding-top`), and a dialog's focus stays inside the dialog (Streamlit's own).
- **Screen-reader text**: `.ase-sr-only` holds text read aloud but not drawn (the lesson's live
  region announcing a revealed measurement).
- **Reduced motion**: when the system asks for reduced motion, nothing animates or slides
  (spinners, expanders, the sidebar, toasts); the change happens at once.
"""

from __future__ import annotations

FOCUS_COLOUR = "#0066A1"  # .streamlit/config.toml's primaryColor

APP_CSS = (
    "<style>"
    f":focus-visible {{ outline: 3px solid {FOCUS_COLOUR} !important; outline-offset: 2px; }} "
    "html, [data-testid='stMain'], [data-testid='stSidebarContent'] { scroll-padding-top: 4.5rem; "
    "scroll-padding-bottom: 1rem; } "
    ".ase-sr-only { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; "
    "overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; } "
    "@media (prefers-reduced-motion: reduce) { *, *::before, *::after { "
    "animation-duration: 0s !important; animation-delay: 0s !important; "
    "animation-iteration-count: 1 !important; transition-duration: 0s !important; "
    "transition-delay: 0s !important; scroll-behavior: auto !important; } }"
    "</style>"
)
