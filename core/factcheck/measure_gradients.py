"""Measurements of what reaches the query: ‖∂L/∂q‖ and ‖J‖₂ against d_k, and where low precision breaks.

The gradient experiment is core.experiments.gradients (one query, n keys, upstream g ~ N(0, I_n),
docs/science.md §1). Its medians come without a standard error, so each run repeats it with
`replicates` independent seeds and takes the spread of the replicate medians as the error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import experiments as ex
from core.factcheck.rules import (
    MAY_FRACTION,
    SLOPE_TOL,
    VANISH_TOL,
    Point,
    above,
    eq,
    fraction_error,
    half_unit,
    local_slopes,
)
from core.results import Progress, sub_progress
from core.sampling import sub_seed


def replicated(
    dks: Sequence[int], n: int, trials: int, replicates: int, seed: int, progress: Progress = None
) -> dict[tuple[int, str], dict[str, tuple[float, float]]]:
    """Per (d_k, scale ∈ {none, sqrt}): (mean over replicates, its standard error) of the median and
    mean ‖∂L/∂q‖ and of the median ‖J‖₂, from `replicates` independent runs of the gradient experiment."""
    vals: dict[tuple[int, str], dict[str, list[float]]] = {}
    for k in range(replicates):
        res = ex.gradients(
            list(dks),
            n,
            ["none", "sqrt"],
            trials,
            seed=sub_seed(seed, 62, k),
            progress=sub_progress(progress, k, replicates),
        )
        for r in res["rows"]:
            v = vals.setdefault((r["dk"], r["scale"]), {"median": [], "mean": [], "jacobian": []})
            v["median"].append(r["grad_q_norm_median"])
            v["mean"].append(r["grad_q_norm_mean"])
            v["jacobian"].append(r["jacobian_norm_median"])
    return {
        key: {
            stat: (float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x)))) for stat, x in v.items()
        }
        for key, v in vals.items()
    }


def run_grad(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "‖∂L/∂Q‖ ∝ 1/d_k unscaled, ≈ constant scaled": local log-log slopes of the median, claimed −1
    (part "unscaled") and 0 (part "scaled_flat"), each within SLOPE_TOL."""
    stats = replicated(p["dks"], p["n"], p["trials"], p["replicates"], seed, progress)
    pts = []
    facts: dict[str, Any] = {"n": p["n"], "trials": p["trials"] * p["replicates"], "median": {}, "mean": {}}
    top = p["dks"][-1]
    for scale, claimed_slope, part in (("none", -1.0, "unscaled"), ("sqrt", 0.0, "scaled_flat")):
        ys = [stats[(d, scale)]["median"][0] for d in p["dks"]]
        es = [stats[(d, scale)]["median"][1] for d in p["dks"]]
        facts["median"][scale] = dict(zip(p["dks"], ys, strict=True))
        facts["mean"][scale] = {d: stats[(d, scale)]["mean"][0] for d in p["dks"]}
        for i, (b, se) in enumerate(local_slopes(p["dks"], ys, es)):
            pts.append(
                eq(
                    "log_slope",
                    claimed_slope,
                    b,
                    se,
                    SLOPE_TOL,
                    part=part,
                    dk=p["dks"][i + 1],
                    n=p["n"],
                    scale=scale,
                )
            )
    facts.update(
        {
            "dk_max": top,
            "slopes_unscaled": [x.measured for x in pts if x.part == "unscaled"],
            "median_unscaled_max": facts["median"]["none"][top],
            "mean_unscaled_max": facts["mean"]["none"][top],
            "median_scaled_max": facts["median"]["sqrt"][top],
            # the claim drawn through the first measured point: median(d) = median(d₀)·d₀/d
            "claimed_line": {d: facts["median"]["none"][p["dks"][0]] * p["dks"][0] / d for d in p["dks"]},
        }
    )
    return pts, facts


def run_vanish(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "Near one-hot ⇒ the softmax gradient → 0": the median ‖J‖₂ without scaling, as a share of the
    median ‖J‖₂ with ÷√d_k, claimed 0 (within VANISH_TOL), at each d_k."""
    stats = replicated(p["dks"], p["n"], p["trials"], p["replicates"], seed, progress)
    pts, facts = [], {"n": p["n"]}
    for d in p["dks"]:
        (a, ea), (b, eb) = stats[(d, "none")]["jacobian"], stats[(d, "sqrt")]["jacobian"]
        ratio = a / b
        se = ratio * math.hypot(ea / a if a else 0.0, eb / b)
        pts.append(eq("jacobian_ratio", 0.0, ratio, se, VANISH_TOL, dk=d, n=p["n"], scale="none"))
        facts[f"ratio_{d}"], facts[f"j_none_{d}"], facts[f"j_sqrt_{d}"] = ratio, a, b
    ok = [x.dk for x in pts if x.agrees]
    facts["dk_vanished_from"] = min(ok) if ok else None
    return pts, facts


def run_scaled_passes(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "After ÷√dim the gradient reaches Q and K": median ‖∂L/∂q‖ with ÷√d_k significantly above the
    unscaled one at d_k = p["dim"], for each n of p["ns"]."""
    pts, facts = [], {"dim": p["dim"]}
    for i, n in enumerate(p["ns"]):
        stats = replicated(
            [p["dim"]], n, p["trials"], p["replicates"], seed, sub_progress(progress, i, len(p["ns"]))
        )
        (a, ea), (b, eb) = stats[(p["dim"], "none")]["median"], stats[(p["dim"], "sqrt")]["median"]
        pts.append(above("grad_median_scaled", a, b, math.hypot(ea, eb), dk=p["dim"], n=n, scale="sqrt"))
        facts[f"none_{n}"], facts[f"sqrt_{n}"] = a, b
    return pts, facts


def run_overflow(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """d_k = 64, unscaled: the score std is 8 (part "std"); the scores themselves never leave any
    float range (part "inputs", claimed to); exp overflows a naive softmax in float16 only (one part
    per dtype, each claimed to overflow in at least MAY_FRACTION of rows)."""
    d, n = p["dk"], p["n"]
    var = ex.variance([d], ["none"], p["var_trials"], seed=seed)["rows"][0]
    sd = math.sqrt(var["var_raw"])
    pts = [
        eq(
            "std_raw",
            float(p["std"]),
            sd,
            var["var_raw_se"] / (2 * sd),
            half_unit(p["std"]),
            part="std",
            dk=d,
            scale="none",
        )
    ]
    rows = ex.precision([d], n, ["none"], trials=p["trials"], seed=seed, progress=progress)["rows"]
    count = p["trials"] * n
    facts: dict[str, Any] = {"dk": d, "n": n, "std": sd, "ln_fp16": math.log(65504.0)}
    for r in rows:
        name = r["dtype"]
        f = r["naive_nonfinite_fraction"]
        pts.append(
            above(
                "naive_nonfinite",
                MAY_FRACTION,
                f,
                fraction_error(f, count),
                part=f"exp_{name}",
                dk=d,
                n=n,
                scale="none",
                where=name,
            )
        )
        facts[f"naive_{name}_pct"], facts[f"stable_{name}_pct"] = f, r["stable_nonfinite_fraction"]
        facts["max_logit"] = r["max_logit"]
        if name == "float16":
            g = r["logits_inf_fraction"]
            pts.append(
                above(
                    "logits_nonfinite",
                    MAY_FRACTION,
                    g,
                    fraction_error(g, count),
                    part="inputs",
                    dk=d,
                    n=n,
                    scale="none",
                    where=name,
                )
            )
            facts["dtype_max_fp16"] = r["dtype_max"]
    return pts, facts
