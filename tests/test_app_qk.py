"""AppTest: the Q-vs-K page in both languages, tying toggle and URL validation."""

import pytest
from conftest import run_page
from streamlit.testing.v1 import AppTest

from pages.ui.i18n import text_for


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("q-vs-k", {"lang": lang, **params}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_qk_renders_both_sections(lang):
    at = _page(lang)
    assert at.title[0].value == text_for("qk.title", lang)
    headers = [h.value for h in at.header]
    assert text_for("qk.norm.header", lang) in headers and text_for("qk.grad.header", lang) in headers
    assert len(at.metric) == 4 and len(at.table) == 2


def test_tying_makes_the_scores_symmetric():
    untied = _page("en")
    tied = _page("en", qk_tie="1")
    asym = text_for("qk.metric.asym", "en")
    value = {m.label: m.value for m in tied.metric}[asym]
    assert float(value) == 0.0
    assert float({m.label: m.value for m in untied.metric}[asym]) > 0.5


def test_qk_url_values_are_validated_with_a_notice():
    at = _page("en", qk_n="500", qk_tie="maybe")
    notices = " ".join(w.value for w in at.warning)
    assert "qk_n" in notices and "qk_tie" in notices
    assert at.slider(key="qk_n").value == 32


def test_qk_clamps_large_dk():
    at = _page("en", dk="1024")
    assert any("256" in i.value for i in at.info)
