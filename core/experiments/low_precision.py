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
              time_budget: float | None = None) -> Result:
    """Per (d_k, scale, dtype): does softmax survive the dtype? Computed in the real dtype (torch).

    Logits c·q·k are formed in float32 and rounded to the dtype, as a model's fp16/bf16 scores are.
    A naive softmax exp(s)/Σexp(s) overflows once a logit exceeds ln(max) (fp16: ln 65504 ≈ 11.09);
    the stable softmax subtracts the row max first. Reports the fraction of rows with inf/NaN
    for each, the largest logit against the dtype's max, and what the −1e9 mask becomes.
    """
    import torch

    dks = check_dks(dks)
    n = check_n(n)
    trials = check_trials(trials)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    dtype_list = [_check_precision_dtype(t) for t in dtypes]
    if not dtype_list:
        raise InputError("give at least one dtype")
    chunks = chunks_per_dk(lambda d: 4 * (2 * n * d + 4 * n * n), dks, trials, "precision")
    flops = sum(2.0 * trials * n * n * d for d in dks)
    est = budget.estimate_seconds(flops, 8.0 * trials * n * n * len(dks) * len(scale_list)
                                  * len(dtype_list), sum(2.0 * trials * n * d for d in dks))
    budget.check_time(est, "this precision sweep", "fewer trials or a smaller n / d_k", time_budget)
    be = get_backend("numpy", "float32")
    rows, done = [], 0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 4, d, n))
        raws = []
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            Q = draw(rng, (t, n, d), dist, "float32")
            K = draw(rng, (t, n, d), dist, "float32")
            raws.append(torch.from_numpy(Q @ K.swapaxes(-1, -2)))
        raw = torch.cat(raws).reshape(-1, n)
        for s in scale_list:
            c = scale_factor(s, d)
            logits32 = raw * c
            for name in dtype_list:
                tdt = getattr(torch, name)
                info = torch.finfo(tdt)
                x = logits32.to(tdt)
                naive = torch.exp(x)
                naive = naive / naive.sum(dim=-1, keepdim=True)
                stable = torch.softmax(x, dim=-1) if name == "float32" else _stable_in(x)
                rows.append({
                    "dk": d, "n": n, "scale": s.name, "dtype": name, "c": c,
                    "max_logit": float(logits32.abs().max()),
                    "dtype_max": float(info.max),
                    "overflow_logit": math.log(float(info.max)),
                    "logits_inf_fraction": _frac_rows(~torch.isfinite(x)),
                    "naive_nonfinite_fraction": _frac_rows(~torch.isfinite(naive)),
                    "stable_nonfinite_fraction": _frac_rows(~torch.isfinite(stable)),
                    "mask_value": float(torch.tensor(MASK_VALUE).to(tdt).float()),
                    "resolution_at_max": _spacing(tdt, float(logits32.abs().max())),
                })
        done += 1
        tick(progress, done, len(dks))
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "dtype": dtype_list,
              "trials": trials, "seed": seed, "dist": dist}
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


def _frac_rows(bad: Any) -> float:
    return float(bad.any(dim=-1).float().mean())


def _spacing(tdt: Any, x: float) -> float:
    """The dtype's resolution at x: the gap to the next representable number, eps·2^⌊log₂ x⌋."""
    import torch

    if not math.isfinite(x) or x <= 0:
        return float("nan")
    return float(torch.finfo(tdt).eps) * 2.0 ** math.floor(math.log2(x))
