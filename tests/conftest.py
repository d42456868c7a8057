"""Shared fixtures: the repository root on sys.path, and running one page of the app under AppTest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

def call_in_threads(fn, count: int) -> list:
    """fn() from `count` threads started together; their results, once all have finished."""
    import threading

    results: list = []
    threads = [threading.Thread(target=lambda: results.append(fn())) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


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


@pytest.fixture
def open_page():
    return run_page
