"""The precision experiment: does softmax survive float16, bfloat16, float32? Computed in the dtype (torch).

A naive softmax exp(s)/Σexp(s) overflows once a logit exceeds ln(max) (fp16: ln 65504 ≈ 11.09);
the stable one subtracts the row max first. The −1e9 attention mask is what fp16 cannot hold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core import budget
from core.backend import get_backend
from core.errors import InputError
from core.results import Progress, Result, result, tick
from core.sampling import check_distribution, draw, sub_seed
from core.scales import Scale, scale_factor
from core.validate import check_dks, check_n, check_scales, check_trials, chunks_per_dk

PRECISION_DTYPES: tuple[str, ...] = ("float16", "bfloat16", "float32")
MASK_VALUE = -1e9


def precision(dks: Sequence[int], n: int = 64, scales: Sequence[str | Scale] = ("none", "sqrt"),
              dtypes: Sequence[str] = PRECISION_DTYPES, trials: int = 64, seed: int = 0,
              dist: str = "normal", progress: Progress = None,
              time_budget: float | None = None, queries: int | None = None) -> Result:
    """Per (d_k, scale, dtype): does softmax survive the dtype? Computed in the real dtype (torch).

    Logits c·q·k are formed in float32 and rounded to the dtype, as a model's fp16/bf16 scores are.
    A naive softmax exp(s)/Σexp(s) overflows once a logit exceeds ln(max) (fp16: ln 65504 ≈ 11.09);
    the stable softmax subtracts the row max first. Reports the fraction of rows with inf/NaN
    for each, the largest logit against the dtype's max, and what the −1e9 mask becomes.
    `queries`: query rows per trial, each against all n keys (None: n, a full n × n score matrix);
    rows are exchangeable, so fewer queries estimate the same row fractions from fewer rows.
    """
    import torch

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
            Q = draw(rng, (t, m, d), dist, "float32")
            K = draw(rng, (t, n, d), dist, "float32")
            raws.append(torch.from_numpy(Q @ K.swapaxes(-1, -2)))
        raw = torch.cat(raws).reshape(-1, n)
        for s in scale_list:
            c = scale_factor(s, d)
            logits32 = raw * c
            max_logit = float(logits32.abs().max())
            for name in dtype_list:
                tdt = getattr(torch, name)
                info = torch.finfo(tdt)
                x = logits32.to(tdt)
                naive = torch.exp(x)
                naive = naive / naive.sum(dim=-1, keepdim=True)
                stable = torch.softmax(x, dim=-1) if name == "float32" else _stable_in(x)
                rows.append({
                    "dk": d, "n": n, "scale": s.name, "dtype": name, "c": c,
                    "max_logit": max_logit,
                    "dtype_max": float(info.max),
                    "overflow_logit": math.log(float(info.max)),
                    "logits_inf_fraction": _frac_rows(x, 2.0 * max_logit),
                    "naive_nonfinite_fraction": _frac_rows(naive, 2.0),
                    "stable_nonfinite_fraction": _frac_rows(stable, 2.0),
                    "mask_value": float(torch.tensor(MASK_VALUE).to(tdt).float()),
                    "resolution_at_max": _spacing(tdt, max_logit),
                })
        done += 1
        tick(progress, done, len(dks))
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "dtype": dtype_list,
              "trials": trials, "queries": m, "seed": seed, "dist": dist}
    return result("precision", be.name, params, rows)


def _check_precision_dtype(name: str) -> str:
    if name not in PRECISION_DTYPES:
        raise InputError(f"unknown dtype {name!r}; choose from {', '.join(PRECISION_DTYPES)}")
    return name


def _stable_in(x: Any) -> Any:
    """Max-subtracted softmax with every operation in x's own dtype (no upcast inside)."""
    z = x - x.max(dim=-1, keepdim=True).values
    e = z.exp()
    return e / e.sum(dim=-1, keepdim=True)


def _frac_rows(a: Any, largest: float) -> float:
    """The fraction of rows of `a` holding an inf or a NaN, where no finite entry exceeds `largest`.

    A row's float32 sum is inf or NaN exactly when one of its entries is, as long as its finite
    entries cannot add up past float32's max (largest × row length far below 3.4e38): one pass
    in float32 instead of an elementwise isfinite in the dtype (5–10× faster on the CPU in fp16).
    """
    import torch

    if largest * a.shape[-1] < 1e37:
        bad = ~torch.isfinite(a.sum(dim=-1, dtype=torch.float32))
    else:
        bad = (~torch.isfinite(a)).any(dim=-1)
    return float(bad.float().mean())


def _spacing(tdt: Any, x: float) -> float:
    """The dtype's resolution at x: the gap to the next representable number, eps·2^⌊log₂ x⌋."""
    import torch

    if not math.isfinite(x) or x <= 0:
        return float("nan")
    return float(torch.finfo(tdt).eps) * 2.0 ** math.floor(math.log2(x))
