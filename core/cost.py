"""Additive vs dot-product attention: the cost swept over sizes, fitted, and set against the machine's peak.

`explore` times the implementations of core.experiments.attention_cost (dot, additive,
additive-naive, and torch's dot and additive as reference lines) along n at one d and along d at
one n, on the same inputs per size (docs/science.md §3f). The naive form is measured only while one
call stays under a safe time; beyond that its time is extrapolated from the power-law fit of the
points it did measure (core.stats, with a prediction interval). Each point also gets its roofline:
the fastest the FLOPs and tanh evaluations could run at this machine's measured peak (or, on a GPU,
the datasheet's).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from itertools import pairwise
from typing import Any

import numpy as np

from core import budget
from core import experiments as ex
from core.backend import Backend, as_backend, get_backend
from core.errors import InputError
from core.results import Progress
from core.stats import CI_LEVEL, fit_power_law
from core.timing import Clock, time_interleaved

TORCH_IMPLS: tuple[str, ...] = ("dot", "additive")  # torch reference lines
NAIVE = "additive-naive"
# One naive call is measured only while it is predicted to take less than this (seconds).
NAIVE_MAX_SECONDS = 0.5


# ---------------------------------------------------------------- machine peak


def machine_peak(backend: str = "numpy", dtype: str = "float32") -> dict[str, Any]:
    """What this machine can do at best, measured: a large matmul's FLOP/s and tanh elements/s.

    gemm_flops_per_s = 2·N³ / t for one N × N matmul (N = 1024 on CPU, 4096 on GPU), best of 5;
    tanh_per_s = elements / t for tanh over 2²² (CPU) or 2²⁶ (GPU) elements, best of 5.
    "Best" (the fastest repeat) because a peak is a ceiling, not a typical run. Not cached: on a
    shared machine one unlucky measurement must not stand for the process's lifetime (`explore`
    measures before and after its sweep and keeps the better of the two, see `best_peak`).
    On a GPU the datasheet limits are added from the device's properties:
        fp32_flops_per_s = SMs · clock · FP32 lanes per SM · 2 (one FMA is two FLOPs)
        sfu_per_s        = SMs · clock · special-function lanes per SM
    (CUDA C Programming Guide, "Arithmetic Instructions" throughput table). The SFU rate is the
    physical limit for tanh: it is no matrix product and cannot use tensor cores.
    """
    be = get_backend(backend, dtype)
    xp = be.xp
    N, E = (4096, 1 << 26) if be.is_gpu else (1024, 1 << 22)
    rng = be.rng(12345)
    a = rng.standard_normal((N, N), dtype=be.dtype)
    b = rng.standard_normal((N, N), dtype=be.dtype)
    e = rng.standard_normal((E,), dtype=be.dtype)
    clock = Clock.for_engine(be.name, be)
    times, _ = time_interleaved({"gemm": (lambda: a @ b, clock),
                                 "tanh": (lambda: xp.tanh(e, out=e), clock)}, repeats=5)
    gemm, tanh = times["gemm"], times["tanh"]
    out: dict[str, Any] = {
        "backend": be.name, "dtype": be.dtype, "device": be.describe(),
        "gemm_flops_per_s": 2.0 * N**3 / min(gemm), "gemm_size": N,
        "tanh_per_s": E / min(tanh), "tanh_elements": E,
        "fp32_flops_per_s": None, "sfu_per_s": None,
    }
    if be.is_gpu:
        out.update(gpu_datasheet_peak())
    return out


def best_peak(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Per measured rate, the higher of two `machine_peak` results (background load only lowers them)."""
    out = dict(a)
    for key in ("gemm_flops_per_s", "tanh_per_s"):
        out[key] = max(a[key], b[key])
    return out


# FP32 FMA lanes and special-function (MUFU) lanes per SM per clock, by compute capability.
_FP32_LANES = {(5, 0): 128, (5, 2): 128, (6, 0): 64, (6, 1): 128, (7, 0): 64, (7, 5): 64,
               (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128}
_SFU_LANES = {(5, 0): 32, (5, 2): 32, (6, 0): 16, (6, 1): 32, (7, 0): 16, (7, 5): 16,
              (8, 0): 16, (8, 6): 16, (8, 7): 16, (8, 9): 16, (9, 0): 16}


def datasheet_peak(sms: int, clock_hz: float, major: int, minor: int) -> dict[str, float]:
    """fp32_flops_per_s = SMs·clock·lanes·2, sfu_per_s = SMs·clock·SFU lanes (newer parts as 9.0)."""
    cc = (major, minor) if (major, minor) in _FP32_LANES else (9, 0)
    return {"fp32_flops_per_s": sms * clock_hz * _FP32_LANES[cc] * 2.0,
            "sfu_per_s": sms * clock_hz * float(_SFU_LANES[cc])}


def gpu_datasheet_peak() -> dict[str, float]:
    """`datasheet_peak` for the current CuPy device (empty when its clock cannot be read)."""
    import cupy

    dev = cupy.cuda.Device().id
    rt = cupy.cuda.runtime
    # cudaDeviceAttr enum values (CUDA runtime API): MultiProcessorCount 16, ClockRate 13 (kHz),
    # ComputeCapabilityMajor 75, ComputeCapabilityMinor 76.
    try:
        sms, clock_khz, major, minor = (rt.deviceGetAttribute(a, dev) for a in (16, 13, 75, 76))
    except Exception:  # an attribute missing from this CUDA version: no datasheet line
        return {}
    return datasheet_peak(int(sms), clock_khz * 1e3, int(major), int(minor))


def roofline_seconds(flops: float, special: float, peak: dict[str, Any]) -> float:
    """The fastest a workload can run: max(FLOPs / FLOP rate, special functions / tanh rate).

    Uses the datasheet rates on a GPU when known, else the measured ones.
    """
    f = peak.get("fp32_flops_per_s") or peak["gemm_flops_per_s"]
    s = peak.get("sfu_per_s") or peak["tanh_per_s"]
    return max(flops / f, special / s)


# ---------------------------------------------------------------- the sweep


def geometric_sizes(lo: int, hi: int) -> list[int]:
    """Powers of two from lo to hi (both rounded to powers of two), e.g. 128..1024 → 128 256 512 1024."""
    lo, hi = int(lo), int(hi)
    if lo < 1 or hi < lo:
        raise InputError(f"need 1 ≤ low ≤ high, got {lo}..{hi}")
    a, b = round(math.log2(lo)), round(math.log2(hi))
    return [2**k for k in range(a, b + 1)]


def explore(ns: Sequence[int], ds: Sequence[int], d_h: int | None = None, n_at: int | None = None,
            d_at: int | None = None, impls: Sequence[str] = ex.IMPLS, torch_ref: bool = True,
            backend: str | Backend = "numpy", dtype: str = "float32", repeats: int = 5,
            seed: int = 0, naive_max_seconds: float = NAIVE_MAX_SECONDS,
            time_budget: float | None = None, level: float = CI_LEVEL,
            progress: Progress = None) -> dict[str, Any]:
    """Time vs n (at d = d_at) and time vs d (at n = n_at) for each implementation, with fits.

    d_h = None ties the additive hidden size to d (d_h = d), so along d the naive form's
    4·n²·d·d_h becomes the notes' n²d². Naive points predicted to exceed `naive_max_seconds` per
    call are not run; their time is the fit's extrapolation (with a prediction interval).

    Returns {"experiment": "cost-sweep", "backend", "device", "params", "rows", "fits", "ratios",
    "table", "peak"}:
      rows    one per (axis, impl, engine, size): the cost row plus axis, series, measured,
              seconds_lo/seconds_hi (min/max when measured, prediction interval when not),
              anchor (the last measured point before extrapolated ones, where a dashed line starts),
              bound_seconds/bound_gflops_per_s (the roofline) and max_abs_diff (vs the reference:
              our `additive` for naive and torch additive, our `dot` for torch dot).
      fits    one per (axis, impl, engine) with ≥ 2 measured sizes: exponent and its CI, and
              model_exponent (the same fit on the model's FLOPs).
      ratios  time(impl)/time(dot) along n, per additive series.
      table   the model and the measurements at the largest n, per series.
      peak    `machine_peak`.
    """
    be = as_backend(backend, dtype)
    ns = sorted({ex.check_n(n) for n in ns})
    ds = sorted({ex.positive_int(d, "d") for d in ds})
    if not ns or not ds:
        raise InputError("give at least one n and one d")
    impl_list = [ex.check_impl(i) for i in impls]
    if "dot" not in impl_list:
        impl_list = ["dot", *impl_list]  # every ratio is against dot
    if d_h is not None:
        d_h = ex.positive_int(d_h, "d_h")
    repeats = ex.positive_int(repeats, "repeats")
    if not naive_max_seconds > 0:
        raise InputError("naive_max_seconds must be positive")
    n_at = ex.check_n(n_at) if n_at is not None else ns[len(ns) // 2]
    d_at = ex.positive_int(d_at, "d") if d_at is not None else ds[len(ds) // 2]
    series = [(i, be.name) for i in impl_list]
    if torch_ref:
        series += [(i, "torch") for i in TORCH_IMPLS if i in impl_list]
    axes = {"n": [(n, d_at) for n in ns], "d": [(n_at, d) for d in ds]}
    _check_budget(axes, series, be, d_h, repeats, naive_max_seconds, time_budget)

    peak = machine_peak(be.name, be.dtype)  # again after the sweep; the better of the two is kept
    total = sum(len(p) for p in axes.values())
    done = 0
    cache: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    fits: list[dict[str, Any]] = []
    for axis, points in axes.items():
        measured: dict[tuple[str, str], list[dict[str, Any]]] = {s: [] for s in series}
        for n, d in points:
            h = d_h or d
            todo = [s for s in series if (*s, n, d) not in cache
                    and not _skip(s, measured[s], axis, n, d, h, be, level, naive_max_seconds)]
            if todo:
                within = None if progress is None else partial(_within, progress, done, total)
                for s, row in ex.measure_points(be, todo, n, d, h, seed, repeats,
                                                between=within).items():
                    cache[(*s, n, d)] = row
            outs = {s: cache[(*s, n, d)].get("output") for s in series if (*s, n, d) in cache}
            for s in series:
                impl, eng = s
                if (*s, n, d) in cache:
                    row = {k: v for k, v in cache[(*s, n, d)].items() if k != "output"}
                    row["measured"] = True
                    row["seconds_lo"], row["seconds_hi"] = row["seconds_min"], row["seconds_max"]
                    ref_key = ("dot" if impl == "dot" else "additive", be.name)
                    ref = outs.get(ref_key)
                    row["max_abs_diff"] = (None if s == ref_key or ref is None
                                           else float(np.abs(outs[s] - ref).max()))
                    measured[s].append(row)
                else:
                    row = _extrapolated_row(impl, eng, n, d, h, be, measured[s], axis, level)
                row["axis"] = axis
                row["series"] = impl if eng == be.name else f"{impl} ({eng})"
                row["anchor"] = False
                row["bound_seconds"] = roofline_seconds(row["flops"], row["special"], peak)
                row["bound_gflops_per_s"] = row["flops"] / row["bound_seconds"] / 1e9
                rows.append(row)
            done += 1
            if progress is not None:
                progress(done / total)
        for s in series:  # the last measured point starts the dashed, extrapolated line
            line = [r for r in rows if r["axis"] == axis and (r["impl"], r["engine"]) == s]
            for a, b in pairwise(line):
                a["anchor"] = a["measured"] and not b["measured"]
            pts = measured[s]
            if len(pts) >= 2:
                fit = fit_power_law([r[axis] for r in pts], [r["seconds"] for r in pts], level)
                model = fit_power_law([r[axis] for r in pts], [r["flops"] for r in pts], level)
                fits.append({"axis": axis, "impl": s[0], "engine": s[1],
                             "series": s[0] if s[1] == be.name else f"{s[0]} ({s[1]})",
                             "exponent": fit.exponent, "ci_low": fit.ci_low, "ci_high": fit.ci_high,
                             "intercept": fit.intercept, "points": fit.points, "r2": fit.r2,
                             "model_exponent": model.exponent})
    after = best_peak(peak, machine_peak(be.name, be.dtype))
    if after != peak:  # the rooflines follow the better peak
        peak = after
        for row in rows:
            row["bound_seconds"] = roofline_seconds(row["flops"], row["special"], peak)
            row["bound_gflops_per_s"] = row["flops"] / row["bound_seconds"] / 1e9
    order = {s: k for k, s in enumerate(series)}
    rows.sort(key=lambda r: (r["axis"] != "n", order[(r["impl"], r["engine"])], r[r["axis"]]))
    params = {"n": ns, "d": ds, "d_h": d_h, "n_at": n_at, "d_at": d_at, "impl": impl_list,
              "torch": torch_ref, "dtype": be.dtype, "repeats": repeats, "seed": seed,
              "naive_max_seconds": naive_max_seconds, "level": level,
              "threads": None if be.is_gpu else cpu_threads(torch_ref)}
    return {"experiment": "cost-sweep", "backend": be.name, "device": be.describe(), "params": params,
            "rows": rows, "fits": fits, "ratios": _ratios(rows), "table": _table(rows, ns[-1], d_at),
            "peak": peak}


def _skip(s: tuple[str, str], measured: list[dict[str, Any]], axis: str, n: int, d: int, h: int,
          be: Backend, level: float, naive_max_seconds: float) -> bool:
    """Leave a naive point unmeasured when one call is predicted to take over naive_max_seconds.

    The smallest size is always measured, so there is something to extrapolate from.
    """
    if s[0] != NAIVE or not measured:
        return False
    return _predict(measured, axis, n, d, h, s[0], be, level)[0] > naive_max_seconds


def cpu_threads(torch_ref: bool = True) -> dict[str, int | None]:
    """The threads the CPU engines time with, as they are now: NumPy's BLAS pool ("blas") and
    torch's intra-op pool ("torch"; None without the torch lines). The app's server runs each at
    one thread (two computations share its two cores); the command line leaves the libraries'
    defaults (one per core)."""
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    # NumPy's own library (numpy.libs/…): SciPy, loaded later for the fits, ships another
    numpy_blas = [i["num_threads"] for i in blas if "numpy" in i["filepath"]]
    threads = numpy_blas or [i["num_threads"] for i in blas]
    torch_threads = None
    if torch_ref:
        import torch

        torch_threads = torch.get_num_threads()
    return {"blas": max(threads) if threads else None, "torch": torch_threads}


def _within(progress: Callable[[float], Any], done: int, total: int, fraction: float) -> None:
    """Progress within one point of the sweep (`fraction` of its timed calls made), as a share of
    all `total` points: reported after every call, so a shared server's other work can go first
    between two calls (the page pauses a heavy job there) instead of after the whole point."""
    progress((done + fraction) / total)


def _check_budget(axes: dict[str, list[tuple[int, int]]], series: list[tuple[str, str]], be: Backend,
                  d_h: int | None, repeats: int, naive_max: float, time_budget: float | None) -> None:
    """Refuse a sweep whose estimated time exceeds the budget; naive counts at most its cap."""
    item = np.dtype(be.dtype).itemsize
    est = 0.0
    for points in axes.values():
        for n, d in points:
            h = d_h or d
            budget.chunk_trials(int(4 * item * n * d + item * n * n + item * (1 << 22)), 1, "cost")
            for impl, _ in series:
                m = ex.cost_model(impl, n, d, h, item)
                one = budget.estimate_seconds(m["flops"], m["special"], gpu=be.is_gpu)
                est += (repeats + 1) * (min(one, naive_max) if impl == NAIVE else one)
    budget.check_time(est, "this cost sweep", "a smaller n or d range, or fewer repeats", time_budget)


def _predict(measured: list[dict[str, Any]], axis: str, n: int, d: int, h: int, impl: str,
             be: Backend, level: float) -> tuple[float, float, float]:
    """(seconds, low, high) expected for the next size: the fit when ≥ 2 points, else FLOP scaling."""
    if len(measured) >= 2:
        fit = fit_power_law([r[axis] for r in measured], [r["seconds"] for r in measured], level)
        x = n if axis == "n" else d
        lo, hi = fit.interval(x)
        return fit.predict(x), lo, hi
    m = ex.cost_model(impl, n, d, h, np.dtype(be.dtype).itemsize)
    if measured:
        s = measured[-1]["seconds"] * m["flops"] / measured[-1]["flops"]
    else:
        s = budget.estimate_seconds(m["flops"], m["special"], gpu=be.is_gpu)
    return s, s, s


def _extrapolated_row(impl: str, eng: str, n: int, d: int, h: int, be: Backend,
                      measured: list[dict[str, Any]], axis: str, level: float) -> dict[str, Any]:
    """A row not run: seconds from the fit (or FLOP scaling from one point), flagged measured=False."""
    s, lo, hi = _predict(measured, axis, n, d, h, impl, be, level)
    m = ex.cost_model(impl, n, d, h, np.dtype(be.dtype).itemsize)
    return {"impl": impl, "n": n, "d": d, "d_h": h, "seconds": s, "seconds_min": lo, "seconds_max": hi,
            "repeats": 0, **m, "gflops_per_s": m["flops"] / s / 1e9, "engine": eng,
            "timer": "extrapolated", "measured": False, "seconds_lo": lo, "seconds_hi": hi,
            "max_abs_diff": None}


def _ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """time(series)/time(dot on the same engine) at each n of the n axis, for the additive series."""
    dot = {(r["engine"], r["n"]): r["seconds"] for r in rows if r["axis"] == "n" and r["impl"] == "dot"}
    out = []
    for r in rows:
        if r["axis"] != "n" or r["impl"] == "dot" or (r["engine"], r["n"]) not in dot:
            continue
        base = dot[(r["engine"], r["n"])]
        out.append({"series": r["series"], "impl": r["impl"], "engine": r["engine"], "n": r["n"],
                    "d": r["d"], "ratio": r["seconds"] / base, "ratio_lo": r["seconds_lo"] / base,
                    "ratio_hi": r["seconds_hi"] / base, "measured": r["measured"],
                    "flop_ratio": r["flops"] / next(x["flops"] for x in rows if x["axis"] == "n"
                                                    and x["impl"] == "dot" and x["n"] == r["n"])})
    return out


def _table(rows: list[dict[str, Any]], n: int, d: int) -> list[dict[str, Any]]:
    """Model next to measurement at (n, d), one line per series."""
    keys = ("series", "impl", "engine", "n", "d", "d_h", "flops", "special", "intermediate_bytes",
            "bytes", "seconds", "gflops_per_s", "bound_gflops_per_s", "measured", "max_abs_diff")
    return [{k: r[k] for k in keys} for r in rows if r["axis"] == "n" and r["n"] == n and r["d"] == d]


__all__ = ["NAIVE_MAX_SECONDS", "TORCH_IMPLS", "best_peak", "datasheet_peak", "explore", "geometric_sizes",
           "gpu_datasheet_peak", "machine_peak", "roofline_seconds"]
