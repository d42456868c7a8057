"""Q and K are not interchangeable: the softmax normalises over keys, and the gradients differ.

With S = c·Q Kᵀ (queries in rows, keys in columns):

    A      = softmax(S)       row i sums over the keys j:     A_ij = e^{S_ij} / Σ_j' e^{S_ij'}
    A_swap = softmax(K Qᵀ·c) = softmax(Sᵀ), row j sums over the queries i:
                               (A_swap)_ji = e^{S_ij} / Σ_i' e^{S_i'j}
The scores are the same numbers; only the normalisation differs, so A ≠ A_swapᵀ in general.
Tying W_K = W_Q makes S = c·Q Qᵀ symmetric with a heavy diagonal: S_ii = c‖q_i‖² ≈ c·d_k
(√d_k under ÷√d_k) while off-diagonal S_ij ~ N(0, 1).

Gradients of L = Σ G ⊙ O with O = A V (G the upstream gradient), from the same inputs:

    dA = G Vᵀ,  dS = A ⊙ (dA − rowsum(A ⊙ dA)),  ∂L/∂Q = c·dS K,  ∂L/∂K = c·dSᵀ Q.
∂L/∂k_j gathers column j of dS over every query, ∂L/∂q_i row i over every key.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core import budget, figure_budget
from core import experiments as ex
from core.attention import softmax, softmax_backward
from core.errors import InputError
from core.results import Progress
from core.sampling import draw, sub_seed
from core.scales import scale_factor


def projections(rng: Any, n: int, d_k: int, d_model: int, tie: bool) -> tuple[np.ndarray, np.ndarray]:
    """Q = X W_Q, K = X W_K with X ~ N(0, 1) (n × d_model), W ~ N(0, 1/d_model): unit-variance q, k.

    tie=True uses W_K = W_Q, hence K = Q.
    """
    X = draw(rng, (n, d_model), "normal", "float64")
    Wq = draw(rng, (d_model, d_k), "normal", "float64") / math.sqrt(d_model)
    Wk = Wq if tie else draw(rng, (d_model, d_k), "normal", "float64") / math.sqrt(d_model)
    return X @ Wq, X @ Wk


def normalisations(n: int = 8, d_k: int = 64, d_model: int = 64, seed: int = 0, tie: bool = False,
                   scale: str = "sqrt") -> dict[str, Any]:
    """One draw: S = c·Q Kᵀ, A = softmax(S) over keys, A_swap = softmax(c·K Qᵀ) over queries.

    Returns the three n × n matrices (as lists) and metrics: the largest |A − A_swapᵀ|, the range
    of A's column sums (its row sums are 1), the asymmetry ‖S − Sᵀ‖_F / ‖S‖_F (0 when tied), the
    mean diagonal weight of A against 1/n, and the mean diagonal score against c·d_k.
    """
    n, d_k, d_model = _check(n, d_k, d_model)
    c = scale_factor(scale, d_k)
    rng = np.random.default_rng(sub_seed(seed, 80, n, d_k, d_model, int(tie)))
    Q, K = projections(rng, n, d_k, d_model, tie)
    S = c * (Q @ K.T)
    A = softmax(S)
    A_swap = softmax(c * (K @ Q.T))
    col = A.sum(axis=0)
    metrics = {
        "max_abs_diff_swap": float(np.abs(A - A_swap.T).max()),
        "col_sum_min": float(col.min()), "col_sum_max": float(col.max()),
        "row_sum_max_dev": float(np.abs(A.sum(axis=1) - 1.0).max()),
        "asymmetry": float(np.linalg.norm(S - S.T) / max(np.linalg.norm(S), 1e-300)),
        "diag_weight_mean": float(np.diag(A).mean()), "uniform_weight": 1.0 / n,
        "diag_score_mean": float(np.diag(S).mean()), "theory_diag_score": c * d_k,
        "argmax_diag_fraction": float((A.argmax(axis=1) == np.arange(n)).mean()),
    }
    return {"n": n, "d_k": d_k, "d_model": d_model, "tie": tie, "scale": scale, "c": c,
            "S": S.tolist(), "A": A.tolist(), "A_swap": A_swap.tolist(), "metrics": metrics}


def _through_gram(n: int, d_model: int) -> bool:
    """Whether `_projected` draws Q and K through the n × n Gram matrix of X (d_model ≥ 2n, where
    X Xᵀ/d_model is well conditioned) rather than through W_Q and W_K."""
    return d_model >= 2 * n


def _projected(rng: Any, t: int, n: int, d_k: int, d_model: int, tie: bool) -> tuple[np.ndarray, np.ndarray]:
    """`t` draws of Q = X W_Q, K = X W_K (t × n × d_k) as in `projections`; K = Q when tied.

    Given X, each column of X W (W ~ N(0, 1/d_model)) is N(0, X Xᵀ/d_model), independently of the
    others: so Q = L Z_Q and K = L Z_K with L Lᵀ = X Xᵀ/d_model (Cholesky) and Z ~ N(0, 1) (n × d_k)
    has exactly the same distribution, from n·d_model + 2n·d_k normal draws instead of
    n·d_model + 2·d_model·d_k (at n = 8, d_k = d_model = 128: eleven times fewer). Used where
    d_model ≥ 2n (`_through_gram`); otherwise W_Q and W_K are drawn.
    """
    X = draw(rng, (t, n, d_model), "normal", "float64")
    if _through_gram(n, d_model):
        L = np.linalg.cholesky(X @ X.swapaxes(-1, -2) / d_model)
        Q = L @ draw(rng, (t, n, d_k), "normal", "float64")
        return Q, (Q if tie else L @ draw(rng, (t, n, d_k), "normal", "float64"))
    Wq = draw(rng, (t, d_model, d_k), "normal", "float64") / math.sqrt(d_model)
    Wk = Wq if tie else draw(rng, (t, d_model, d_k), "normal", "float64") / math.sqrt(d_model)
    return X @ Wq, X @ Wk


def tying_bytes_per_trial(n: int, d_k: int, d_model: int) -> int:
    """Bytes one trial of tying_stats holds at once (float64): X, then W_Q and W_K (d_model × d_k
    each, which dominate at large d_k) or the Gram factor and two n × d_k draws (`_projected`), Q, K,
    S, A and the softmax's temporaries."""
    weights = 2 * n * d_k + n * n if _through_gram(n, d_model) else 2 * d_model * d_k
    return 8 * (n * d_model + weights + 2 * n * d_k + 4 * n * n)


def tying_stats(n: int = 16, d_k: int = 64, d_model: int = 64, trials: int = 200, seed: int = 0,
                scale: str = "sqrt", progress: Progress = None) -> dict[str, Any]:
    """Over `trials` draws, untied vs tied (W_K = W_Q): mean diagonal weight A_ii (± se), how often
    a query attends most to itself, and the asymmetry of S. Theory for tied: S_ii ≈ c·d_k.

    Each draw has its own X and W_Q, W_K (d_model × d_k; through X's Gram matrix where d_model ≥ 2n,
    `_projected`), so the trials are taken in chunks of at most core.budget.CHUNK_BYTES
    (tying_bytes_per_trial): memory stays bounded whatever `trials`.
    """
    n, d_k, d_model = _check(n, d_k, d_model)
    trials = ex.check_trials(trials)
    c = scale_factor(scale, d_k)
    chunk = budget.chunk_trials(tying_bytes_per_trial(n, d_k, d_model), trials, "tying statistics")
    rows = []
    for k, tie in enumerate((False, True)):
        rng = np.random.default_rng(sub_seed(seed, 81, n, d_k, d_model, int(tie)))
        per_trial, asym, diag_score = np.empty(trials), np.empty(trials), np.empty(trials)
        self_hits = 0
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            Q, K = _projected(rng, t, n, d_k, d_model, tie)
            S = c * (Q @ K.swapaxes(-1, -2))
            A = softmax(S)
            part = slice(start, start + t)
            per_trial[part] = np.diagonal(A, axis1=-2, axis2=-1).mean(axis=-1)
            asym[part] = (np.linalg.norm(S - S.swapaxes(-1, -2), axis=(-2, -1))
                          / np.linalg.norm(S, axis=(-2, -1)))
            diag_score[part] = np.diagonal(S, axis1=-2, axis2=-1).mean(axis=-1)
            self_hits += int((A.argmax(axis=-1) == np.arange(n)).sum())
            if progress is not None:
                progress((k + (start + t) / trials) / 2)
        rows.append({"tie": tie, "diag_weight_mean": float(per_trial.mean()),
                     "diag_weight_se": float(per_trial.std(ddof=1) / math.sqrt(trials)),
                     "argmax_diag_fraction": self_hits / (trials * n),
                     "asymmetry_mean": float(asym.mean()),
                     "diag_score_mean": float(diag_score.mean()),
                     "theory_diag_score": c * d_k if tie else 0.0, "uniform_weight": 1.0 / n})
    return {"experiment": "tying", "backend": "numpy",
            "params": {"n": n, "d_k": d_k, "d_model": d_model, "trials": trials, "seed": seed,
                       "scale": scale}, "rows": rows}


def closed_form_grads(Q: np.ndarray, K: np.ndarray, V: np.ndarray, G: np.ndarray, c: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """∂L/∂Q = c·dS K and ∂L/∂K = c·dSᵀ Q for L = Σ G ⊙ softmax(c Q Kᵀ) V (module docstring)."""
    A = softmax(c * (Q @ K.swapaxes(-1, -2)))
    dA = G @ V.swapaxes(-1, -2)
    dS = softmax_backward(A, dA)
    return c * (dS @ K), c * (dS.swapaxes(-1, -2) @ Q)


def autograd_grads(Q: np.ndarray, K: np.ndarray, V: np.ndarray, G: np.ndarray, c: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The same two gradients from torch autograd (float64), batched over leading axes."""
    import torch

    tq = torch.tensor(Q, dtype=torch.float64, requires_grad=True)
    tk = torch.tensor(K, dtype=torch.float64, requires_grad=True)
    tv = torch.tensor(V, dtype=torch.float64)
    out = torch.softmax(c * (tq @ tk.transpose(-1, -2)), dim=-1) @ tv
    (out * torch.tensor(G, dtype=torch.float64)).sum().backward()
    return tq.grad.numpy(), tk.grad.numpy()


def grad_bytes_per_trial(n: int, d_k: int) -> int:
    """Bytes one trial of grad_asymmetry holds at once (float64): Q, K, V, G, their torch copies,
    both pairs of gradients and the n × n intermediates of autograd and the closed form."""
    return 8 * (14 * n * d_k + 10 * n * n)


def grad_asymmetry(n: int = 16, d_k: int = 64, trials: int = 200, seed: int = 0,
                   scales: tuple[str, ...] = ("none", "sqrt"), progress: Progress = None
                   ) -> dict[str, Any]:
    """‖∂L/∂Q‖ vs ‖∂L/∂K‖ from torch autograd on the same Q, K, V, G ~ N(0, 1) (n × d_k each).

    Per scale: Frobenius norms (mean), the mean ratio ‖∂L/∂Q‖_F/‖∂L/∂K‖_F, and how unevenly the
    gradient spreads over rows — the coefficient of variation std/mean of the n row norms and
    the share of the largest row; the mean relative per-draw difference |‖∂L/∂Q‖ − ‖∂L/∂K‖| / mean.
    Also the largest |autograd − closed form|, one example draw's row norms ("example") and every
    draw's pair of Frobenius norms ("pairs"). The draws are taken in chunks of at most
    core.budget.CHUNK_BYTES (grad_bytes_per_trial).
    """
    n = ex.check_n(n)
    d_k = ex.check_dks([d_k])[0]
    trials = ex.check_trials(trials)
    rng = np.random.default_rng(sub_seed(seed, 82, n, d_k))
    chunk = budget.chunk_trials(grad_bytes_per_trial(n, d_k), trials, "gradient asymmetry")
    # per scale and gradient (∂L/∂Q, ∂L/∂K), per trial: Frobenius norm, row-norm CV, top-row share
    per = {(scale, name): {"f": np.empty(trials), "cv": np.empty(trials), "top": np.empty(trials)}
           for scale in scales for name in ("Q", "K")}
    err = dict.fromkeys(scales, 0.0)
    example: dict[str, dict[str, list[float]]] = {}
    for start in range(0, trials, chunk):
        t = min(chunk, trials - start)
        Q, K, V, G = (draw(rng, (t, n, d_k), "normal", "float64") for _ in range(4))
        part = slice(start, start + t)
        for scale in scales:
            c = scale_factor(scale, d_k)
            dQ, dK = autograd_grads(Q, K, V, G, c)
            cQ, cK = closed_form_grads(Q, K, V, G, c)
            err[scale] = max(err[scale], float(np.abs(dQ - cQ).max()), float(np.abs(dK - cK).max()))
            for name, grad in (("Q", dQ), ("K", dK)):
                r = np.linalg.norm(grad, axis=-1)  # t × n row norms
                v = per[(scale, name)]
                v["f"][part] = np.linalg.norm(r, axis=-1)
                v["cv"][part] = r.std(axis=-1) / np.maximum(r.mean(axis=-1), 1e-300)
                v["top"][part] = r.max(axis=-1) / np.maximum(r.sum(axis=-1), 1e-300)
                if start == 0:
                    example.setdefault(scale, {})[name] = r[0].tolist()
        if progress is not None:
            progress((start + t) / trials)
    rows: list[dict[str, Any]] = []
    pairs: dict[str, dict[str, list[float]]] = {}
    for scale in scales:
        for name in ("Q", "K"):
            f, cv, top = (per[(scale, name)][k] for k in ("f", "cv", "top"))
            rows.append({"scale": scale, "wrt": name, "frob_mean": float(f.mean()),
                         "frob_median": float(np.median(f)),
                         "row_cv_mean": float(cv.mean()),
                         "row_cv_se": float(cv.std(ddof=1) / math.sqrt(trials)),
                         "top_row_share_mean": float(top.mean()), "uniform_share": 1.0 / n,
                         "max_abs_err_vs_closed_form": err[scale]})
        fq, fk = per[(scale, "Q")]["f"], per[(scale, "K")]["f"]
        ratio = fq / np.maximum(fk, 1e-300)
        rel = np.abs(fq - fk) / np.maximum(0.5 * (fq + fk), 1e-300)
        rows.append({"scale": scale, "wrt": "ratio", "ratio_mean": float(ratio.mean()),
                     "ratio_median": float(np.median(ratio)),
                     "ratio_se": float(ratio.std(ddof=1) / math.sqrt(trials)),
                     "rel_diff_mean": float(rel.mean()),
                     "max_abs_err_vs_closed_form": err[scale]})
        pairs[scale] = {"Q": fq.tolist(), "K": fk.tolist()}
    return {"experiment": "qk_grads", "backend": "torch",
            "params": {"n": n, "d_k": d_k, "trials": trials, "seed": seed, "scale": list(scales)},
            "rows": rows, "example": example, "pairs": pairs}


def _check(n: int, d_k: int, d_model: int) -> tuple[int, int, int]:
    n = ex.check_n(n)
    d_k = ex.check_dks([d_k])[0]
    d_model = ex.check_dks([d_model])[0]
    if n > 64:
        raise InputError(f"n is at most 64 here (an n × n heatmap), got {n}")
    return n, d_k, d_model


def fitted_trials(n: int, d_k: int, d_model: int, trials: int) -> tuple[int, int]:
    """(trials used, trials asked): `trials` lowered to what an interactive figure affords for one
    trial of the tying statistics and the gradient asymmetry together (core.views' budget)."""
    asked = ex.check_trials(trials)
    # One trial: X for each case (untied, tied), then Q and K (_projected), and the four n × d_k
    # draws of the gradient asymmetry.
    if _through_gram(n, d_model):  # X Xᵀ and its Cholesky factor per case, times three draws
        flops = 2.0 * (2 * n * n * d_model + n ** 3 + 3 * n * n * d_k)
        drawn = 3.0 * n * d_k
    else:  # X W_Q, X W_K untied, X W_Q tied
        flops, drawn = 2.0 * 3 * n * d_model * d_k, 3.0 * d_model * d_k
    per_trial = budget.estimate_seconds(
        flops=flops + 2.0 * n * n * d_k + 2.0 * 12 * n * n * d_k,
        elementwise=12.0 * n * n, samples=drawn + 2.0 * n * d_model + 4.0 * n * d_k)
    return max(2, figure_budget.fit_trials(asked, per_trial)), asked


def view(n: int = 8, d_k: int = 64, d_model: int = 64, seed: int = 0, tie: bool = False,
         trials: int = 200, scale: str = "sqrt", progress: Progress = None) -> dict[str, Any]:
    """The Q-vs-K page's first half, in one call: one draw laid out as heatmap cells
    (S, A = softmax over keys, softmax(K Qᵀ)ᵀ = S normalised over queries) and the tying
    statistics over `trials` (lowered by `fitted_trials`). NumPy only: the autograd half is
    `grad_view`, so the page shows this half while torch loads.
    """
    one = normalisations(n, d_k, d_model, seed, tie, scale)
    trials, asked = fitted_trials(n, d_k, d_model, trials)
    S, A, B = one["S"], one["A"], one["A_swap"]
    cells = [{"i": i, "j": j, "S": S[i][j], "A": A[i][j], "A_swap_T": B[j][i]}
             for i in range(one["n"]) for j in range(one["n"])]
    if progress is not None:
        progress(0.2)
    tying = tying_stats(n, d_k, d_model, trials, seed, scale,
                        progress=None if progress is None else lambda f: progress(0.2 + 0.8 * f))
    return {"draw": {k: v for k, v in one.items() if k not in ("S", "A", "A_swap")}, "cells": cells,
            "tying": tying["rows"], "params": {"n": n, "d_k": d_k, "d_model": d_model, "seed": seed,
                                               "tie": tie, "trials": trials, "trials_asked": asked,
                                               "scale": scale}}


def grad_view(n: int = 8, d_k: int = 64, d_model: int = 64, seed: int = 0, trials: int = 200,
              scale: str = "sqrt", progress: Progress = None) -> dict[str, Any]:
    """The Q-vs-K page's second half: the gradient asymmetry (`grad_asymmetry`: the closed form
    checked against torch autograd) over the same number of trials as `view`, unscaled and `scale`."""
    trials, _ = fitted_trials(n, d_k, d_model, trials)
    grads = grad_asymmetry(n, d_k, trials, seed, ("none", scale), progress=progress)
    return {"grads": grads["rows"], "example": grads["example"], "pairs": grads["pairs"],
            "trials": trials, "scale": scale}
