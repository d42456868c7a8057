"""A live class's room as data: its code, its teacher's hashed secret, the current step and each
visited step's question (`Room`, `Question`), written to and read from a store's bytes through
server.codec with every field checked (`encode_room` / `decode_room`): a value under a room's key that
is not a room of ours is rejected, never trusted. server.rooms keeps the rooms."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from server import codec

CODE_ALPHABET = "ACDEFHJKMNPRTUWXY34679"  # no 0/O/Q, 1/I/L, 2/Z, 5/S, 6/G… look-alikes: read off a projector
CODE_LENGTH = 6                           # 22⁶ ≈ 1.1e8 codes
CODE_RE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
STUDENT_RE = re.compile(r"[0-9a-f]{12}")
ROOM_TTL_S = 30 * 60       # an idle room (no teacher action, no teacher's page open) is gone after this
MAX_ROOMS = 20             # live rooms on this server (with Redis: on all of them)
MAX_STUDENTS = 150         # students per room
MAX_STEPS = 64
MAX_CHOICES = 12
INPUT_KEYS = frozenset({"dk", "n", "trials", "seed", "backend", "dtype", "scale", "rho", "method"})
QUESTION_FIELDS = frozenset({"inputs", "choices", "correct", "value", "format", "vote", "revealed"})


class RoomError(ValueError):
    """Bytes under a room's key that are not a room of ours."""


@dataclass(frozen=True)
class Question:
    """One visited step's question as the teacher's page asked it: the step's inputs, the choices
    (plain dicts from core.lesson), the indices of the correct ones, the measured value and its format;
    the vote that is open (1, or 2 once the teacher asked the room to vote again) and whether the
    measurement is revealed."""

    inputs: dict[str, Any]
    choices: tuple[dict[str, Any], ...]
    correct: tuple[int, ...]
    value: float
    format: str = "num"
    vote: int = 1
    revealed: bool = False


@dataclass(frozen=True)
class Room:
    code: str
    teacher: str                 # sha256 hex of the teacher's secret
    created: float
    step: int = 1
    free: bool = False           # the students explore on their own until called back
    version: int = 0
    questions: dict[int, Question] = field(default_factory=dict)

    @property
    def question(self) -> Question | None:
        return self.questions.get(self.step)


@dataclass(frozen=True)
class Tally:
    """Answers counted: `counts[(step, vote)]` one count per choice; `joined` students; `answered`
    the students with an answer in the current step's open vote."""

    counts: dict[tuple[int, int], list[int]]
    joined: int
    answered: int


# ---------------------------------------------------------------- codes and secrets


def normalise_code(text: str) -> str:
    """What a student typed, as a code: capitals, without spaces or dashes ("abc 123" → "ABC123")."""
    return re.sub(r"[\s\-·.]", "", str(text)).upper()[:32]


def valid_code(code: str) -> bool:
    return bool(CODE_RE.fullmatch(code))


def new_student_id() -> str:
    return secrets.token_hex(6)


def room_digest(code: str) -> str:
    return hashlib.sha256(f"room:{code}".encode()).hexdigest()[:32]


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


# ---------------------------------------------------------------- a room as bytes, checked


def encode_room(room: Room) -> bytes:
    value = {"code": room.code, "teacher": room.teacher, "created": room.created, "step": room.step,
             "free": room.free, "version": room.version,
             "questions": [[k, {"inputs": q.inputs, "choices": list(q.choices), "correct": list(q.correct),
                                "value": q.value, "format": q.format, "vote": q.vote, "revealed": q.revealed}]
                           for k, q in sorted(room.questions.items())]}
    return codec.encode(value, kind="room")


def decode_room(data: bytes) -> Room:
    """A Room from `encode_room`'s bytes; anything else (another kind, a field of the wrong type or
    out of range) raises RoomError."""
    try:
        value, _ = codec.decode(data, kind="room")
    except codec.DecodeError as exc:
        raise RoomError(str(exc)) from exc
    try:
        _need(type(value) is dict and set(value) == {"code", "teacher", "created", "step", "free", "version",
                                                     "questions"}, "fields")
        _need(valid_code(value["code"]), "code")
        _need(isinstance(value["teacher"], str) and re.fullmatch(r"[0-9a-f]{64}", value["teacher"]),
              "teacher")
        _need(_number(value["created"]), "created")
        _need(_int(value["step"], 1, MAX_STEPS) and type(value["free"]) is bool, "step")
        _need(_int(value["version"], 0, 2**53), "version")
        _need(type(value["questions"]) is list and len(value["questions"]) <= MAX_STEPS, "questions")
        questions = {}
        for item in value["questions"]:
            _need(type(item) is list and len(item) == 2 and _int(item[0], 1, MAX_STEPS), "question")
            questions[item[0]] = _question(item[1])
        return Room(value["code"], value["teacher"], float(value["created"]), value["step"], value["free"],
                    value["version"], questions)
    except (KeyError, TypeError) as exc:
        raise RoomError(f"not a room: {exc}") from exc


def _question(q: Any) -> Question:
    _need(type(q) is dict and set(q) == QUESTION_FIELDS, "question fields")
    _need(type(q["inputs"]) is dict and set(q["inputs"]) <= INPUT_KEYS
          and all(type(v) in (int, float, str, bool) for v in q["inputs"].values()), "inputs")
    choices = q["choices"]
    _need(type(choices) is list and 2 <= len(choices) <= MAX_CHOICES, "choices")
    for c in choices:
        _need(type(c) is dict and isinstance(c.get("key"), str) and re.fullmatch(r"[a-z0-9_]{1,24}", c["key"])
              and all(k == "key" or (re.fullmatch(r"[a-z]{1,8}", k) and _number(v)) for k, v in c.items()),
              "choice")
    correct = q["correct"]
    _need(type(correct) is list and correct and all(_int(i, 0, len(choices) - 1) for i in correct), "correct")
    _need(_number(q["value"]) and q["format"] in ("num", "pct"), "value")
    _need(q["vote"] in (1, 2) and type(q["vote"]) is int and type(q["revealed"]) is bool, "vote")
    return Question(q["inputs"], tuple(choices), tuple(correct), float(q["value"]), q["format"], q["vote"],
                    q["revealed"])


def _need(ok: Any, what: str) -> None:
    if not ok:
        raise RoomError(f"not a room: bad {what}")


def _int(x: Any, lo: int, hi: int) -> bool:
    return type(x) is int and lo <= x <= hi


def _number(x: Any) -> bool:
    try:
        return type(x) in (int, float) and math.isfinite(x)
    except OverflowError:  # an int too large for a float (JSON has no bound on ints)
        return False
