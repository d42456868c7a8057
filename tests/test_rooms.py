"""The live classes' rooms (server/rooms.py, server/room_state.py) on a MemoryStore with a fake clock:
codes and the teacher's secret, the teacher's rights, the students' joins and answers with every
refusal, rate limits, idle expiry, the end, the question kept under its answers, versions, the
summary, rooms read back from bytes that may not be ours, and the MemoryStore's maps themselves."""

from __future__ import annotations

import hashlib
import math
import pickle
import threading
from dataclasses import replace

import pytest

from server import codec, store
from server.room_state import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Question,
    Room,
    RoomError,
    decode_room,
    encode_room,
    hash_secret,
    room_digest,
)
from server.room_votes import summary_rows
from server.rooms import INDEX_KEY, Rooms
from server.store import MemoryStore

CHOICES = ({"key": "one", "value": 1.0}, {"key": "sqrt_dk", "value": 8.0}, {"key": "dk", "value": 64.0},
           {"key": "dk2", "value": 4096.0})
QUESTION = Question({"dk": 64, "n": 32, "seed": 0}, CHOICES, (2,), 65.3)
OTHER = replace(QUESTION, inputs={"dk": 128, "n": 32, "seed": 0}, value=130.2)  # the teacher moved d_k


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RecordingStore(MemoryStore):
    """A MemoryStore that keeps every key, field and value written to it."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.written: list[bytes] = []

    def set(self, key: str, data: bytes, ttl_s: float) -> bool:
        self.written.append(key.encode() + b"\0" + bytes(data))
        return super().set(key, data, ttl_s)

    def map_put(self, key: str, field: str, data: bytes, ttl_s: float, cap: int = 0) -> bool | None:
        self.written.append(key.encode() + b"\0" + field.encode() + b"\0" + bytes(data))
        return super().map_put(key, field, data, ttl_s, cap)


class Class:
    """Rooms on a RecordingStore, every clock (expiry, rate limits) the fake one."""

    def __init__(self, **kwargs) -> None:
        self.clock = Clock()
        self.store = RecordingStore(self.clock)
        self.rooms = Rooms(self.store, clock=self.clock, **kwargs)  # its limits in the store: the fake clock

    def create(self, client: str = "teacher") -> tuple[str, str]:
        room, secret, status = self.rooms.create(client)
        assert status == "ok" and room is not None and secret
        return room.code, secret

    def room(self, code: str) -> Room:
        room, status = self.rooms.get(code)
        assert status == "ok" and room is not None
        return room

    def snapshot(self, code: str) -> tuple:
        key, members, answers = Rooms.keys(code)
        return self.store.get(key), self.store.map_get(members), self.store.map_get(answers)


def student(i: int) -> str:
    return f"{i:012x}"


@pytest.fixture
def live() -> tuple[Class, str, str]:
    """A room at step 1 asking QUESTION, with students 1 and 2 joined."""
    c = Class()
    code, secret = c.create()
    assert c.rooms.show(code, secret, 1, QUESTION)[1] == "ok"
    for i in (1, 2):
        assert c.rooms.join(code, student(i), "phones")[1] == "ok"
    return c, code, secret


# ---------------------------------------------------------------- codes and secrets


def test_create_gives_a_six_character_code_of_unambiguous_characters():
    for group in ("0OQD", "1IL", "2Z", "5S", "6G", "8B", "UV"):  # look-alikes: at most one of each group
        assert len(set(group) & set(CODE_ALPHABET)) <= 1, group
    c = Class(max_rooms=100)
    codes = {c.create(client=f"t{i}")[0] for i in range(30)}
    assert len(codes) == 30
    for code in codes:
        assert len(code) == CODE_LENGTH == 6 and set(code) <= set(CODE_ALPHABET)


def test_the_secret_is_stored_only_as_its_sha256():
    c = Class()
    code, secret = c.create()
    c.rooms.show(code, secret, 1, QUESTION)
    c.rooms.reveal(code, secret)
    room = c.room(code)
    assert len(secret) >= 32 and room.teacher == hashlib.sha256(secret.encode()).hexdigest()
    everything = b"\n".join(c.store.written)
    assert secret.encode() not in everything
    assert room.teacher.encode() in c.store.get(Rooms.keys(code)[0])
    assert c.rooms.is_teacher(room, secret) and not c.rooms.is_teacher(room, room.teacher)


# ---------------------------------------------------------------- the teacher's rights

TEACHER_ACTIONS = {
    "show another step": lambda r, code, s: r.show(code, s, 2, QUESTION),
    "show other inputs": lambda r, code, s: r.show(code, s, 1, OTHER),
    "show the same": lambda r, code, s: r.show(code, s, 1, QUESTION),
    "set_free": lambda r, code, s: r.set_free(code, s, True),
    "vote_again": lambda r, code, s: r.vote_again(code, s),
    "reveal": lambda r, code, s: r.reveal(code, s),
    "show_answers": lambda r, code, s: r.show_answers(code, s),
    "close_vote": lambda r, code, s: r.close_vote(code, s),
    "set_discussion": lambda r, code, s: r.set_discussion(code, s, 300),
    "end": lambda r, code, s: r.end(code, s),
}
WRONG_SECRETS = {"missing": lambda s: "", "wrong": lambda s: s[:-1] + ("A" if s[-1] != "A" else "B"),
                 "its hash": hash_secret, "none": lambda s: None}


@pytest.mark.parametrize("wrong", WRONG_SECRETS)
@pytest.mark.parametrize("action", TEACHER_ACTIONS)
def test_a_teacher_action_without_the_secret_is_denied_and_changes_nothing(live, action, wrong):
    c, code, secret = live
    c.rooms.answer(code, student(1), 1, 1, 0)
    before = c.snapshot(code)
    result, status = TEACHER_ACTIONS[action](c.rooms, code, WRONG_SECRETS[wrong](secret))
    assert (result, status) == (None, "denied")
    assert c.snapshot(code) == before
    assert TEACHER_ACTIONS[action](c.rooms, code, secret)[1] == "ok"  # the right secret may


# ---------------------------------------------------------------- rooms and their cap


def test_the_rooms_cap_answers_full_and_ended_or_expired_rooms_free_their_place():
    c = Class(max_rooms=2)
    first, secret = c.create("a")
    c.create("b")
    assert c.rooms.create("c")[2] == "full" and c.rooms.create("c")[:2] == (None, None)
    assert c.rooms.end(first, secret)[1] == "ok"
    c.create("c")  # the ended room's place
    assert c.rooms.create("d")[2] == "full"
    c.clock.advance(c.rooms.ttl_s + 1)  # both idle rooms expire
    c.create("d")
    c.create("e")
    assert c.rooms.create("f")[2] == "full"
    assert len(c.store.map_get(INDEX_KEY)) == 2


def test_creating_rooms_is_rate_limited_per_client():
    c = Class()
    statuses = [c.rooms.create("one")[2] for _ in range(4)]
    assert statuses == ["ok"] * 3 + ["slow"]
    assert c.rooms.create("another")[2] == "ok"
    c.clock.advance(299.0)
    assert c.rooms.create("one")[2] == "slow"
    c.clock.advance(1.0)  # then one per 5 minutes
    assert c.rooms.create("one")[2] == "ok"


# ---------------------------------------------------------------- joining


def test_joining_an_unknown_or_malformed_code_answers_unknown(live):
    c, code, _ = live
    unknown = next(x for x in ("ACDEFH", "ACDEFJ") if x != code)
    for bad in (unknown, "ZZZZZZ", code.lower(), code + "A", "", "<b>x</b>"):
        assert c.rooms.join(bad, student(9), "phones") == (None, "unknown"), bad
    assert c.rooms.join(code, "NOT-AN-ID", "phones") == (None, "invalid")


def test_joining_again_is_ok_and_counts_the_student_once(live):
    c, code, _ = live
    room, status = c.rooms.join(code, student(1), "phones")
    assert status == "ok" and room.code == code
    assert c.rooms.tally(c.room(code)).joined == 2


def test_a_full_room_refuses_a_new_student_but_not_one_already_in_it():
    c = Class(max_students=2)
    code, _ = c.create()
    assert [c.rooms.join(code, student(i), f"p{i}")[1] for i in range(3)] == ["ok", "ok", "full"]
    assert c.rooms.join(code, student(0), "p0")[1] == "ok"
    assert c.rooms.tally(c.room(code)).joined == 2


def test_joins_are_rate_limited_per_client_address(live):
    c, code, _ = live
    statuses = [c.rooms.join(code, student(i), "school") for i in range(100, 301)]
    assert [s for _, s in statuses[:200]] == ["ok"] * 200 and statuses[200] == (None, "slow")
    assert c.rooms.join(code, student(999), "elsewhere")[1] == "ok"
    c.clock.advance(1.0)  # then one a second
    assert c.rooms.join(code, student(301), "school")[1] == "ok"


def test_wrong_codes_from_one_client_become_slow_and_a_good_code_still_joins_elsewhere(live):
    c, code, _ = live
    wrong = "ACDEFH" if code != "ACDEFH" else "ACDEFJ"
    assert [c.rooms.join(wrong, student(7), "guesser")[1] for _ in range(11)] == ["unknown"] * 10 + ["slow"]
    assert c.rooms.join(code, student(8), "classmate")[1] == "ok"
    c.clock.advance(5.0)  # one wrong code a 5 s
    assert c.rooms.join(wrong, student(7), "guesser")[1] == "unknown"


def test_wrong_codes_from_the_whole_process_become_slow_and_a_good_code_still_joins(live):
    c, code, _ = live
    wrong = "ACDEFH" if code != "ACDEFH" else "ACDEFJ"
    statuses = [c.rooms.join(wrong, student(7), f"client{i // 6}")[1] for i in range(66)]
    assert statuses == ["unknown"] * 60 + ["slow"] * 6  # at most 10 per client: 11 clients
    assert c.rooms.join(wrong, student(7), "new client")[1] == "slow"
    assert c.rooms.join(code, student(8), "new client")[1] == "ok"


# ---------------------------------------------------------------- answering


def test_a_student_who_did_not_join_cannot_answer(live):
    c, code, _ = live
    assert c.rooms.answer(code, student(5), 1, 1, 0) == "not_joined"
    assert c.rooms.tally(c.room(code)).counts == {}


def test_answers_outside_the_open_vote_of_the_current_step_are_closed(live):
    c, code, secret = live
    rooms = c.rooms
    assert rooms.answer(code, student(1), 2, 1, 0) == "closed"  # another step
    rooms.vote_again(code, secret)
    assert rooms.answer(code, student(1), 1, 1, 0) == "closed"  # the first vote is closed
    assert rooms.answer(code, student(1), 1, 2, 0) == "ok"
    rooms.reveal(code, secret)
    assert rooms.answer(code, student(1), 1, 2, 1) == "closed"  # after the reveal
    rooms.show(code, secret, 2, QUESTION)
    rooms.set_free(code, secret, True)
    assert rooms.answer(code, student(1), 2, 1, 0) == "closed"  # the room explores freely
    rooms.set_free(code, secret, False)
    assert rooms.answer(code, student(1), 2, 1, 0) == "ok"
    assert rooms.answer("ACDEFH" if code != "ACDEFH" else "ACDEFJ", student(1), 2, 1, 0) == "unknown"


@pytest.mark.parametrize("choice", [-1, 4, 99, True, 1.0, "1", [1]])
def test_a_choice_that_is_not_an_index_of_the_question_is_invalid(live, choice):
    c, code, _ = live
    assert c.rooms.answer(code, student(1), 1, 1, choice) == "invalid"
    assert c.snapshot(code)[2] == {}


def test_a_malformed_student_id_is_invalid(live):
    c, code, _ = live
    for bad in ("", "ABCDEF012345", "0" * 11, "0" * 13, "../../etc"):
        assert c.rooms.answer(code, bad, 1, 1, 0) == "invalid"


def test_one_answer_per_student_step_and_vote_replaced_by_answering_again(live):
    c, code, secret = live
    rooms = c.rooms
    assert rooms.answer(code, student(1), 1, 1, 0) == "ok"
    assert rooms.answer(code, student(1), 1, 1, 2) == "ok"
    assert rooms.answer(code, student(2), 1, 1, 2) == "ok"
    tally = rooms.tally(c.room(code))
    assert tally.counts == {(1, 1): [0, 0, 2, 0]} and tally.answered == 2 and tally.joined == 2
    assert rooms.answer_of(code, student(1), 1, 1) == 2
    rooms.vote_again(code, secret)
    assert rooms.tally(c.room(code)).answered == 0  # nobody answered the second vote yet
    assert rooms.answer(code, student(1), 1, 2, 3) == "ok"
    tally = rooms.tally(c.room(code))
    assert tally.counts == {(1, 1): [0, 0, 2, 0], (1, 2): [0, 0, 0, 1]} and tally.answered == 1


def test_none_takes_the_answer_back(live):
    c, code, _ = live
    c.rooms.answer(code, student(1), 1, 1, 1)
    assert c.rooms.answer(code, student(1), 1, 1, None) == "ok"
    assert c.rooms.answer_of(code, student(1), 1, 1) is None
    tally = c.rooms.tally(c.room(code))
    assert tally.answered == 0 and sum(tally.counts.get((1, 1), [])) == 0


def test_answers_are_rate_limited_per_student(live):
    c, code, _ = live
    statuses = [c.rooms.answer(code, student(1), 1, 1, i % 4) for i in range(9)]
    assert statuses == ["ok"] * 8 + ["slow"]
    assert c.rooms.answer(code, student(2), 1, 1, 0) == "ok"  # another student's own bucket
    c.clock.advance(1.0)
    assert c.rooms.answer(code, student(1), 1, 1, 1) == "ok"
    assert c.rooms.answer_of(code, student(1), 1, 1) == 1


# ---------------------------------------------------------------- expiry and the end


def test_an_idle_room_with_its_members_and_answers_is_gone_after_its_ttl(live):
    c, code, _ = live
    c.rooms.answer(code, student(1), 1, 1, 2)
    c.clock.advance(c.rooms.ttl_s - 1)
    assert c.rooms.get(code)[1] == "ok"
    c.clock.advance(2)
    assert c.rooms.get(code) == (None, "unknown")
    assert c.snapshot(code) == (None, {}, {})
    assert c.rooms.join(code, student(1), "phones") == (None, "unknown")


def test_keep_alive_extends_the_room_its_members_and_answers(live):
    c, code, _ = live
    c.rooms.answer(code, student(1), 1, 1, 2)
    c.clock.advance(c.rooms.ttl_s - 10)
    c.rooms.keep_alive(c.room(code))
    c.clock.advance(c.rooms.ttl_s - 10)  # past the first expiry, within the second
    room, members, answers = c.snapshot(code)
    assert room is not None and set(members) == {student(1), student(2)} and len(answers) == 1
    c.clock.advance(11)
    assert c.snapshot(code) == (None, {}, {})


def test_a_teacher_change_extends_the_members_and_answers(live):
    c, code, secret = live
    c.rooms.answer(code, student(1), 1, 1, 2)
    c.clock.advance(c.rooms.ttl_s - 10)
    c.rooms.reveal(code, secret)
    c.clock.advance(20)
    assert c.rooms.tally(c.room(code)).counts == {(1, 1): [0, 0, 1, 0]}


def test_end_deletes_the_room_members_and_answers_and_returns_the_tally(live):
    c, code, secret = live
    c.rooms.answer(code, student(1), 1, 1, 2)
    c.rooms.answer(code, student(2), 1, 1, 0)
    done, status = c.rooms.end(code, secret)
    assert status == "ok"
    room, tally = done
    assert room.code == code and tally.counts == {(1, 1): [1, 0, 1, 0]} and tally.joined == 2
    assert c.snapshot(code) == (None, {}, {})
    assert code not in str(c.store.map_get(INDEX_KEY)) and c.store.map_get(INDEX_KEY) == {}
    assert c.rooms.end(code, secret) == (None, "unknown")
    assert c.rooms.answer(code, student(1), 1, 1, 1) == "unknown"


# ---------------------------------------------------------------- the question and the version


def test_show_replaces_an_unanswered_question_and_keeps_an_answered_one(live):
    c, code, secret = live
    rooms = c.rooms
    room, _ = rooms.show(code, secret, 1, OTHER)  # nobody answered: the teacher's new inputs
    assert room.questions[1] == OTHER
    rooms.answer(code, student(1), 1, 1, 2)
    room, status = rooms.show(code, secret, 1, QUESTION)  # answered: the question stays as asked
    assert status == "ok" and room.questions[1] == OTHER and c.room(code).questions[1] == OTHER
    rooms.show(code, secret, 2, QUESTION)
    room, _ = rooms.show(code, secret, 1, QUESTION)  # back to the answered step, other inputs again
    assert room.step == 1 and room.questions[1] == OTHER and room.questions[2] == QUESTION
    rooms.answer(code, student(1), 1, 1, None)  # the only answer taken back
    assert rooms.show(code, secret, 1, QUESTION)[0].questions[1] == QUESTION


def test_the_version_counts_every_change_and_not_a_show_that_changes_nothing():
    c = Class()
    code, secret = c.create()
    rooms = c.rooms
    assert c.room(code).version == 0
    versions = [rooms.show(code, secret, 1, QUESTION)[0].version,
                rooms.show(code, secret, 1, QUESTION)[0].version,  # no change
                rooms.show(code, secret, 2, QUESTION)[0].version,
                rooms.vote_again(code, secret)[0].version,
                rooms.reveal(code, secret)[0].version,
                rooms.set_free(code, secret, True)[0].version,
                rooms.set_free(code, secret, False)[0].version,
                rooms.show(code, secret, 2, QUESTION)[0].version]  # no change
    assert versions == [1, 1, 2, 3, 4, 5, 6, 6]
    assert c.room(code).version == 6


# ---------------------------------------------------------------- the summary


def test_summary_rows_count_answers_and_the_share_correct_per_vote(live):
    c, code, secret = live
    rooms = c.rooms
    for i in range(3, 6):
        rooms.join(code, student(i), "phones")
    for i, choice in zip(range(1, 6), (2, 2, 1, 0, 2), strict=True):  # 3 of 5 right
        rooms.answer(code, student(i), 1, 1, choice)
    rooms.vote_again(code, secret)
    for i, choice in zip(range(1, 5), (2, 2, 2, 1), strict=True):  # 3 of 4 right
        rooms.answer(code, student(i), 1, 2, choice)
    rooms.show(code, secret, 2, replace(QUESTION, correct=(0, 1)))  # asked, not answered, one vote
    room = c.room(code)
    rows = summary_rows(room, rooms.tally(room), lambda step, q, i: f"{step}:{q.choices[i]['key']}",
                        lambda step: f"step {step}")
    assert len(rows) == 4 + 4 + 4
    first = [r for r in rows if (r["step"], r["vote"]) == (1, 1)]
    assert [r["count"] for r in first] == [1, 1, 3, 0]
    assert [r["correct"] for r in first] == [False, False, True, False]
    assert {(r["answers"], r["share_correct"], r["name"]) for r in first} == {(5, 0.6, "step 1")}
    assert first[2]["answer"] == "1:dk"
    second = [r for r in rows if (r["step"], r["vote"]) == (1, 2)]
    assert [r["count"] for r in second] == [0, 1, 3, 0]
    assert {(r["answers"], r["share_correct"]) for r in second} == {(4, 0.75)}
    unanswered = [r for r in rows if r["step"] == 2]
    assert {r["vote"] for r in unanswered} == {1} and [r["correct"] for r in unanswered][:2] == [True, True]
    assert {(r["count"], r["answers"], r["share_correct"]) for r in unanswered} == {(0, 0, None)}


# ---------------------------------------------------------------- rooms read back from bytes


def _room_value() -> dict:
    room = Room("ACDEFH", hash_secret("s"), 1.0, 2, False, 3, {1: QUESTION, 2: OTHER})
    value, _ = codec.decode(encode_room(room), kind="room")
    return value


def _question_value(value: dict) -> dict:
    return value["questions"][0][1]


def test_a_room_reads_back_from_its_bytes_as_it_was():
    room = Room("ACDEFH", hash_secret("s"), 1.0, 2, True, 3, {1: QUESTION, 2: replace(OTHER, vote=2)})
    assert decode_room(encode_room(room)) == room
    assert decode_room(codec.encode(_room_value(), kind="room")).questions[2] == OTHER


def _set(path: tuple, value):
    def change(v: dict) -> None:
        where = v
        for step in path[:-1]:
            where = where[step]
        where[path[-1]] = value
    return change


def _drop_key(v: dict) -> None:
    del v["free"]


NOT_ROOMS = {
    "step a string": _set(("step",), "1"),
    "step 0": _set(("step",), 0),
    "step 65": _set(("step",), 65),
    "free an int": _set(("free",), 1),
    "version a float": _set(("version",), 3.0),
    "version negative": _set(("version",), -1),
    "code not of the alphabet": _set(("code",), "ZZZZZZ"),
    "code an int": _set(("code",), 123456),
    "teacher not a digest": _set(("teacher",), "s"),
    "created a string": _set(("created",), "yesterday"),
    "created too large for a float": _set(("created",), 10**400),
    "created not finite": _set(("created",), math.inf),
    "a field missing": _drop_key,
    "an extra field": _set(("admin",), True),
    "questions a dict": _set(("questions",), {}),
    "a question's step out of range": _set(("questions", 0, 0), 99),
    "a question's step a bool": _set(("questions", 0, 0), True),
    "a question with an extra field": _set(("questions", 0, 1, "script"), "x"),
    "correct out of range": _set(("questions", 0, 1, "correct"), [4]),
    "correct negative": _set(("questions", 0, 1, "correct"), [-1]),
    "correct empty": _set(("questions", 0, 1, "correct"), []),
    "correct a bool": _set(("questions", 0, 1, "correct"), [True]),
    "an unknown input key": _set(("questions", 0, 1, "inputs", "evil"), 1),
    "an input a list": _set(("questions", 0, 1, "inputs", "dk"), [64]),
    "value not finite": _set(("questions", 0, 1, "value"), math.nan),
    "value infinite": _set(("questions", 0, 1, "value"), -math.inf),
    "value a string": _set(("questions", 0, 1, "value"), "65"),
    "format not a word": _set(("questions", 0, 1, "format"), "<b>"),
    "vote 3": _set(("questions", 0, 1, "vote"), 3),
    "vote a bool": _set(("questions", 0, 1, "vote"), True),
    "revealed an int": _set(("questions", 0, 1, "revealed"), 1),
    "one choice": _set(("questions", 0, 1, "choices"), [{"key": "one", "value": 1.0}]),
    "a choice's key markup": _set(("questions", 0, 1, "choices", 0, "key"), "<b>x</b>"),
    "a choice's number not finite": _set(("questions", 0, 1, "choices", 0, "value"), math.inf),
    "a choice's number a string": _set(("questions", 0, 1, "choices", 0, "value"), "1"),
}


@pytest.mark.parametrize("case", NOT_ROOMS)
def test_decode_room_rejects_a_value_that_is_not_a_room(case):
    value = _room_value()
    NOT_ROOMS[case](value)
    with pytest.raises(RoomError):
        decode_room(codec.encode(value, kind="room"))


class _Payload:
    def __reduce__(self):
        return (print, ("unpickled",))


@pytest.mark.parametrize("data", [
    b"", b"hello", b'{"ase":1}', pickle.dumps({"code": "ACDEFH"}), pickle.dumps(_Payload()),
    codec.encode({"code": "ACDEFH"}, kind="result"), codec.encode(["not", "a", "dict"], kind="room"),
    encode_room(Room("ACDEFH", hash_secret("s"), 1.0))[:-3],
], ids=["empty", "text", "a header only", "pickle", "pickle payload", "another kind", "a list",
        "cut short"])
def test_decode_room_rejects_bytes_that_are_not_a_room(data, capsys):
    with pytest.raises(RoomError):
        decode_room(data)
    assert "unpickled" not in capsys.readouterr().out


def test_a_value_under_a_room_key_that_is_not_a_room_reads_as_unknown(live):
    c, code, _ = live
    key = Rooms.keys(code)[0]
    value = codec.decode(c.store.get(key), kind="room")[0]
    value["created"] = 10**400
    for data in (pickle.dumps(_Payload()), codec.encode(value, kind="room")):
        c.store.set(key, data, 60)
        assert c.rooms.get(code) == (None, "unknown")
        assert c.rooms.join(code, student(3), "phones") == (None, "unknown")
        assert c.rooms.answer(code, student(1), 1, 1, 0) == "unknown"


def test_the_tally_ignores_malformed_answers_planted_in_the_store(live):
    c, code, _ = live
    answers = Rooms.keys(code)[2]
    c.rooms.answer(code, student(1), 1, 1, 2)
    planted = {f"1.1.{student(3)}": b"x", f"1.1.{student(4)}": b"-1", f"1.1.{student(5)}": b"4",
               f"1.1.{student(6)}": b"1.0", f"1.1.{student(7)}": b"", f"1.1.{student(8)}": b"\xff",
               f"1.3.{student(9)}": b"1", f"9.1.{student(10)}": b"1", f"0.1.{student(11)}": b"1",
               f"a.1.{student(12)}": b"1", "1.1": b"1", f"1.1.{student(13)}.x": b"1", "1.1.zzz": b"1",
               "1.1.-": b"1"}
    for name, value in planted.items():
        assert c.store.map_put(answers, name, value, 60)
    tally = c.rooms.tally(c.room(code))
    assert tally.counts == {(1, 1): [0, 0, 1, 0]} and tally.answered == 1


# ---------------------------------------------------------------- MemoryStore's maps

MAP = store.store_key("roomans", "ab" * 16)
OTHER_MAP = store.store_key("roomans", "cd" * 16)


def test_memory_map_put_get_and_drop():
    s = MemoryStore(clock=Clock())
    assert s.map_get(MAP) == {}
    assert s.map_put(MAP, "a", b"1", 60) and s.map_put(MAP, "b", b"2", 60)
    assert s.map_put(MAP, "a", b"3", 60)
    assert s.map_get(MAP) == {"a": b"3", "b": b"2"} and s.map_get(OTHER_MAP) == {}
    s.map_get(MAP)["c"] = b"9"  # a copy: the store keeps its own
    s.map_drop(MAP, "b")
    s.map_drop(MAP, "missing")
    s.map_drop(OTHER_MAP, "a")
    assert s.map_get(MAP) == {"a": b"3"}
    s.delete(MAP)
    assert s.map_get(MAP) == {} and s.counters()["maps"] == 0


def test_memory_map_fields_are_checked():
    s = MemoryStore(clock=Clock())
    for bad in ("", "A", "a b", "x" * 65, "<b>"):
        with pytest.raises(ValueError):
            s.map_put(MAP, bad, b"1", 60)
    assert s.map_get(MAP) == {}


def test_memory_map_cap_refuses_a_new_field_and_replaces_an_existing_one():
    s = MemoryStore(clock=Clock())
    assert [s.map_put(MAP, f, b"1", 60, cap=2) for f in "abc"] == [True, True, False]
    assert s.map_put(MAP, "a", b"2", 60, cap=2) is True
    assert s.map_put(MAP, "c", b"1", 60) is True  # no cap
    assert s.map_get(MAP) == {"a": b"2", "b": b"1", "c": b"1"}


def test_memory_map_expires_and_touch_extends_it():
    clock = Clock()
    s = MemoryStore(clock=clock)
    s.map_put(MAP, "a", b"1", 10)
    clock.advance(9)
    assert s.touch(MAP, 10)
    clock.advance(9)
    assert s.map_get(MAP) == {"a": b"1"}
    s.map_put(MAP, "b", b"1", 5)  # a put sets the map's expiry
    clock.advance(5)
    assert s.map_get(MAP) == {} and not s.touch(MAP, 10)
    assert s.map_put(MAP, "c", b"1", 10, cap=1)  # an expired map is empty again, cap and all


def test_memory_touch_extends_a_plain_key_and_answers_whether_there_was_one():
    clock = Clock()
    s = MemoryStore(clock=clock)
    key = store.store_key("room", "ab" * 16)
    assert not s.touch(key, 10)
    s.set(key, b"x", 10)
    clock.advance(9)
    assert s.touch(key, 10)
    clock.advance(9)
    assert s.get(key) == b"x"
    clock.advance(2)
    assert s.get(key) is None and not s.touch(key, 10)


def test_memory_keeps_at_most_its_maps_dropping_the_soonest_to_expire(monkeypatch):
    monkeypatch.setattr(store, "MEMORY_MAPS", 3)
    s = MemoryStore(clock=Clock())
    keys = [store.store_key("roommem", f"{i:032x}") for i in range(4)]
    for i, key in enumerate(keys):
        s.map_put(key, "a", b"1", [50, 10, 40, 30][i])
    assert s.counters()["maps"] == 3
    assert s.map_get(keys[1]) == {} and all(s.map_get(k) == {"a": b"1"} for k in (keys[0], keys[2], keys[3]))


def test_memory_release_deletes_a_claimed_key_without_deadlocking():
    s = MemoryStore(clock=Clock())
    key = store.store_key("claim", "cd" * 10)
    assert s.claim(key, "a", 10)
    done = threading.Thread(target=s.release, args=(key, "a"), daemon=True)
    done.start()
    done.join(5)
    assert not done.is_alive(), "release() waits for its own lock"
    assert not s.exists(key) and s.claim(key, "b", 10)


# ---------------------------------------------------------------- the room bus (server/room_bus.py)


def test_a_change_wakes_every_phone_of_that_room_and_only_those():
    from server.room_bus import RoomBus

    store = MemoryStore()
    rooms = Rooms(store, bus=RoomBus())
    room, secret, _ = rooms.create("t")
    other, _, _ = rooms.create("t")
    woken: list[str] = []
    for who in ("a", "b"):
        rooms.bus.listen(room_digest(room.code), who, lambda who=who: woken.append(who) or True)
    rooms.bus.listen(room_digest(other.code), "c", lambda: woken.append("c") or True)
    rooms.set_free(room.code, secret, True)
    assert rooms.bus.settled(5.0) and sorted(woken) == ["a", "b"]
    rooms.set_free(room.code, "wrong", False)  # refused: nothing changed, nobody woken
    assert rooms.bus.settled(5.0) and sorted(woken) == ["a", "b"]


def test_a_session_that_is_gone_or_fails_is_forgotten_and_never_fails_the_teacher():
    from server.room_bus import RoomBus

    bus = RoomBus()
    calls = {"gone": 0, "broken": 0, "here": 0}

    def broken() -> bool:
        calls["broken"] += 1
        raise RuntimeError("no such session")

    bus.listen("r" * 32, "gone", lambda: calls.__setitem__("gone", calls["gone"] + 1) or False)
    bus.listen("r" * 32, "broken", broken)
    bus.listen("r" * 32, "here", lambda: calls.__setitem__("here", calls["here"] + 1) or True)
    bus.changed("r" * 32)
    assert bus.settled(5.0)
    bus.changed("r" * 32)
    assert bus.settled(5.0)
    assert calls == {"gone": 1, "broken": 1, "here": 2} and bus.listeners("r" * 32) == 1
    bus.forget("r" * 32, "here")
    assert bus.listeners("r" * 32) == 0
