"""Tools for teaching from a projector: clicker keys, the link of the current view as a QR code,
and the locked students' view.

- `key_navigation`: → / PageDown and ← / PageUp (what presentation clickers send) anywhere on the
  page, except while typing in or moving a widget, become "next" / "prev" events in Python. It is an
  `st.components.v2` component: its script runs in the app's own document (no iframe) and reports
  through `setTriggerValue`, Streamlit's public channel for a component's events.
- `view_link` / `qr_svg`: the full link of the view (`st.context.url` — the address the browser
  sees, page path included — plus this run's query parameters) and its QR code, drawn here by
  `segno` (no web service) as a scalable SVG (st.html would strip SVG; st.image shows it).
- `announce`: text a screen reader says when it changes (a live region that persists across runs).
- `page_style`: the lesson's layout rules (one screen at 1280×720; narrow screens wrap), and with
  `locked` the rules that hide the sidebar and its toggle. Styles go through `st.html`, which
  Streamlit does not show as an element when it holds only a <style>.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import segno
import streamlit as st

from pages.ui import st_dom as dom
from pages.ui.a11y import SR_CLASS

_KEYS_JS = """
export default function (component) {
  const { setTriggerValue } = component;
  const moves = { ArrowRight: "next", PageDown: "next", ArrowLeft: "prev", PageUp: "prev" };
  // Keys typed into a field, or moving a slider, radio or select, belong to that widget.
  const owned = 'input, textarea, select, [contenteditable=""], [contenteditable="true"], '
    + '[role="slider"], [role="radio"], [role="radiogroup"], [role="listbox"], [role="combobox"], '
    + '[role="option"], [role="tab"], [role="menu"], [role="menuitem"]';
  const onKey = (event) => {
    const move = moves[event.key];
    if (!move || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof Element && target.closest(owned)) return;
    event.preventDefault();
    setTriggerValue("move", move);
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
};
"""
_keys_component = st.components.v2.component("ase_clicker_keys", js=_KEYS_JS)

# A polite live region that stays the same element from run to run (an st.html block is rebuilt when
# its text changes, and a screen reader may not read a region that was just inserted): its text is
# set from Python with each run's `data`, so Reveal and Next are announced.
_ANNOUNCE_JS = """
export default function (component) {
  const { data, parentElement } = component;
  const region = parentElement.querySelector('[role="status"]');
  const text = (data && typeof data.text === "string") ? data.text : "";
  if (region && region.textContent !== text) region.textContent = text;
};
"""
_ANNOUNCE_HTML = f'<div class="{SR_CLASS}" role="status" aria-live="polite" aria-atomic="true"></div>'
_announce_component = st.components.v2.component("ase_announce", html=_ANNOUNCE_HTML, js=_ANNOUNCE_JS,
                                                 isolate_styles=False)

QR_ERROR = "m"  # medium error correction: survives a projector's glare and a phone's angle
QR_BORDER = 4   # the quiet zone of four modules the QR standard asks for
QR_SIDE_PX = 440  # about 60 % of a 720-pixel projector's height: readable from the back of a room

# One screen at 1280×720: the main area starts just under Streamlit's header (3.75rem, opaque over
# the page whenever the sidebar is collapsed: a phone, a locked link) and keeps its padding small;
# the claim is set large (but shrinks on a phone); charts take their container's width.
_STYLE = f"""
<style>
{dom.MAIN_BLOCK} {{ padding-top: 4rem; padding-bottom: 0.5rem; }}
@media (min-width: 640px) {{ {dom.MAIN_BLOCK} {{ padding-left: 2.5rem; padding-right: 2.5rem; }} }}
""" + """.st-key-lesson_claim h1 { font-size: clamp(1.25rem, 0.8rem + 1.45vw, 1.85rem); line-height: 1.25;
                          padding: 0 0 0.3rem 0; }
.st-key-lesson_question p { font-size: 1.08rem; }
/* the take-away: below the claim's size */
.st-key-lesson_question h4 { font-size: 1.3rem; line-height: 1.35; }
.st-key-ase_keys_box, .st-key-ase_teacher_key_box { display: none; }
.st-key-lesson_qr img { max-width: 100%; max-height: 62vh; height: auto; width: auto; }
</style>
"""
_LOCKED_STYLE = f"""
<style>
{dom.SIDEBAR}, {dom.EXPAND_SIDEBAR_BUTTON} {{ display: none !important; }}
</style>
"""


# Projector mode (?lesson_projector=1): black on white, large type, heavier controls, readable from
# the back of a room. The claim is 2.4 rem (38 px) from 1024 px wide up, the question and answers
# 1.35 rem, captions black rather than faded; charts draw their own lines at 3 px or more (pages/lesson.py).
PROJECTOR_CLAIM_PX = 38
_PROJECTOR_STYLE = f"""
<style>
{dom.APP}, {dom.APP} {dom.MAIN} {{ background: #FFFFFF; color: #000000; }}
.st-key-lesson_claim h1 {{ font-size: clamp(1.6rem, 1rem + 2.4vw, {PROJECTOR_CLAIM_PX / 16}rem) !important;
                          color: #000000; font-weight: 800; }}
@media (min-width: 1024px) {{
  .st-key-lesson_claim h1 {{ font-size: {PROJECTOR_CLAIM_PX / 16}rem !important; }} }}
{dom.MAIN} p, {dom.MAIN} li {{ font-size: 1.2rem; color: #000000; }}
.st-key-lesson_question p {{ font-size: 1.35rem; }}
{dom.MAIN} {dom.CAPTION},
{dom.MAIN} {dom.CAPTION} p {{ color: #000000; font-size: 1.05rem;
                                                              opacity: 1; }}
{dom.MAIN} button {{ border-width: 2px; border-color: #000000; font-size: 1.15rem;
                                min-height: 2.75rem; }}
{dom.MAIN} button p {{ font-size: 1.15rem; }}
{dom.MAIN} {dom.PRIMARY_BUTTON}:not(:disabled) p {{ color: #FFFFFF; }}
</style>
"""


def page_style(locked: bool, projector: bool = False) -> None:
    """The lesson's layout; when `locked`, also hide the sidebar (it starts collapsed, and its
    toggle is hidden); with `projector`, the high-contrast large-type rules. A per-run decision:
    nothing outside this session changes."""
    if locked:
        st.set_page_config(initial_sidebar_state="collapsed")
    st.html(_STYLE + (_PROJECTOR_STYLE if projector else "") + (_LOCKED_STYLE if locked else ""))


def key_navigation(key: str, on_move: Callable[[str], None]) -> None:
    """Listen for clicker keys on the whole page; `on_move("next" | "prev")` runs as a callback,
    before the rerun it causes. Renders nothing visible (the element sits in a hidden container)."""

    def changed() -> None:
        event = st.session_state.get(key)
        move = event.get("move") if hasattr(event, "get") else None
        if move in ("next", "prev"):
            on_move(move)

    with st.container(key="ase_keys_box"):
        _keys_component(key=key, on_move_change=changed)


def announce(key: str, text: str) -> None:
    """Have screen readers say `text` (plain text, set as text, never markup) whenever it changes:
    a visually hidden live region at this place of the page, the same element on every run."""
    _announce_component(key=key, data={"text": text})


def view_link(base: str | None, params: dict[str, str]) -> str | None:
    """The full link of a view: `base` (scheme, host, port and page path, as st.context.url gives
    it) with `params` as its query string; None when the base is unknown."""
    if not base:
        return None
    query = urlencode(params)
    return f"{base}?{query}" if query else base


def qr_svg(text: str, side_px: int = QR_SIDE_PX) -> str:
    """`text` as a QR code, an SVG about `side_px` pixels wide (whole pixels per module, so the
    modules stay sharp); shown smaller where the screen is narrower (a phone)."""
    qr = segno.make(text, error=QR_ERROR, micro=False)
    modules = qr.symbol_size(scale=1, border=QR_BORDER)[0]
    return qr.svg_inline(scale=max(2, side_px // modules), border=QR_BORDER, svgclass=None, lineclass=None,
                         dark="#000000", light="#ffffff")
