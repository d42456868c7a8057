"""Checks of the inputs every experiment shares (d_k, n, trials, scales), and its per-d_k chunking.

Each check returns the cleaned value or raises InputError with a message the CLI and the app show.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from core import budget
from core.errors import InputError
from core.scales import Scale, parse_scale, scale_factor


def positive_int(x: Any, name: str) -> int:
    """x as an int ≥ 1 (a whole float such as 64.0 is accepted; a bool is not)."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        if isinstance(x, float) and x.is_integer():
            x = int(x)
        else:
            raise InputError(f"{name} must be a whole number, got {x!r}")
    if x <= 0:
        raise InputError(f"{name} must be ≥ 1, got {x}")
    return int(x)


def check_dks(dks: Iterable[int]) -> list[int]:
    out = [positive_int(d, "d_k") for d in dks]
    if not out:
        raise InputError("give at least one d_k")
    return out


def check_n(n: int) -> int:
    n = positive_int(n, "n")
    if n < 2:
        raise InputError(f"n must be ≥ 2 (softmax over one key is always 1), got {n}")
    return n


def check_trials(trials: int) -> int:
    return positive_int(trials, "trials")


def check_scales(scales: Iterable[str | Scale], dks: Sequence[int]) -> list[Scale]:
    out = [s if isinstance(s, Scale) else parse_scale(s) for s in scales]
    if not out:
        raise InputError("give at least one scale")
    for s in out:
        for d in dks:
            scale_factor(s, d)  # raises where undefined (log at d_k = 1)
    return out


def chunks_per_dk(bytes_per_trial: Callable[[int], int], dks: Sequence[int], trials: int,
                  what: str) -> dict[int, int]:
    """Trials per chunk for each d_k, decided by that d_k alone (so a row never depends on the
    other rows of the sweep); every d_k is checked against the memory budget before any work."""
    return {d: budget.chunk_trials(bytes_per_trial(d), trials, what) for d in dks}
