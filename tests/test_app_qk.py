"""AppTest: the Q-vs-K page in both languages, tying toggle, the gradient section opened only when
asked, and URL validation."""

import pytest
from conftest import count_calls, run_page, tables
from streamlit.testing.v1 import AppTest

from core import qk
from pages.ui.i18n import text_for


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("q-vs-k", {"lang": lang, **params}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_qk_renders_both_sections(lang):
    at = _page(lang, qk_grad="1")
    assert at.title[0].value == text_for("qk.title", lang)
    assert text_for("qk.norm.header", lang) in [h.value for h in at.header]
    assert text_for("qk.grad.header", lang) in [e.label for e in at.expander]
    assert len(at.metric) == 4 and len(tables(at)) == 2
    assert len(at.main.get("vega_lite_chart")) == 6  # three heat maps, two row-norm bars, the pairs


def test_the_gradient_section_is_computed_only_once_opened(monkeypatch):
    calls = count_calls(monkeypatch, qk, "grad_view")
    query = {"seed": "43", "trials": "20"}  # settings no other test uses
    at = _page("zh", **query)
    assert text_for("qk.grad.header", "zh") in [e.label for e in at.expander]
    assert len(tables(at)) == 1 and len(at.main.get("vega_lite_chart")) == 3 and not calls
    assert "qk_grad" not in at.query_params

    at.session_state["qk_grad"] = True  # the reader opens it: the page reruns and draws it
    at.run()
    assert not at.exception
    assert len(tables(at)) == 2 and len(at.main.get("vega_lite_chart")) == 6 and len(calls) == 1
    assert at.query_params["qk_grad"] == "1"  # the link now opens it too

    linked = _page("en", **query, qk_grad="1")  # a link opens it; the result is shared
    assert len(linked.main.get("vega_lite_chart")) == 6 and len(calls) == 1

    bad = _page("en", **query, qk_grad="**open**")
    assert len(bad.main.get("vega_lite_chart")) == 3
    assert any("qk_grad" in w.value and "default 0" in w.value for w in bad.warning)


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
