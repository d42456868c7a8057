"""AppTest: the fact-check page in both languages; cards start collapsed; verdicts come from core."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import factcheck as fc
from pages.ui.i18n import text_for

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SHARED = ("dk", "n", "trials", "seed")


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would.

    Its url_path differs from its file name, so AppTest finds it only after a first run has
    registered the pages; that run rewrites the URL, so the page's parameters are set again
    afterwards. Shared settings (d_k, seed) are already bound by then: they go to session state.
    """
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page("pages/factcheck.py")
    at.query_params["lang"] = lang
    for k, v in params.items():
        if k in SHARED:
            at.session_state[k] = int(v)
        else:
            at.query_params[k] = v
    at.run()
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
