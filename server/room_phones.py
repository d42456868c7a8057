"""The phones' side of a live class's rooms (server/rooms.py builds on it): a phone enters with a
token the server signs (server/room_auth.py), joins within the room's lock and caps, answers and
rates its confidence in the room's open vote, and can be removed by the teacher.

A phone's place in the members map holds a tag of its address (`address_tag`: 8 hex digits of its
hash, never the address), so that one address holds at most `ADDRESS_SHARE` of the room's
places: a school behind one NAT fits a class of 200 in a room of 300, and one client alone can
never fill the room; it also spends its address's join allowance (`Rooms.joins`: 200 at once, then 1
a second, kept in the store). A removed phone's place reads `-`.
"""

from __future__ import annotations

import hashlib

from server.room_state import MAX_STEPS, STUDENT_RE, Room
from server.room_votes import CONFIDENCE_CODE, answer_value, vote_closed

REMOVED = b"-"
ADDRESS_SHARE = 0.8


def address_tag(client: str) -> bytes:
    """What the members map keeps of a phone's address: 8 hex digits of its hash."""
    digest = hashlib.blake2b(f"room address:{client}".encode("utf-8", "replace"), digest_size=4)
    return digest.hexdigest().encode()


class PhoneSide:
    """The phones' methods of `Rooms` (self is a Rooms)."""

    def enter(self, code: str, client: str = "") -> tuple[Room | None, str, str]:
        """A new phone joins: (room, its token, "ok"), the token signed by the server
        (server/room_auth.py); (None, "", status) when it cannot."""
        issued = self.phone_keys.issue(code)
        if issued is None:
            return None, "", "unavailable"
        student, token = issued
        room, status = self.join(code, student, client)
        return (room, token, status) if room is not None else (None, "", status)

    def phone(self, code: str, token: str) -> str | None:
        """The phone's id a token names, or None for a token this server did not sign for `code`."""
        return self.phone_keys.check(code, token)

    def join(self, code: str, student: str, client: str = "") -> tuple[Room | None, str]:
        """A phone enters the room ("ok" again for one already in it; "removed" for one the teacher
        removed). A new phone needs the room unlocked, its address's join allowance, and its
        address under `address_share` of the room's places."""
        if not STUDENT_RE.fullmatch(student or ""):
            return None, "invalid"
        room, status = self.lookup(code, client)
        if room is None:
            return None, status
        place = self.store.map_fields(self.keys(code)[1], (student,))  # its own place: one field
        if place is None:
            return None, "unavailable"
        if student in place:
            return (None, "removed") if place[student] == REMOVED else (room, "ok")
        members = self.store.map_get(self.keys(code)[1])  # a new phone: the address's share
        if members is None:
            return None, "unavailable"
        if room.locked:
            return None, "locked"
        if not self.joins.allow(client):
            return None, "slow"
        tag = address_tag(client)
        if sum(1 for v in members.values() if v == tag) >= self.address_share():
            return None, "crowded"
        placed = self.store.map_put(self.keys(code)[1], student, tag, self.ttl_s, cap=self.max_students)
        if placed is None:
            return None, "unavailable"
        return (room, "ok") if placed else (None, "full")

    def address_share(self) -> int:
        """Phones one address may hold in a room: `ADDRESS_SHARE` of its places (a school's NAT
        holds a class; one client alone never fills the room)."""
        return max(1, int(self.max_students * ADDRESS_SHARE))

    def members(self, room: Room) -> list[tuple[str, int]]:
        """The phones in the room (removed ones left out), each with its number of answers, in the
        order of their ids."""
        _, members, answers = self.keys(room.code)
        joined = [k for k, v in (self.store.map_get(members) or {}).items() if v != REMOVED]
        counts = dict.fromkeys(joined, 0)
        for name in self.store.map_get(answers) or {}:
            who = name.rpartition(".")[2]
            if who in counts:
                counts[who] += 1
        return sorted(counts.items())

    def remove(self, code: str, secret: str, student: str) -> tuple[Room | None, str]:
        """The teacher removes a phone: its answers are dropped, it may not answer or join again
        with its token, and its place stays taken (a removed phone cannot come back as new by
        freeing one). Every phone is woken (the removed one learns it)."""
        if not STUDENT_RE.fullmatch(student or ""):
            return None, "invalid"
        room, status = self.get(code)
        if room is None:
            return None, status
        if not self.is_teacher(room, secret):
            return None, "denied"
        _, members, answers = self.keys(code)
        if self.store.map_put(members, student, REMOVED, self._ttl(room)) is None:
            return None, "unavailable"
        for step, q in room.questions.items():
            for vote in range(1, q.vote + 1):
                self.store.map_drop(answers, f"{step}.{vote}.{student}")
        return self.change(code, secret, lambda r: r)

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
        if room.free or q is None or step != room.step or vote != q.vote or vote_closed(q):
            return "closed"
        if choice is not None and (type(choice) is not int or not 0 <= choice < len(q.choices)):
            return "invalid"
        return self._write(code, student, step, vote, choice, None)

    def confidence(self, code: str, student: str, step: int, vote: int, level: str | None) -> str:
        """This student's confidence ("sure", "guessing", or None to take it back) in the answer
        they gave in this step's open vote: the same checks as an answer, and "invalid" without one."""
        if not STUDENT_RE.fullmatch(student or "") or (level is not None and level not in CONFIDENCE_CODE):
            return "invalid"
        if not self.answers.allow(student):
            return "slow"
        room, status = self.get(code)
        if room is None:
            return status
        q = room.question
        if room.free or q is None or step != room.step or vote != q.vote or vote_closed(q):
            return "closed"
        choice, _ = self.mine(code, student, step, vote)
        if choice is None:
            return "invalid"
        return self._write(code, student, step, vote, choice, level)

    def _write(self, code: str, student: str, step: int, vote: int, choice: int | None,
               level: str | None) -> str:
        _, members, answers = self.keys(code)
        joined = self.store.map_get(members)
        if joined is None:
            return "unavailable"
        if student not in joined:
            return "not_joined"
        if joined[student] == REMOVED:
            return "removed"
        cap = self.max_students * MAX_STEPS * 2
        field_name = f"{step}.{vote}.{student}"
        if choice is None:
            self.store.map_drop(answers, field_name)
            return "ok"
        placed = self.store.map_put(answers, field_name, answer_value(choice, level), self.ttl_s, cap=cap)
        return "unavailable" if placed is None else ("ok" if placed else "full")

