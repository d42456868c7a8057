"""The precision experiment: does softmax survive float16, bfloat16, float32? Computed in the dtype.

A naive softmax exp(s)/Σexp(s) overflows once a logit exceeds ln(max) (fp16: ln 65504 ≈ 11.09);
the stable one subtracts the row max first. The −1e9 attention mask is what fp16 cannot hold.

Every operation in the dtype is done as PyTorch's CPU kernels do it for float16 and bfloat16: in
float32, then rounded to the dtype (round to nearest even, overflow to ±inf); a row sum adds in
float32 and rounds once. NumPy does that here (float16 is NumPy's own IEEE half, bfloat16 the top
16 bits of a float32), so the page opens without loading torch; tests/test_precision_rows.py checks
the rows against torch's own float16/bfloat16 tensors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core import budget
from core.backend import get_backend
from core.errors import InputError
from core.results import Progress, Result, result, tick
from core.sampling import check_distribution, cross_scores, draw, sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials, chunks_per_dk

PRECISION_DTYPES: tuple[str, ...] = ("float16", "bfloat16", "float32")
MASK_VALUE = -1e9
# Per dtype: (largest finite value, machine epsilon = the gap above 1).
DTYPE_LIMITS: dict[str, tuple[float, float]] = {
    "float16": (65504.0, 2.0 ** -10),
    "bfloat16": ((2.0 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -7),
    "float32": (float(np.finfo(np.float32).max), 2.0 ** -23),
}


def precision(dks: Sequence[int], n: int = 64, scales: Sequence[str | Scale] = ("none", "sqrt"),
              dtypes: Sequence[str] = PRECISION_DTYPES, trials: int = 64, seed: int = 0,
              dist: str = "normal", progress: Progress = None,
              time_budget: float | None = None, queries: int | None = None) -> Result:
    """Per (d_k, scale, dtype): does softmax survive the dtype? Computed in the dtype (to_dtype).

    Logits c·q·k are formed in float32 and rounded to the dtype, as a model's fp16/bf16 scores are.
    A naive softmax exp(s)/Σexp(s) overflows once a logit exceeds ln(max) (fp16: ln 65504 ≈ 11.09);
    the stable softmax subtracts the row max first. Reports the fraction of rows with inf/NaN
    for each, the largest logit against the dtype's max, and what the −1e9 mask becomes.
    `queries`: query rows per trial, each against all n keys (None: n, a full n × n score matrix);
    rows are exchangeable, so fewer queries estimate the same row fractions from fewer rows.
    """
    dks = check_dks(dks)
    n = check_n(n)
    m = n if queries is None else int(queries)
    if not 1 <= m <= n:
        raise InputError(f"queries must lie in [1, n = {n}], got {queries}")
    trials = check_trials(trials)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    dtype_list = [_check_precision_dtype(t) for t in dtypes]
    if not dtype_list:
        raise InputError("give at least one dtype")
    chunks = chunks_per_dk(lambda d: 4 * ((m + n) * d + 4 * m * n), dks, trials, "precision")
    flops = sum(2.0 * trials * m * n * d for d in dks)
    est = budget.estimate_seconds(flops, 8.0 * trials * m * n * len(dks) * len(scale_list)
                                  * len(dtype_list), sum(trials * (m + n) * d for d in dks))
    budget.check_time(est, "this precision sweep", "fewer trials or a smaller n / d_k", time_budget)
    be = get_backend("numpy", "float32")
    rows, done = [], 0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 4, d, n))
        raws = []
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            raws.append(raw_scores(rng, t, m, n, d, dist))
        raw = np.concatenate(raws).reshape(-1, n)
        for s in scale_list:
            c = scale_factor(s, d)
            logits32 = raw * np.float32(c)
            max_logit = float(np.abs(logits32).max())
            for name in dtype_list:
                dtype_max, eps = DTYPE_LIMITS[name]
                x = to_dtype(logits32, name)
                naive = _softmax_in(x, name, stable=False)
                stable = _softmax_in(x, name, stable=True)
                rows.append({
                    "dk": d, "n": n, "scale": s.name, "dtype": name, "c": c,
                    "max_logit": max_logit,
                    "dtype_max": dtype_max,
                    "overflow_logit": math.log(dtype_max),
                    "logits_inf_fraction": _frac_rows(x, 2.0 * max_logit),
                    "naive_nonfinite_fraction": _frac_rows(naive, 2.0),
                    "stable_nonfinite_fraction": _frac_rows(stable, 2.0),
                    "mask_value": float(to_dtype(np.array([MASK_VALUE], np.float32), name)[0]),
                    "resolution_at_max": _spacing(eps, max_logit),
                })
        done += 1
        tick(progress, done, len(dks))
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "dtype": dtype_list,
              "trials": trials, "queries": m, "seed": seed, "dist": dist}
    return result("precision", be.name, params, rows)


def raw_scores(rng: np.random.Generator, t: int, m: int, n: int, d: int, dist: str) -> np.ndarray:
    """q·k in float32 for t trials of m queries against n keys: normal components with d_k ≥ n from
    the exact Bartlett form (core.sampling.cross_scores: the cost no longer grows with d_k), else
    Q and K drawn and multiplied."""
    if dist == "normal" and d >= n:
        return cross_scores(rng, t, m, n, d, "float32")
    Q = draw(rng, (t, m, d), dist, "float32")
    K = draw(rng, (t, n, d), dist, "float32")
    return Q @ K.swapaxes(-1, -2)


def _check_precision_dtype(name: str) -> str:
    if name not in PRECISION_DTYPES:
        raise InputError(f"unknown dtype {name!r}; choose from {', '.join(PRECISION_DTYPES)}")
    return name


def to_dtype(x: np.ndarray, name: str) -> np.ndarray:
    """float32 values rounded to the dtype `name` (nearest, ties to even; past its max: ±inf),
    held in float32; NaN stays NaN, float32 is returned unchanged.

    Both are bit operations on the float32 word (NumPy's own float16 cast is exact too, but 30×
    slower on values that underflow or overflow, which a saturated softmax is full of):
    - bfloat16 keeps the top 16 bits (8 exponent, 7 mantissa), its range is float32's;
    - float16 keeps 10 mantissa bits; below 2⁻¹⁴ (its subnormals) the step is a fixed 2⁻²⁴, and a
      rounded magnitude above 65504 is inf.
    tests/test_precision_rows.py checks both against torch's casts, bit for bit.
    """
    if name == "float32":
        return x
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    if name == "bfloat16":
        keep, half_ulp, low = np.uint32(0xFFFF0000), np.uint32(0x7FFF), np.uint32(16)
    else:
        keep, half_ulp, low = np.uint32(0xFFFFE000), np.uint32(0x0FFF), np.uint32(13)
    rounded = (bits >> low) & np.uint32(1)
    rounded += bits
    rounded += half_ulp
    rounded &= keep
    size = bits & np.uint32(0x7FFFFFFF)
    if name == "float16":
        # Below 2⁻¹⁴ the grid is k·2⁻²⁴: (x + 0.75) − 0.75 rounds to it, since float32's step
        # between 0.5 and 1 is 2⁻²⁴ (ties to even there are ties to even k).
        with np.errstate(invalid="ignore"):  # a signalling NaN's step is masked out below anyway
            steps = x + np.float32(0.75)
            steps -= np.float32(0.75)
        np.copysign(steps, x, out=steps)
        np.putmask(rounded, size < np.uint32(0x38800000), steps.view(np.uint32))
        over = (rounded & np.uint32(0x7FFFFFFF)) > np.uint32(0x477FE000)  # past 65504
        np.putmask(rounded, over, (bits & np.uint32(0x80000000)) | np.uint32(0x7F800000))
    np.putmask(rounded, size > np.uint32(0x7F800000), bits)  # NaN stays NaN
    return rounded.view(np.float32)


def _softmax_in(x: np.ndarray, name: str, stable: bool) -> np.ndarray:
    """softmax(x)_j = e^{x_j − m} / Σ_l e^{x_l − m} over the last axis, every operation's result
    rounded to the dtype (m = max_l x_l when `stable`, else m = 0: the naive exp(x)/Σexp(x)); the
    sum adds in float32 and rounds once."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        z = to_dtype(x - x.max(axis=-1, keepdims=True), name) if stable else x
        e = to_dtype(np.exp(z), name)
        total = to_dtype(e.sum(axis=-1, keepdims=True, dtype=np.float32), name)
        return to_dtype(e / total, name)


def _frac_rows(a: np.ndarray, largest: float) -> float:
    """The fraction of rows of `a` holding an inf or a NaN, where no finite entry exceeds `largest`.

    A row's float32 sum is inf or NaN exactly when one of its entries is, as long as its finite
    entries cannot add up past float32's max (largest × row length far below 3.4e38): one pass
    instead of an elementwise isfinite.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if largest * a.shape[-1] < 1e37:
            bad = ~np.isfinite(a.sum(axis=-1, dtype=np.float32))
        else:
            bad = (~np.isfinite(a)).any(axis=-1)
    return float(bad.mean())


def _spacing(eps: float, x: float) -> float:
    """The dtype's resolution at x: the gap to the next representable number, eps·2^⌊log₂ x⌋."""
    if not math.isfinite(x) or x <= 0:
        return float("nan")
    return eps * 2.0 ** math.floor(math.log2(x))
