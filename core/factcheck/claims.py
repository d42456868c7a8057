"""What a claim is: a verbatim quote from one note, its translation, the question it answers, and either
the measurement that tests it or the literature that settles it; plus the notes and what cannot be checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.results import Progress

Run = Callable[[int, Progress, dict[str, Any]], tuple[list[Any], dict[str, Any]]]


@dataclass(frozen=True)
class Source:
    """Where the literature settles (part of) a claim."""

    cite: str
    arxiv: str | None = None
    where: str = ""

    @property
    def url(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else None


@dataclass(frozen=True)
class Claim:
    """A statement of one note (`note`: the note's file name). `quote_zh` is verbatim from it (markdown,
    or printed output when quote_format is "code"); `run(seed, progress, params)` measures it with that
    random seed and returns (points, facts).

    `also_zh` / `also_en`: the same statement said again elsewhere in the note (verbatim, translated).
    The drill: the reader first picks a verdict; where `answer` names a fact, they also guess that
    number (prompt `answer_en` / `answer_zh`), right when within `answer_tol` (relative) of it.
    """

    id: str
    note: str
    quote_zh: str
    quote_en: str
    question_en: str
    question_zh: str
    sources: tuple[Source, ...]
    claimed: dict[Any, Any] = field(default_factory=dict)
    experiment: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    run: Run | None = None
    literature_verdict: str | None = None
    quote_format: str = "markdown"  # "markdown" or "code" (printed output, ASCII art)
    also_zh: tuple[str, ...] = ()
    also_en: tuple[str, ...] = ()
    answer: str | None = None
    answer_en: str = ""
    answer_zh: str = ""
    answer_tol: float = 0.1

    @property
    def kind(self) -> str:
        return "measured" if self.run is not None else "literature"


@dataclass(frozen=True)
class Unchecked:
    """A statement of a note (`note`: its file) that no measurement or source here can settle, and why."""

    note: str
    quote_zh: str
    quote_en: str
    why_en: str
    why_zh: str


@dataclass(frozen=True)
class Note:
    """One of the five notes: its file name, its title as written, and an English title."""

    file: str
    title_zh: str
    title_en: str


VASWANI = "Vaswani et al. 2017, Attention Is All You Need"
VASWANI_ARXIV = "1706.03762"

