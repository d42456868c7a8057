"""Work refused before it starts: estimate memory and time, compare with a budget.

Estimates are deliberately simple (bytes of the arrays one chunk holds; a throughput model
for this class of machine). A refusal names a smaller setting that would fit.
"""

from __future__ import annotations

import os

from core.errors import BudgetError

GiB = 1 << 30
# The most one chunk of work may hold in memory, and the ceiling for any single trial.
CHUNK_BYTES = int(os.environ.get("ASE_CHUNK_BYTES", 48 << 20))
MEMORY_BUDGET = int(os.environ.get("ASE_MEMORY_BUDGET", 2 * GiB))
# Seconds of estimated work the CLI accepts (the app passes its own, smaller one).
TIME_BUDGET = float(os.environ.get("ASE_TIME_BUDGET", 120.0))

# Throughput model (CPU, NumPy): matrix products, elementwise transcendentals, random draws.
GEMM_FLOPS_PER_S = 2.0e10
ELEMENTWISE_PER_S = 1.5e8
SAMPLES_PER_S = 1.5e8


def estimate_seconds(flops: float = 0.0, elementwise: float = 0.0, samples: float = 0.0,
                     gpu: bool = False) -> float:
    """Rough seconds for a workload; a GPU is taken as 50× faster."""
    t = flops / GEMM_FLOPS_PER_S + elementwise / ELEMENTWISE_PER_S + samples / SAMPLES_PER_S
    return t / 50.0 if gpu else t


def chunk_trials(bytes_per_trial: int, trials: int, what: str) -> int:
    """How many trials one chunk processes; refuse when a single trial exceeds the memory budget."""
    if bytes_per_trial > MEMORY_BUDGET:
        raise BudgetError(
            f"{what} needs {bytes_per_trial / GiB:.1f} GiB for a single trial, over the "
            f"{MEMORY_BUDGET / GiB:.0f} GiB budget; use a smaller n or d_k")
    return max(1, min(trials, CHUNK_BYTES // max(1, bytes_per_trial)))


def check_time(seconds: float, what: str, smaller: str, budget: float | None = None) -> None:
    """Refuse when the estimate exceeds the budget; `smaller` names a setting that fits."""
    limit = TIME_BUDGET if budget is None else budget
    if seconds > limit:
        raise BudgetError(
            f"{what} would take about {seconds:.0f} s, over the {limit:.0f} s budget; try {smaller}")
