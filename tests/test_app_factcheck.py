"""AppTest: the fact-check page in both languages; cards start collapsed; verdicts come from core."""

import pytest
from conftest import run_page
from streamlit.testing.v1 import AppTest

from core import factcheck as fc
from pages.ui.i18n import text_for


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("fact-check", {"lang": lang, **params}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_factcheck_renders_every_claim_collapsed_with_its_question(lang):
    at = _page(lang)
    assert at.title[0].value == text_for("factcheck.title", lang)
    labels = [e.label for e in at.expander]
    for i, c in enumerate(fc.CLAIMS, start=1):
        question = text_for(f"factcheck.{c.id}.question", lang)
        assert any(label.startswith(f"**{i}.**") and question in label for label in labels)
    # every card (and the rules and scorecard) starts collapsed: the drill hides the answer
    assert all(not e.proto.expanded for e in at.expander)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_factcheck_verdict_boxes_match_core(lang):
    at = _page(lang)
    results = fc.check_all(seed=0)
    shown = [b.value for b in (*at.success, *at.warning, *at.error)]
    for r in results:
        if r["kind"] != "measured":
            continue
        verdict = text_for(f"factcheck.verdict.{r['verdict']}", lang)
        expected = text_for("factcheck.verdict.measured", lang).format(verdict=verdict)
        assert expected in shown
    lit = [b.value for b in at.info]
    assert sum(text_for("factcheck.verdict.literature", lang).split("{")[0] in x for x in lit) == 2


def test_factcheck_quotes_the_notes_verbatim_in_chinese_in_both_languages():
    at = _page("en")
    md = " ".join(m.value for m in at.markdown)
    code = " ".join(c.value for c in at.code)
    for c in fc.CLAIMS:
        assert c.quote_zh in (code if c.quote_format == "code" else md)


def test_factcheck_seed_changes_the_measurement():
    at = _page("en", seed="7")
    captions = " ".join(c.value for c in at.caption)
    assert "seed 7" in captions
