"""A live class on the lesson page under AppTest, in English and Chinese: a teacher's session and a
student's session meet in the process's room store (server.shared.ROOMS): joining, answering, the
second vote, the reveal, the teacher's next step, the links (no secret in any URL), codes that name
no room, the teacher link, the end and the summary CSV. The browser's cookies are a dict per test
(`jar`): what the page asked the browser to keep (teacher_key.keep) is put there as the browser's
POST would, and a new session (a reload) reads it back as `st.context.cookies`."""

from __future__ import annotations

import csv
import io
import re

import pytest
import streamlit as st
from conftest import run_page

from core import lesson
from pages.ui.i18n import text_for
from pages.ui.live import class_answers, class_teacher, class_view, live_class, teacher_key
from pages.ui.user_text import literal
from server.room_auth import cookie_name
from server.room_state import normalise_code
from server.shared import ROOMS
from server.store import MemoryStore

LANGS = ["en", "zh"]
UNKNOWN = "ACDEFH"  # a well-formed code; each test's store is empty, so it names no room


JAR: dict[str, str] = {}  # the browser's cookies in this test


@pytest.fixture(autouse=True)
def fresh_rooms(monkeypatch):
    """Each test's rooms in a store of their own, with fresh rate limits (kept in that store), and
    an empty cookie jar; the pages' timers (polls) slowed down so that only the test's own runs run
    the script."""
    old = ROOMS.store
    ROOMS.use_store(MemoryStore())
    JAR.clear()
    # as st.context.cookies: the cookies the browser sent when the session connected
    monkeypatch.setattr(teacher_key, "browser_cookies",
                        lambda: st.session_state.setdefault("test_jar", dict(JAR)))
    monkeypatch.setattr(class_view, "POLL_S", 3600.0)
    monkeypatch.setattr(class_teacher, "WATCH_S", 3600.0)
    yield
    ROOMS.use_store(old)


def browser_keeps(at) -> None:
    """What the browser does with the page's request to keep the teacher's cookie (the POST)."""
    asked = at.session_state["class_cookie_asked"]
    code, _, secret = asked.partition(".")
    if secret:
        JAR[cookie_name(code)] = asked
    else:
        JAR.pop(cookie_name(code), None)


def text(key: str, lang: str, **fmt) -> str:
    return text_for(key, lang).format(**fmt)


def ran(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def markdowns(at) -> list[str]:
    return [m.value for m in at.markdown]


def buttons(at) -> set[str]:
    return {b.key for b in at.button}


def picks(at) -> list:
    return [p for p in at.pills if str(p.key).startswith("class_pick_")]


def pick(at):
    found = picks(at)
    assert len(found) == 1, [p.key for p in at.pills]
    return found[0]


def start_class(lang: str):
    """The teacher's session with a class started: (AppTest, code, secret)."""
    at = ran(run_page("lesson", {"lang": lang}))
    ran(at.button(key="class_start").click().run())
    code, secret = at.session_state["class_code"], at.session_state["class_secret"]
    assert ROOMS.get(code)[1] == "ok" and secret
    assert_no_secret(at, secret)
    return at, code, secret


def join(code: str, lang: str, **more: str):
    return ran(run_page("lesson", {"room": code, "lang": lang, **more}))


def assert_no_secret(at, secret: str) -> None:
    assert "teacher" not in at.query_params and secret not in repr(dict(at.query_params))


def heading(step: int, lang: str) -> str:
    """The room's step `step` as its title reads before the reveal (its name: the claim comes after)."""
    return text_for(f"lesson.{lesson.STEPS[step - 1].name}.name", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_a_class_joins_answers_votes_again_reveals_and_follows_the_next_step(lang):
    teacher, code, secret = start_class(lang)
    assert teacher.query_params["room"] == code
    assert f"### {text('class.teacher.bar', lang, code=f'`{code}`', where='/lesson')}" in markdowns(teacher)

    phone = join(code, lang)
    assert f"**{text('class.student.bar', lang, code=code)}**" in markdowns(phone)
    assert pick(phone).key == f"class_pick_{code}_1_1" and pick(phone).value is None
    assert not buttons(phone) & {"lesson_prev", "lesson_next", "class_start", "class_end"}
    assert phone.query_params["room"] == code
    assert re.fullmatch(r"[0-9a-f]{12}-[0-9a-f]{16}", phone.query_params["me"])
    assert_no_secret(phone, secret)

    labels = pick(phone).options  # the answers as this language labels them
    ran(pick(phone).set_value(2).run())
    assert any(text("class.student.sent", lang, label=labels[2]) in c.value for c in phone.caption)
    ran(teacher.run())
    assert any(m.startswith(f"**{text('class.answered', lang, n=1, joined=1)}**") for m in markdowns(teacher))

    ran(teacher.button(key="class_vote2").click().run())
    ran(phone.run())
    assert pick(phone).key == f"class_pick_{code}_1_2" and pick(phone).value is None
    assert text("class.student.vote2", lang) in [i.value for i in phone.info]
    assert text("class.student.before", lang, label=labels[2]) in [c.value for c in phone.caption]

    ran(teacher.button(key="class_reveal").click().run())
    ran(phone.run())
    q = ROOMS.get(code)[0].questions[1]
    assert q.revealed and pick(phone).disabled
    results = [e.value for e in (*phone.success, *phone.info)]
    assert any(f"**{class_answers.measured_text(q)}**" in r for r in results), results

    ran(teacher.button(key="lesson_next").click().run())
    assert ROOMS.get(code)[0].step == 2 and teacher.session_state["step"] == 2
    ran(phone.run())
    assert phone.session_state["step"] == 2 and phone.title[0].value == heading(2, lang)
    assert pick(phone).key == f"class_pick_{code}_2_1"
    assert_no_secret(teacher, secret)
    assert_no_secret(phone, secret)


@pytest.mark.parametrize("lang", LANGS)
def test_a_code_that_names_no_room_says_so_with_the_code_shown_literally(lang):
    at = join(UNKNOWN, lang)
    assert [w.value for w in at.warning] == [text("class.status.unknown", lang, code=literal(UNKNOWN))]
    assert "class_alone" in buttons(at) and not picks(at)


@pytest.mark.parametrize("raw", ["<b>x</b>", "ZZZZZZ"])  # Z is not in the codes' alphabet
@pytest.mark.parametrize("lang", LANGS)
def test_a_malformed_code_shows_the_format_warning_without_markup(lang, raw):
    at = join(raw, lang)
    typed = literal(normalise_code(raw))
    assert [w.value for w in at.warning] == [text("class.join.format", lang, n=6, code=typed)]
    assert not any("<B>" in h.proto.body or "<b>x" in h.proto.body for h in at.get("html"))
    assert "room" not in at.query_params and "class_start" in buttons(at)  # the lesson on one's own


def open_link(code: str, key: str, lang: str = "en"):
    """A fresh session opened with the teacher link: its first run waits for the fragment's key,
    which the page's component then hands over (`class_link_key`, teacher_key.py)."""
    at = join(code, lang, take="1")
    assert [i.value for i in at.info] == [text("class.teacher.taking", lang, code=code)]
    assert not picks(at) and ROOMS.tally(ROOMS.get(code)[0]).joined == 0  # not a student meanwhile
    at.session_state["class_link_key"] = key
    return ran(at.run())


@pytest.mark.parametrize("lang", LANGS)
def test_a_wrong_teacher_link_is_refused_and_never_joins_as_a_student(lang):
    _, code, secret = start_class(lang)
    at = open_link(code, "wrong-key-wrong-key", lang)
    assert [w.value for w in at.warning] == [text("class.teacher.bad_link", lang, code=code)]
    assert "class_end" not in buttons(at) and not picks(at) and "class_join_student" in buttons(at)
    assert ROOMS.tally(ROOMS.get(code)[0]).joined == 0
    assert ROOMS.is_teacher(ROOMS.get(code)[0], secret)  # the teacher's right is untouched
    assert_no_secret(at, secret)


@pytest.mark.parametrize("lang", LANGS)
def test_the_teacher_link_takes_the_room_back_rotates_the_secret_and_revokes_the_old_tab(lang):
    teacher, code, secret = start_class(lang)
    at = open_link(code, secret, lang)
    assert {"class_end", "class_free", "class_reveal", "class_lock"} <= buttons(at)
    assert not picks(at)
    assert text("class.teacher.taken_back", lang, code=code) in [x.value for x in at.toast]
    fresh = at.session_state["class_secret"]
    room = ROOMS.get(code)[0]
    assert fresh != secret and ROOMS.is_teacher(room, fresh) and not ROOMS.is_teacher(room, secret)
    assert at.query_params.get("room") == code and "take" not in at.query_params
    assert_no_secret(at, secret)
    assert_no_secret(at, fresh)
    ran(at.run())
    assert {"class_end"} <= buttons(at) and not at.toast  # said once
    ran(teacher.run())  # the old tab: revoked, never a student
    assert [w.value for w in teacher.warning] == [text("class.status.revoked", lang)]
    assert "class_end" not in buttons(teacher) and not picks(teacher)
    assert ROOMS.tally(ROOMS.get(code)[0]).joined == 0
    assert ROOMS.reveal(code, secret)[1] == "denied"
    again = open_link(code, secret, lang)  # a used link is spent
    assert [w.value for w in again.warning] == [text("class.teacher.bad_link", lang, code=code)]


def test_taking_the_room_back_keeps_the_rooms_step():
    teacher, code, secret = start_class("en")
    ran(teacher.button(key="lesson_next").click().run())
    assert ROOMS.get(code)[0].step == 2
    again = open_link(code, secret)
    assert again.session_state["step"] == 2 and ROOMS.get(code)[0].step == 2


@pytest.mark.parametrize("lang", LANGS)
def test_ending_the_class_tells_the_student_it_has_ended(lang):
    teacher, code, secret = start_class(lang)
    phone = join(code, lang)
    ran(pick(phone).set_value(1).run())
    teacher.session_state["class_end_open"] = True
    ran(teacher.run())
    assert "class_end_confirm" in buttons(teacher)  # the dialog asks first
    assert text("class.end.what", lang) in markdowns(teacher)
    assert ROOMS.get(code)[1] == "ok"
    # AppTest does not deliver a click to this dialog's button (its trigger reads False in the run
    # that draws it again), so the end is the server's call the button makes.
    (_, tally), status = ROOMS.end(code, secret)
    assert status == "ok" and tally.counts == {(1, 1): [0, 1, 0, 0]}
    ran(phone.run())
    assert [w.value for w in phone.warning] == [text("class.ended.student", lang)]
    assert "class_alone" in buttons(phone) and not picks(phone)
    ran(phone.button(key="class_alone").click().run())
    assert not phone.warning and "class_start" in buttons(phone) and "room" not in phone.query_params


def test_a_teacher_whose_room_ended_elsewhere_is_not_told_the_link_is_wrong():
    teacher, code, secret = start_class("en")
    ROOMS.end(code, secret)
    ran(teacher.run())
    assert text("class.teacher.bad_link", "en", code=code) not in [w.value for w in teacher.warning]


def test_the_summary_csv_counts_each_answer_of_each_vote():
    teacher, code, _ = start_class("en")
    phones = [join(code, "en") for _ in range(3)]
    q = ROOMS.get(code)[0].questions[1]
    right, wrong = q.correct[0], (q.correct[0] + 1) % len(q.choices)
    for phone, choice in zip(phones, (right, right, wrong), strict=True):
        ran(pick(phone).set_value(choice).run())
    ran(teacher.button(key="class_vote2").click().run())
    for phone in phones[:2]:
        ran(phone.run())
        ran(pick(phone).set_value(right).run())
    room = ROOMS.get(code)[0]
    text_csv = class_answers.summary_csv(room, ROOMS.tally(room))
    assert text_csv == live_class.room_csv(code)
    rows = list(csv.DictReader(io.StringIO(text_csv)))
    assert text_csv.splitlines()[0] == "step,name,vote,answer,count,sure,guessing,correct,answers," \
                                       "share_correct,share_correct_1st,share_correct_2nd"
    assert len(rows) == 2 * len(q.choices)
    labels = class_answers.labels_of(q)
    for vote, counts, answers, share in (("1", {right: 2, wrong: 1}, "3", "0.6667"),
                                         ("2", {right: 2}, "2", "1.0")):
        got = [r for r in rows if r["vote"] == vote]
        assert [r["answer"] for r in got] == labels
        assert [int(r["count"]) for r in got] == [counts.get(i, 0) for i in range(len(q.choices))]
        assert [r["correct"] for r in got] == [str(i in q.correct) for i in range(len(q.choices))]
        assert {(r["step"], r["name"], r["answers"], r["share_correct"]) for r in got} == {
            ("1", text_for(f"lesson.{lesson.STEPS[0].name}.name", "en"), answers, share)}
        assert {(r["share_correct_1st"], r["share_correct_2nd"]) for r in got} == {("0.6667", "1.0")}
