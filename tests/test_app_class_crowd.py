"""A room nobody can stuff or squat, through the lesson page's own join and start paths under
AppTest (pages/ui/live/who.py → server/rooms.py, server/room_phones.py): every AppTest session
comes from one address, as a school's phones behind one NAT do. 200 phones from that address join
at once (the limits' clock stands still); that one address never fills the room (another address
still joins); one address starts three classes, then the next is refused; the server's cap on rooms
holds; and with `ASE_CLASS_PASSPHRASE` set no room is made without it."""

from __future__ import annotations

import pytest
from test_app_class import fresh_rooms, join, pick, picks, ran, start_class, text  # noqa: F401

from pages.ui.live import who
from server import room_auth
from server.room_phones import ADDRESS_SHARE
from server.shared import ROOMS
from server.store import MemoryStore

SCHOOL = 200  # phones behind one address (docs/live-class.md, "One address, a whole class")


def warnings(at) -> list[str]:
    return [w.value for w in at.warning]


@pytest.mark.slow  # 200 AppTest phones joining one after another: about 100 s on 2 cores
def test_200_phones_from_one_address_join_within_a_minute_and_that_address_never_fills_the_room(monkeypatch):
    # the store's clock stands still: for the limits every join comes at the same instant, the
    # hardest case of "within a minute" (a bucket refilling while the test runs cannot help)
    now = [1000.0]
    ROOMS.use_store(MemoryStore(clock=lambda: now[0]))
    # a room just large enough that the school's 200 are its address share: the 201st from that
    # address is refused while places are left, and another address still joins
    monkeypatch.setattr(ROOMS, "max_students", int(SCHOOL / ADDRESS_SHARE) + 1)
    assert ROOMS.address_share() == SCHOOL
    _, code, _ = start_class("en")
    for i in range(SCHOOL):
        phone = join(code, "en")
        assert pick(phone), f"phone {i + 1} of {SCHOOL} did not join: {warnings(phone)}"
    room = ROOMS.get(code)[0]
    assert ROOMS.tally(room).joined == SCHOOL
    now[0] += 1.0  # one join's time later: the 201st is not refused for its rate but for its share
    one_more = join(code, "en")
    assert not picks(one_more) and ROOMS.tally(room).joined == SCHOOL, "one address filled the room"
    assert text("class.status.crowded", "en") in warnings(one_more)
    assert ROOMS.tally(room).joined < ROOMS.max_students
    monkeypatch.setattr(who, "_client", lambda: "198.51.100.23")  # another address
    assert pick(join(code, "en")) and ROOMS.tally(room).joined == SCHOOL + 1


def test_one_address_starts_three_classes_then_is_refused():
    codes = [start_class("en")[1] for _ in range(3)]
    assert len(set(codes)) == 3
    at = ran(join("", "en"))
    ran(at.button(key="class_start").click().run())
    assert not at.session_state["class_code"], "a fourth room from one address"
    assert text("class.status.slow", "en") in warnings(at)
    assert len([c for c in codes if ROOMS.get(c)[1] == "ok"]) == 3


def test_the_servers_rooms_are_capped_whoever_asks(monkeypatch):
    monkeypatch.setattr(ROOMS, "max_rooms", 2)
    for i in range(2):
        monkeypatch.setattr(who, "_client", lambda i=i: f"198.51.100.{i + 1}")
        start_class("en")
    monkeypatch.setattr(who, "_client", lambda: "198.51.100.9")
    at = ran(join("", "en"))
    ran(at.button(key="class_start").click().run())
    assert not at.session_state["class_code"]
    assert text("class.status.rooms_full", "en", n=ROOMS.max_rooms) in warnings(at)


@pytest.mark.parametrize("typed", ["", "wrong"])
def test_with_a_passphrase_set_no_room_is_made_without_it(monkeypatch, typed):
    monkeypatch.setenv(room_auth.PASSPHRASE_ENV, "correct horse")
    at = ran(join("", "en"))
    assert at.text_input(key="class_passphrase")  # asked before *Start a class*
    at.text_input(key="class_passphrase").input(typed)
    ran(at.button(key="class_start").click().run())
    assert not at.session_state["class_code"]
    assert text("class.status.passphrase", "en") in warnings(at)
