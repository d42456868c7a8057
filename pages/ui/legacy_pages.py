"""Why a `pages/` folder needs care: Streamlit's legacy multipage mode, and how the app steps out of it.

Until some session has called `st.navigation`, Streamlit treats a `pages/` folder beside the entry
script as a legacy (v1) multipage app, for the whole server: a run that starts then executes the
file the URL names (/variance → pages/variance.py) without app.py, or app.py itself as one of the
folder's pages (/). That is every first request of a fresh server, and every tab a class opens on a
server that just woke up. Widgets drawn in such a run belong to the wrong script (a widget's identity
includes the script that drew it), so they would lose their values on the next rerun.

Hence a session's first run declares the app's pages with st.navigation before any widget (which
switches the folder off for the server, as documented, and registers the URL's page) and, where it
may have been such a run, reruns (`declare_pages_first`); a page file that finds itself run without
the router declares the folder's files and reruns through it (`route_through_app`). That rerun, and
every later one, runs app.py as the entry script, whatever other sessions are doing. The pages' file
names are their url paths, so a fresh server resolves a first request to the right file.
(Checked against Streamlit 1.67; tests/test_hosting.py opens deep links on fresh servers.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import streamlit as st

_DECLARED = "_ase_pages_declared"
PAGES_DIR = Path(__file__).resolve().parents[1]


def declare_pages_first(sections: dict[str, list[Any]]) -> None:
    """Called by app.py before any widget: on the session's first run, declare `sections`, and
    rerun unless the link named one of them.

    A legacy run executes app.py only for the folder's main page: the root link, or a link that
    names no file in pages/. Both resolve to the default page here too. A link to a named page
    that reaches app.py is therefore already an app.py run, and it goes on without a rerun: a
    class opening links to a warm server costs one run per tab instead of two."""
    if st.session_state.get(_DECLARED):
        return
    st.session_state[_DECLARED] = True
    if st.navigation(sections, position="hidden").url_path:
        return
    st.rerun()


def route_through_app() -> NoReturn:
    """This page file ran without app.py (see above): declare the folder's files as pages under their
    own names, as Streamlit just resolved the link (app.py's url paths are the file names), and
    rerun through app.py, which routes to this same page. The entry script is the default page, as
    in Streamlit's own legacy navigation: a default page answers only to the root link, so were it
    one of the files (the first, beyond.py), a link to that file would find no page."""
    files = sorted(f for f in PAGES_DIR.glob("*.py") if f.name != "__init__.py")
    st.session_state[_DECLARED] = True
    entry = st.Page(PAGES_DIR.parent / "app.py", default=True)
    st.navigation([entry, *(st.Page(f, url_path=f.stem) for f in files)], position="hidden")
    st.rerun()
