"""The peer-instruction loop of a live class, as data (no Streamlit, no store): what a stored answer
says, the share of a vote that is correct and the teacher's hint from it, the discussion's
countdown, the closing *Our votes* table and the class's summary rows.

A stored answer (a field `<step>.<vote>.<student>` of the room's answers map, server/rooms.py) is
the choice's index, followed by `s` when the student tapped *sure* or `g` for *guessing*: `b"2"`,
`b"2s"`, `b"2g"`. Anything else under a field reads as no answer.

The hint follows peer instruction's usual bands (Crouch & Mazur, Am. J. Phys. 69, 970 (2001);
Lasry, Mazur & Watkins, Am. J. Phys. 76, 1066 (2008)): with a share p of the vote correct,
p < 30 % → explain again ("reteach"), 30 % ≤ p ≤ 70 % → discuss with a neighbour and vote again
("discuss"), p > 70 % → reveal and move on ("reveal").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from server.room_state import Question, Room, Tally

CONFIDENCE = {"s": "sure", "g": "guessing"}          # the stored letter → the level's name
CONFIDENCE_CODE = {name: code for code, name in CONFIDENCE.items()}
ANSWER_RE = re.compile(rb"(\d{1,2})([sg]?)")
RETEACH_BELOW = 0.30   # a share correct under this: explain again
REVEAL_ABOVE = 0.70    # over this: reveal; in between (both ends included): discuss and vote again


def parse_answer(raw: Any) -> tuple[int, str | None] | None:
    """(choice, "sure" | "guessing" | None) of a stored answer's bytes, or None when they are not
    one (the caller still checks the choice against its question)."""
    if not isinstance(raw, bytes | bytearray):
        return None
    found = ANSWER_RE.fullmatch(bytes(raw))
    if found is None:
        return None
    letter = found.group(2).decode()
    return int(found.group(1)), CONFIDENCE.get(letter) if letter else None


def answer_value(choice: int, confidence: str | None = None) -> bytes:
    """The bytes stored for `choice` with an optional confidence ("sure" / "guessing")."""
    return f"{choice}{CONFIDENCE_CODE[confidence] if confidence else ''}".encode()


def histogram_shown(q: Question) -> bool:
    """Whether the projector draws the room's answers: only once the teacher showed them, closed
    the vote or revealed the measurement (during a vote it shows how many answered, no more)."""
    return q.shown or q.closed or q.revealed


def vote_closed(q: Question) -> bool:
    return q.closed or q.revealed


def share_correct(counts: Sequence[int] | None, correct: Sequence[int]) -> float | None:
    """Correct answers ÷ answers of one vote (None without answers)."""
    if not counts or not sum(counts):
        return None
    return sum(counts[i] for i in correct) / sum(counts)


def hint(share: float | None) -> str | None:
    """The teacher's next move from the share correct p: "reteach" (p < 30 %), "discuss"
    (30 % ≤ p ≤ 70 %) or "reveal" (p > 70 %); None without answers."""
    if share is None:
        return None
    if share < RETEACH_BELOW:
        return "reteach"
    return "reveal" if share > REVEAL_ABOVE else "discuss"


def remaining_s(q: Question, discuss_s: float, now: float) -> float | None:
    """Seconds left of the discussion before the second vote: its start kept in the room plus the
    room's length, minus now (never below 0); None when no discussion runs (a first vote, or the
    second one closed), so a reload or another screen shows the same time."""
    if q.vote != 2 or q.discuss_start <= 0 or vote_closed(q):
        return None
    return max(0.0, q.discuss_start + discuss_s - now)


def clock_text(seconds: float) -> str:
    """m:ss of a countdown, rounded up (1.2 s left reads 0:02, 0 reads 0:00)."""
    whole = int(-(-seconds // 1))
    return f"{whole // 60}:{whole % 60:02d}"


def our_votes(room: Room, tally: Tally) -> list[dict[str, Any]]:
    """One row per step the room answered: the share correct of its first and second vote (None
    where that vote had no answers or was not held) with their numbers of answers."""
    rows = []
    for step, q in sorted(room.questions.items()):
        first, second = tally.counts.get((step, 1)), tally.counts.get((step, 2))
        if not (first and sum(first)) and not (second and sum(second)):
            continue
        held = q.vote == 2
        rows.append({"step": step, "first": share_correct(first, q.correct),
                     "answers_first": sum(first or ()),
                     "second": share_correct(second, q.correct) if held else None,
                     "answers_second": sum(second or ()) if held else 0})
    return rows


def summary_rows(room: Room, tally: Tally, label: Callable[[int, Question, int], str],
                 name: Callable[[int], str]) -> list[dict[str, Any]]:
    """The class in numbers, one row per step, vote and choice: how many chose it, how many of
    those tapped sure or guessing, whether it is correct, the vote's share correct (correct answers
    ÷ answers) and, on every row of a step, the step's first and second vote share correct (the
    *Our votes* slide)."""
    rows = []
    for step, q in sorted(room.questions.items()):
        shares = {v: share_correct(tally.counts.get((step, v)), q.correct) for v in (1, 2)}
        for vote in (1, 2):
            counts = tally.counts.get((step, vote))
            if counts is None and (vote == 2 and q.vote < 2):
                continue
            counts = counts or [0] * len(q.choices)
            split = tally.confidence.get((step, vote)) or [(0, 0)] * len(q.choices)
            total = sum(counts)
            for i, n in enumerate(counts):
                rows.append({"step": step, "name": name(step), "vote": vote, "answer": label(step, q, i),
                             "count": n, "sure": split[i][0], "guessing": split[i][1],
                             "correct": i in q.correct, "answers": total,
                             "share_correct": _rounded(shares[vote]),
                             "share_correct_1st": _rounded(shares[1]),
                             "share_correct_2nd": _rounded(shares[2]) if q.vote == 2 else None})
    return rows


def _rounded(share: float | None) -> float | None:
    return None if share is None else round(share, 4)
