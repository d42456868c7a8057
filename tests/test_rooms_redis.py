"""The live classes' rooms on a real Redis (the redis-server fixture of test_server_redis.py): two
replicas sharing one room, the members cap under concurrent joins, a foreign value under a room's key,
and Redis stopped and started again under a running class."""

from __future__ import annotations

import os
import pickle
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from test_server_redis import REDIS_SERVER, redis_server  # noqa: F401  (the fixture, shared)
from waiting import wait_until

from server.room_state import Question
from server.rooms import Rooms
from server.store import RedisStore

pytestmark = [pytest.mark.server, pytest.mark.skipif(not Path(REDIS_SERVER).exists(),
                                                    reason="REDIS TEST SKIPPED: no redis-server")]

CHOICES = ({"key": "one", "value": 1.0}, {"key": "sqrt_dk", "value": 8.0}, {"key": "dk", "value": 64.0},
           {"key": "dk2", "value": 4096.0})
QUESTION = Question({"dk": 64, "n": 32, "seed": 0}, CHOICES, (2,), 65.3)


def student(i: int) -> str:
    return f"{i:012x}"


def test_two_replicas_share_one_room_teacher_on_one_students_on_the_other(redis_server):  # noqa: F811
    teacher_side, phone_side = (Rooms(RedisStore(redis_server.url)) for _ in range(2))
    room, secret, status = teacher_side.create("t")
    assert status == "ok"
    code = room.code
    teacher_side.show(code, secret, 1, QUESTION)
    for i in range(3):
        assert phone_side.join(code, student(i), "phones")[1] == "ok"
    assert [phone_side.answer(code, student(i), 1, 1, c) for i, c in enumerate((2, 2, 0))] == ["ok"] * 3
    on_teacher = teacher_side.tally(teacher_side.get(code)[0])
    on_phones = phone_side.tally(phone_side.get(code)[0])
    assert on_teacher == on_phones and on_teacher.counts == {(1, 1): [1, 0, 2, 0]}
    assert on_teacher.joined == 3 and on_teacher.answered == 3
    teacher_side.reveal(code, secret)
    assert phone_side.answer(code, student(0), 1, 1, 1) == "closed"  # the other replica saw the reveal
    assert phone_side.show(code, "wrong", 2, QUESTION)[1] == "denied"
    done, status = teacher_side.end(code, secret)
    assert status == "ok" and done[1].counts == on_teacher.counts
    assert phone_side.get(code) == (None, "unknown")
    assert not redis_server.client().keys("ase:v1:room*:*")  # room, members and answers deleted


def test_a_phone_reads_its_own_place_and_answer_as_single_fields(redis_server):  # noqa: F811
    """HMGET on Redis (RedisStore.map_fields): one phone's place and answer, whatever the room's size,
    the same as the whole maps would say."""
    rooms = Rooms(RedisStore(redis_server.url))
    room, secret, _ = rooms.create("t")
    rooms.show(room.code, secret, 1, QUESTION)
    for i in range(50):
        assert rooms.join(room.code, student(i), "phones")[1] == "ok"
    assert rooms.answer(room.code, student(7), 1, 1, 2) == "ok"
    _, members, answers = rooms.keys(room.code)
    place = rooms.store.map_fields(members, (student(7), student(99)))
    assert place == {student(7): rooms.store.map_get(members)[student(7)]}
    assert rooms.answer_of(room.code, student(7), 1, 1) == 2
    assert rooms.answer_of(room.code, student(8), 1, 1) is None
    assert rooms.store.map_fields(answers, (f"1.1.{student(7)}",)) == {f"1.1.{student(7)}": b"2"}


def test_the_members_cap_holds_under_twenty_simultaneous_joins(redis_server):  # noqa: F811
    replicas = [Rooms(RedisStore(redis_server.url), max_students=5) for _ in range(2)]
    room, _, _ = replicas[0].create("t")
    go = threading.Barrier(20)
    statuses: list[str] = []

    def join(i: int) -> None:
        go.wait()
        statuses.append(replicas[i % 2].join(room.code, student(i), f"client{i}")[1])

    threads = [threading.Thread(target=join, args=(i,)) for i in range(20)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert sorted(statuses) == ["full"] * 15 + ["ok"] * 5
    _, members, _ = Rooms.keys(room.code)
    assert redis_server.client().hlen(members) == 5


def test_a_foreign_value_under_a_room_key_reads_as_unknown_and_is_never_unpickled(redis_server, tmp_path):  # noqa: F811
    rooms = Rooms(RedisStore(redis_server.url))
    room, _, _ = rooms.create("t")
    key = Rooms.keys(room.code)[0]

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    raw = redis_server.client()
    for value in (pickle.dumps(Payload()), b"not ours", b'{"ase":1,"kind":"room"}\n{}'):
        raw.set(key, value)
        assert rooms.get(room.code) == (None, "unknown")
        assert rooms.join(room.code, student(1), "phones") == (None, "unknown")
    assert not (tmp_path / "ran").exists()
    raw.delete(key)
    raw.hset(key, "a", "b")  # another type of value under the key: Redis refuses GET
    assert rooms.get(room.code)[0] is None and rooms.join(room.code, student(1), "p")[0] is None


def test_redis_stopped_answers_unavailable_without_raising_and_works_after_a_restart(redis_server):  # noqa: F811
    rooms = Rooms(RedisStore(redis_server.url, retry_s=0.3))
    room, secret, _ = rooms.create("t")
    code = room.code
    rooms.show(code, secret, 1, QUESTION)
    rooms.join(code, student(1), "phones")

    redis_server.stop()
    assert rooms.get(code) == (None, "unavailable")
    assert rooms.join(code, student(2), "phones") == (None, "unavailable")
    assert rooms.answer(code, student(1), 1, 1, 2) == "unavailable"
    assert rooms.create("t2") == (None, None, "unavailable")
    assert rooms.show(code, secret, 2, QUESTION) == (None, "unavailable")
    assert rooms.end(code, secret) == (None, "unavailable")

    redis_server.start()
    back = wait_until("the rooms reaching the restarted Redis (its retry due)",
                      lambda: (got := rooms.get(code)) != (None, "unavailable") and got, timeout=5)
    assert back == (None, "unknown")  # no persistence: the class did not survive Redis
    room, secret, status = rooms.create("t3")
    assert status == "ok"
    assert rooms.show(room.code, secret, 1, QUESTION)[1] == "ok"
    assert rooms.join(room.code, student(1), "phones")[1] == "ok"
    assert rooms.answer(room.code, student(1), 1, 1, 2) == "ok"
    assert rooms.tally(rooms.get(room.code)[0]).counts == {(1, 1): [0, 0, 1, 0]}


def test_a_change_on_one_replica_wakes_the_phones_on_another(redis_server):  # noqa: F811
    """Two buses on one Redis (two replicas): a listener on the second is woken by a change published
    by the first, through the channel every replica subscribes to."""
    import time as _time

    from server.room_bus import RoomBus

    first, second = RoomBus(redis_server.url), RoomBus(redis_server.url)
    woken = []
    second.listen("a" * 32, "phone", lambda: woken.append(_time.monotonic()) or True)
    deadline = _time.monotonic() + 10
    try:
        while not woken and _time.monotonic() < deadline:  # the listener subscribes in its own thread
            first.changed("a" * 32)
            _time.sleep(0.2)
    finally:
        first.close()
        second.close()
    assert woken, "no wake crossed the replicas"
    second._thread.join(5)  # closed: it stops listening, so it does not retry a Redis that is gone
    assert not second._thread.is_alive()


def test_the_peer_instruction_loop_across_two_replicas(redis_server):  # noqa: F811
    """Close, discuss, revote, confidence and Our votes with the teacher on one replica and the
    phones on another: every refusal and every count is the same on both, and the discussion's
    countdown, computed from the start kept in Redis, reads the same on both."""
    from server.room_votes import our_votes, remaining_s

    now = [1000.0]
    teacher_side, phone_side = (Rooms(RedisStore(redis_server.url), clock=lambda: now[0]) for _ in range(2))
    room, secret, _ = teacher_side.create("t")
    code = room.code
    teacher_side.show(code, secret, 1, QUESTION)
    for i in range(3):
        phone_side.join(code, student(i), "phones")
    assert [phone_side.answer(code, student(i), 1, 1, c) for i, c in enumerate((2, 0, 1))] == ["ok"] * 3
    assert phone_side.confidence(code, student(0), 1, 1, "guessing") == "ok"
    teacher_side.close_vote(code, secret)
    assert phone_side.answer(code, student(1), 1, 1, 2) == "closed"  # closed on the other replica
    assert phone_side.confidence(code, student(1), 1, 1, "sure") == "closed"
    teacher_side.vote_again(code, secret)
    now[0] += 45
    on_phones = phone_side.get(code)[0]
    assert remaining_s(on_phones.question, on_phones.discuss_s, now[0]) == 75.0
    assert [phone_side.answer(code, student(i), 1, 2, 2) for i in range(3)] == ["ok"] * 3
    assert phone_side.confidence(code, student(2), 1, 2, "sure") == "ok"
    teacher_side.close_vote(code, secret)
    tally = teacher_side.tally(teacher_side.get(code)[0])
    assert tally == phone_side.tally(phone_side.get(code)[0])
    assert tally.confidence == {(1, 1): [(0, 0), (0, 0), (0, 1), (0, 0)],
                                (1, 2): [(0, 0), (0, 0), (1, 0), (0, 0)]}
    assert tally.counts == {(1, 1): [1, 1, 1, 0], (1, 2): [0, 0, 3, 0]}
    room = teacher_side.get(code)[0]
    assert our_votes(room, tally) == [{"step": 1, "first": 1 / 3, "answers_first": 3, "second": 1.0,
                                       "answers_second": 3}]
    teacher_side.end(code, secret)


def test_phone_tokens_changes_and_limits_hold_across_two_redis_clients(redis_server):  # noqa: F811
    """Two replicas (two RedisStore clients): a token signed on one is checked on the other (the
    server key is kept in Redis), an edited one is refused on both; the teacher's concurrent
    changes from both lose no update (compare-and-set under the room's lock); taking the room back
    on one revokes the old secret on the other; the join, wrong-code and creation limits are one
    allowance for both, not one each."""
    one, two = (Rooms(RedisStore(redis_server.url)) for _ in range(2))
    room, secret, _ = one.create("t")
    code = room.code
    _, token, status = one.enter(code, "school")
    assert status == "ok" and two.phone(code, token) == token.partition("-")[0]
    sid, mac = token.split("-")
    assert two.phone(code, f"{sid}-{'0' * 16 if mac != '0' * 16 else '1' * 16}") is None

    def flip(rooms: Rooms) -> None:
        for _ in range(25):
            assert rooms.change(code, secret, lambda r: replace(r, free=not r.free))[1] == "ok"

    threads = [threading.Thread(target=flip, args=(r,)) for r in (one, two)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert one.get(code)[0].version == 50
    stale = one.get(code)[0].version - 1
    assert two.reveal(code, secret, expect=stale)[1] == "stale"

    _, fresh, status = one.take_back(code, secret)
    assert status == "ok" and two.set_free(code, secret, True)[1] == "denied"
    assert two.set_free(code, fresh, True)[1] == "ok"

    joins = [r.join(code, student(100 + i), "one NAT")[1] for i in range(210) for r in ((one, two)[i % 2],)]
    assert joins.count("ok") in (200, 201) and joins[-1] == "slow"  # 200 at once, then 1 a second
    wrong = "ACDEFH" if code != "ACDEFH" else "ACDEFJ"
    guesses = [r.lookup(wrong, "guesser")[1] for i in range(12) for r in ((one, two)[i % 2],)]
    assert guesses[:10] == ["unknown"] * 10 and guesses[10:] == ["slow", "slow"]
    creates = [r.create("squatter")[2] for i in range(4) for r in ((one, two)[i % 2],)]
    assert creates == ["ok", "ok", "ok", "slow"]
