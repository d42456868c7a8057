"""The fact-check of the five notes: every checkable statement as a claim, measured under the note's own
assumptions and judged by a computed verdict, per note with what cannot be checked and why.

    from core import factcheck as fc
    fc.check("n3_print_3", seed=0)        # one claim: points, verdict, facts
    fc.check_all(seed=0, note="004_….txt")  # every claim of a note
    fc.note_summary(results)              # per note: found / checked / verdicts / not checkable

The claims live in notes_000 … notes_004 (pure tables), the rules of a verdict in `rules`, the
measurements in the measure_* modules. Nothing here reads the notes at run time: the quotes are
copied verbatim into the tables (a test checks them against the notes when those are at hand).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from core.errors import InputError
from core.factcheck import notes_000, notes_001, notes_002, notes_003, notes_004
from core.factcheck.claims import Claim, Note, Source, Unchecked
from core.factcheck.measure_maxima import fraction_within
from core.factcheck.measure_weights import matrix_max_weights
from core.factcheck.rules import (
    PARTLY_FRACTION,
    RELATIONS,
    RHO_TRAINED,
    TIME_TOL,
    VERDICTS,
    Z_TOL,
    Point,
    half_unit,
    local_slopes,
    point_agrees,
    tolerances,
    verdict,
)
from core.results import Progress, sub_progress

_TABLES = (notes_000, notes_001, notes_002, notes_003, notes_004)
NOTES: tuple[Note, ...] = tuple(m.NOTE for m in _TABLES)
CLAIMS: tuple[Claim, ...] = tuple(c for m in _TABLES for c in m.CLAIMS)
UNCHECKED: tuple[Unchecked, ...] = tuple(u for m in _TABLES for u in m.UNCHECKED)
CLAIM_IDS: tuple[str, ...] = tuple(c.id for c in CLAIMS)
NOTE_FILES: tuple[str, ...] = tuple(n.file for n in NOTES)

__all__ = [
    "CLAIMS",
    "CLAIM_IDS",
    "NOTES",
    "NOTE_FILES",
    "PARTLY_FRACTION",
    "RELATIONS",
    "RHO_TRAINED",
    "TIME_TOL",
    "UNCHECKED",
    "VERDICTS",
    "Z_TOL",
    "Claim",
    "Note",
    "Point",
    "Source",
    "Unchecked",
    "check",
    "check_all",
    "claims_of",
    "cli_result",
    "fraction_within",
    "get_claim",
    "get_note",
    "grade",
    "half_unit",
    "local_slopes",
    "matrix_max_weights",
    "note_summary",
    "point_agrees",
    "tolerances",
    "unchecked_of",
    "verdict",
]


def get_claim(claim_id: str) -> Claim:
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise InputError(f"unknown claim {claim_id!r}; choose one of {', '.join(CLAIM_IDS)}")


def get_note(name: str) -> Note:
    """A note by its file name ("004_92c48293b3cbb5a6.txt") or its number ("004", "4")."""
    key = str(name).strip()
    for n in NOTES:
        if key in (n.file, n.file.split("_", 1)[0]) or (key.isdigit() and int(key) == int(n.file[:3])):
            return n
    raise InputError(f"unknown note {name!r}; choose one of {', '.join(NOTE_FILES)}")


def claims_of(note: str) -> tuple[Claim, ...]:
    file = get_note(note).file
    return tuple(c for c in CLAIMS if c.note == file)


def unchecked_of(note: str) -> tuple[Unchecked, ...]:
    file = get_note(note).file
    return tuple(u for u in UNCHECKED if u.note == file)


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise InputError(f"seed must be a whole number in [0, 2^31), got {seed!r}")
    return int(seed)


def check(claim_id: str, seed: int = 0, progress: Progress = None) -> dict[str, Any]:
    """Run one claim's experiment and judge it.

    Returns {"id", "note", "kind", "verdict", "points": [dict with "agrees"], "facts", "params",
    "experiment"}. Literature claims carry the verdict their sources give and no points.
    """
    c = get_claim(claim_id)
    seed = _seed(seed)
    if c.run is None:
        return {
            "id": c.id,
            "note": c.note,
            "kind": "literature",
            "verdict": c.literature_verdict,
            "points": [],
            "facts": {},
            "params": {},
            "experiment": "",
        }
    pts, facts = c.run(seed, progress, {**c.params, "claimed": c.claimed})
    return {
        "id": c.id,
        "note": c.note,
        "kind": "measured",
        "verdict": verdict(pts),
        "points": [{**asdict(p), "agrees": p.agrees} for p in pts],
        "facts": facts,
        "params": _jsonable(c.params),
        "experiment": c.experiment,
    }


def check_all(seed: int = 0, progress: Progress = None, note: str | None = None) -> list[dict[str, Any]]:
    """Every claim (of one note, when given), in order; progress runs 0 → 1 over the measured ones."""
    claims = CLAIMS if note is None else claims_of(note)
    measured = [c for c in claims if c.run is not None]
    out, k = [], 0
    for c in claims:
        if c.run is None:
            out.append(check(c.id, seed))
            continue
        out.append(check(c.id, seed, sub_progress(progress, k, len(measured))))
        k += 1
    return out


def note_summary(results: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """Per note: statements found (claims + not checkable), checked (claims: measured + literature),
    not checkable, and the verdicts of the claims in `results`; literature verdicts are known without
    running anything, measured claims missing from `results` count as pending."""
    by_id = {r["id"]: r for r in results}
    rows = []
    for n in NOTES:
        claims = [c for c in CLAIMS if c.note == n.file]
        counts = dict.fromkeys(VERDICTS, 0)
        pending = 0
        for c in claims:
            v = c.literature_verdict if c.run is None else by_id.get(c.id, {}).get("verdict")
            if v is None:
                pending += 1
            else:
                counts[v] += 1
        unchecked = sum(u.note == n.file for u in UNCHECKED)
        rows.append(
            {
                "note": n.file,
                "found": len(claims) + unchecked,
                "checked": len(claims),
                "measured": sum(c.run is not None for c in claims),
                "literature": sum(c.run is None for c in claims),
                "not_checkable": unchecked,
                **counts,
                "pending": pending,
            }
        )
    return rows


def grade(claim_id: str, facts: dict[str, Any], answer: float) -> dict[str, Any]:
    """The drill's number question: is `answer` within the claim's tolerance of the measured fact?

    answer_tol ≤ 1 is relative (|a − m| ≤ tol·|m|), above 1 a factor (m/tol ≤ a ≤ m·tol, same sign).
    Facts named "*_pct" are fractions answered in percent. Returns {"correct", "truth", "shown"}.
    """
    c = get_claim(claim_id)
    if c.answer is None:
        raise InputError(f"claim {claim_id!r} has no number question")
    if c.answer not in facts:
        raise InputError(f"the measurement of {claim_id!r} has no fact {c.answer!r}")
    truth = float(facts[c.answer]) * (100.0 if c.answer.endswith("_pct") else 1.0)
    a = float(answer)
    if not math.isfinite(a):
        return {"correct": False, "truth": truth}
    if c.answer_tol <= 1.0:
        ok = abs(a - truth) <= c.answer_tol * abs(truth)
    else:
        ok = a * truth > 0 and max(a / truth, truth / a) <= c.answer_tol
    return {"correct": bool(ok), "truth": truth}


def cli_result(seed: int = 0, note: str | None = None, progress: Progress = None) -> dict[str, Any]:
    """`python -m core factcheck [--note N]`: a row per claim, the per-note summary, what is not checkable."""
    results = check_all(seed, progress, note)
    rows = [
        {**r, "points_agreeing": f"{sum(p['agrees'] for p in r['points'])}/{len(r['points'])}"}
        for r in results
    ]
    summary = note_summary(results)
    if note is not None:
        summary = [s for s in summary if s["note"] == get_note(note).file]
    unchecked = [asdict(u) for u in UNCHECKED if note is None or u.note == get_note(note).file]
    return {
        "experiment": "factcheck",
        "backend": "numpy",
        "params": {
            "seed": seed,
            "note": note and get_note(note).file,
            "tolerances": tolerances(),
            "notes": summary,
            "not_checkable": unchecked,
        },
        "rows": rows,
    }


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x
