"""Shared fixtures: the repository root on sys.path, and running one page of the app under AppTest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MY_PAGES = ("overview", "variance", "saturation", "gradients", "precision")


def run_page(page: str, query: dict[str, str] | None = None, locale: str | None = None, timeout: float = 120):
    """Open pages/<page>.py through app.py (as a deep link would), with URL query parameters."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if locale:
        at.context = {"locale": locale}
    at.switch_page(f"pages/{page}.py")
    return at.run()


def run_linked_page(file: str, params: dict[str, str] | None = None, timeout: float = 180):
    """Open pages/<file>.py through app.py when its url_path differs from its file name.

    AppTest finds such a page only after a first run has registered the pages, and that run
    rewrites the URL, so the page's parameters are set again before the page runs. The shared
    sidebar settings are bound by the first run, so they go to session state instead.
    """
    from streamlit.testing.v1 import AppTest

    params = params or {}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    if "lang" in params:
        at.query_params["lang"] = params["lang"]
    at.run()
    at.switch_page(f"pages/{file}.py")
    for key, value in params.items():
        if key in SHARED_INT:
            at.session_state[key] = int(value)
        else:
            at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


SHARED_INT = ("dk", "n", "trials", "seed")


@pytest.fixture
def open_page():
    return run_page
