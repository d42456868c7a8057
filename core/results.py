"""What every experiment returns — {"experiment", "backend", "params", "rows"} — and how it reports progress.

`progress` is an optional callable taking the fraction done in [0, 1] (the app's progress bar).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Result = dict[str, Any]
Progress = Callable[[float], None] | None


def result(experiment: str, backend: str, params: dict[str, Any], rows: list[dict[str, Any]]) -> Result:
    """One experiment's output: its name, the backend it ran on, its parameters and one row per point."""
    return {"experiment": experiment, "backend": backend, "params": params, "rows": rows}


def tick(progress: Progress, done: float, total: float) -> None:
    """Report done/total (capped at 1) when someone listens."""
    if progress is not None:
        progress(min(1.0, done / max(total, 1e-12)))


def sub_progress(progress: Progress, k: int, total: int, width: int = 1) -> Progress:
    """Map a sub-task's 0..1 progress onto slots [k, k + width) of `total`."""
    if progress is None:
        return None
    return lambda f: progress(min(1.0, (k + width * f) / total))
