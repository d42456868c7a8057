"""Who may act in a live class (server/rooms.py, server/room_phones.py, server/room_auth.py) on
MemoryStores with a fake clock: the phones' server-signed tokens, the teacher's secret rotated by
taking the room back, compare-and-set changes, the lock and removal of phones, the per-address share
of a room, room creation per address, the rooms' maximum age, typed codes (NFKC, invisible
characters), wake listeners dropped with their room, the teacher cookie's route and the passphrase."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

import pytest
from test_rooms import QUESTION, Class, student

from server import room_auth
from server.room_auth import PhoneKeys, TeacherCookie, cookie_secret, passphrase_ok
from server.room_bus import RoomBus
from server.room_state import MAX_AGE_S, normalise_code, room_digest
from server.rooms import Rooms
from server.store import MemoryStore


class SharedMemory(MemoryStore):
    """A MemoryStore that says it is shared: two Rooms on it stand for two replicas on one Redis."""

    shared = True


# ---------------------------------------------------------------- phones' tokens


def test_a_phone_is_a_server_signed_token_that_names_its_id():
    c = Class()
    code, _ = c.create()
    room, token, status = c.rooms.enter(code, "school")
    assert status == "ok" and room.code == code
    sid = c.rooms.phone(code, token)
    assert sid is not None and token.startswith(sid + "-")
    assert c.rooms.tally(c.room(code)).joined == 1


def test_a_forged_or_edited_token_names_no_phone():
    c = Class()
    code, _ = c.create()
    other, _ = c.create("another")
    _, token, _ = c.rooms.enter(code, "school")
    sid, mac = token.split("-")
    edited_mac = f"{sid}-{mac[:-1]}{'0' if mac[-1] != '0' else '1'}"
    edited_id = f"{sid[:-1]}{'0' if sid[-1] != '0' else '1'}-{mac}"
    for bad in (edited_mac, edited_id, f"{'0' * 12}-{'0' * 16}", sid, "", "x" * 29, token.upper()):
        assert c.rooms.phone(code, bad) is None, bad
    assert c.rooms.phone(other, token) is None  # signed for one room only


def test_two_replicas_on_one_store_share_the_phones_key_and_a_new_process_keeps_it():
    store = SharedMemory()
    one, two = Rooms(store), Rooms(store)
    room, _, _ = one.create("t")
    _, token, _ = one.enter(room.code, "school")
    assert two.phone(room.code, token) == token.partition("-")[0]
    assert Rooms(store).phone(room.code, token) is not None
    assert Rooms(SharedMemory()).phone(room.code, token) is None  # another store, another key


def test_the_key_from_config_is_used_by_every_process(monkeypatch):
    monkeypatch.setenv(room_auth.KEY_ENV, "a key every replica is given")
    one, two = PhoneKeys(MemoryStore()), PhoneKeys(MemoryStore())
    sid, token = one.issue("ACDEFH")
    assert two.check("ACDEFH", token) == sid


def test_a_phone_id_that_never_joined_cannot_answer_even_with_a_valid_shape():
    c = Class()
    code, secret = c.create()
    c.rooms.show(code, secret, 1, QUESTION)
    assert c.rooms.answer(code, student(77), 1, 1, 0) == "not_joined"


# ---------------------------------------------------------------- lock, remove, the address's share


def test_a_locked_room_takes_no_new_phone_and_keeps_those_in_it():
    c = Class()
    code, secret = c.create()
    _, token, _ = c.rooms.enter(code, "a")
    room, status = c.rooms.set_locked(code, secret, True)
    assert status == "ok" and room.locked
    assert c.rooms.enter(code, "b")[2] == "locked"
    assert c.rooms.join(code, c.rooms.phone(code, token), "a")[1] == "ok"
    assert c.rooms.set_locked(code, "wrong", False)[1] == "denied"
    c.rooms.set_locked(code, secret, False)
    assert c.rooms.enter(code, "b")[2] == "ok"


def test_a_removed_phone_loses_its_answers_and_cannot_answer_or_join_again():
    c = Class()
    code, secret = c.create()
    c.rooms.show(code, secret, 1, QUESTION)
    for i in (1, 2):
        c.rooms.join(code, student(i), "p")
        assert c.rooms.answer(code, student(i), 1, 1, 2) == "ok"
    before = c.room(code).version
    assert c.rooms.remove(code, "wrong", student(1))[1] == "denied"
    room, status = c.rooms.remove(code, secret, student(1))
    assert status == "ok" and room.version == before + 1  # the phones are woken
    tally = c.rooms.tally(c.room(code))
    assert tally.joined == 1 and tally.counts[(1, 1)] == [0, 0, 1, 0]
    assert c.rooms.answer(code, student(1), 1, 1, 0) == "removed"
    assert c.rooms.join(code, student(1), "p") == (None, "removed")
    assert [sid for sid, _ in c.rooms.members(c.room(code))] == [student(2)]


def test_one_address_holds_at_most_its_share_of_the_room_and_others_still_join():
    c = Class(max_students=10)
    code, _ = c.create()
    share = c.rooms.address_share()
    assert share == 8
    statuses = [c.rooms.join(code, student(i), "one client")[1] for i in range(share + 1)]
    assert statuses == ["ok"] * share + ["crowded"]
    assert c.rooms.join(code, student(50), "a classmate")[1] == "ok"
    assert c.rooms.tally(c.room(code)).joined == share + 1 < c.rooms.max_students


def test_200_phones_behind_one_address_join_within_a_minute_and_one_client_cannot_fill_the_room():
    c = Class()
    code, _ = c.create()
    joined = [c.rooms.enter(code, "school NAT")[2] for _ in range(200)]
    assert joined == ["ok"] * 200  # a class arriving at once
    c.clock.advance(60.0)
    later = [c.rooms.enter(code, "school NAT")[2] for _ in range(100)]
    assert later[:40] == ["ok"] * 40 and "ok" not in later[40:]  # 240: 80 % of 300
    assert later[40] == "crowded"
    assert c.rooms.tally(c.room(code)).joined == 240 < c.rooms.max_students == 300


# ---------------------------------------------------------------- the teacher's secret and changes


def test_taking_the_room_back_rotates_the_secret_and_revokes_the_old_one():
    c = Class()
    code, secret = c.create()
    _, fresh, status = c.rooms.take_back(code, secret)
    assert status == "ok" and fresh and fresh != secret
    assert c.rooms.is_teacher(c.room(code), fresh) and not c.rooms.is_teacher(c.room(code), secret)
    assert c.rooms.reveal(code, secret)[1] == "denied"
    assert c.rooms.take_back(code, secret) == (None, None, "denied")  # a used link is spent


def test_a_change_from_a_tab_that_saw_an_older_version_is_stale_and_changes_nothing():
    c = Class()
    code, secret = c.create()
    c.rooms.show(code, secret, 1, QUESTION)
    seen = c.room(code).version
    assert c.rooms.show(code, secret, 2, replace(QUESTION))[1] == "ok"  # the other tab moved
    room, status = c.rooms.close_vote(code, secret, expect=seen)
    assert status == "stale" and room.step == 2 and not room.question.closed
    assert c.rooms.close_vote(code, secret, expect=room.version)[1] == "ok"


def test_concurrent_changes_from_two_replicas_lose_no_update():
    store = SharedMemory()
    one, two = Rooms(store), Rooms(store)
    room, secret, _ = one.create("t")
    code = room.code

    def flip(rooms: Rooms, n: int) -> None:
        for _ in range(n):
            rooms.change(code, secret, lambda r: replace(r, free=not r.free))

    threads = [threading.Thread(target=flip, args=(r, 40)) for r in (one, two)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert one.get(code)[0].version == 80  # every read-modify-write counted once


# ---------------------------------------------------------------- squatting, age, codes, listeners


def test_a_room_ends_at_its_maximum_age_however_busy():
    c = Class()
    code, secret = c.create()
    assert MAX_AGE_S == 4 * 3600
    for _ in range(int(MAX_AGE_S // (20 * 60)) - 1):
        c.clock.advance(20 * 60)
        assert c.rooms.set_free(code, secret, True)[1] == "ok"  # a teacher action renews it
    c.clock.advance(20 * 60)
    assert c.rooms.get(code) == (None, "unknown")
    assert c.store.get(Rooms.keys(code)[0]) is None


def test_the_rooms_expiry_never_reaches_past_its_maximum_age():
    c = Class()
    code, _ = c.create()
    while c.clock.now + 600 < c.room(code).created + MAX_AGE_S - 60:
        c.clock.advance(600)
        c.rooms.keep_alive(c.room(code))  # the projector's page, every so often
    c.clock.advance(c.room(code).created + MAX_AGE_S - 60 - c.clock.now)
    c.rooms.keep_alive(c.room(code))
    c.clock.advance(61)
    assert c.store.get(Rooms.keys(code)[0]) is None


@pytest.mark.parametrize("typed", ["ＡＣＤ３４７", "acd\u200b347", "\ufeffACD-347", "ａｃｄ\u2060 ３４７",
                                   "ACD・347"])
def test_typed_codes_are_nfkc_normalised_without_invisible_characters(typed):
    assert normalise_code(typed) == "ACD347"


def test_an_expired_rooms_wake_listeners_are_dropped():
    bus = RoomBus()
    c = Class(bus=bus)
    code, _ = c.create()
    bus.listen(room_digest(code), "phone", lambda: True)
    assert bus.listeners(room_digest(code)) == 1
    c.clock.advance(c.rooms.ttl_s + 1)
    assert c.rooms.get(code) == (None, "unknown")
    assert bus.listeners(room_digest(code)) == 0 and bus.rooms() == 0


# ---------------------------------------------------------------- the teacher's cookie route


def call(app: TeacherCookie, method: str, path: str, body: bytes,
         headers: dict[str, str]) -> tuple[int, dict]:
    sent: list[dict] = []
    scope = {"type": "http", "method": method, "path": path, "scheme": "http",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start.get("headers", [])}


async def passed(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})


OK_HEADERS = {"X-ASE-Teacher": "1", "Host": "class.example:8501", "Origin": "http://class.example:8501"}


def test_the_route_sets_an_httponly_samesite_strict_cookie_from_the_body():
    app = TeacherCookie(passed, base_url_path="/ase")
    status, headers = call(app, "POST", "/ase/_ase/teacher", b"ACDEFH." + b"s" * 32, OK_HEADERS)
    assert status == 204
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"ase_teacher_ACDEFH=ACDEFH.{'s' * 32};")
    assert {"HttpOnly", "SameSite=Strict", "Path=/ase/", "Max-Age=14400"} <= set(cookie.split("; "))
    assert cookie_secret({"ase_teacher_ACDEFH": f"ACDEFH.{'s' * 32}"}, "ACDEFH") == "s" * 32
    assert cookie_secret({"ase_teacher_ACDEFH": f"ACDEFH.{'s' * 32}"}, "ACDEFJ") == ""
    status, headers = call(app, "POST", "/ase/_ase/teacher", b"ACDEFH.", OK_HEADERS)
    assert status == 204 and "Max-Age=0" in headers["set-cookie"]  # forgotten


@pytest.mark.parametrize("method, headers, body", [
    ("GET", OK_HEADERS, b"ACDEFH." + b"s" * 32),                                   # never a request line
    ("POST", {**OK_HEADERS, "X-ASE-Teacher": "0"}, b"ACDEFH." + b"s" * 32),         # a plain form post
    ("POST", {**OK_HEADERS, "Origin": "https://elsewhere.example"}, b"ACDEFH." + b"s" * 32),  # another site
    ("POST", OK_HEADERS, b"acdefh.<script>"),                                       # not a code and secret
    ("POST", OK_HEADERS, b"ACDEFH." + b"s" * 300),                                  # too long
])
def test_the_route_refuses_anything_else(method, headers, body):
    status, answer = call(TeacherCookie(passed), method, "/_ase/teacher", body, headers)
    assert status in (400, 403, 413) and "set-cookie" not in answer


def test_other_paths_pass_through():
    assert call(TeacherCookie(passed), "POST", "/lesson", b"", OK_HEADERS)[0] == 299


def test_the_passphrase_is_checked_only_when_set(monkeypatch):
    monkeypatch.delenv(room_auth.PASSPHRASE_ENV, raising=False)
    assert not room_auth.passphrase_needed() and not passphrase_ok("")
    monkeypatch.setenv(room_auth.PASSPHRASE_ENV, "correct horse")
    assert room_auth.passphrase_needed() and passphrase_ok("correct horse") and not passphrase_ok("correct")
