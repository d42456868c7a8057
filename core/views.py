"""What the app's pages show, computed here so pages stay thin: one call, plain data back.

Pure (no Streamlit). Every function reuses core.experiments / core.attention / core.sampling;
what is new here is only the shaping for a figure: the d_k grid of a sweep, how many trials
an interactive figure can afford, one draw laid out for a heatmap, histograms with their
theory curve, and the check of our analytic gradient against torch autograd.
Results are dicts of plain lists / floats (cheap to cache and to turn into a DataFrame).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core import experiments as ex
from core.attention import entropy, jacobian_spectral_norm, softmax, softmax_jacobian
from core.backend import get_backend
from core.errors import InputError
from core.experiments.entropy_grid import trial_seconds
from core.experiments.score_variance import scaled_rows
from core.figure_budget import (
    APP_BUDGET_S,
    DK_GRID,
    N_GRID,
    fit_trials,
    gradient_trials,
    planned_dks,
    precision_queries,
    precision_trials,
    saturation_trials,
    variance_samples,
)
from core.memo import Memo, frozen
from core.sampling import check_distribution, check_rho, dot_products, draw, sub_seed, theory_variance
from core.scales import parse_scale, scale_factor

Progress = Callable[[float], None] | None

HEATMAP_MAX = 128   # cells per side of the attention heatmap before it is down-sampled
JACOBIAN_MAX = 64   # cells per side of the Jacobian heatmap
FP16_MAX = 65504.0
FP16_OVERFLOW_LOGIT = math.log(FP16_MAX)  # ≈ 11.09: exp of a larger logit is inf in float16


# ---------------------------------------------------------------- grids and budgets


def defined_scales(scales: Sequence[str], dks: Sequence[int]) -> tuple[list[str], list[str]]:
    """(usable, skipped): a scale is skipped where it is undefined for some d_k (log at d_k = 1)."""
    ok, skipped = [], []
    for name in scales:
        try:
            for d in dks:
                scale_factor(name, d)
        except InputError:
            skipped.append(name)
        else:
            ok.append(name)
    return ok, skipped


def _defined(scale: str, d: int) -> bool:
    try:
        scale_factor(scale, d)
    except InputError:
        return False
    return True


PARTS = Memo()  # every sweep's rows, by the parameters it was run with (core.memo)


def _grouped(fn: Callable[..., dict[str, Any]], dks: Sequence[int], scales: Sequence[str],
             progress: Progress = None, per_dk: bool = False, **kwargs: Any) -> list[dict[str, Any]]:
    """Rows of fn(dks, scales=…, **kwargs), each scale over the d_k values where it is defined
    (log: d_k ≥ 2), kept in PARTS by what they were run with.

    Scales defined on the same d_k values share one call. Rows are seeded per d_k, not per call,
    so grouping does not change any number. Sorted by (d_k, order of `scales`). `kwargs` are the
    parameters the sweep really runs with (trials after the budget), so two views, or two settings
    of one view, that lead to the same sweep compute it once. `per_dk`: one call (and one kept
    part) per d_k, for experiments whose rows depend on their own d_k alone; moving d_k off the
    grid then computes one new row instead of the whole sweep.
    """
    if not scales:
        raise InputError("give at least one scale")
    groups: dict[tuple[int, ...], list[str]] = {}
    for name in scales:
        groups.setdefault(tuple(d for d in dks if _defined(name, d)), []).append(name)
    calls = [(part, names) for group, names in groups.items() if group
             for part in ([(d,) for d in group] if per_dk else [group])]
    weights = [float(sum(part)) for part, _ in calls]  # the work of a call grows with its d_k
    total, done = sum(weights) or 1.0, 0.0
    rows: list[dict[str, Any]] = []
    for (part, names), weight in zip(calls, weights, strict=True):
        key = (fn.__module__, fn.__qualname__, part, tuple(names), frozen(kwargs))
        span = _progress_span(progress, done / total, (done + weight) / total)
        rows += PARTS.get_or_compute(key, lambda d=part, sc=names, span=span: fn(
            list(d), scales=sc, progress=span, **kwargs)["rows"])
        done += weight
    order = {parse_scale(name).name: i for i, name in enumerate(scales)}
    rows.sort(key=lambda r: (r["dk"], order.get(r["scale"], 0)))
    return rows


def _variance_rows(dks: Sequence[int], scales: Sequence[str], progress: Progress = None,
                   **kwargs: Any) -> list[dict[str, Any]]:
    """core.experiments.variance's rows for every scale, from one kept part per d_k whatever the
    scales: the samples do not depend on the scale (Var(c·q·k) = c²·Var(q·k)), so adding a scale
    draws nothing new. Same numbers and order as _grouped(ex.variance, …)."""
    raw = _grouped(ex.variance, dks, ["none"], progress, per_dk=True, **kwargs)  # c = 1: defined at every d_k
    order = {name: i for i, name in enumerate(scales)}
    rows = []
    for r in raw:
        here = [parse_scale(x) for x in scales if _defined(x, r["dk"])]
        rows += scaled_rows(r["dk"], r["rho"], r["dist"], r["mean_raw"], r["var_raw"], r["var_raw_se"], here)
    rows.sort(key=lambda r: (r["dk"], order.get(r["scale"], 0)))
    return rows


def _plan(dks: Sequence[int], scales: Sequence[str]) -> tuple[list[int], list[str]]:
    """(sorted d_k values of the sweep, canonical scale names)."""
    names = [parse_scale(x).name for x in scales]
    if not names:
        raise InputError("give at least one scale")
    return sorted(set(ex.check_dks(dks))), names


def at_dk(view: dict[str, Any], dk: int) -> dict[str, Any]:
    """The rows of a sweep at one d_k, and the scales that have none there (log at d_k = 1).

    Sweeps are keyed by their d_k values, not by the current d_k, so moving d_k along the grid
    reuses a cached sweep; this picks the current point out of it.
    """
    rows = [r for r in view["rows"] if r["dk"] == dk]
    present = {r["scale"] for r in rows}
    return {"rows": rows, "skipped": [x for x in view["scales"] if x not in present]}


def _is_gpu(backend: str) -> bool:
    return backend == "cupy"


def _progress_span(progress: Progress, lo: float, hi: float) -> Progress:
    """A progress callback mapping [0, 1] onto [lo, hi] of the caller's bar."""
    if progress is None:
        return None
    return lambda f: progress(lo + (hi - lo) * f)


# ---------------------------------------------------------------- overview


def overview_summary(dks: Sequence[int], n: int, scales: Sequence[str], trials: int, seed: int = 0,
                     backend: str = "numpy", dtype: str = "float32", progress: Progress = None
                     ) -> dict[str, Any]:
    """The four-step story for the current settings, each step a sweep over d_k per scale.

    variance (score variance), saturation (max weight, entropy), gradients (median ‖∂L/∂q‖ with its
    95 % interval, common random numbers across d_k: core.experiments.gradient_sweep), per d_k and scale;
    `at_dk(result, d_k)` gives the numbers at the current d_k ("scaling fixes it").
    """
    dks, ok = _plan(dks, scales)
    gpu = _is_gpu(backend)
    planned = planned_dks(dks)
    n_var = variance_samples(trials, n, planned, gpu)
    n_sat = saturation_trials(trials, n, planned, len(ok), gpu)
    n_grad = gradient_trials(trials, n, dks, len(ok), gpu)
    # rho and dist as the variance page passes them, so both pages share the same kept parts
    var = _variance_rows(dks, ok, _progress_span(progress, 0.0, 0.2), trials=n_var, seed=seed, rho=0.0,
                         dist="normal", backend=backend, dtype=dtype)
    sat = _grouped(ex.saturation, dks, ok, _progress_span(progress, 0.2, 0.7), per_dk=True,
                   n=n, trials=n_sat, seed=seed, backend=backend, dtype=dtype)
    grad = _grouped(ex.gradient_sweep, dks, ok, _progress_span(progress, 0.7, 1.0), n=n, trials=n_grad,
                    seed=seed, backend=backend, dtype=dtype)
    rows = []
    for v, s, g in zip(var, sat, grad, strict=True):
        rows.append({"dk": v["dk"], "scale": v["scale"], "var_scaled": v["var_scaled"],
                     "theory_var_scaled": v["c"] ** 2 * v["theory_var"],
                     "max_weight_mean": s["max_weight_mean"], "entropy_mean": s["entropy_mean"],
                     "effective_keys_mean": s["effective_keys_mean"],
                     "grad_q_norm_median": g["grad_q_norm_median"],
                     "grad_q_norm_median_lo": g["grad_q_norm_median_lo"],
                     "grad_q_norm_median_hi": g["grad_q_norm_median_hi"],
                     "grad_q_norm_mean": g["grad_q_norm_mean"]})
    return {"rows": rows, "scales": ok, "dks": dks, "ln_n": math.log(n),
            "trials": {"variance": n_var, "saturation": n_sat, "gradients": n_grad}}


# ---------------------------------------------------------------- variance


def score_samples(dk: int, scale: str, samples: int, seed: int = 0, rho: float = 0.0,
                  dist: str = "normal", bins: int = 48) -> dict[str, Any]:
    """Histograms of raw q·k and scaled c·q·k for one d_k, with the normal of the theory overlaid.

    The same draws as core.experiments.variance for (seed, d_k); the normal N(ρ·d_k, Var) is the
    central-limit approximation (exact only as d_k grows). Densities integrate to one.
    """
    rho = check_rho(rho)
    dist = check_distribution(dist)
    c = scale_factor(scale, dk)
    be = get_backend("numpy", "float32")
    rng = be.rng(sub_seed(seed, 1, dk))
    raw = dot_products(rng, samples, dk, rho, dist, "float32")
    mean_t, var_t = rho * dk, theory_variance(dk, rho, dist)
    out_rows = []
    for kind, x, m, v in (("raw", raw, mean_t, var_t), ("scaled", raw * c, c * mean_t, c * c * var_t)):
        sd = math.sqrt(v) if v > 0 else 1.0
        lo, hi = m - 4.5 * sd, m + 4.5 * sd
        dens, edges = np.histogram(np.clip(x, lo, hi), bins=bins, range=(lo, hi), density=True)
        mid = 0.5 * (edges[:-1] + edges[1:])
        pdf = np.exp(-0.5 * ((mid - m) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
        out_rows += [{"kind": kind, "x0": float(a), "x1": float(b), "x": float(xm), "density": float(d),
                      "theory": float(p)} for a, b, xm, d, p in zip(edges[:-1], edges[1:], mid, dens, pdf,
                                                                   strict=True)]
    return {"rows": out_rows, "c": c, "samples": int(samples),
            "var_raw": float(raw.var(ddof=1)), "var_scaled": float((raw * c).var(ddof=1)),
            "theory_var": var_t, "theory_var_scaled": c * c * var_t, "theory_mean": mean_t}


def variance_view(dks: Sequence[int], n: int, scales: Sequence[str], trials: int, seed: int = 0,
                  rho: float = 0.0, dist: str = "normal", backend: str = "numpy",
                  dtype: str = "float32", progress: Progress = None) -> dict[str, Any]:
    """Variance (and mean) of c·q·k vs d_k per scale, with theory and a 95 % band.

    `samples` (q·k pairs per d_k) is what score_samples should draw for the matching histogram.
    """
    dks, ok = _plan(dks, scales)
    samples = variance_samples(trials, n, planned_dks(dks), _is_gpu(backend), dist)
    res = _variance_rows(dks, ok, progress, trials=samples, seed=seed, rho=rho, dist=dist,
                         backend=backend, dtype=dtype)
    rows = []
    for r in res:
        c2 = r["c"] ** 2
        rows.append({**r, "theory_var_scaled": c2 * r["theory_var"],
                     "band_lo": max(r["var_scaled"] - 1.96 * r["var_scaled_se"], 1e-300),
                     "band_hi": r["var_scaled"] + 1.96 * r["var_scaled_se"],
                     "mean_scaled": r["c"] * r["mean_raw"], "theory_mean_scaled": r["c"] * r["theory_mean"]})
    return {"rows": rows, "scales": ok, "samples": samples}


# ---------------------------------------------------------------- saturation


def _bin_mean(M: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Down-sample a square matrix to at most size × size by averaging blocks of f × f cells."""
    n = M.shape[0]
    f = max(1, math.ceil(n / size))
    if f == 1:
        return M, 1
    starts = np.arange(0, n, f)
    counts = np.diff(np.append(starts, n))
    S = np.add.reduceat(np.add.reduceat(M, starts, axis=0), starts, axis=1)
    return S / np.outer(counts, counts), f


def _grid_cells(M: np.ndarray, f: int) -> dict[str, list]:
    m = M.shape[0]
    i, j = np.meshgrid(np.arange(m) * f, np.arange(m) * f, indexing="ij")
    return {"i": i.ravel().tolist(), "j": j.ravel().tolist(), "value": M.ravel().tolist()}


def one_draw(dk: int, n: int, scale: str, seed: int = 0, query: int | None = None, dist: str = "normal"
             ) -> dict[str, Any]:
    """One draw of Q, K (n × d_k): the weights P = softmax(c·Q Kᵀ), one query's row and its Jacobian.

    `query` None picks the draw's most saturated row, argmaxᵢ maxⱼ P_ij (the worked example that
    shows the effect, docs/science.md §2); `query` and `most_saturated_query` say which row is shown.

    Returned for figures: `heatmap` cells (block-averaged to ≤ 128 per side, factor `heat_factor`),
    `row` (key j, score, weight) for query `query`, that row's max weight, entropy, effective keys,
    its Jacobian J = diag(p) − p pᵀ (≤ 64 per side) and ‖J‖₂, and the draw's saturated rows.
    """
    check_distribution(dist)
    if query is not None and not 0 <= query < n:
        raise InputError(f"query index must lie in [0, {n - 1}], got {query}")
    c = scale_factor(scale, dk)
    be = get_backend("numpy", "float32")
    rng = be.rng(sub_seed(seed, 7, dk, n))
    Q = draw(rng, (n, dk), dist, "float32")
    K = draw(rng, (n, dk), dist, "float32")
    S = (Q @ K.T).astype(np.float64) * c
    P = softmax(S)
    top = int(np.argmax(P.max(axis=1)))
    if query is None:
        query = top
    p = P[query]
    H = entropy(P)
    heat, f = _bin_mean(P, HEATMAP_MAX)
    J = softmax_jacobian(p)
    Jshow, fj = _bin_mean(J, JACOBIAN_MAX)
    return {
        "c": c, "heatmap": _grid_cells(heat, f), "heat_factor": f, "heat_cells": heat.shape[0],
        "row": {"j": list(range(n)), "score": S[query].tolist(), "weight": p.tolist()},
        "row_max_weight": float(p.max()), "row_entropy": float(H[query]),
        "row_effective_keys": float(math.exp(H[query])),
        "saturated_rows": int((P.max(axis=1) > ex.SATURATION_THRESHOLD).sum()),
        "jacobian": _grid_cells(Jshow, fj), "jacobian_factor": fj,
        "jacobian_norm": float(jacobian_spectral_norm(p[None, :])[0]),
        "ln_n": math.log(n), "query": int(query), "most_saturated_query": top,
    }


def saturation_view(dks: Sequence[int], n: int, scales: Sequence[str], trials: int, seed: int = 0,
                    backend: str = "numpy", dtype: str = "float32", progress: Progress = None
                    ) -> dict[str, Any]:
    """Saturation metrics vs d_k per scale (core.experiments.saturation) and their values at d_k."""
    dks, ok = _plan(dks, scales)
    used = saturation_trials(trials, n, planned_dks(dks), len(ok), _is_gpu(backend))
    rows = _grouped(ex.saturation, dks, ok, progress, per_dk=True, n=n, trials=used, seed=seed,
                    backend=backend, dtype=dtype)
    return {"rows": rows, "scales": ok, "trials": used, "ln_n": math.log(n)}


def entropy_grid(scale: str, trials: int, seed: int = 0, ns: Sequence[int] = N_GRID,
                 dks: Sequence[int] = DK_GRID, backend: str = "numpy", dtype: str = "float32",
                 progress: Progress = None) -> dict[str, Any]:
    """Mean entropy (nats) of softmax(c·Q Kᵀ) over a grid of (n, d_k), one scale, with its standard error.

    Each n gets the trials the budget affords for it (at least one draw of n × n rows); the draws are
    common across n and d_k (core.experiments.entropy_grid), so the map changes smoothly along both
    axes. NumPy only: the exact score path runs on the host whatever the backend.
    """
    ok, _ = defined_scales([scale], dks)
    if not ok:
        raise InputError(f"scale {scale!r} is undefined on this d_k grid")
    share = APP_BUDGET_S / max(1, len(ns))  # the whole grid gets one figure's budget

    def trials_for(n: int) -> int:
        return fit_trials(trials, trial_seconds(n, dks), budget_s=share)  # host work, whatever the backend

    used = {n: trials_for(n) for n in ns}  # the key: the trials that run, not the trials asked for
    key = ("entropy_grid", tuple(ns), tuple(dks), parse_scale(scale).name, frozen(used), seed, dtype)
    res = PARTS.get_or_compute(key, lambda: ex.entropy_grid(ns, dks, scale, used.__getitem__, seed=seed,
                                                            dtype=dtype, progress=progress))
    rows = [{"n": r["n"], "dk": r["dk"], "entropy_mean": r["entropy_mean"], "entropy_se": r["entropy_se"],
             "ln_n": r["ln_n"], "entropy_fraction": r["entropy_mean"] / r["ln_n"], "trials": r["trials"]}
            for r in res["rows"]]
    return {"rows": rows, "scale": scale, "trials": {r["n"]: r["trials"] for r in rows}}


# ---------------------------------------------------------------- gradients


def gradient_view(dks: Sequence[int], n: int, scales: Sequence[str], trials: int, seed: int = 0,
                  backend: str = "numpy", dtype: str = "float32", progress: Progress = None
                  ) -> dict[str, Any]:
    """‖∂L/∂q‖ (median with its 95 % interval, mean) and median ‖J‖₂ vs d_k per scale: the gradient
    experiment with common random numbers across d_k (core.experiments.gradient_sweep), so each curve
    is one smooth path."""
    dks, ok = _plan(dks, scales)
    used = gradient_trials(trials, n, dks, len(ok), _is_gpu(backend))
    rows = _grouped(ex.gradient_sweep, dks, ok, progress, n=n, trials=used, seed=seed, backend=backend,
                    dtype=dtype)
    return {"rows": rows, "scales": ok, "trials": used}


def autograd_check(dk: int, n: int, scale: str, seed: int = 0, dist: str = "normal") -> dict[str, Any]:
    """Our analytic ∂L/∂q = c·Kᵀ(J g) (core.experiments.grad_query) against torch autograd, float64.

    One query q and n keys K (drawn as in the gradient experiment's model), g ~ N(0, I_n),
    L = g·softmax(c·K q). Returns both gradients, the largest absolute and relative difference.
    """
    import torch

    check_distribution(dist)
    c = scale_factor(scale, dk)
    be = get_backend("numpy", "float64")
    rng = be.rng(sub_seed(seed, 8, dk, n))
    q = draw(rng, (dk,), dist, "float64")
    K = draw(rng, (n, dk), dist, "float64")
    g = rng.standard_normal(n)
    p = softmax((K @ q) * c)
    ours = ex.grad_query(K, p, g, c)
    tq = torch.tensor(q, dtype=torch.float64, requires_grad=True)
    tK = torch.tensor(K, dtype=torch.float64)
    loss = (torch.tensor(g) * torch.softmax(c * (tK @ tq), dim=-1)).sum()
    loss.backward()
    ref = tq.grad.numpy()
    diff = float(np.abs(ours - ref).max())
    scale_ref = float(np.abs(ref).max())
    # Rounding in either computation is relative to the terms before cancellation, about
    # c·max‖k_j‖·max|g| (the size of ∂L/∂q for unsaturated p), not to the (possibly tiny) result.
    terms = max(scale_ref, c * float(np.linalg.norm(K, axis=1).max()) * float(np.abs(g).max()))
    tolerance = 1e-12 * terms
    return {"analytic": ours.tolist(), "autograd": ref.tolist(), "max_abs_diff": diff,
            "max_rel_diff": diff / scale_ref if scale_ref > 0 else 0.0,
            "tolerance": tolerance, "agrees": diff <= tolerance,
            "grad_norm": float(np.linalg.norm(ours)), "grad_norm_autograd": float(np.linalg.norm(ref)),
            "max_weight": float(p.max()), "dk": dk, "n": n, "scale": parse_scale(scale).name}


# ---------------------------------------------------------------- precision

def precision_view(dks: Sequence[int], n: int, scales: Sequence[str], trials: int, seed: int = 0,
                   progress: Progress = None) -> dict[str, Any]:
    """core.experiments.precision over the d_k sweep, plus where each scale's largest logit passes
    ln 65504 ≈ 11.09 (naive fp16 softmax overflows) and 65504 (the fp16 logit itself is inf)."""
    dks, ok = _plan(dks, scales)
    planned = planned_dks(dks)
    used = precision_trials(trials, n, planned, len(ok))
    queries = precision_queries(n, planned, len(ok))
    rows = _grouped(ex.precision, dks, ok, progress, per_dk=True, n=n, trials=used, seed=seed,
                    queries=None if queries == n else queries)
    crossings = []
    for s in ok:
        fp16 = [r for r in rows if r["scale"] == s and r["dtype"] == "float16"]
        first_exp = next((r["dk"] for r in fp16 if r["max_logit"] > FP16_OVERFLOW_LOGIT), None)
        first_inf = next((r["dk"] for r in fp16 if r["max_logit"] > FP16_MAX), None)
        first_nan = next((r["dk"] for r in fp16 if r["naive_nonfinite_fraction"] > 0), None)
        crossings.append({"scale": s, "dk_exp_overflow": first_exp, "dk_logit_inf": first_inf,
                          "dk_naive_nan": first_nan})
    masks = {}
    for r in rows:
        masks.setdefault(r["dtype"], r["mask_value"])
    return {"rows": rows, "scales": ok, "trials": used, "queries": queries, "crossings": crossings,
            "mask": masks, "mask_value": ex.MASK_VALUE, "fp16_max": FP16_MAX,
            "fp16_overflow_logit": FP16_OVERFLOW_LOGIT}
