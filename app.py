"""Attention Scale Explorer — the router: page config, shared sidebar controls, navigation.

Run with `streamlit run app.py`. Pages live in pages/ (registered below, never auto-discovered);
the compute they show lives in core/. Streamlit runs this file (as __main__) for every page a
session opens: `route()`. `streamlit run` first imports it once to find the `st.App` at the bottom
and serves that: Streamlit's own server, with our lifespan (server/startup.py) and two middlewares
(server/static_gzip.py, server/page_base.py); docs/architecture.md says what each is for.

The process is started by `start()` (pages/ui/app_start.py: the configuration, the store and the
shared objects, the evictors, the libraries' settings, the janitor; docs/architecture.md#start-up),
called here before anything else as `streamlit run` imports this file, and again at the top of every
script run (AppTest has no server), where it costs one flag read once done. Importing the modules
above starts nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from pages.ui import legacy_pages, nav, run_order, sidebar, url_state
from pages.ui.app_start import start
from pages.ui.i18n import current_lang, has, t
from pages.ui.live import class_follow, who
from server import shared
from server.page_base import PageBase
from server.room_auth import TeacherCookie
from server.startup import lifespan
from server.static_gzip import StaticGzip
from server.stats import StatsEndpoint

ROOT = Path(__file__).parent

# ---------------------------------------------------------------- PAGES
# (file, url_path, topic, icon, section). The title is t("<topic>.nav"); the section is
# t("common.section.<section>"). A page whose file does not exist yet is skipped, so a
# colleague's page appears as soon as its file lands. Keep url_paths stable: links depend on them.
# Each file is named after its url_path: a fresh server resolves its first request against the
# pages/ folder's file names before app.py has run st.navigation (pages/ui/legacy_pages.py).
PAGE_TABLE: list[tuple[str, str, str, str, str]] = [
    ("pages/overview.py", "overview", "overview", ":material/home:", "story"),
    ("pages/variance.py", "variance", "variance", ":material/bar_chart:", "story"),
    ("pages/saturation.py", "saturation", "saturation", ":material/grid_on:", "story"),
    ("pages/gradients.py", "gradients", "gradients", ":material/trending_down:", "story"),
    ("pages/precision.py", "precision", "precision", ":material/decimal_increase:", "story"),
    ("pages/lesson.py", "lesson", "lesson", ":material/co_present:", "story"),
    # Placeholders, registered only once their file exists:
    ("pages/cost.py", "cost", "cost", ":material/speed:", "beyond"),
    ("pages/fact-check.py", "fact-check", "factcheck", ":material/fact_check:", "beyond"),
    ("pages/beyond.py", "beyond", "beyond", ":material/explore:", "beyond"),
    ("pages/q-vs-k.py", "q-vs-k", "qk", ":material/compare_arrows:", "beyond"),
    ("pages/training.py", "training", "training", ":material/model_training:", "practice"),
    ("pages/real-model.py", "real-model", "real_model", ":material/hub:", "practice"),
]
DEFAULT_PAGE = "overview"
# What every page imports, loaded as the server starts (server/startup.py), before the first page asks.
FIRST_MODULES = ("altair", "pandas", "core.views", "pages.ui.chart.charts", "pages.ui.compute",
                 "pages.ui.sidebar", "pages.ui.layout")
# The browser tab's icon. An emoji, which Streamlit's frontend draws in the page itself: a Material
# icon there is fetched from fonts.gstatic.com, the one request a page made to another server (a
# class's network may not reach it, nor may a reader in mainland China).
PAGE_ICON = "➗"


def warm_up_kernels() -> None:
    """On a GPU host, compile and check our CUDA kernels once per server in the background
    (NVRTC takes seconds for attention_forward.cu); elsewhere nothing. Run as the server starts
    (LIFESPAN), not by each script run."""
    from core import gpu

    gpu.warm_up_in_background()


def build_pages() -> dict[str, list[st.Page]]:
    """st.Page objects grouped by translated section title, in table order: built once per session
    and language (each st.Page resolves its file on disk)."""
    lang = current_lang()
    kept = st.session_state.get("_app_pages")
    if kept is not None and kept[0] == lang:
        return kept[1]
    sections: dict[str, list[st.Page]] = {}
    for file, url_path, topic, icon, section in PAGE_TABLE:
        if not (ROOT / file).is_file():
            continue
        title_key = f"{topic}.nav"
        title = t(title_key) if has(title_key) else url_path.replace("-", " ").capitalize()
        page = st.Page(ROOT / file, title=title, icon=icon, url_path=url_path,
                       default=url_path == DEFAULT_PAGE)
        sections.setdefault(t(f"common.section.{section}"), []).append(page)
    st.session_state["_app_pages"] = (lang, sections)
    return sections


def route(page: Callable[[], None] | None = None) -> None:
    """One run of the router: page config, sidebar, navigation, the page itself. `page`, when
    given, is drawn instead of the page the URL names: everything else runs as for a page
    (tools/page_floor/app_shell.py times what the router itself costs a browser)."""
    start()  # once per process; then one flag read
    st.set_page_config(page_title=t("common.app_title"), page_icon=PAGE_ICON, layout="wide")
    woken = class_follow.woken_whole()  # a phone's whole page, asked for by its woken step
    with shared.RUNS.running(first=who.teaching(), in_wave=bool(woken)):
        url_state.begin_run()
        sidebar.seed_language()
        sections = build_pages()
        legacy_pages.declare_pages_first(sections)
        navigation = st.navigation(sections, position="hidden")  # drawn by the app: pages/ui/nav.py
        if page is None and navigation.url_path == "lesson" and who.phone():
            nav.app_rules()  # the app's CSS, which the sidebar's links carry otherwise
            sidebar.quiet_settings()  # a phone in a live class: the room's step, no sidebar
        else:
            nav.render_nav(sections)
            sidebar.render_sidebar()
        url_state.open_notice_area()
        try:
            navigation.run() if page is None else page()
        finally:
            sidebar.show_notices()
            url_state.sync_url()
            url_state.end_run()
            if woken:  # drawn: the room's bus may wake the next phone
                class_follow.drawn(woken)


LIFESPAN = lifespan(FIRST_MODULES, at_start=(warm_up_kernels,))
MIDDLEWARE = [Middleware(StaticGzip),
              # the shared objects read per request: built by start(), after this list
              Middleware(StatsEndpoint, counters=lambda: shared.RESULTS.counters(),  # noqa: PLW0108
                         waves=lambda: shared.ROOMS.bus.stats(),  # noqa: PLW0108
                         base_url_path=st.get_option("server.baseUrlPath") or ""),
              Middleware(PageBase, pages=[row[1] for row in PAGE_TABLE], default=DEFAULT_PAGE,
                         base_url_path=st.get_option("server.baseUrlPath") or ""),
              Middleware(TeacherCookie, base_url_path=st.get_option("server.baseUrlPath") or "")]

if __name__ == "__main__":  # Streamlit runs this file as __main__ for every page a session opens
    route()
else:  # `streamlit run app.py` imports it once and serves this App
    start()
    run_order.install()  # a fragment's rerun waits for the last messages of a run just ended
    app = st.App(__file__, lifespan=LIFESPAN, middleware=MIDDLEWARE)
