"""Live classes: a room the teacher paces, students join by a short code and answer each step's
question, and the teacher reveals the measurement. Everything goes through a `server.store.Store`:
this process's memory by default, Redis when the replicas share one, so a class outlives the
replica it started on.

Three store entries per room, all expiring once the room is idle for `ROOM_TTL_S`:

- `ase:v1:room:<h>`: the room's state (`Room`, codec kind "room"), written by the teacher only —
  the current step, whether the room explores freely, each visited step's question (its inputs,
  choices and correct indices) with its open vote and whether it is revealed, and `version`, one
  more at every change, which the students' phones poll;
- `ase:v1:roommem:<h>`: a map of the students who joined (field: a random student id), capped at
  `max_students`;
- `ase:v1:roomans:<h>`: a map of answers, field `<step>.<vote>.<student>`, value the choice's index:
  one answer per student per step and vote, changed by writing it again.

`<h>` is a hash of the code. The teacher's rights come from a secret drawn at creation: only its
SHA-256 is stored, and every teacher action checks it. Students' answers are checked here against
the room's own state (joined, current step, vote open, not revealed, a choice of that question).
`RateLimit`s bound joins (per client), wrong codes (per client and per process) and answers (per
student). Nothing here imports Streamlit; the page (pages/ui/live_class.py) draws.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.limits import RateLimit
from server.room_bus import RoomBus
from server.room_state import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_ROOMS,
    MAX_STEPS,
    MAX_STUDENTS,
    ROOM_TTL_S,
    STUDENT_RE,
    Question,
    Room,
    RoomError,
    Tally,
    decode_room,
    encode_room,
    hash_secret,
    room_digest,
    valid_code,
)
from server.store import Store, store_key

INDEX_KEY = store_key("roomidx", hashlib.sha256(b"rooms").hexdigest()[:32])


class Rooms:
    """Every class room, in `store`. Each method answers a status word the page translates:
    "ok", "unknown" (no such room, or ended or expired), "unavailable" (the store cannot be reached),
    "full", "slow" (rate-limited), "denied" (not the teacher), "closed" (answers are not open),
    "invalid" (not a choice of this question), "not_joined"."""

    def __init__(self, store: Store, max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS,
                 ttl_s: float = ROOM_TTL_S, clock: Callable[[], float] = time.time,
                 bus: RoomBus | None = None) -> None:
        self.store, self.max_rooms, self.max_students, self.ttl_s = store, max_rooms, max_students, ttl_s
        self.bus = bus or RoomBus()  # the phones to wake when a room changes (server/room_bus.py)
        self.clock = clock
        self.joins = RateLimit(per_s=2.0, burst=120)           # per client address (a class shares one)
        self.wrong = RateLimit(per_s=0.2, burst=10)            # wrong codes, per client
        self.wrong_all = RateLimit(per_s=1.0, burst=60)        # wrong codes, this whole process
        self.answers = RateLimit(per_s=1.0, burst=8)           # per student

    @staticmethod
    def keys(code: str) -> tuple[str, str, str]:
        d = room_digest(code)
        return store_key("room", d), store_key("roommem", d), store_key("roomans", d)

    # ------------------------------------------------------------ reading

    def get(self, code: str) -> tuple[Room | None, str]:
        """(room, "ok"), or (None, "unknown" | "unavailable"); a value under the key that is not a
        room of ours reads as unknown."""
        if not valid_code(code):
            return None, "unknown"
        data = self.store.get(self.keys(code)[0])
        if data is None:
            return None, "unavailable" if not getattr(self.store, "up", True) else "unknown"
        try:
            return decode_room(bytes(data)), "ok"
        except RoomError:
            return None, "unknown"

    def is_teacher(self, room: Room | None, secret: str | None) -> bool:
        return bool(room and secret) and hmac.compare_digest(hash_secret(secret or ""), room.teacher)

    def tally(self, room: Room) -> Tally:
        _, members, answers = self.keys(room.code)
        joined = self.store.map_get(members) or {}
        raw = self.store.map_get(answers) or {}
        counts: dict[tuple[int, int], list[int]] = {}
        answered = 0
        q = room.question
        for name, value in raw.items():
            parts = name.split(".")
            try:
                step, vote, choice = int(parts[0]), int(parts[1]), int(value)
            except (ValueError, IndexError):
                continue
            asked = room.questions.get(step)
            if len(parts) != 3 or not STUDENT_RE.fullmatch(parts[2]) or asked is None \
                    or vote not in (1, 2) or not 0 <= choice < len(asked.choices):
                continue
            counts.setdefault((step, vote), [0] * len(asked.choices))[choice] += 1
            answered += int(q is not None and step == room.step and vote == q.vote)
        return Tally(counts, len(joined), answered)

    def answer_of(self, code: str, student: str, step: int, vote: int) -> int | None:
        """The choice this student gave in this step's vote, if any (a phone that reloads shows it)."""
        raw = (self.store.map_get(self.keys(code)[2]) or {}).get(f"{step}.{vote}.{student}")
        room, _ = self.get(code)
        asked = room.questions.get(step) if room is not None else None
        if raw is None or asked is None or not raw.isdigit():
            return None
        choice = int(raw)
        return choice if choice < len(asked.choices) else None  # a planted value out of range: none

    # ------------------------------------------------------------ the teacher

    def create(self, client: str = "") -> tuple[Room | None, str | None, str]:
        """(room, secret, "ok") or (None, None, "full" | "unavailable" | "slow")."""
        if not self.joins.allow(f"create:{client}", cost=10):
            return None, None, "slow"
        live = self.store.map_get(INDEX_KEY)
        if live is None:
            return None, None, "unavailable"
        for digest in list(live):  # forget the rooms that ended or expired
            if not self.store.exists(store_key("room", digest)):
                self.store.map_drop(INDEX_KEY, digest)
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            key = self.keys(code)[0]
            if self.store.exists(key):
                continue
            secret = secrets.token_urlsafe(24)
            placed = self.store.map_put(INDEX_KEY, room_digest(code), b"1", 24 * 3600, cap=self.max_rooms)
            if placed is None:
                return None, None, "unavailable"
            if not placed:
                return None, None, "full"
            room = Room(code, hash_secret(secret), self.clock())
            if not self.store.set(key, encode_room(room), self.ttl_s):
                self.store.map_drop(INDEX_KEY, room_digest(code))
                return None, None, "unavailable"
            return room, secret, "ok"
        return None, None, "full"

    def change(self, code: str, secret: str, how: Callable[[Room], Room]) -> tuple[Room | None, str]:
        """Apply a teacher's change: checked against the secret, one version more, saved with a fresh
        expiry (the answers and members with it)."""
        room, status = self.get(code)
        if room is None:
            return None, status
        if not self.is_teacher(room, secret):
            return None, "denied"
        new = replace(how(room), version=room.version + 1)
        if not self.store.set(self.keys(code)[0], encode_room(new), self.ttl_s):
            return None, "unavailable"
        self.keep_alive(room)
        self.bus.changed(room_digest(code))
        return new, "ok"

    def keep_alive(self, room: Room) -> None:
        """The room and its maps live `ttl_s` more (the teacher's page does this while it is open)."""
        key, members, answers = self.keys(room.code)
        for k in (key, members, answers):
            self.store.touch(k, self.ttl_s)

    def show(self, code: str, secret: str, step: int, question: Question) -> tuple[Room | None, str]:
        """The teacher is on `step` asking `question`: the room follows. A step's question stays as it
        was first asked once anyone answered it (the page keeps the teacher's setting fixed then)."""
        room, status = self.get(code)
        if room is None:
            return None, status
        if not self.is_teacher(room, secret):  # before the no-op answer too: "ok" is the teacher's alone
            return None, "denied"
        asked = room.questions.get(step)
        same = asked is not None and (asked.inputs == question.inputs or self.answered(room, step))
        if room.step == step and same:
            return room, "ok"  # nothing changed: no write, no new version

        def go(r: Room) -> Room:
            keep = asked is not None and (asked.inputs == question.inputs or self.answered(r, step))
            return replace(r, step=step, questions=r.questions | ({} if keep else {step: question}))

        return self.change(code, secret, go)

    def answered(self, room: Room, step: int) -> bool:
        return any(counts and sum(counts) for (s, _), counts in self.tally(room).counts.items() if s == step)

    def set_free(self, code: str, secret: str, free: bool) -> tuple[Room | None, str]:
        return self.change(code, secret, lambda r: replace(r, free=free))

    def vote_again(self, code: str, secret: str) -> tuple[Room | None, str]:
        return self._question(code, secret, lambda q: replace(q, vote=2, revealed=False))

    def reveal(self, code: str, secret: str) -> tuple[Room | None, str]:
        return self._question(code, secret, lambda q: replace(q, revealed=True))

    def _question(self, code: str, secret: str,
                  how: Callable[[Question], Question]) -> tuple[Room | None, str]:
        def go(r: Room) -> Room:
            q = r.question
            return r if q is None else replace(r, questions=r.questions | {r.step: how(q)})

        return self.change(code, secret, go)

    def end(self, code: str, secret: str) -> tuple[tuple[Room, Tally] | None, str]:
        """Delete the room, its members and answers; (the room and its tally as they were, "ok")."""
        room, status = self.get(code)
        if room is None:
            return None, status
        if not self.is_teacher(room, secret):
            return None, "denied"
        tally = self.tally(room)
        for key in self.keys(code):
            self.store.delete(key)
        self.store.map_drop(INDEX_KEY, room_digest(code))
        self.bus.changed(room_digest(code))
        return (room, tally), "ok"

    # ------------------------------------------------------------ the students

    def join(self, code: str, student: str, client: str = "") -> tuple[Room | None, str]:
        """A student enters the room ("ok" again for one already in it)."""
        if not STUDENT_RE.fullmatch(student or ""):
            return None, "invalid"
        if not self.joins.allow(f"join:{client}"):
            return None, "slow"
        room, status = self.get(code)
        if room is None:
            if status == "unknown" and not (self.wrong.allow(client) and self.wrong_all.allow("all")):
                return None, "slow"
            return None, status
        placed = self.store.map_put(self.keys(code)[1], student, b"1", self.ttl_s, cap=self.max_students)
        if placed is None:
            return None, "unavailable"
        return (room, "ok") if placed else (None, "full")

    def answer(self, code: str, student: str, step: int, vote: int, choice: int | None) -> str:
        """Record `choice` for this student in this step's vote (None takes the answer back): only the
        room's current step, its open vote, before the reveal, a choice of its question, by a student
        who joined."""
        if not STUDENT_RE.fullmatch(student or ""):
            return "invalid"
        if not self.answers.allow(student):
            return "slow"
        room, status = self.get(code)
        if room is None:
            return status
        q = room.question
        if room.free or q is None or step != room.step or vote != q.vote or q.revealed:
            return "closed"
        if choice is not None and (type(choice) is not int or not 0 <= choice < len(q.choices)):
            return "invalid"
        _, members, answers = self.keys(code)
        joined = self.store.map_get(members)
        if joined is None:
            return "unavailable"
        if student not in joined:
            return "not_joined"
        cap = self.max_students * MAX_STEPS * 2
        field_name = f"{step}.{vote}.{student}"
        if choice is None:
            self.store.map_drop(answers, field_name)
            return "ok"
        placed = self.store.map_put(answers, field_name, str(choice).encode(), self.ttl_s, cap=cap)
        return "unavailable" if placed is None else ("ok" if placed else "full")


def summary_rows(room: Room, tally: Tally, label: Callable[[int, Question, int], str],
                 name: Callable[[int], str]) -> list[dict[str, Any]]:
    """The class in numbers, one row per step, vote and choice: how many chose it, whether it is
    correct, and the vote's share of correct answers (correct answers ÷ answers)."""
    rows = []
    for step, q in sorted(room.questions.items()):
        for vote in (1, 2):
            counts = tally.counts.get((step, vote))
            if counts is None and (vote == 2 and q.vote < 2):
                continue
            counts = counts or [0] * len(q.choices)
            total = sum(counts)
            right = sum(counts[i] for i in q.correct)
            for i, n in enumerate(counts):
                rows.append({"step": step, "name": name(step), "vote": vote, "answer": label(step, q, i),
                             "count": n, "correct": i in q.correct, "answers": total,
                             "share_correct": round(right / total, 4) if total else None})
    return rows
