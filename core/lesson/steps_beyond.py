"""The lesson's steps beyond the first argument (docs/science.md, "The lesson's statements"): a
constant absorbed by W_Q, q correlated with its matching key, longer rows, growing norms.

Each step returns {"chart", "question", "params", "draws", "facts"}; each has a statement `*_holds`
that its take-away rests on, checked over the step's grid by tests/test_lesson_truth.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core import beyond, figure_budget
from core.attention import softmax
from core.errors import InputError
from core.lesson.questions import bin_choices, chart, nearest_choices, row, separated
from core.sampling import sub_seed

FACTORS: tuple[float, ...] = (0.25, 0.5, 2.0, 4.0)     # the absorb step's a in c = a/√d_k
ABSORB_BINS: tuple[float, ...] = (0.0, 1e-4, 0.05, 1.0)  # the largest |Δp| with W_Q/a
ABSORB_ELEMENTS = 400_000   # draws × n × d_k per sweep: well within a rerun's budget
RHO_RANGE: tuple[float, float] = (0.2, 1.0)   # the trained step's ρ (≥ 0.2: ρ and 0 are apart)
MATCH_TRIALS = 20_000       # the matching key's score only: O(1) per draw (core.beyond.one_query_scores)
LENGTH_TRIALS = 200         # one query against n keys, O(n) per draw (core.beyond.length_sweep)
LENGTH_FALL_BINS: tuple[float, ...] = (0.0, 1.25, 3.5, math.inf)   # top weight at n over at 4n
NORM_REMEDIES: tuple[str, ...] = ("qk-norm", "cosine", "softcap")
ALPHAS: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)   # q, k → α·q, α·k
ALPHA_ASKED = 4.0
GROWTH_BINS: tuple[float, ...] = (0.0, 0.1, 0.5, math.inf)   # the remedy's rise over ÷√d_k alone's
SOFTCAP = beyond.GEMMA2_CAP  # Gemma 2's attention logit cap (arXiv:2408.00118 §2)
COSINE_TAU = 0.1             # cos(q, k)/τ, a typical learnt temperature (Swin V2 clamps τ ≥ 0.01)
N_GRID: tuple[int, ...] = figure_budget.N_GRID


def absorb_step(dk: int, n: int, trials: int, factor: float = 2.0, seed: int = 0) -> dict[str, Any]:
    """c·(W_Q x)·k = (a·c)·((W_Q/a) x)·k: replacing 1/√d_k by a/√d_k and W_Q by W_Q/a leaves every
    score, so every weight, as it was (up to rounding). Asked: the largest |Δp_ij| at a = `factor`.
    Before the reveal: a/√d_k with W_Q kept (a temperature: the weights do change)."""
    a = float(factor)
    if a not in FACTORS:
        raise InputError(f"the factor a is one of {', '.join(f'{f:g}' for f in FACTORS)}, got {factor}")
    draws = max(8, min(int(trials), ABSORB_ELEMENTS // (n * dk)))
    rng = np.random.default_rng(sub_seed(seed, 91, dk, n))
    q = rng.standard_normal((draws, 1, dk)).astype(np.float32)
    K = rng.standard_normal((draws, n, dk)).astype(np.float32)
    c = np.float32(1.0 / math.sqrt(dk))
    plain = softmax((q @ K.swapaxes(-1, -2)) * c)[:, 0, :]
    rows, gaps = [], {}
    for f in (*FACTORS[:2], 1.0, *FACTORS[2:]):
        ca = np.float32(f / math.sqrt(dk))
        hot = softmax((q @ K.swapaxes(-1, -2)) * ca)[:, 0, :]
        absorbed = softmax(((q / np.float32(f)) @ K.swapaxes(-1, -2)) * ca)[:, 0, :]
        gaps[f] = float(np.abs(absorbed - plain).max())
        rows.append(row(f, float(hot.max(axis=1).mean()), "temperature", False))
        rows.append(row(f, float(absorbed.max(axis=1).mean()), "absorbed", True))
    q_ = {**bin_choices(gaps[a], ABSORB_BINS, keys=("same_none", "same_little", "same_lot")), "format": "sci"}
    return {"chart": chart("factor", "max_weight", rows, y_domain=(0.0, 1.0), current=a,
                           series_args={"n": n}),
            "question": q_, "params": {"dk": dk, "n": n, "factor": a}, "draws": draws, "facts": {},
            "gaps": gaps}


def absorb_holds(out: dict[str, Any]) -> bool:
    """With W_Q/a no weight moves by 10⁻⁴ at any a (the identity holds up to float32 rounding)."""
    return max(out["gaps"].values()) < ABSORB_BINS[1]


def trained_step(dk: int, rho: float = 0.5, seed: int = 0) -> dict[str, Any]:
    """q correlated with its matching key only: k₀ = ρq + √(1−ρ²)z, the other keys independent (the
    /beyond model). E[q·k₀/√d_k] = ρ‖q‖²/√d_k → ρ√d_k, not the 0 of "N(0, 1) after scaling" (note 003).
    Asked as the nearest of 0, ρ, ρ√d_k, ρ·d_k (d_k ≥ 4, ρ ≥ 0.2, where they are apart). Before the
    reveal: μP's ρ (÷d_k)."""
    rho = float(rho)
    if not RHO_RANGE[0] <= rho <= RHO_RANGE[1]:
        raise InputError(f"ρ must lie in [{RHO_RANGE[0]}, {RHO_RANGE[1]}], got {rho}")
    dks = [d for d in figure_budget.sweep_dks(dk) if d >= 4]
    means, ses = {}, {}
    for d in dks:
        rng = np.random.default_rng(sub_seed(seed, 92, d))
        s = beyond.one_query_scores(rng, MATCH_TRIALS, 1, d, rho)[:, 0] / math.sqrt(d)
        means[d], ses[d] = float(s.mean()), float(s.std() / math.sqrt(s.size))
    rows = [row(d, rho, "mup_rho", False) for d in dks]
    rows += [row(d, means[d], "matching", True) for d in dks]
    rows += [row(d, rho * math.sqrt(d), "theory_match", True) for d in dks]
    q = nearest_choices(means[dk], [("zero", 0.0), ("rho", rho), ("rho_sqrt_dk", rho * math.sqrt(dk)),
                                    ("rho_dk", rho * dk)], log=False)
    return {"chart": chart("dk", "match_score", rows, y_log=True, current=dk,
                           series_args={"rho": f"{rho:g}"}),
            "question": q, "params": {"dk": dk, "rho": rho}, "draws": MATCH_TRIALS, "facts": {},
            "fit": {d: (means[d], ses[d]) for d in dks}}


def trained_holds(out: dict[str, Any]) -> bool:
    """The matching key's scaled score has mean ρ√d_k (within 5 standard errors at every d_k) and the
    answer ρ√d_k is twice as near the measurement as any other candidate."""
    rho = out["params"]["rho"]
    q = out["question"]
    near = all(abs(m - rho * math.sqrt(d)) < 5 * se for d, (m, se) in out["fit"].items())
    return near and q["choices"][q["correct"][0]]["key"] == "rho_sqrt_dk" and separated(q, log=False)


def length_step(dk: int, n: int, seed: int = 0) -> dict[str, Any]:
    """Mean top weight of softmax(K q/√d_k) over n keys against n, and with λ = ln n (Chiang & Cholak
    2022). Asked: how much it falls from n to 4n (n ≤ 256). Before the reveal: 1/n and the log-n curve."""
    if not 2 <= n <= N_GRID[-1] // 4:
        raise InputError(f"the length step asks about n = 2 … {N_GRID[-1] // 4}, got {n}")
    ns = sorted({*N_GRID, n, 4 * n})
    res = beyond.length_sweep(ns, d_k=dk, trials=LENGTH_TRIALS, seed=seed)["rows"]
    top = {r["n"]: r["max_weight_mean"] for r in res if r["method"] == "none"}
    rows = [row(m, 1.0 / m, "uniform_n", False) for m in ns]
    rows += [row(r["n"], r["max_weight_mean"], "log-n", False) for r in res if r["method"] == "log-n"]
    rows += [row(m, w, "sqrt", True) for m, w in top.items()]
    falls = {m: top[m] / top[4 * m] for m in ns if 4 * m in top}
    q = {**bin_choices(falls[n], LENGTH_FALL_BINS, keys=("fall_none", "fall_less", "fall_like_n")),
         "format": "ratio"}
    return {"chart": chart("n", "max_weight", rows, y_log=True, current=n), "question": q,
            "params": {"dk": dk, "n": n}, "draws": LENGTH_TRIALS, "facts": {"n4": 4 * n},
            "falls": falls, "top": top}


def length_holds(out: dict[str, Any]) -> bool:
    """The top weight falls as n grows, by more than 1.25× but less than 3.5× per 4× in n (slower
    than 1/n), and stays above 1/n at every n."""
    top, falls = out["top"], out["falls"]
    return all(1.25 < f < 3.5 for f in falls.values()) and all(w > 1.0 / m for m, w in top.items())


def modern_step(dk: int, n: int, trials: int, method: str = "qk-norm", seed: int = 0) -> dict[str, Any]:
    """q, k → α·q, α·k (weights grow in training): mean top weight against α under ÷√d_k alone
    (scores ×α²) and under one remedy (QK-norm, cosine/τ, Gemma 2's soft-cap 50). Asked: the remedy's
    rise from α = 1 to 4 over ÷√d_k alone's (d_k ≥ 16). Before the reveal: ÷√d_k alone."""
    if method not in NORM_REMEDIES:
        raise InputError(f"the modern step shows one of {', '.join(NORM_REMEDIES)}, got {method!r}")
    res = beyond.norm_growth_sweep(dk, n, ALPHAS, tau=COSINE_TAU, cap=SOFTCAP, trials=trials, seed=seed,
                                   fit=True)
    top = {(r["alpha"], r["method"]): r["max_weight_mean"] for r in res["rows"]}
    rows = [row(a, top[(a, "sqrt")], "grown", False) for a in ALPHAS]
    rows += [row(a, 1.0 / n, "uniform", False) for a in ALPHAS]
    rows += [row(a, top[(a, method)], method, True) for a in ALPHAS]
    rise = {m: (top[(ALPHA_ASKED, m)] - top[(1.0, m)]) / (top[(ALPHA_ASKED, "sqrt")] - top[(1.0, "sqrt")])
            for m in NORM_REMEDIES}
    q = {**bin_choices(max(rise[method], 0.0), GROWTH_BINS, keys=("grow_none", "grow_less", "grow_same")),
         "format": "ratio"}
    return {"chart": chart("alpha", "max_weight", rows, y_domain=(0.0, 1.0), current=ALPHA_ASKED,
                           series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n, "method": method, "alpha": ALPHA_ASKED},
            "draws": res["params"]["trials"], "facts": {}, "rise": rise}


def modern_holds(out: dict[str, Any]) -> bool:
    """QK-norm and cosine/τ do not rise with α (under a tenth of ÷√d_k alone's rise); Gemma 2's cap of
    50 rises more than half as much (it clips only logits near 50, far past saturation)."""
    rise = out["rise"]
    return abs(rise["qk-norm"]) < 0.1 and abs(rise["cosine"]) < 0.1 and rise["softcap"] > 0.5
