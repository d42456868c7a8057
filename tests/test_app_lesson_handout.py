"""The lesson's handout from a live class under AppTest, in English and Chinese
(pages/ui/lesson/lesson_handout.py): on the teacher's page of a room the handout holds, for each step the
room answered, the first and second vote's share correct and the answers per choice with their
sure / guessing split, read from the room's stored answers; a step the room did not answer, a page
without a room and a student's phone get none of it."""

from __future__ import annotations

from html import escape

import pytest
from conftest import run_page
from test_app_class import (  # noqa: F401  (fresh_rooms: the fixture, shared)
    assert_no_secret,
    fresh_rooms,
    join,
    ran,
)
from test_rooms import student

from core import lesson
from pages.ui.i18n import text_for
from pages.ui.lesson import lesson_handout
from pages.ui.words import number, pct_text
from server.shared import ROOMS

LANGS = ["en", "zh"]
PLAN = f"{lesson.STEPS[0].name},{lesson.STEPS[1].name}"  # the room asks the first; the second is not asked


def teacher_with_class(lang: str):
    at = ran(run_page("lesson", {"lang": lang, "steps": PLAN}))
    ran(at.button(key="class_start").click().run())
    code, secret = at.session_state["class_code"], at.session_state["class_secret"]
    assert_no_secret(at, secret)
    return at, code, secret


def votes_in(code: str, secret: str) -> tuple[int, int]:
    """Three phones vote on step 1: 1 of 3 right in the first vote (sure; one wrong guessing, one
    unrated), 2 of 3 in the second. Returns (a right choice, a wrong one)."""
    q = ROOMS.get(code)[0].questions[1]
    right, wrong = q.correct[0], next(i for i in range(len(q.choices)) if i not in q.correct)
    for i in (1, 2, 3):
        assert ROOMS.join(code, student(i), "phones")[1] == "ok"
    for i, choice, level in ((1, right, "sure"), (2, wrong, "guessing"), (3, wrong, None)):
        assert ROOMS.answer(code, student(i), 1, 1, choice) == "ok"
        if level:
            assert ROOMS.confidence(code, student(i), 1, 1, level) == "ok"
    assert ROOMS.vote_again(code, secret)[1] == "ok"
    for i, choice in ((1, right), (2, right), (3, wrong)):
        assert ROOMS.answer(code, student(i), 1, 2, choice) == "ok"
    return right, wrong


def labels_in(q, lang: str) -> list[str]:
    """The room's choices as `lang` labels them (pages/ui/words.py choice_label)."""
    return [text_for(f"lesson.choice.{c['key']}", lang).format(
        **{k: number(v, q.format) for k, v in c.items() if k != "key"}) for c in q.choices]


def cell(lang: str, n: int, sure: int = 0, guessing: int = 0) -> str:
    if not sure and not guessing:
        return f'<td class="count">{n}</td>'
    said = text_for("lesson.handout.room.count", lang).format(n=n, sure=sure, guessing=guessing)
    return f'<td class="count">{escape(said)}</td>'


@pytest.mark.parametrize("lang", LANGS)
def test_the_teachers_handout_holds_the_rooms_votes_and_a_phone_gets_none(lang):
    teacher, code, secret = teacher_with_class(lang)
    right, wrong = votes_in(code, secret)
    ran(teacher.run())
    ran(teacher.button(key="lesson_handout_prepare").click().run())
    html = teacher.session_state[lesson_handout.HANDOUT_KEY][1]
    title = escape(text_for("lesson.handout.room", lang))
    assert html.count(title) == 1, "the room answered one step of the plan's two"
    first, second = html.split('id="step-2"')
    assert title in first and title not in second

    vote = text_for("lesson.handout.room.vote", lang)
    for v, share in ((1, pct_text(1 / 3)), (2, pct_text(2 / 3))):
        said = vote.format(vote=text_for(f"lesson.handout.room.vote{v}", lang), pct=share, n=3)
        assert escape(said) in first, said
    labels = labels_in(ROOMS.get(code)[0].questions[1], lang)
    mark = f"{labels[right]} ({text_for('lesson.handout.room.correct', lang)})"
    # the right choice: 1 (sure) then 2; the wrong one: 2 (one guessing, one unrated) then 1
    assert f"<tr><td>{escape(mark)}</td>{cell(lang, 1, sure=1)}{cell(lang, 2)}</tr>" in first
    assert f"<tr><td>{escape(labels[wrong])}</td>{cell(lang, 2, guessing=1)}{cell(lang, 1)}</tr>" in first

    ROOMS.answer(code, student(3), 1, 2, right)  # a new answer asks again, and goes in
    ran(teacher.run())
    assert teacher.button(key="lesson_handout_prepare"), "a changed result builds the file again"
    ran(teacher.button(key="lesson_handout_prepare").click().run())
    said = vote.format(vote=text_for("lesson.handout.room.vote2", lang), pct=pct_text(1.0), n=3)
    assert escape(said) in teacher.session_state[lesson_handout.HANDOUT_KEY][1]

    phone = join(code, lang)
    assert not [b for b in phone.button if str(b.key).startswith("lesson_handout")], "never on a phone"
    assert lesson_handout.HANDOUT_KEY not in phone.session_state


def test_without_a_room_the_handout_has_no_class_results():
    html = lesson_handout.handout_html((0, 1), {"dk": 64, "n": 32, "trials": 100, "seed": 0,
                                                "backend": "numpy", "dtype": "float32"})
    assert escape(text_for("lesson.handout.room", "en")) not in html and 'class="room"' not in html
    assert lesson_handout.class_results(None) is None
    assert lesson_handout.class_results("ACDEFH") is None, "a room that is gone adds nothing"
