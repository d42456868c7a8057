"""AppTest: the fact-check page and its drill in both languages — nothing is measured until asked, answers
are scored against the measurement, the URL picks the note, and the per-note counts equal the CLI's."""

import dataclasses

import pytest
from conftest import run_page
from factcheck_live import live_results
from streamlit.testing.v1 import AppTest

from core import factcheck as fc
from core.factcheck.quote_text import clean_quote
from pages.ui.format import fmt_num
from pages.ui.i18n import text_for
from pages.ui.words import summary_fields


def _page(lang: str, **params: str) -> AppTest:
    """Open the page through app.py as a shared link would."""
    at = run_page("fact-check", {"lang": lang, **params}, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _rerun(at: AppTest) -> AppTest:
    """Run again after a click. The router marks its run ended after every run (url_state.end_run), and
    AppTest starts the next run with the session state it saw last, running the page file first (a
    fresh server's legacy run), so the page would take the cold-start path (settings() reroutes
    through app.py) and lose the click. Hand the page the run it just had, not ended."""
    at.session_state["_ase_run"] = dataclasses.replace(at.session_state["_ase_run"], ended=False)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open(at: AppTest, claim_id: str) -> AppTest:
    at.session_state[f"fc_card_{claim_id}"] = True
    return _rerun(at)


def _summary_lines(at: AppTest) -> list[str]:
    (block,) = [m.value for m in at.markdown if m.value.startswith("- **000**")]
    return block.splitlines()


def _expected_line(row: dict, lang: str) -> str:
    return "- " + text_for("factcheck.summary.line", lang).format(**summary_fields(row))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_card_is_listed_collapsed_and_nothing_is_measured_on_load(lang):
    at = _page(lang)
    assert at.title[0].value == text_for("factcheck.title", lang)
    labels = [e.label for e in at.expander]
    for i, c in enumerate(fc.claims_of("000"), start=1):
        assert f"**{i}.** {text_for(f'factcheck.{c.id}.question', lang)}" in labels
    assert not at.session_state["fc_results"]  # no card opened: no measurement ran
    assert not (at.success or at.error)
    assert _summary_lines(at) == [_expected_line(r, lang) for r in fc.note_summary()]
    why = text_for("factcheck.unchecked.why", lang).split("{")[0]
    assert sum(m.value.startswith(why) for m in at.markdown) == len(fc.unchecked_of("000"))


def test_the_note_comes_from_the_url_and_a_bad_one_falls_back_with_a_notice():
    at = _page("en", fc_note="004")
    assert at.pills(key="fc_note").value == "004"
    assert text_for("factcheck.n4_sigma.question", "en") in " ".join(e.label for e in at.expander)
    at = _page("en", fc_note="9")
    assert at.pills(key="fc_note").value == "000"
    assert any("fc_note" in w.value for w in at.warning)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_drill_scores_the_answer_against_the_measurement(lang):
    at = _open(_page(lang, fc_note="003"), "n3_print_3")
    assert not at.session_state["fc_results"]  # opened, not yet answered: still nothing measured
    claim = fc.get_claim("n3_print_3")
    assert claim.quote_zh in [c.value for c in at.code]
    at.radio(key="fc_ans_v_n3_print_3").set_value("fails")
    truth = live_results(0)["n3_print_3"]["facts"]["top"]
    at.number_input(key="fc_ans_n_n3_print_3").set_value(truth)
    at.button[[b.label for b in at.button].index(text_for("factcheck.drill.submit", lang))].click()
    _rerun(at)
    r = at.session_state["fc_results"][(0, "n3_print_3")]
    assert r["verdict"] == "fails"
    verdict = text_for("factcheck.verdict.fails", lang)
    assert text_for("factcheck.verdict.measured", lang).format(verdict=verdict) in [e.value for e in at.error]
    assert text_for("factcheck.drill.verdict_fb", lang).format(yours=verdict, mark="✓") in at.success[0].value
    assert fmt_num(truth, 3) in at.success[0].value
    score = text_for("factcheck.drill.score", lang).format(right=2, asked=2, cards=1)
    assert score in [m.value for m in at.markdown]


def test_drill_skip_reveals_without_scoring_and_a_wrong_verdict_scores_zero():
    at = _open(_page("en", fc_note="003"), "n3_exps")
    at.button[[b.label for b in at.button].index(text_for("factcheck.drill.skip", "en"))].click()
    _rerun(at)
    assert at.session_state["fc_results"][(0, "n3_exps")]["verdict"] == "holds"
    assert text_for("factcheck.drill.score", "en").format(right=0, asked=0, cards=0) in [
        m.value for m in at.markdown
    ]
    _open(at, "n3_print_24")
    at.radio(key="fc_ans_v_n3_print_24").set_value("fails")
    at.button[[b.label for b in at.button].index(text_for("factcheck.drill.submit", "en"))].click()
    _rerun(at)
    assert text_for("factcheck.drill.score", "en").format(right=0, asked=1, cards=1) in [
        m.value for m in at.markdown
    ]
    assert any("✗" in i.value for i in at.info)


def test_with_the_drill_off_an_opened_card_measures_at_once():
    at = _open(_page("zh", fc_note="002", fc_drill="0"), "n2_grad_wq")
    assert at.toggle(key="fc_drill").value is False
    assert at.session_state["fc_results"][(0, "n2_grad_wq")]["verdict"] == "fails"
    assert fc.get_claim("n2_grad_wq").quote_zh in " ".join(m.value for m in at.markdown)


def _live_check(claim_id: str, seed: int = 0, progress=None) -> dict:
    """fc.check, answered from the measurements the unit tests already made (seed 0)."""
    return live_results(seed)[claim_id]


@pytest.mark.slow
def test_per_note_counts_on_the_page_equal_the_cli(monkeypatch):
    live = live_results(0)
    monkeypatch.setattr(fc, "check", _live_check)
    at = _page("en")
    for note in fc.NOTES:
        at.pills(key="fc_note").set_value(note.file[:3])
        _rerun(at)
        at.button(key="fc_measure_all").click()
        _rerun(at)
    expected = fc.note_summary(list(live.values()))  # what `python -m core factcheck --json` reports per note
    assert all(row["pending"] == 0 for row in expected)
    assert _summary_lines(at) == [_expected_line(r, "en") for r in expected]


# ---------------------------------------------------------------- what the notes are, their quotes cleaned

CLI = "python -m core factcheck"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_opens_by_saying_what_the_notes_are_and_keeps_the_command_line_for_engineers(lang):
    at = _page(lang)
    assert at.markdown[0].value == text_for("factcheck.notes_are", lang)  # the first thing under the title
    (notes,) = [e for e in at.expander if e.label == text_for("factcheck.notes_list.title", lang)]
    listed = notes.markdown[0].value
    for n in fc.NOTES:
        assert n.title_zh in listed and n.title_en in listed
    # the command line only inside the engineers' expander, which comes after "what to notice"
    (eng,) = [e for e in at.expander if e.label == text_for("factcheck.engineers.title", lang)]
    assert any(CLI in c.value for c in eng.code)
    learner_text = [m.value for m in (*at.markdown, *at.caption, *at.info)] + [c.value for c in at.code]
    assert sum(CLI in v for v in learner_text) == 1  # the engineers' code block, nothing else
    assert at.code[-1].value.startswith(CLI)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_quote_with_copy_artefacts_is_shown_clean_and_verbatim_on_request(lang):
    claim = fc.get_claim("n0_var")
    at = _open(_page(lang, fc_drill="0"), claim.id)
    shown = [x.value for x in at.text]
    assert clean_quote(claim.quote_zh, "plain") in shown and claim.quote_zh not in shown
    assert not any("d k d_k dk" in v or "\\sqrt" in v for v in shown)
    assert claim.quote_zh not in [c.value for c in at.code]  # verbatim only when asked
    at.toggle(key=f"fc_verbatim_{claim.id}").set_value(True)
    _rerun(at)
    codes = [c.value for c in at.code]
    assert claim.quote_zh in codes and all(a in codes for a in claim.also_zh)


def test_an_unchecked_statement_with_artefacts_keeps_its_verbatim_text_in_an_expander():
    at = _page("en")
    changed = [u for u in fc.unchecked_of("000") if clean_quote(u.quote_zh, "plain") != u.quote_zh]
    assert changed
    verbatims = [e for e in at.expander if e.label == text_for("factcheck.verbatim", "en")]
    assert len(verbatims) == len(changed)
    for u, box in zip(changed, verbatims, strict=True):
        assert box.code[0].value == u.quote_zh
        assert clean_quote(u.quote_zh, "plain") in [x.value for x in at.text]


def test_a_markdown_quote_shows_its_maths_in_the_delimiters_katex_reads():
    claim = fc.get_claim("n4_std")
    at = _open(_page("en", fc_note="004", fc_drill="0"), claim.id)
    md = " ".join(m.value for m in at.markdown)
    assert "$\\sqrt{512} \\approx 22.6$" in md and "\\(\\sqrt{512}" not in md
