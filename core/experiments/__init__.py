"""The experiments behind every figure, one module per family; this face re-exports their public names.

Families: score_variance, softmax_saturation, query_gradients, gradient_sweep and entropy_grid (the
same draws across d_k), low_precision, attention_cost (the
cost model, inputs, one forward per implementation and its timing), attention_bench (ours vs torch).

Each returns a `Result` {"experiment", "backend", "params", "rows"} with one row per combination
of parameters. Work is vectorised over trials and chunked so memory stays bounded; it is
estimated and refused (BudgetError) before it starts when it would not fit.
Every row is seeded from (seed, its own parameters), so a row does not depend on which
other rows were asked for: same seed, same backend → same numbers.

`from core import experiments as ex; ex.saturation(...)` works; each name lives in its family's module.
"""

from core.experiments.attention_bench import bench
from core.experiments.attention_cost import (
    ADDITIVE_COST_TANH,
    IMPLS,
    check_impl,
    cost,
    cost_inputs,
    cost_model,
    measure_point,
    measure_points,
    run_impl,
    torch_impl,
)
from core.experiments.entropy_grid import entropy_grid
from core.experiments.gradient_sweep import gradient_sweep, median_interval
from core.experiments.low_precision import MASK_VALUE, PRECISION_DTYPES, precision
from core.experiments.query_gradients import GradDraws, grad_draws, grad_query, gradients
from core.experiments.score_variance import variance
from core.experiments.softmax_saturation import MAX_WEIGHT_QUANTILES, SATURATION_THRESHOLD, saturation
from core.results import Progress, Result
from core.validate import check_dks, check_n, check_scales, check_trials, positive_int

__all__ = [
    "ADDITIVE_COST_TANH", "IMPLS", "MASK_VALUE", "MAX_WEIGHT_QUANTILES", "PRECISION_DTYPES",
    "SATURATION_THRESHOLD", "GradDraws", "Progress", "Result", "bench", "check_dks", "check_impl",
    "check_n", "check_scales", "check_trials", "cost", "cost_inputs", "cost_model", "entropy_grid",
    "grad_draws", "grad_query", "gradient_sweep", "gradients", "measure_point", "measure_points",
    "median_interval", "positive_int", "precision", "run_impl", "saturation", "torch_impl", "variance",
]
