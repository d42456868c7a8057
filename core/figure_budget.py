"""How much work one interactive figure may do: the d_k and n grids of the sweeps and the trials that fit
the app's time budget under core.budget's throughput model (the pages, the lesson and the topics share it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core import budget
from core.sampling import FEW_DRAWS, dot_cost

DK_GRID: tuple[int, ...] = tuple(2**i for i in range(1, 13))  # 2 … 4096
N_GRID: tuple[int, ...] = tuple(2**i for i in range(1, 11))   # 2 … 1024
# Estimated seconds (core.budget's throughput model) one interactive figure may spend.
APP_BUDGET_S = 0.4
PRECISION_BUDGET_S = APP_BUDGET_S / 2  # three dtypes, each a dozen elementwise NumPy passes
PRECISION_MIN_QUERIES = 16
# The variance sweep with normal or Rademacher components costs two draws a sample whatever d_k
# (core.sampling.dot_products): a quarter of the budget buys more samples than the whole budget
# did when every sample drew 2·d_k components.
VARIANCE_BUDGET_S = APP_BUDGET_S / 4


def sweep_dks(dk: int, grid: Sequence[int] = DK_GRID) -> list[int]:
    """The d_k values of a sweep: the grid plus the current d_k."""
    return sorted({*grid, int(dk)})


def planned_dks(dks: Sequence[int], grid: Sequence[int] = DK_GRID) -> list[int]:
    """The d_k values a sweep's budget is planned for: its grid values (all of them when none is on
    the grid). The current d_k, when off the grid, comes on top of the budget (at most one more
    point), so moving it leaves every other point's trials, and so its numbers, as they were."""
    on_grid = [d for d in dks if d in set(grid)]
    return on_grid or list(dks)


def fit_trials(trials: int, seconds_per_trial: float, budget_s: float = APP_BUDGET_S) -> int:
    """The most trials (≤ trials, ≥ 1) whose estimated time fits the interactive budget."""
    if seconds_per_trial <= 0:
        return int(trials)
    affordable = budget_s / seconds_per_trial
    return int(trials) if affordable >= trials else int(max(1, math.floor(affordable)))


def saturation_trials(trials: int, n: int, dks: Sequence[int], n_scales: int, gpu: bool = False) -> int:
    """Trials the saturation sweep can afford (same cost model as core.experiments.saturation)."""
    flops = sum(2.0 * n * n * d for d in dks)
    elem = 3.0 * n * n * len(dks) * max(1, n_scales)
    samples = sum(2.0 * n * d for d in dks)
    return fit_trials(trials, budget.estimate_seconds(flops, elem, samples, gpu=gpu))


def gradient_trials(trials: int, n: int, dks: Sequence[int], n_scales: int, gpu: bool = False) -> int:
    """Trials the gradient sweep can afford (cost model of core.experiments.gradients)."""
    flops = sum(4.0 * n * d for d in dks) * max(1, n_scales)
    elem = 80.0 * n * len(dks) * max(1, n_scales)
    return fit_trials(trials, budget.estimate_seconds(flops, elem, sum(n * d for d in dks), gpu=gpu))


def variance_samples(trials: int, n: int, dks: Sequence[int], gpu: bool = False, dist: str = "normal") -> int:
    """q·k samples per d_k for the variance figures: trials × n pairs, within the budget (the cost
    model of core.experiments.variance: dot_cost draws a sample, as many elementwise steps)."""
    per = sum(dot_cost(d, dist) for d in dks)
    seconds = budget.estimate_seconds(samples=per, elementwise=per + 6.0 * len(dks), gpu=gpu)
    return fit_trials(trials * n, seconds, budget_s=VARIANCE_BUDGET_S if dist in FEW_DRAWS else APP_BUDGET_S)


def precision_trials(trials: int, n: int, dks: Sequence[int], n_scales: int) -> int:
    return fit_trials(trials, _precision_seconds(n, n, dks, n_scales), budget_s=PRECISION_BUDGET_S)


def precision_queries(n: int, dks: Sequence[int], n_scales: int) -> int:
    """Query rows per trial the precision sweep affords (each against all n keys): n while one whole
    n × n trial fits the budget, else fewer (at least PRECISION_MIN_QUERIES): at n = 1024 a single
    trial computes about 75 M logits in three dtypes, over a second on one core."""
    one = _precision_seconds(n, n, dks, n_scales)
    if one <= PRECISION_BUDGET_S:
        return n
    return min(n, max(PRECISION_MIN_QUERIES, math.floor(n * PRECISION_BUDGET_S / one)))


def _precision_seconds(queries: int, n: int, dks: Sequence[int], n_scales: int) -> float:
    flops = sum(2.0 * queries * n * d for d in dks)
    elem = 8.0 * queries * n * len(dks) * max(1, n_scales) * 3
    return budget.estimate_seconds(flops, elem, sum(1.0 * (queries + n) * d for d in dks))
