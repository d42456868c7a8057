"""The teacher keeps the room, on the lesson page under AppTest (pages/ui/live/who.py,
pages/ui/live/teacher_key.py, pages/ui/live/class_teacher.py): a reload is the teacher again from the
browser's cookie with the room's counts; a store that cannot be reached keeps the secret and says so, and the
tab is the teacher again once the store is back; an ended room drops it; two teacher tabs stay
consistent; a forged or edited phone token is refused and counts as no one; the lock and the
removal of a phone; the passphrase before *Start a class*; a typed code from a full-width keyboard;
wrong codes slowed on the page's own lookup."""

from __future__ import annotations

import pytest
from test_app_class import (  # noqa: F401  (fresh_rooms: the fixture, shared)
    JAR,
    browser_keeps,
    buttons,
    fresh_rooms,
    join,
    markdowns,
    pick,
    picks,
    ran,
    start_class,
    text,
)

from server import room_auth
from server.room_auth import cookie_name
from server.shared import ROOMS
from server.store import MemoryStore

LANGS = ["en", "zh"]
TEACHER = {"class_end", "class_free", "class_reveal", "class_lock", "class_phones"}


class BlipStore(MemoryStore):
    """A MemoryStore that can stop answering, as a RedisStore does while Redis is paused."""

    def __init__(self) -> None:
        super().__init__()
        self.up = True

    def get(self, key):
        return super().get(key) if self.up else None

    def map_get(self, key):
        return super().map_get(key) if self.up else None

    def map_fields(self, key, fields):
        return super().map_fields(key, fields) if self.up else None

    def claim(self, key, token, ttl_s):
        return super().claim(key, token, ttl_s) if self.up else None

    def rate(self, key, per_s, burst, cost=1.0):
        return super().rate(key, per_s, burst, cost) if self.up else None


def answered_line(at, n: int, joined: int, lang: str) -> bool:
    return any(m.startswith(f"**{text('class.answered', lang, n=n, joined=joined)}**") for m in markdowns(at))


@pytest.mark.parametrize("lang", LANGS)
def test_a_reload_is_the_teacher_again_with_the_rooms_counts(lang):
    teacher, code, secret = start_class(lang)
    assert teacher.session_state["class_cookie_asked"] == f"{code}.{secret}"
    phone = join(code, lang)  # another browser (before the teacher's holds the cookie)
    ran(pick(phone).set_value(1).run())
    browser_keeps(teacher)
    reloaded = join(code, lang)  # a new session, the same browser: the link is ?room=CODE
    assert TEACHER <= buttons(reloaded) and not picks(reloaded)
    assert text("class.teacher.taken_back", lang, code=code) in [x.value for x in reloaded.toast]
    assert answered_line(reloaded, 1, 1, lang)  # the room's counts, and the reload is not one more
    assert ROOMS.tally(ROOMS.get(code)[0]).joined == 1
    assert "teacher" not in reloaded.query_params and secret not in repr(dict(reloaded.query_params))


def test_a_store_blip_keeps_the_secret_and_the_tab_is_the_teacher_again_when_it_is_back(monkeypatch):
    store = BlipStore()
    ROOMS.use_store(store)
    teacher, code, secret = start_class("en")
    browser_keeps(teacher)
    store.up = False
    ran(teacher.run())  # the open tab during the blip
    assert [w.value for w in teacher.warning] == [text("class.status.unavailable", "en")]
    assert teacher.session_state["class_secret"] == secret and not picks(teacher)
    reloaded = join(code, "en")  # a reload during the blip
    assert [w.value for w in reloaded.warning] == [text("class.status.unavailable", "en")]
    assert not picks(reloaded) and reloaded.session_state["class_held"]
    assert reloaded.session_state.get("class_cookie_asked") is None  # never asked to forget it
    assert cookie_name(code) in JAR
    store.up = True
    for at in (teacher, reloaded):
        ran(at.run())
        assert TEACHER <= buttons(at) and not picks(at) and not at.warning
    assert ROOMS.tally(ROOMS.get(code)[0]).joined == 0


def test_an_ended_room_drops_the_secret_and_the_cookie():
    teacher, code, secret = start_class("en")
    browser_keeps(teacher)
    ROOMS.end(code, secret)
    ran(teacher.run())
    assert teacher.session_state["class_secret"] == "" and not teacher.session_state["class_held"]
    assert teacher.session_state["class_cookie_asked"] == f"{code}."
    browser_keeps(teacher)
    assert cookie_name(code) not in JAR


def test_two_teacher_tabs_stay_consistent_a_stale_action_is_refused_and_the_tab_follows():
    one, code, _ = start_class("en")
    browser_keeps(one)
    two = join(code, "en")  # a second tab of the same browser
    assert TEACHER <= buttons(two)
    ran(two.button(key="lesson_next").click().run())
    assert ROOMS.get(code)[0].step == 2
    ran(one.button(key="class_close").click().run())  # drawn at step 1, before the other tab moved
    assert [w.value for w in one.warning] == [text("class.status.stale", "en")]
    room = ROOMS.get(code)[0]
    assert (room.step == 2 and not room.question.closed and 1 not in room.questions) or \
        not room.questions[1].closed
    assert one.session_state["step"] == 2  # this tab now shows the room's step
    ran(one.button(key="class_close").click().run())
    assert ROOMS.get(code)[0].question.closed and not one.warning
    ran(one.button(key="lesson_next").click().run())  # its own moves are not undone
    assert ROOMS.get(code)[0].step == 3 and one.session_state["step"] == 3


@pytest.mark.parametrize("lang", LANGS)
def test_a_forged_or_edited_phone_token_is_refused_and_counts_as_no_one(lang):
    _, code, _ = start_class(lang)
    phone = join(code, lang)
    ran(pick(phone).set_value(2).run())
    token = phone.query_params["me"]
    sid, mac = token.split("-")
    edited = f"{sid}-{mac[:-1]}{'0' if mac[-1] != '0' else '1'}"
    for bad in (edited, f"{'0' * 12}-{'0' * 16}", sid):
        at = join(code, lang, me=bad)
        assert [w.value for w in at.warning] == [text("class.phone.bad_token", lang)]
        assert at.session_state["class_student"] != sid  # not the phone it names
        assert at.query_params["me"] != bad and pick(at).value is None
    room = ROOMS.get(code)[0]
    assert ROOMS.tally(room).counts[(1, 1)] == [0, 0, 1, 0]  # the real phone's answer, alone
    again = join(code, lang, me=token)  # the real phone's reload
    assert not again.warning and pick(again).value == 2


@pytest.mark.parametrize("lang", LANGS)
def test_the_teacher_locks_the_room_and_removes_a_phone(lang):
    teacher, code, secret = start_class(lang)
    phone = join(code, lang)
    ran(pick(phone).set_value(1).run())
    ran(teacher.button(key="class_lock").click().run())
    assert ROOMS.get(code)[0].locked and "class_lock" in buttons(teacher)
    assert text("class.locked.on", lang) in [i.value for i in teacher.info]
    late = join(code, lang)
    assert [w.value for w in late.warning] == [text("class.status.locked", lang)] and not picks(late)
    ran(phone.run())
    assert pick(phone).value == 1  # those in the room stay
    ran(teacher.button(key="class_phones").click().run())
    sid = phone.session_state["class_student"]
    assert f"class_remove_{sid}" in buttons(teacher)
    # AppTest does not deliver a click to a dialog's button (see test_app_class): the server's call.
    assert ROOMS.remove(code, secret, sid)[1] == "ok"
    ran(phone.run())
    assert [w.value for w in phone.warning] == [text("class.status.removed", lang)] and not picks(phone)
    assert ROOMS.tally(ROOMS.get(code)[0]).joined == 0 and ROOMS.tally(ROOMS.get(code)[0]).counts == {}


def test_the_passphrase_is_asked_before_a_class_starts(monkeypatch):
    monkeypatch.setenv(room_auth.PASSPHRASE_ENV, "correct horse")
    at = ran(join("", "en"))
    at.text_input(key="class_passphrase").input("wrong")
    ran(at.button(key="class_start").click().run())
    assert text("class.status.passphrase", "en") in [w.value for w in at.warning]
    assert not at.session_state["class_code"]
    at.text_input(key="class_passphrase").input("correct horse")
    ran(at.button(key="class_start").click().run())
    assert at.session_state["class_code"] and TEACHER <= buttons(at)


def test_a_code_typed_on_a_full_width_keyboard_with_a_zero_width_space_joins():
    _, code, _ = start_class("en")
    wide = "".join(chr(ord(ch) + 0xFEE0) for ch in code)  # ＡＣＤ… as a Chinese keyboard types it
    at = ran(join("", "en"))
    at.text_input(key="class_typed").input(wide[:3] + "\u200b" + wide[3:])
    ran(at.button(key="class_join").click().run())
    assert at.session_state["class_code"] == code and pick(at)


def test_wrong_codes_are_slowed_on_the_pages_own_lookup():
    at = ran(join("", "en"))
    seen = []
    for i in range(11):
        at.text_input(key="class_typed").input(f"ACDEF{'HJKMNPRTUWX'[i]}")
        ran(at.button(key="class_join").click().run())
        seen.append([w.value for w in at.warning])
        ran(at.button(key="class_alone").click().run())
    assert all(text("class.status.slow", "en") not in w for w in seen[:10])
    assert seen[10] == [text("class.status.slow", "en")]
