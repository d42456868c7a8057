"""AppTest: the gradients page's check against torch autograd, an expander bound to `?grad_check=1`
and computed only once opened; what it shows is what core computes."""

import pytest
from conftest import count_calls, run_page, tables
from streamlit.testing.v1 import AppTest

from core import views
from pages.ui.format import fmt_num
from pages.ui.i18n import text_for

QUERY = {"seed": "47", "dk": "32", "n": "16"}  # settings no other test uses: a fresh check


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("gradients", {"lang": lang, **params})
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at: AppTest, lang: str) -> dict[str, str]:
    labels = {text_for(f"gradients.check.{k}", lang) for k in ("abs", "rel", "norm")}
    return {m.label: m.value for m in at.metric if m.label in labels}


def test_the_check_is_computed_only_once_opened(monkeypatch):
    calls = count_calls(monkeypatch, views, "autograd_check")
    at = _page("en", **QUERY)
    assert text_for("gradients.check.header", "en") in [e.label for e in at.expander]
    assert not calls and not _shown(at, "en") and not at.success and not tables(at)
    assert "grad_check" not in at.query_params

    at.session_state["grad_check"] = True  # the reader opens it: the page reruns and draws it
    at.run()
    assert not at.exception
    assert len(calls) == 1 and len(tables(at)) == 1
    assert at.query_params["grad_check"] == "1"  # the link now opens it too
    scale = at.session_state["grad_scale"]
    check = views.autograd_check.__wrapped__(32, 16, scale, seed=47)  # core's own, uncounted
    assert _shown(at, "en") == {text_for("gradients.check.abs", "en"): fmt_num(check["max_abs_diff"], 2),
                                text_for("gradients.check.rel", "en"): fmt_num(check["max_rel_diff"], 2),
                                text_for("gradients.check.norm", "en"): fmt_num(check["grad_norm"])}
    assert check["agrees"] and at.success[0].value == text_for(
        "gradients.check.ok", "en").format(tol=fmt_num(check["tolerance"], 2))

    linked = _page("zh", **QUERY, grad_check="1")  # a link opens it; the result is shared
    assert len(calls) == 1 and len(_shown(linked, "zh")) == 3
    assert linked.success[0].value.startswith(text_for("gradients.check.ok", "zh").split("：")[0])
    header = list(tables(linked)[0].columns)
    assert header == [text_for(f"gradients.check.{k}", "zh") for k in ("component", "analytic", "autograd")]


@pytest.mark.parametrize("scale", ["none", "sqrt"])
def test_the_check_follows_the_chosen_scale(scale):
    at = _page("en", **QUERY, grad_check="1", grad_scale=scale)
    check = views.autograd_check(32, 16, scale, seed=47)
    assert _shown(at, "en")[text_for("gradients.check.norm", "en")] == fmt_num(check["grad_norm"])


def test_a_malformed_link_keeps_the_check_closed_and_says_so(monkeypatch):
    calls = count_calls(monkeypatch, views, "autograd_check")
    bad = _page("en", **QUERY, grad_check="**open**")
    assert not calls and not _shown(bad, "en")
    assert any("grad_check" in w.value and "default 0" in w.value for w in bad.warning)
