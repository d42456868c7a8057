"""Live classes: a room the teacher paces, students join by a short code and answer each step's
question, and the teacher reveals the measurement. Everything goes through a `server.store.Store`:
this process's memory by default, Redis when the replicas share one, so a class outlives the
replica it started on.

Three store entries per room, all expiring once the room is idle for `ROOM_TTL_S`, and at the latest
`MAX_AGE_S` after its creation (a room nobody ends cannot be held forever):

- `ase:v1:room:<h>`: the room's state (`Room`, codec kind "room"), written by the teacher only —
  the current step, whether the room explores freely, whether it is locked, each visited step's
  question (its inputs, choices and correct indices) with its open vote and whether it is revealed,
  and `version`, one more at every change a phone draws (not *Show answers* nor the discussion's
  length, which only the projector shows), which the students' phones poll;
- `ase:v1:roommem:<h>`: a map of the phones that joined (field: the phone's id, value: a tag of its
  address, or `-` once the teacher removed it), capped at `max_students`;
- `ase:v1:roomans:<h>`: a map of answers, field `<step>.<vote>.<student>`, value the choice's index
  with the student's confidence, if tapped (server/room_votes.py).

`<h>` is a hash of the code. The teacher's rights come from a secret drawn at creation: only its
SHA-256 is stored, and every teacher action checks it; taking the room back (`take_back`) draws a
new one, so every other holder of the old one is revoked. Every teacher change is a
compare-and-set on the room's `version`: it runs under the room's lock (a store claim, so across
replicas), re-reads the room, and writes only when the version is the one the caller saw
(`expect`), else answers "stale". A phone is an id the server drew and signed at its join
(server/room_auth.py); the phones' side is server/room_phones.py. The limits (server.limits
`SharedRateLimit`: one bucket in the store for every replica) bound room creation per address,
joins per address, wrong codes per address and per server, and answers per phone. Nothing here
imports Streamlit; the page (pages/ui/live/) draws.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from server.limits import SharedRateLimit
from server.room_auth import PhoneKeys
from server.room_bus import RoomBus
from server.room_phones import REMOVED, PhoneSide
from server.room_state import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DISCUSS_RANGE,
    MAX_AGE_S,
    MAX_ROOMS,
    MAX_STUDENTS,
    ROOM_TTL_S,
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
from server.room_votes import parse_answer
from server.store import Store, store_key

INDEX_KEY = store_key("roomidx", hashlib.sha256(b"rooms").hexdigest()[:32])
LOCK_S = 2.0        # a teacher's change holds the room's lock at most this long
LOCK_WAIT_S = 1.5   # and waits this long for another's change to end ("unavailable" after)


class Rooms(PhoneSide):
    """Every class room, in `store`. Each method answers a status word the page translates:
    "ok", "unknown" (no such room, or ended or expired), "unavailable" (the store cannot be reached),
    "full", "slow" (rate-limited), "denied" (not the teacher), "stale" (the room changed since the
    caller saw it), "closed" (answers are not open: another step or vote, closed by the teacher,
    revealed, or the room explores freely), "invalid" (not a choice of this question),
    "not_joined", "removed" (the teacher removed this phone), "locked" (no new phone may join),
    "crowded" (this address holds its share of the room)."""

    def __init__(self, store: Store, max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS,
                 ttl_s: float = ROOM_TTL_S, clock: Callable[[], float] = time.time,
                 bus: RoomBus | None = None, max_age_s: float = MAX_AGE_S) -> None:
        self.store, self.max_rooms, self.max_students, self.ttl_s = store, max_rooms, max_students, ttl_s
        self.max_age_s = max_age_s
        self.bus = bus or RoomBus()  # the phones to wake when a room changes (server/room_bus.py)
        self.clock = clock
        self.use_store(store)

    def use_store(self, store: Store) -> None:
        """Keep the rooms, the phones' server key and every limit in `store`."""
        self.store = store
        self.phone_keys = PhoneKeys(store)
        # per address: one address may be a whole school behind its NAT (docs/live-class.md)
        self.joins = SharedRateLimit(store, "roomjoin", per_s=1.0, burst=200)
        self.creates = SharedRateLimit(store, "roomnew", per_s=1 / 300, burst=3)   # 3, then 1 per 5 min
        self.wrong = SharedRateLimit(store, "roomwrong", per_s=0.2, burst=10)      # per address
        self.wrong_all = SharedRateLimit(store, "roomwrongall", per_s=1.0, burst=60)  # every replica
        self.answers = SharedRateLimit(store, "roomans", per_s=1.0, burst=8)       # per phone

    @staticmethod
    def keys(code: str) -> tuple[str, str, str]:
        d = room_digest(code)
        return store_key("room", d), store_key("roommem", d), store_key("roomans", d)

    # ------------------------------------------------------------ reading

    def get(self, code: str) -> tuple[Room | None, str]:
        """(room, "ok"), or (None, "unknown" | "unavailable"); a value under the key that is not a
        room of ours, or a room older than `max_age_s`, reads as unknown (the old room is deleted,
        and its phones' wake listeners forgotten)."""
        if not valid_code(code):
            return None, "unknown"
        data = self.store.get(self.keys(code)[0])
        if data is None:
            if not getattr(self.store, "up", True):
                return None, "unavailable"
            self.bus.drop(room_digest(code))
            return None, "unknown"
        try:
            room = decode_room(bytes(data))
        except RoomError:
            return None, "unknown"
        if self.clock() - room.created >= self.max_age_s:
            self._delete(code)
            return None, "unknown"
        return room, "ok"

    def lookup(self, code: str, client: str = "") -> tuple[Room | None, str]:
        """`get` for a code a reader brought (typed, or in a link): a code that names no room costs
        the reader's address, and the server's, a wrong code ("slow" once either is spent)."""
        room, status = self.get(code)
        if room is None and status == "unknown" and not (self.wrong.allow(client) and
                                                          self.wrong_all.allow("all")):
            return None, "slow"
        return room, status

    def is_teacher(self, room: Room | None, secret: str | None) -> bool:
        return bool(room and secret) and hmac.compare_digest(hash_secret(secret or ""), room.teacher)

    def tally(self, room: Room) -> Tally:
        _, members, answers = self.keys(room.code)
        joined = {k: v for k, v in (self.store.map_get(members) or {}).items() if v != REMOVED}
        raw = self.store.map_get(answers) or {}
        counts: dict[tuple[int, int], list[int]] = {}
        split: dict[tuple[int, int], list[list[int]]] = {}
        answered = 0
        q = room.question
        for name, value in raw.items():
            parts, answer = name.split("."), parse_answer(value)
            try:
                step, vote = int(parts[0]), int(parts[1])
            except (ValueError, IndexError):
                continue
            asked = room.questions.get(step)
            if len(parts) != 3 or parts[2] not in joined or asked is None or answer is None \
                    or vote not in (1, 2) or not 0 <= answer[0] < len(asked.choices):
                continue
            choice, confidence = answer
            counts.setdefault((step, vote), [0] * len(asked.choices))[choice] += 1
            sure_guess = split.setdefault((step, vote), [[0, 0] for _ in asked.choices])[choice]
            if confidence is not None:
                sure_guess[0 if confidence == "sure" else 1] += 1
            answered += int(q is not None and step == room.step and vote == q.vote)
        confidence = {k: [(a, b) for a, b in v] for k, v in split.items()}
        return Tally(counts, len(joined), answered, confidence)

    def answer_of(self, code: str, student: str, step: int, vote: int,
                  room: Room | None = None) -> int | None:
        """The choice this student gave in this step's vote, if any (a phone that reloads shows it)."""
        return self.mine(code, student, step, vote, room)[0]

    def mine(self, code: str, student: str, step: int, vote: int,
             room: Room | None = None) -> tuple[int | None, str | None]:
        """(choice, confidence) this student gave in this step's vote: (None, None) without one. One
        field of the answers read, whatever the size of the room; `room` as the caller just read it
        (else read here) says which choices the question has."""
        field = f"{step}.{vote}.{student}"
        raw = (self.store.map_fields(self.keys(code)[2], (field,)) or {}).get(field)
        if room is None:
            room, _ = self.get(code)
        asked = room.questions.get(step) if room is not None else None
        answer = parse_answer(raw)
        if answer is None or asked is None or answer[0] >= len(asked.choices):
            return None, None  # none, or a planted value out of range
        return answer

    # ------------------------------------------------------------ the teacher

    def create(self, client: str = "") -> tuple[Room | None, str | None, str]:
        """(room, secret, "ok") or (None, None, "full" | "unavailable" | "slow"): at most 3 rooms per
        address at once, then one per 5 minutes."""
        if not self.creates.allow(client):
            return None, None, "slow"
        live = self.store.map_get(INDEX_KEY)
        if live is None:
            return None, None, "unavailable"
        for digest in list(live):  # forget the rooms that ended or expired, and their listeners
            if not self.store.exists(store_key("room", digest)):
                self.store.map_drop(INDEX_KEY, digest)
                self.bus.drop(digest)
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

    @contextmanager
    def _locked(self, code: str) -> Iterator[bool]:
        """The room's lock (a claim in the store, so across replicas): yields whether it is held."""
        key, token = store_key("roomlock", room_digest(code)), secrets.token_hex(8)
        until = time.monotonic() + LOCK_WAIT_S
        held = self.store.claim(key, token, LOCK_S)
        while held is False and time.monotonic() < until:
            time.sleep(0.01)
            held = self.store.claim(key, token, LOCK_S)
        try:
            yield bool(held)
        finally:
            if held:
                self.store.release(key, token)

    def change(self, code: str, secret: str, how: Callable[[Room], Room],
               phones: bool = True, expect: int | None = None) -> tuple[Room | None, str]:
        """Apply a teacher's change: checked against the secret, compare-and-set on the room's
        version (under its lock; "stale" when `expect` is given and the room is no longer at it),
        saved with a fresh expiry (the answers and members with it); one version more, and the
        phones woken, unless the change is one no phone draws (`phones=False`: the projector's own
        view, which its screens read every second anyway)."""
        with self._locked(code) as held:
            if not held:
                return None, "unavailable"
            room, status = self.get(code)
            if room is None:
                return None, status
            if not self.is_teacher(room, secret):
                return None, "denied"
            if expect is not None and room.version != expect:
                return room, "stale"
            new = replace(how(room), version=room.version + int(phones))
            if not self.store.set(self.keys(code)[0], encode_room(new), self._ttl(room)):
                return None, "unavailable"
        self.keep_alive(room)
        if phones:
            self.bus.changed(room_digest(code))
        return new, "ok"

    def take_back(self, code: str, secret: str) -> tuple[Room | None, str | None, str]:
        """The teacher opens the room on another device: (room, a new secret, "ok"). The old secret
        stops working at once (every tab and cookie that held it is revoked); the new one is the
        teacher's from now on. (None, None, status) when `secret` is not the room's."""
        fresh = secrets.token_urlsafe(24)
        room, status = self.change(code, secret, lambda r: replace(r, teacher=hash_secret(fresh)),
                                   phones=False)
        if room is None or status != "ok":
            return None, None, status
        self.bus.changed(room_digest(code))  # the revoked tabs learn at once (they listen too)
        return room, fresh, "ok"

    def _ttl(self, room: Room) -> float:
        """The room's next expiry: `ttl_s`, never past its maximum age."""
        return max(1.0, min(self.ttl_s, room.created + self.max_age_s - self.clock()))

    def keep_alive(self, room: Room) -> None:
        """The room and its maps live `ttl_s` more (the teacher's page does this while it is open)."""
        key, members, answers = self.keys(room.code)
        for k in (key, members, answers):
            self.store.touch(k, self._ttl(room))

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

    def set_free(self, code: str, secret: str, free: bool,
                 expect: int | None = None) -> tuple[Room | None, str]:
        return self.change(code, secret, lambda r: replace(r, free=free), expect=expect)

    def set_locked(self, code: str, secret: str, locked: bool,
                   expect: int | None = None) -> tuple[Room | None, str]:
        """A locked room takes no new phone (those in it stay); the projector shows the lock."""
        return self.change(code, secret, lambda r: replace(r, locked=locked), phones=False, expect=expect)

    def show_answers(self, code: str, secret: str, expect: int | None = None) -> tuple[Room | None, str]:
        """The projector draws the open vote's answers; the vote stays open (no phone changes)."""
        return self._question(code, secret, lambda q: replace(q, shown=True), phones=False, expect=expect)

    def close_vote(self, code: str, secret: str, expect: int | None = None) -> tuple[Room | None, str]:
        """The open vote takes no more answers (nor confidences); the projector draws its answers."""
        return self._question(code, secret, lambda q: replace(q, shown=True, closed=True), expect=expect)

    def vote_again(self, code: str, secret: str, expect: int | None = None) -> tuple[Room | None, str]:
        """A second vote on the question, open and hidden, after a discussion whose countdown starts
        now (the room's clock)."""
        now = self.clock()
        return self._question(code, secret, lambda q: replace(q, vote=2, revealed=False, shown=False,
                                                              closed=False, discuss_start=now), expect=expect)

    def reveal(self, code: str, secret: str, expect: int | None = None) -> tuple[Room | None, str]:
        return self._question(code, secret, lambda q: replace(q, revealed=True, shown=True, closed=True),
                              expect=expect)

    def set_discussion(self, code: str, secret: str, seconds: int,
                       expect: int | None = None) -> tuple[Room | None, str]:
        """The discussion's length (seconds, kept within DISCUSS_RANGE); a running countdown follows."""
        lo, hi = DISCUSS_RANGE
        return self.change(code, secret, lambda r: replace(r, discuss_s=min(hi, max(lo, int(seconds)))),
                           phones=False, expect=expect)  # the countdown is the projector's

    def _question(self, code: str, secret: str, how: Callable[[Question], Question],
                  phones: bool = True, expect: int | None = None) -> tuple[Room | None, str]:
        def go(r: Room) -> Room:
            q = r.question
            return r if q is None else replace(r, questions=r.questions | {r.step: how(q)})

        return self.change(code, secret, go, phones, expect)

    def end(self, code: str, secret: str) -> tuple[tuple[Room, Tally] | None, str]:
        """Delete the room, its members and answers; (the room and its tally as they were, "ok")."""
        room, status = self.get(code)
        if room is None:
            return None, status
        if not self.is_teacher(room, secret):
            return None, "denied"
        tally = self.tally(room)
        self._delete(code)
        self.bus.changed(room_digest(code))
        return (room, tally), "ok"

    def _delete(self, code: str) -> None:
        for key in self.keys(code):
            self.store.delete(key)
        self.store.map_drop(INDEX_KEY, room_digest(code))

