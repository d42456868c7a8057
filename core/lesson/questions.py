"""How a lesson step asks: the choices a student picks from and the one the measurement falls in, and
the plain data of a step's chart (docs/science.md, "The lesson's statements").

Pure (no Streamlit). A question is {"value", "choices", "correct"}: `value` the measured number,
`choices` plain dicts {"key", …numbers} the page translates ("lesson.choice.<key>"), `correct` the
indices of the choices the measurement falls in.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from core.errors import InputError

Row = dict[str, Any]


def bin_choices(value: float, edges: Sequence[float], keys: Sequence[str] | None = None) -> dict[str, Any]:
    """Choices "below e₁", "e₁ to e₂", …, "above e_{k−1}" over `edges`, and the one `value` lies in.

    The first and last edges are the range (0 … 1, or 0 … ∞); a value on an edge belongs to the
    bin above it. `keys` names the bins (their labels) instead of below / between / above.
    """
    inner = list(edges[1:-1])
    if not inner or inner != sorted(inner):
        raise InputError("bin edges must be ascending, with at least one inner edge")
    choices: list[dict[str, Any]] = [{"key": "below", "hi": inner[0]}]
    choices += [{"key": "between", "lo": lo, "hi": hi} for lo, hi in itertools.pairwise(inner)]
    choices.append({"key": "above", "lo": inner[-1]})
    if keys is not None:
        if len(keys) != len(choices):
            raise InputError(f"{len(choices)} bins need {len(choices)} keys, got {len(keys)}")
        choices = [{**c, "key": k} for c, k in zip(choices, keys, strict=True)]
    index = sum(1 for e in inner if value >= e)
    return {"value": float(value), "choices": choices, "correct": [index]}


def nearest_choices(value: float, candidates: Sequence[tuple[str, float]],
                    log: bool = True) -> dict[str, Any]:
    """Choices "about <formula> = <number>"; correct: the candidates nearest to `value`, on a log scale
    (`log`, positive numbers) or a linear one (several when they coincide, as √d_k = d_k at d_k = 1)."""
    if log and (not value > 0 or any(not c > 0 for _, c in candidates)):
        raise InputError("nearest_choices compares positive numbers on a log scale")
    gaps = [abs(math.log(value) - math.log(c)) if log else abs(value - c) for _, c in candidates]
    best = min(gaps)
    return {"value": float(value), "choices": [{"key": key, "value": c} for key, c in candidates],
            "correct": [i for i, g in enumerate(gaps) if math.isclose(g, best, rel_tol=1e-9, abs_tol=1e-12)]}


def separated(q: dict[str, Any], log: bool = True, factor: float = 2.0) -> bool:
    """True when the measured value is nearer its answer than any other candidate by `factor`
    (a nearest-candidate question with one clear answer: no misconception shares its bin)."""
    v = q["value"]
    gaps = sorted(abs(math.log(v) - math.log(c["value"])) if log else abs(v - c["value"])
                  for c in q["choices"])
    return len(q["correct"]) == 1 and gaps[1] >= factor * gaps[0]


def chart(x: str, y: str, rows: list[Row], x_log: bool = True, y_log: bool = False,
          y_domain: tuple[float, float] | None = None, current: float | None = None,
          series_args: dict[str, Any] | None = None) -> dict[str, Any]:
    """A step's figure as data: axes (translation keys), scales, the rows and the current x."""
    return {"x": x, "y": y, "x_log": x_log, "y_log": y_log,
            "y_domain": list(y_domain) if y_domain else None, "current": current,
            "rows": rows, "series_args": series_args or {}}


def row(x: float, y: float, series: str, answer: bool) -> Row:
    """One point: `stage` "answer" rows are drawn only after the reveal, "context" rows from the start."""
    return {"x": float(x), "y": float(y), "series": series, "stage": "answer" if answer else "context"}


def at(rows: list[Row], dk: int, scale: str) -> Row:
    """The row of a sweep at d_k = `dk` and scale `scale`."""
    return next(r for r in rows if r["dk"] == dk and r["scale"] == scale)


def crossing(xs: Sequence[float], ratios: Sequence[float]) -> float | None:
    """The first x where `ratios` falls through 1 (geometric interpolation between the two grid points
    around it), the first x when it starts below 1, or None when it stays at 1 or above."""
    if ratios and ratios[0] < 1:
        return float(xs[0])
    for (x0, r0), (x1, r1) in itertools.pairwise(zip(xs, ratios, strict=True)):
        if r0 >= 1 > r1:
            if r1 <= 0:
                return float(x1)
            t = math.log(r0) / (math.log(r0) - math.log(r1))
            return float(math.exp(math.log(x0) + t * (math.log(x1) - math.log(x0))))
    return None
