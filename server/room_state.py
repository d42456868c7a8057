"""A live class's room as data: its code, its teacher's hashed secret, the current step, the
discussion's length and each visited step's question with the state of its vote (`Room`,
`Question`), written to and read from a store's bytes through
server.codec with every field checked (`encode_room` / `decode_room`): a value under a room's key that
is not a room of ours is rejected, never trusted. server.rooms keeps the rooms."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from server import codec

CODE_ALPHABET = "ACDEFHJKMNPRTUWXY34679"  # no 0/O/Q, 1/I/L, 2/Z, 5/S, 6/G… look-alikes: read off a projector
CODE_LENGTH = 6                           # 22⁶ ≈ 1.1e8 codes
CODE_RE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
STUDENT_RE = re.compile(r"[0-9a-f]{12}")
ROOM_TTL_S = 30 * 60       # an idle room (no teacher action, no teacher's page open) is gone after this
MAX_AGE_S = 4 * 3600      # a room ends this long after its creation, however busy (no squatting)
MAX_ROOMS = 20             # live rooms on this server (with Redis: on all of them)
MAX_STUDENTS = 300         # phones per room (a class of 200 behind one address fits, with room to spare)
MAX_STEPS = 64
MAX_CHOICES = 12
INPUT_KEYS = frozenset({"dk", "n", "trials", "seed", "backend", "dtype", "scale", "rho", "method", "factor",
                        "alpha"})
QUESTION_FIELDS = frozenset({"inputs", "choices", "correct", "value", "format", "vote", "revealed", "shown",
                             "closed", "discuss_start"})
ROOM_FIELDS = frozenset({"code", "teacher", "created", "step", "free", "version", "questions", "discuss_s",
                         "locked"})
ZERO_WIDTH = re.compile("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]")  # invisible: pasted or typed
DISCUSS_S = 120            # the discussion before a second vote: 2 minutes unless the teacher changes it
DISCUSS_RANGE = (30, 1200)  # the teacher adjusts it in 30-s steps within this


class RoomError(ValueError):
    """Bytes under a room's key that are not a room of ours."""


@dataclass(frozen=True)
class Question:
    """One visited step's question as the teacher's page asked it: the step's inputs, the choices
    (plain dicts from core.lesson), the indices of the correct ones, the measured value and its format;
    the vote that is open (1, or 2 once the teacher asked the room to vote again), whether the
    projector shows its answers (`shown`), whether it takes no more answers (`closed`), whether the
    measurement is revealed, and when the discussion before the second vote started (`discuss_start`,
    seconds of the rooms' clock; 0 for none)."""

    inputs: dict[str, Any]
    choices: tuple[dict[str, Any], ...]
    correct: tuple[int, ...]
    value: float
    format: str = "num"
    vote: int = 1
    revealed: bool = False
    shown: bool = False
    closed: bool = False
    discuss_start: float = 0.0


@dataclass(frozen=True)
class Room:
    code: str
    teacher: str                 # sha256 hex of the teacher's secret
    created: float
    step: int = 1
    free: bool = False           # the students explore on their own until called back
    version: int = 0
    questions: dict[int, Question] = field(default_factory=dict)
    discuss_s: int = DISCUSS_S   # the discussion's length before a second vote, in seconds
    locked: bool = False         # no new phone joins (the teacher locks once everyone is in)

    @property
    def question(self) -> Question | None:
        return self.questions.get(self.step)


@dataclass(frozen=True)
class Tally:
    """Answers counted: `counts[(step, vote)]` one count per choice; `joined` students; `answered`
    the students with an answer in the current step's open vote; `confidence[(step, vote)]` per
    choice (how many of its answers tapped sure, how many guessing)."""

    counts: dict[tuple[int, int], list[int]]
    joined: int
    answered: int
    confidence: dict[tuple[int, int], list[tuple[int, int]]] = field(default_factory=dict)


# ---------------------------------------------------------------- codes and secrets


def normalise_code(text: str) -> str:
    """What a student typed, as a code: NFKC-normalised (a Chinese keyboard's full-width "ＡＣＤ３４７"
    reads "ACD347"), without invisible characters (zero-width spaces, joiners, byte-order marks),
    spaces or dashes, in capitals ("abc 123" → "ABC123")."""
    plain = ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", str(text)[:256]))
    return re.sub(r"[\s\-·.\u2010-\u2015\u30fb]", "", plain).upper()[:32]


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
             "free": room.free, "version": room.version, "discuss_s": room.discuss_s, "locked": room.locked,
             "questions": [[k, {"inputs": q.inputs, "choices": list(q.choices), "correct": list(q.correct),
                                "value": q.value, "format": q.format, "vote": q.vote, "revealed": q.revealed,
                                "shown": q.shown, "closed": q.closed, "discuss_start": q.discuss_start}]
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
        _need(type(value) is dict and set(value) == ROOM_FIELDS, "fields")
        _need(valid_code(value["code"]), "code")
        _need(isinstance(value["teacher"], str) and re.fullmatch(r"[0-9a-f]{64}", value["teacher"]),
              "teacher")
        _need(_number(value["created"]), "created")
        _need(_int(value["step"], 1, MAX_STEPS) and type(value["free"]) is bool, "step")
        _need(_int(value["version"], 0, 2**53), "version")
        _need(_int(value["discuss_s"], *DISCUSS_RANGE), "discussion")
        _need(type(value["locked"]) is bool, "locked")
        _need(type(value["questions"]) is list and len(value["questions"]) <= MAX_STEPS, "questions")
        questions = {}
        for item in value["questions"]:
            _need(type(item) is list and len(item) == 2 and _int(item[0], 1, MAX_STEPS), "question")
            questions[item[0]] = _question(item[1])
        return Room(value["code"], value["teacher"], float(value["created"]), value["step"], value["free"],
                    value["version"], questions, value["discuss_s"], value["locked"])
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
    _need(_number(q["value"]) and isinstance(q["format"], str) and re.fullmatch(r"[a-z]{1,8}", q["format"]),
          "value")
    _need(q["vote"] in (1, 2) and type(q["vote"]) is int
          and all(type(q[k]) is bool for k in ("revealed", "shown", "closed")), "vote")
    _need(_number(q["discuss_start"]) and q["discuss_start"] >= 0, "discussion start")
    return Question(q["inputs"], tuple(choices), tuple(correct), float(q["value"]), q["format"], q["vote"],
                    q["revealed"], q["shown"], q["closed"], float(q["discuss_start"]))


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
