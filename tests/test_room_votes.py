"""The peer-instruction loop of a live class's room (server/rooms.py, server/room_votes.py) on a
MemoryStore with a fake clock: the first vote hidden until shown or closed, a closed vote refusing
answers and confidences, the second vote and its discussion's countdown computed from the start kept
in the room (the same on a second store client and after reading the bytes back), the confidence
kept with its answer, the teacher's hint bands, the share correct per step and vote (*Our votes*)
and the summary's new columns. The same loop across two Redis clients: tests/test_rooms_redis.py."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from test_rooms import QUESTION, Class, student

from server import codec
from server.room_state import DISCUSS_RANGE, DISCUSS_S, RoomError, decode_room, encode_room
from server.room_votes import (
    answer_value,
    clock_text,
    hint,
    histogram_shown,
    our_votes,
    parse_answer,
    remaining_s,
    share_correct,
    summary_rows,
    vote_closed,
)
from server.rooms import Rooms

RIGHT, WRONG, OTHER_WRONG = 2, 0, 1  # QUESTION's correct choice is index 2 (d_k)


@pytest.fixture
def live() -> tuple[Class, str, str]:
    """A room at step 1 asking QUESTION, with students 1 and 2 joined (as in tests/test_rooms.py)."""
    c = Class()
    code, secret = c.create()
    assert c.rooms.show(code, secret, 1, QUESTION)[1] == "ok"
    for i in (1, 2):
        assert c.rooms.join(code, student(i), "phones")[1] == "ok"
    return c, code, secret


def room_with(c: Class, code: str, n: int) -> None:
    for i in range(3, n + 1):
        assert c.rooms.join(code, student(i), "phones")[1] == "ok"


def test_the_first_vote_is_hidden_until_shown_and_shown_answers_still_take_answers(live):
    c, code, secret = live
    q = c.room(code).question
    assert not histogram_shown(q) and not vote_closed(q)
    assert c.rooms.answer(code, student(1), 1, 1, RIGHT) == "ok"
    room, status = c.rooms.show_answers(code, secret)
    assert status == "ok" and histogram_shown(room.question) and not vote_closed(room.question)
    assert c.rooms.answer(code, student(2), 1, 1, WRONG) == "ok"  # showing does not close
    assert c.rooms.tally(c.room(code)).counts == {(1, 1): [1, 0, 1, 0]}


def test_a_closed_vote_refuses_answers_confidences_and_takebacks_and_shows_its_answers(live):
    c, code, secret = live
    c.rooms.answer(code, student(1), 1, 1, RIGHT)
    room, status = c.rooms.close_vote(code, secret)
    assert status == "ok" and vote_closed(room.question) and histogram_shown(room.question)
    before = c.snapshot(code)[2]
    assert c.rooms.answer(code, student(2), 1, 1, WRONG) == "closed"
    assert c.rooms.answer(code, student(1), 1, 1, WRONG) == "closed"
    assert c.rooms.answer(code, student(1), 1, 1, None) == "closed"
    assert c.rooms.confidence(code, student(1), 1, 1, "sure") == "closed"
    assert c.snapshot(code)[2] == before  # nothing written after the close


def test_vote_again_opens_a_hidden_second_vote_and_starts_the_discussion_now(live):
    c, code, secret = live
    c.rooms.answer(code, student(1), 1, 1, WRONG)
    c.rooms.close_vote(code, secret)
    c.clock.advance(7.5)
    room, _ = c.rooms.vote_again(code, secret)
    q = room.question
    assert (q.vote, q.shown, q.closed, q.revealed) == (2, False, False, False)
    assert q.discuss_start == c.clock() and room.discuss_s == DISCUSS_S == 120
    assert c.rooms.answer(code, student(1), 1, 2, RIGHT) == "ok"
    assert c.rooms.answer(code, student(2), 1, 1, RIGHT) == "closed"  # the first vote stays closed


def test_the_countdown_is_computed_from_the_start_kept_in_the_room(live):
    c, code, secret = live
    c.rooms.vote_again(code, secret)
    other = Rooms(c.store, clock=c.clock)  # another client of the same store (a reload, another screen)
    c.clock.advance(50)
    for rooms in (c.rooms, other):
        room = rooms.get(code)[0]
        assert remaining_s(room.question, room.discuss_s, c.clock()) == pytest.approx(70.0)
    again = decode_room(c.store.get(Rooms.keys(code)[0]))  # read back from the stored bytes
    assert remaining_s(again.question, again.discuss_s, c.clock()) == pytest.approx(70.0)
    room, _ = c.rooms.set_discussion(code, secret, DISCUSS_S + 60)  # the teacher adds a minute
    assert remaining_s(room.question, room.discuss_s, c.clock()) == pytest.approx(130.0)
    c.clock.advance(200)
    assert remaining_s(room.question, room.discuss_s, c.clock()) == 0.0  # never below zero
    room, _ = c.rooms.close_vote(code, secret)
    assert remaining_s(room.question, room.discuss_s, c.clock()) is None  # no discussion once closed


def test_no_countdown_runs_in_a_first_vote():
    q = QUESTION
    assert remaining_s(q, DISCUSS_S, 1e9) is None
    assert remaining_s(replace(q, vote=2), DISCUSS_S, 1e9) is None  # a second vote without a start


@pytest.mark.parametrize("asked, kept", [(0, DISCUSS_RANGE[0]), (45, 45), (10**6, DISCUSS_RANGE[1]),
                                         (-5, DISCUSS_RANGE[0])])
def test_the_discussion_length_is_kept_within_its_range(live, asked, kept):
    c, code, secret = live
    room, status = c.rooms.set_discussion(code, secret, asked)
    assert status == "ok" and room.discuss_s == kept == c.room(code).discuss_s


def test_clock_text_rounds_up_to_whole_seconds():
    assert [clock_text(s) for s in (120, 119.2, 61, 60, 9.01, 0.2, 0)] == \
        ["2:00", "2:00", "1:01", "1:00", "0:10", "0:01", "0:00"]


def test_a_confidence_needs_an_answer_is_kept_with_it_and_goes_when_the_answer_changes(live):
    c, code, _ = live
    rooms = c.rooms
    assert rooms.confidence(code, student(1), 1, 1, "sure") == "invalid"  # no answer yet
    rooms.answer(code, student(1), 1, 1, RIGHT)
    rooms.answer(code, student(2), 1, 1, WRONG)
    assert rooms.confidence(code, student(1), 1, 1, "sure") == "ok"
    assert rooms.confidence(code, student(2), 1, 1, "guessing") == "ok"
    assert rooms.mine(code, student(1), 1, 1) == (RIGHT, "sure")
    tally = rooms.tally(c.room(code))
    assert tally.counts == {(1, 1): [1, 0, 1, 0]}
    assert tally.confidence == {(1, 1): [(0, 1), (0, 0), (1, 0), (0, 0)]}
    rooms.answer(code, student(1), 1, 1, OTHER_WRONG)  # a new answer: its confidence is not the old one's
    assert rooms.mine(code, student(1), 1, 1) == (OTHER_WRONG, None)
    assert rooms.confidence(code, student(2), 1, 1, None) == "ok"  # taken back
    assert rooms.tally(c.room(code)).confidence == {(1, 1): [(0, 0)] * 4}
    assert rooms.confidence(code, student(2), 1, 1, "certain") == "invalid"
    assert rooms.confidence(code, student(5), 1, 1, "sure") == "invalid"  # never answered (never joined)


def test_confidences_share_the_students_answer_rate_limit(live):
    c, code, _ = live
    c.rooms.answer(code, student(1), 1, 1, RIGHT)
    statuses = [c.rooms.confidence(code, student(1), 1, 1, ("sure", "guessing")[i % 2]) for i in range(8)]
    assert statuses == ["ok"] * 7 + ["slow"]


@pytest.mark.parametrize("raw, parsed", [
    (b"2", (2, None)), (b"2s", (2, "sure")), (b"11g", (11, "guessing")),
    (b"2x", None), (b"2ss", None), (b"s", None), (b"", None), (b"123", None), (b"-1", None), (b"2 s", None),
    ("2", None), (None, None), (b"\xff", None)])
def test_a_stored_answer_is_read_only_in_its_own_format(raw, parsed):
    assert parse_answer(raw) == parsed
    if parsed is not None:
        assert answer_value(*parsed) == raw


def test_the_tally_ignores_answers_with_a_malformed_confidence(live):
    c, code, _ = live
    answers = Rooms.keys(code)[2]
    for i, value in enumerate((b"2s", b"2q", b"2sg", b"s2", b"4s"), start=1):
        c.store.map_put(answers, f"1.1.{student(i)}", value, 60)
    tally = c.rooms.tally(c.room(code))
    assert tally.counts == {(1, 1): [0, 0, 1, 0]} and tally.confidence[(1, 1)][RIGHT] == (1, 0)


@pytest.mark.parametrize("share, move", [
    (None, None), (0.0, "reteach"), (0.29, "reteach"), (0.2999, "reteach"), (0.30, "discuss"),
    (0.5, "discuss"), (0.70, "discuss"), (0.7001, "reveal"), (1.0, "reveal")])
def test_the_hint_follows_peer_instructions_bands(share, move):
    assert hint(share) == move


def test_the_hint_band_of_a_room_follows_its_share_correct(live):
    c, code, _ = live
    room_with(c, code, 10)
    for i in range(1, 11):  # 2 of 10 right, then 5, then 8
        c.rooms.answer(code, student(i), 1, 1, RIGHT if i <= 2 else WRONG)
    moves = []
    for right in (2, 5, 8):
        for i in range(1, right + 1):
            c.rooms.answer(code, student(i), 1, 1, RIGHT)
        counts = c.rooms.tally(c.room(code)).counts[(1, 1)]
        share = share_correct(counts, QUESTION.correct)
        assert share == pytest.approx(right / 10)
        moves.append(hint(share))
    assert moves == ["reteach", "discuss", "reveal"]


def test_our_votes_give_each_answered_steps_share_correct_per_vote(live):
    c, code, secret = live
    rooms = c.rooms
    room_with(c, code, 5)
    for i, choice in zip(range(1, 6), (RIGHT, WRONG, WRONG, OTHER_WRONG, RIGHT), strict=True):  # 2 of 5
        rooms.answer(code, student(i), 1, 1, choice)
    rooms.close_vote(code, secret)
    rooms.vote_again(code, secret)
    for i, choice in zip(range(1, 5), (RIGHT, RIGHT, RIGHT, WRONG), strict=True):  # 3 of 4
        rooms.answer(code, student(i), 1, 2, choice)
    rooms.reveal(code, secret)
    rooms.show(code, secret, 2, replace(QUESTION, correct=(0,)))  # one vote only: 1 of 2
    rooms.answer(code, student(1), 2, 1, 0)
    rooms.answer(code, student(2), 2, 1, 3)
    rooms.show(code, secret, 3, QUESTION)  # asked, never answered: not on the slide
    room = c.room(code)
    assert our_votes(room, rooms.tally(room)) == [
        {"step": 1, "first": 0.4, "answers_first": 5, "second": 0.75, "answers_second": 4},
        {"step": 2, "first": 0.5, "answers_first": 2, "second": None, "answers_second": 0}]


def test_the_summary_rows_carry_confidence_and_both_votes_share_correct(live):
    c, code, secret = live
    rooms = c.rooms
    rooms.answer(code, student(1), 1, 1, RIGHT)
    rooms.answer(code, student(2), 1, 1, WRONG)
    rooms.confidence(code, student(1), 1, 1, "guessing")
    rooms.confidence(code, student(2), 1, 1, "sure")
    rooms.vote_again(code, secret)
    rooms.answer(code, student(1), 1, 2, RIGHT)
    rooms.answer(code, student(2), 1, 2, RIGHT)
    rooms.confidence(code, student(2), 1, 2, "sure")
    room = c.room(code)
    rows = summary_rows(room, rooms.tally(room), lambda s, q, i: str(i), lambda s: f"step {s}")
    first = [r for r in rows if r["vote"] == 1]
    second = [r for r in rows if r["vote"] == 2]
    assert [(r["sure"], r["guessing"]) for r in first] == [(1, 0), (0, 0), (0, 1), (0, 0)]
    assert [(r["sure"], r["guessing"]) for r in second] == [(0, 0), (0, 0), (1, 0), (0, 0)]
    assert {(r["share_correct_1st"], r["share_correct_2nd"]) for r in rows} == {(0.5, 1.0)}
    assert {r["share_correct"] for r in first} == {0.5} and {r["share_correct"] for r in second} == {1.0}


def test_what_a_phone_draws_is_one_version_more_and_wakes_the_phones_the_projectors_own_view_neither():
    c = Class()
    code, secret = c.create()
    rooms = c.rooms
    woken: list[str] = []
    rooms.bus.changed = woken.append  # what would wake the room's phones
    steps = {"show": lambda: rooms.show(code, secret, 1, QUESTION),
             "show_answers": lambda: rooms.show_answers(code, secret),
             "close": lambda: rooms.close_vote(code, secret),
             "vote_again": lambda: rooms.vote_again(code, secret),
             "length": lambda: rooms.set_discussion(code, secret, 90),
             "reveal": lambda: rooms.reveal(code, secret)}
    seen = {}
    for name, act in steps.items():
        before = len(woken)
        seen[name] = (act()[0].version, len(woken) - before)
    assert seen == {"show": (1, 1), "show_answers": (1, 0), "close": (2, 1), "vote_again": (3, 1),
                    "length": (3, 0), "reveal": (4, 1)}
    assert c.room(code).question.shown and c.room(code).discuss_s == 90  # saved all the same


def test_the_loop_reads_back_from_its_bytes_as_it_was(live):
    c, code, secret = live
    c.rooms.close_vote(code, secret)
    c.rooms.vote_again(code, secret)
    c.rooms.set_discussion(code, secret, 150)
    room = c.room(code)
    assert decode_room(encode_room(room)) == room
    assert room.discuss_s == 150 and room.question.discuss_start == c.clock()


NOT_LOOPS = {
    "shown an int": ("q", "shown", 1), "closed a string": ("q", "closed", "yes"),
    "discussion start negative": ("q", "discuss_start", -1.0),
    "discussion start not finite": ("q", "discuss_start", math.nan),
    "discussion start a string": ("q", "discuss_start", "now"),
    "discussion too short": ("room", "discuss_s", 0),
    "discussion too long": ("room", "discuss_s", 10**9), "discussion a float": ("room", "discuss_s", 120.0),
    "discussion missing": ("room", "discuss_s", None), "closed missing": ("q", "closed", None),
}


@pytest.mark.parametrize("case", NOT_LOOPS)
def test_a_room_whose_loop_fields_are_not_ours_is_rejected(live, case):
    c, code, _ = live
    value, _ = codec.decode(c.store.get(Rooms.keys(code)[0]), kind="room")
    where, name, bad = NOT_LOOPS[case]
    target = value if where == "room" else value["questions"][0][1]
    if bad is None:
        del target[name]
    else:
        target[name] = bad
    with pytest.raises(RoomError):
        decode_room(codec.encode(value, kind="room"))
