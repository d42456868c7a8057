"""The lesson's plan under AppTest: `?steps=` choosing and ordering the steps, the speaker notes on the
teacher's screen only, the misconception each wrong choice names, the wording of the review, and the
handout built from the page."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from test_app_lesson import name, open_lesson, share_link

from core import lesson
from pages.ui.i18n import text_for


def test_steps_in_the_url_choose_and_order_the_steps_and_stay_in_the_link():
    at = open_lesson(lang="en", steps="overflow,1,nope")
    assert not at.exception
    assert at.title[0].value == text_for("lesson.overflow.name", "en")
    assert "steps=overflow,1,nope" in " ".join(w.value for w in at.warning), "the unknown part is reported"
    assert at.session_state["_ase_run"].wants["steps"] == "overflow,variance"
    overflow = text_for("lesson.overflow.name", "en")
    heading = text_for("lesson.step_of", "en").format(k=1, total=2, name=overflow)
    assert heading in [m.value.strip("*") for m in at.markdown]
    at.button(key="lesson_next").click().run()
    assert at.title[0].value == name(1, "en") and at.button(key="lesson_next").disabled
    link, _ = share_link({"lang": "en", "steps": "gradients,double", "step": "2", "lock": "1"})
    assert dict(parse_qsl(urlsplit(link).query))["steps"] == "gradients,double", "the locked link keeps it"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_speaker_notes_are_on_the_teachers_screen_only(lang):
    at = open_lesson(lang=lang, step="4")
    notes = " ".join(m.value for m in at.sidebar.markdown) + " ".join(c.value for c in at.sidebar.caption)
    spec = lesson.STEPS[3]
    assert text_for(f"lesson.{spec.name}.say", lang)[:20] in notes, "what to say at the reveal"
    assert text_for(f"lesson.wrong.{spec.expected}", lang) in notes, "the expected wrong answer's reason"
    assert text_for("lesson.notes.source", lang).format(note=spec.wrong[spec.expected]) in notes, "its note"
    minutes = f"{lesson.plan_minutes(tuple(range(len(lesson.STEPS)))):g}"
    assert minutes in notes, "the plan's minutes"
    locked = open_lesson(lang=lang, step="4", lock="1")
    said = " ".join(m.value for m in [*locked.sidebar.markdown, *locked.main.markdown])
    assert text_for(f"lesson.{spec.name}.say", lang)[:20] not in said, "never on a student's screen"


def test_every_wrong_choice_names_a_misconception_and_its_note_exists():
    from core.factcheck import NOTE_FILES
    from pages.ui.i18n import TABLE

    for spec in lesson.STEPS:
        for key, note in spec.wrong.items():
            assert f"lesson.wrong.{key}" in TABLE, key
            assert note == "" or any(f.startswith(note) for f in NOTE_FILES), (spec.name, key, note)


def test_chinese_wording_of_the_review():
    assert "等效地用到" in text_for("lesson.scales.question", "zh")
    assert "实际用到" not in text_for("lesson.scales.question", "zh")
    assert "近似平局" not in " ".join(text_for(k, "zh") for k in ("lesson.gradients.takeaway",
                                                                 "lesson.gradients.takeaway_nocross"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_handout_holds_every_chosen_step_offline(lang):
    from html import escape

    at = open_lesson(lang=lang, steps="gradients,trained")
    assert not [b for b in at.sidebar.get("download_button")], "built only when asked"
    at.button(key="lesson_handout_prepare").click().run()
    assert not at.exception, [e.value for e in at.exception]
    html = at.session_state["lesson_handout_html"][1]
    for k, key in enumerate(("gradients", "trained"), start=1):
        for part in ("name", "claim"):
            assert escape(text_for(f"lesson.{key}.{part}", lang)) in html, (key, part)
        assert f'id="step-{k}"' in html
    assert html.count("<svg") == 2, "every chart an inline SVG"
    assert "<script" not in html and "src=\"http" not in html and "href=\"http" not in html, "no network"
    assert "@media print" in html
    assert at.sidebar.get("download_button"), "then offered for download"
