"""Measurements of the attention weights: entropy, effective keys, max weights, where the weight goes.

Each run draws n queries against n keys with iid N(0, 1) components (n = 10 where the notes' code
uses seq_len = 10) through core.experiments.saturation, or through the notes' own snippet where a
printed output is checked.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import experiments as ex
from core.attention import entropy_from_scores, scores, softmax
from core.backend import get_backend
from core.factcheck.rules import (
    FEW_KEYS,
    PLAUSIBLE,
    STABLE_REL,
    UNIFORM_TOL,
    Z_TOL,
    Point,
    above,
    below,
    eq,
    fraction_error,
    half_unit,
)
from core.results import Progress, tick
from core.sampling import draw, gram_scores, sub_seed
from core.scales import scale_factor


def _by(res: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    return {(r["dk"], r["scale"]): r for r in res["rows"]}


def run_linear_log(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """÷d_k over-scales: entropy within UNIFORM_TOL of ln n ("over"); ÷ln d_k under-scales: entropy
    significantly below ÷√d_k's ("under")."""
    n = p["n"]
    by = _by(ex.saturation(p["dks"], n, ["sqrt", "linear", "log"], p["trials"], seed=seed, progress=progress))
    ln_n = math.log(n)
    pts: list[Point] = []
    for d in p["dks"]:
        lin, lg, sq = by[(d, "linear")], by[(d, "log")], by[(d, "sqrt")]
        pts.append(
            eq(
                "entropy",
                ln_n,
                lin["entropy_mean"],
                lin["entropy_se"],
                UNIFORM_TOL * ln_n,
                part="over",
                dk=d,
                n=n,
                scale="linear",
            )
        )
        se = math.hypot(lg["entropy_se"], sq["entropy_se"])
        pts.append(
            below(
                "entropy_vs_sqrt",
                sq["entropy_mean"],
                lg["entropy_mean"],
                se,
                part="under",
                dk=d,
                n=n,
                scale="log",
            )
        )
    top = p["dks"][-1]
    facts = {
        "n": n,
        "ln_n": ln_n,
        "trials": p["trials"],
        "uniform_pct": UNIFORM_TOL,
        "dk_max": top,
        "saturated_log_max_pct": by[(top, "log")]["saturated_fraction"],
        "saturated_sqrt_max_pct": by[(top, "sqrt")]["saturated_fraction"],
        "entropy_log_max": by[(top, "log")]["entropy_mean"],
        "entropy_sqrt_max": by[(top, "sqrt")]["entropy_mean"],
    }
    return pts, facts


def run_linear(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """÷d_k: Var(q·k/d_k) = 1/d_k ("variance") and near-uniform weights, entropy within UNIFORM_TOL of
    ln n ("uniform")."""
    var = ex.variance(p["dks"], ["linear"], p["var_trials"], seed=seed)
    by = _by(ex.saturation(p["dks"], p["n"], ["linear"], p["trials"], seed=seed, progress=progress))
    ln_n = math.log(p["n"])
    pts: list[Point] = []
    for r in var["rows"]:
        pts.append(
            eq(
                "var_scaled",
                1.0 / r["dk"],
                r["var_scaled"],
                r["var_scaled_se"],
                part="variance",
                dk=r["dk"],
                scale="linear",
            )
        )
    for d in p["dks"]:
        r = by[(d, "linear")]
        pts.append(
            eq(
                "entropy",
                ln_n,
                r["entropy_mean"],
                r["entropy_se"],
                UNIFORM_TOL * ln_n,
                part="uniform",
                dk=d,
                n=p["n"],
                scale="linear",
            )
        )
    return pts, {
        "n": p["n"],
        "ln_n": ln_n,
        "uniform_pct": UNIFORM_TOL,
        "entropy_min": min(by[(d, "linear")]["entropy_mean"] for d in p["dks"]),
        "keys_min": min(by[(d, "linear")]["effective_keys_mean"] for d in p["dks"]),
    }


def run_entropy_table(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The notes' printed entropy table against the measured mean entropy, cell by cell."""
    n = p["n"]
    by = _by(ex.saturation(p["dks"], n, ["none", "sqrt"], p["trials"], seed=seed, progress=progress))
    pts = []
    for (d, scale), printed in p["claimed"].items():
        r = by[(d, scale)]
        pts.append(
            eq(
                "entropy",
                float(printed),
                r["entropy_mean"],
                r["entropy_se"],
                half_unit(printed),
                dk=d,
                n=n,
                scale=scale,
            )
        )
    unscaled = [by[(d, "none")]["entropy_mean"] for d in p["dks"]]
    facts = {
        "n": n,
        "ln_n": math.log(n),
        "trials": p["trials"],
        "unscaled_falls": bool(all(a > b for a, b in itertools.pairwise(unscaled))),
        "entropy_sqrt_64": by[(64, "sqrt")]["entropy_mean"] if (64, "sqrt") in by else float("nan"),
    }
    return pts, facts


def run_entropy_trend(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Unscaled, entropy falls as d_k grows ("falls": each step significantly lower); ÷√d_k it stays
    stable ("stable": neighbours within STABLE_REL of each other)."""
    by = _by(ex.saturation(p["dks"], p["n"], ["none", "sqrt"], p["trials"], seed=seed, progress=progress))
    pts: list[Point] = []
    for a, b in itertools.pairwise(p["dks"]):
        ra, rb = by[(a, "none")], by[(b, "none")]
        pts.append(
            below(
                "entropy_step",
                ra["entropy_mean"],
                rb["entropy_mean"],
                math.hypot(ra["entropy_se"], rb["entropy_se"]),
                part="falls",
                dk=b,
                n=p["n"],
                scale="none",
            )
        )
        sa, sb = by[(a, "sqrt")], by[(b, "sqrt")]
        pts.append(
            eq(
                "entropy_step",
                sa["entropy_mean"],
                sb["entropy_mean"],
                math.hypot(sa["entropy_se"], sb["entropy_se"]),
                STABLE_REL * sa["entropy_mean"],
                part="stable",
                dk=b,
                n=p["n"],
                scale="sqrt",
            )
        )
    return pts, {
        "n": p["n"],
        **{f"entropy_{s}_{d}": by[(d, s)]["entropy_mean"] for d in p["dks"] for s in ("none", "sqrt")},
    }


def matrix_max_weights(
    dks: Sequence[int], scales: Sequence[str], n: int, draws: int, seed: int, progress: Progress = None
) -> dict[tuple[int, str], np.ndarray]:
    """The notes' printed statistic, per draw: max_{i,j} softmax(c · Q Kᵀ)_ij for one n × n draw.

    `attn.max()` in the notes' code is the largest weight of the whole matrix, not a row mean.
    """
    ex.check_dks(dks)
    n = ex.check_n(n)
    draws = ex.check_trials(draws)
    out = {}
    for k, d in enumerate(dks):
        rng = get_backend("numpy", "float32").rng(sub_seed(seed, 61, d, n))
        Q, K = draw(rng, (draws, n, d), "normal", "float32"), draw(rng, (draws, n, d), "normal", "float32")
        for s in scales:
            P = softmax(scores(Q, K, scale_factor(s, d)))
            out[(d, s)] = P.reshape(draws, -1).max(axis=1).astype(np.float64)
        tick(progress, k + 1, len(dks))
    return out


def run_max_weight(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Each printed attn.max() against the central PLAUSIBLE share of what the snippet can print."""
    n = p["n"]
    dks = sorted({d for d, _ in p["claimed"]})
    stats = matrix_max_weights(dks, ["none", "sqrt"], n, p["draws"], seed, progress)
    a = (1.0 - PLAUSIBLE) / 2.0
    pts = []
    for (d, scale), printed in p["claimed"].items():
        x = stats[(d, scale)]
        lo, hi = np.quantile(x, [a, 1.0 - a])
        r = half_unit(printed)
        se = float(x.std() / math.sqrt(x.size))
        pts.append(
            Point(
                "matrix_max_weight",
                float(printed),
                float(np.median(x)),
                se,
                r,
                relation="within",
                dk=d,
                n=n,
                scale=scale,
                lo=float(lo) - r,
                hi=float(hi) + r,
            )
        )
    return pts, {
        "n": n,
        "draws": p["draws"],
        "plausible_pct": PLAUSIBLE,
        "outside": sum(not x.agrees for x in pts),
        "total": len(pts),
        **{f"median_{s}_{d}": float(np.median(x)) for (d, s), x in stats.items()},
    }


def run_max_weight_trend(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The snippet's attn.max(): unscaled it climbs toward 1 as d_k grows (1 − max falls significantly,
    part "to_one"); scaled it stays stable (neighbours within STABLE_REL, part "stable")."""
    stats = matrix_max_weights(p["dks"], ["none", "sqrt"], p["n"], p["draws"], seed, progress)
    pts: list[Point] = []
    for a, b in itertools.pairwise(p["dks"]):
        xa, xb = 1.0 - stats[(a, "none")], 1.0 - stats[(b, "none")]
        se = math.hypot(xa.std(), xb.std()) / math.sqrt(xa.size)
        pts.append(
            below(
                "gap_to_one",
                float(xa.mean()),
                float(xb.mean()),
                se,
                part="to_one",
                dk=b,
                n=p["n"],
                scale="none",
            )
        )
        ya, yb = stats[(a, "sqrt")], stats[(b, "sqrt")]
        pts.append(
            eq(
                "matrix_max_weight",
                float(ya.mean()),
                float(yb.mean()),
                math.hypot(ya.std(), yb.std()) / math.sqrt(ya.size),
                STABLE_REL * float(ya.mean()),
                part="stable",
                dk=b,
                n=p["n"],
                scale="sqrt",
            )
        )
    return pts, {
        "n": p["n"],
        "draws": p["draws"],
        **{f"max_{s}_{d}": float(stats[(d, s)].mean()) for d in p["dks"] for s in ("none", "sqrt")},
    }


def run_spread(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Without scaling the weights concentrate on a few positions, with ÷√d_k they spread: the mean
    entropy against ln FEW_KEYS (at most FEW_KEYS effective keys exp(H) = "a few")."""
    res = ex.saturation(p["dks"], p["n"], ["none", "sqrt"], p["trials"], seed=seed, progress=progress)
    few = math.log(FEW_KEYS)
    pts, facts = [], {"n": p["n"], "few": FEW_KEYS, "ln_few": few}
    for r in res["rows"]:
        rel = "below" if r["scale"] == "none" else "above"
        pts.append(
            Point(
                "entropy",
                few,
                r["entropy_mean"],
                r["entropy_se"],
                Z_TOL * r["entropy_se"],
                relation=rel,
                part="concentrated" if r["scale"] == "none" else "spread",
                dk=r["dk"],
                n=p["n"],
                scale=r["scale"],
            )
        )
        facts[f"keys_{r['scale']}_{r['dk']}"] = r["effective_keys_mean"]
    return pts, facts


def run_first_last(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Unscaled scores at dim = p["dim"]: the weight concentrates on few keys (effective keys exp(H) at
    most FEW_KEYS, part "few"), but on the first or last position no more often than chance 2/n
    (claimed: significantly more often, part "first_last"). No positional signal exists in iid draws."""
    d, pts, facts = p["dim"], [], {"dim": p["dim"]}
    for i, n in enumerate(p["ns"]):
        rng = get_backend("numpy", "float32").rng(sub_seed(seed, 111, d, n))
        S = gram_scores(rng, p["trials"], n, d, 0.0, "float64").reshape(-1, n)
        top = S.argmax(axis=1)
        edge = float(((top == 0) | (top == n - 1)).mean())
        _, H = entropy_from_scores(S)
        keys = np.exp(H)
        pts.append(
            Point(
                "effective_keys",
                FEW_KEYS,
                float(keys.mean()),
                float(keys.std() / math.sqrt(keys.size)),
                Z_TOL * float(keys.std() / math.sqrt(keys.size)),
                relation="below",
                part="few",
                dk=d,
                n=n,
                scale="none",
            )
        )
        pts.append(
            above(
                "first_or_last",
                2.0 / n,
                edge,
                fraction_error(edge, top.size),
                part="first_last",
                dk=d,
                n=n,
                scale="none",
            )
        )
        facts[f"edge_{n}_pct"], facts[f"chance_{n}_pct"], facts[f"keys_{n}"] = (
            edge,
            2.0 / n,
            float(keys.mean()),
        )
        tick(progress, i + 1, len(p["ns"]))
    return pts, facts
