"""The cost page's comparison of the reader's prediction with the measurement: r = t_additive / t_dot
at the largest n, measured, against the reader's guess g; the prediction is close when
1/CLOSE_FACTOR ≤ r/g ≤ CLOSE_FACTOR, else the measurement is r/g times higher or g/r times lower
(docs/science.md §3f)."""

from __future__ import annotations

import math

CLOSE_FACTOR = 2.0


def judge_prediction(guess: float | None, measured: float) -> tuple[str, float]:
    """(kind, off): kind "none" when no guess was made, else "close", "higher" (the measured ratio
    is larger than the guess) or "lower"; off = max(r/g, g/r) ≥ 1, how many times the two differ
    (1 for "none")."""
    if guess is None:
        return "none", 1.0
    if not (guess > 0 and measured > 0 and math.isfinite(guess) and math.isfinite(measured)):
        raise ValueError(f"a prediction and a measurement must be positive: {guess}, {measured}")
    factor = measured / guess
    off = max(factor, 1.0 / factor)
    if off <= CLOSE_FACTOR:
        return "close", off
    return ("higher" if factor > 1 else "lower"), off
