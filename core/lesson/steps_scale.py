"""The lesson's steps about the scale itself (docs/science.md, "The lesson's statements"): the
variance d_k, the factor 1/(2√d_k), other scales, the gradient unscaled against scaled, and fp16.

Each step returns {"chart", "question", "params", "draws", "facts"}; each has a statement `*_holds`
that its take-away rests on, checked over the step's grid by tests/test_lesson_truth.py.
"""

from __future__ import annotations

import math
from typing import Any

from core import experiments as ex
from core import figure_budget, views
from core.errors import InputError
from core.lesson.questions import at, bin_choices, chart, crossing, nearest_choices, row, separated
from core.scales import parse_scale

OTHER_SCALES: tuple[str, ...] = ("log", "linear", "double-sqrt")   # the scales step's choice
EFFECTIVE_FRACTION_BINS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.95, 1.0)
GRADIENT_RATIO_BINS: tuple[float, ...] = (0.0, 0.8, 1.25, math.inf)   # unscaled / scaled median ‖∂L/∂q‖
OVERFLOW_BINS: tuple[float, ...] = (0.0, 1e-12, 0.5, 1.0)             # share of rows with inf/NaN
OVERFLOW_DKS: tuple[int, ...] = (16, 64, 256, 1024, 4096)
OVERFLOW_QUERIES = 16   # query rows per draw: rows are exchangeable (core.experiments.precision)
GRADIENT_MIN_DRAWS = 2000   # draws per d_k at least: the median ratio's noise stays well inside its bins
MIN_SAMPLES = 4000      # q·k draws per d_k at least: the variance's relative error √(2/N) stays near 2 %


def _sweep(dk: int, lo: int) -> list[int]:
    return [d for d in figure_budget.sweep_dks(dk) if d >= lo]


def variance_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                  dtype: str = "float32") -> dict[str, Any]:
    """Var(q·k) = Σᵢ Var(qᵢkᵢ) = d_k, asked as the nearest of 1, √d_k, d_k, d_k² (d_k ≥ 4, where the
    four are apart). Before the reveal the chart draws the four candidates; the measurement after."""
    dks = _sweep(dk, 4)
    samples = max(MIN_SAMPLES, figure_budget.variance_samples(trials, n, dks, backend == "cupy"))
    res = ex.variance(dks, ["none"], trials=samples, seed=seed, backend=backend, dtype=dtype)["rows"]
    cands = {"cand_one": lambda d: 1.0, "cand_sqrt_dk": math.sqrt, "cand_dk": float,
             "cand_dk2": lambda d: float(d) ** 2}
    rows = [row(r["dk"], f(r["dk"]), name, False) for name, f in cands.items() for r in res]
    rows += [row(r["dk"], r["var_raw"], "measured", True) for r in res]
    value = at(res, dk, "none")["var_raw"]
    q = nearest_choices(value, [("one", 1.0), ("sqrt_dk", math.sqrt(dk)), ("dk", float(dk)),
                                ("dk2", float(dk) ** 2)])
    return {"chart": chart("dk", "var", rows, y_log=True, current=dk), "question": q,
            "params": {"dk": dk}, "draws": samples, "facts": {}}


def variance_holds(out: dict[str, Any]) -> bool:
    """Var(q·k) = d_k: the measurement's nearest candidate is d_k, twice as near as any other."""
    q = out["question"]
    return q["choices"][q["correct"][0]]["key"] == "dk" and separated(q)


def double_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                dtype: str = "float32") -> dict[str, Any]:
    """Var(c·q·k) = c²·d_k with c = 1/(2√d_k): 1/4 at every d_k (note 000 calls it "just as bad" as
    1/d_k). Asked as the nearest of 1/d_k, 1/4, 1/2, 1 (d_k ≥ 16, where 1/d_k and 1/4 are apart)."""
    dks = _sweep(dk, 16)
    samples = max(MIN_SAMPLES, figure_budget.variance_samples(trials, n, dks, backend == "cupy"))
    res = ex.variance(dks, ["double-sqrt"], trials=samples, seed=seed, backend=backend, dtype=dtype)["rows"]
    cands = {"cand_inv_dk": lambda d: 1.0 / d, "cand_quarter": lambda d: 0.25, "cand_half": lambda d: 0.5,
             "cand_one": lambda d: 1.0}
    rows = [row(r["dk"], f(r["dk"]), name, False) for name, f in cands.items() for r in res]
    rows += [row(r["dk"], r["var_scaled"], "measured_double", True) for r in res]
    value = at(res, dk, "double-sqrt")["var_scaled"]
    q = nearest_choices(value, [("inv_dk", 1.0 / dk), ("quarter", 0.25), ("half", 0.5), ("one", 1.0)])
    return {"chart": chart("dk", "var_scaled", rows, y_log=True, current=dk), "question": q,
            "params": {"dk": dk}, "draws": samples, "facts": {}}


def double_holds(out: dict[str, Any]) -> bool:
    """Var(q·k/(2√d_k)) = 1/4 at every d_k: nearest candidate 1/4, twice as near as any other."""
    q = out["question"]
    return q["choices"][q["correct"][0]]["key"] == "quarter" and separated(q)


def scales_step(dk: int, n: int, trials: int, scale: str = "log", seed: int = 0, backend: str = "numpy",
                dtype: str = "float32") -> dict[str, Any]:
    """Effective keys e^H (out of n) per d_k under another scale, against 1/√d_k. Var(c·q·k) = c²·d_k:
    1/d_k gives 1/d_k (→ uniform), 1/ln d_k gives d_k/ln² d_k (→ one key). Asked: e^H/n at d_k."""
    name = parse_scale(scale).name
    if name not in OTHER_SCALES:
        raise InputError(f"the scales step compares one of {', '.join(OTHER_SCALES)} with sqrt, "
                         f"got {scale!r}")
    if name == "log" and dk < 2:
        raise InputError("1/ln d_k is undefined at d_k = 1 (ln 1 = 0); choose d_k ≥ 2")
    dks = [d for d in figure_budget.sweep_dks(dk) if name != "log" or d >= 2]
    view = views.saturation_view(dks, n, ["sqrt", name], trials, seed=seed, backend=backend, dtype=dtype)
    rows = [row(r["dk"], r["effective_keys_mean"], r["scale"], r["scale"] == name) for r in view["rows"]]
    rows += [row(d, float(n), "all_keys", False) for d in dks]
    share = at(view["rows"], dk, name)["effective_keys_mean"] / n
    q = {**bin_choices(share, EFFECTIVE_FRACTION_BINS, keys=("eff_one", "eff_few", "eff_many", "eff_all")),
         "format": "pct"}
    return {"chart": chart("dk", "effective", rows, y_log=True, current=dk, series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n, "scale": name}, "draws": view["trials"],
            "facts": {}}


def scales_holds(out: dict[str, Any]) -> bool:
    """Var(c·q·k) = c²·d_k orders the softmax by c at every d_k: 1/d_k and 1/(2√d_k) (smaller c) use
    at least as many keys as 1/√d_k, 1/ln d_k (larger c) at most as many."""
    scale = out["params"]["scale"]
    by = {(r["x"], r["series"]): r["y"] for r in out["chart"]["rows"]}
    dks = sorted({x for x, s in by if s == scale})
    tol = 1e-6 * out["params"]["n"]
    if scale == "log":
        return all(by[(d, "log")] <= by[(d, "sqrt")] + tol for d in dks)
    return all(by[(d, scale)] >= by[(d, "sqrt")] - tol for d in dks)


def gradients_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                   dtype: str = "float32") -> dict[str, Any]:
    """The median ‖∂L/∂q‖ = ‖c·Kᵀ(J g)‖ unscaled over scaled, asked at d_k: c·‖k‖ ≈ √d_k makes the
    unscaled one larger until J = diag(p) − ppᵀ collapses; `facts["cross"]` is the d_k where the ratio
    falls through 1 at this n (None: not below 4096). Before the reveal: the ÷√d_k curve."""
    grid = list(figure_budget.DK_GRID)
    view = views.gradient_view(sorted({*grid, dk}), n, ["none", "sqrt"], max(trials, GRADIENT_MIN_DRAWS),
                               seed=seed, backend=backend, dtype=dtype)
    med = {(r["dk"], r["scale"]): r["grad_q_norm_median"] for r in view["rows"]}
    dks = sorted({d for d, _ in med})
    ratios = [med[(d, "none")] / med[(d, "sqrt")] for d in dks]
    rows = [row(d, med[(d, "sqrt")], "sqrt", False) for d in dks]
    rows += [row(d, med[(d, "none")], "none", True) for d in dks if med[(d, "none")] > 0]
    cross = crossing(dks, ratios)
    q = {**bin_choices(ratios[dks.index(dk)], GRADIENT_RATIO_BINS,
                       keys=("grad_smaller", "grad_same", "grad_larger")), "format": "ratio"}
    facts = {"cross": None if cross is None else round(cross), "n": n,
             "none": med[(dk, "none")], "sqrt": med[(dk, "sqrt")]}
    return {"chart": chart("dk", "grad", rows, y_log=True, current=dk), "question": q,
            "params": {"dk": dk, "n": n}, "draws": view["trials"], "facts": facts,
            "ratios": dict(zip(dks, ratios, strict=True))}


def gradients_holds(out: dict[str, Any]) -> bool:
    """Unscaled over scaled median ‖∂L/∂q‖ is ≥ 1 below the crossing d_k and < 1 above it (one
    crossing), and past twice the crossing it falls faster than note 003's 1/d_k (by more than 4×
    per 4× in d_k)."""
    ratios = out["ratios"]
    dks = sorted(ratios)
    signs = [ratios[d] >= 1 for d in dks]
    if signs != sorted(signs, reverse=True):
        return False
    cross = out["facts"]["cross"]
    if cross is None:
        return all(signs)
    fast = [(d, 4 * d) for d in dks if d >= 2 * cross and 4 * d in ratios]
    return all(ratios[d4] < ratios[d] / 4 for d, d4 in fast)


def overflow_step(dk: int, n: int, seed: int = 0) -> dict[str, Any]:
    """No scaling, fp16: the share of rows a naive softmax exp(s)/Σexp(s) turns into inf/NaN (a logit
    past ln 65504 ≈ 11.09 overflows) and a stable one (max subtracted first, as every framework does).
    Asked: the stable softmax's share. Before the reveal: the naive softmax."""
    dks = sorted({*OVERFLOW_DKS, dk})
    m = min(n, OVERFLOW_QUERIES)
    res = ex.precision(dks, n=n, scales=["none"], dtypes=["float16"], trials=1, seed=seed,
                       queries=None if m == n else m)["rows"]
    rows = [row(r["dk"], r["naive_nonfinite_fraction"], "naive", False) for r in res]
    rows += [row(r["dk"], r["stable_nonfinite_fraction"], "stable", True) for r in res]
    mine = next(r for r in res if r["dk"] == dk)
    q = {**bin_choices(mine["stable_nonfinite_fraction"], OVERFLOW_BINS,
                       keys=("rows_none", "rows_some", "rows_most")), "format": "pct"}
    facts = {"ln_max": mine["overflow_logit"], "max_logit": mine["max_logit"]}
    return {"chart": chart("dk", "rows_nonfinite", rows, y_domain=(0.0, 1.0), current=dk),
            "question": q, "params": {"dk": dk, "n": n}, "draws": m, "facts": facts, "raw": res}


def overflow_holds(out: dict[str, Any]) -> bool:
    """With the maximum subtracted no fp16 row overflows at any d_k, unscaled (its largest exponent is
    e⁰ = 1); the logits themselves stay below fp16's 65504."""
    return all(r["stable_nonfinite_fraction"] == 0 and r["max_logit"] < r["dtype_max"] for r in out["raw"])
