"""Additive vs dot-product attention: the cost, modelled and measured (SCIENCE.md §3f).

One sweep times three ways of computing O = softmax(S) V on the active backend:

    dot             S = Q Kᵀ/√d_k                      2n²d_k  (one GEMM, softmax, one GEMM)
    additive        A = Q W₁ᵀ, B = K W₂ᵀ once (4·n·d·d_h), then s_ij = Σ_h v_h tanh(A_ih + B_jh)
                    (n²·d_h tanh, 3·n²·d_h FLOPs)
    additive-naive  the projections again for every pair: 4·n²·d·d_h (the notes' O(n²d²))

plus, optionally, torch as a reference line (`scaled_dot_product_attention`; the factored additive
scores in torch). The naive form is measured only while one call stays under a safe time; beyond
that its time is extrapolated from the fit of the points it did measure.

Exponents come from ordinary least squares on log t = a + b·log x with a Student-t confidence
interval, b ± t_{(1+level)/2, m−2}·se(b). SciPy is not a dependency: the t distribution is computed
here from the regularised incomplete beta function.

Timing: one warm-up call (its output is kept and checked against the reference implementation),
then `repeats` timed calls; median, min and max are reported. On a GPU each call is bracketed by
CUDA events; on the CPU by `time.perf_counter`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import pairwise
from typing import Any

import numpy as np

from core import budget
from core import experiments as ex
from core.backend import Backend, get_backend
from core.errors import InputError

Progress = Callable[[float], None] | None

TORCH_IMPLS: tuple[str, ...] = ("dot", "additive")  # torch reference lines
NAIVE = "additive-naive"
# One naive call is measured only while it is predicted to take less than this (seconds).
NAIVE_MAX_SECONDS = 0.5
CI_LEVEL = 0.95


# ---------------------------------------------------------------- Student t, from scratch


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz), as in Numerical Recipes §6.4."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) = B(x; a, b) / B(a, b), for a, b > 0 and 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):  # the continued fraction converges fast here
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with df degrees of freedom: 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0."""
    if df <= 0:
        raise InputError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    x, y = df / (df + t * t), t * t / (df + t * t)  # x + y = 1; pass the smaller one, unrounded
    tail = 0.5 * betainc(0.5 * df, 0.5, x) if x < 0.5 else 0.5 * (1.0 - betainc(0.5, 0.5 * df, y))
    return 1.0 - tail if t >= 0 else tail


@lru_cache(maxsize=512)
def t_quantile(p: float, df: float) -> float:
    """The t with P(T ≤ t) = p (Student's t, df degrees of freedom), by bisection on `t_cdf`.

    Bisection on a bracket that doubles until it holds the root: slow-ish (≈ 100 CDF calls) but
    exact to double precision for any df > 0, including df = 1 (Cauchy, t₀.₉₇₅ = 12.706).
    """
    if not 0.0 < p < 1.0:
        raise InputError(f"quantile level must lie in (0, 1), got {p}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    hi = 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return 0.5 * (lo + hi)


# ---------------------------------------------------------------- log–log fit


@dataclass(frozen=True)
class PowerFit:
    """t ≈ e^a · x^b fitted by OLS on (log x, log t); b is the exponent, [b_lo, b_hi] its CI."""

    exponent: float
    ci_low: float
    ci_high: float
    intercept: float  # a, natural log
    points: int
    r2: float
    level: float
    resid_std: float  # s, the residual standard deviation in log space (NaN when m < 3)
    x_mean: float  # mean of log x (for prediction intervals)
    sxx: float  # Σ (log x − mean)²

    def predict(self, x: float) -> float:
        """e^a · x^b."""
        return math.exp(self.intercept + self.exponent * math.log(x))

    def interval(self, x: float) -> tuple[float, float]:
        """Prediction interval for one new log t at x: ŷ ± t_q·s·√(1 + 1/m + (log x − x̄)²/Sxx).

        Returns (low, high) in seconds; the point estimate on both sides when m < 3.
        """
        y = self.intercept + self.exponent * math.log(x)
        if self.points < 3 or not math.isfinite(self.resid_std):
            return math.exp(y), math.exp(y)
        tq = t_quantile(0.5 + self.level / 2.0, self.points - 2)
        half = tq * self.resid_std * math.sqrt(1.0 + 1.0 / self.points
                                               + (math.log(x) - self.x_mean) ** 2 / self.sxx)
        return math.exp(y - half), math.exp(y + half)


def fit_power_law(x: Sequence[float], t: Sequence[float], level: float = CI_LEVEL) -> PowerFit:
    """Exponent b of t ∝ x^b by ordinary least squares on y = log t against u = log x.

        b = Σ(u − ū)(y − ȳ) / Σ(u − ū)²,   a = ȳ − b ū,
        s² = Σ (y − a − b u)² / (m − 2),   se(b) = s / √Σ(u − ū)²,
        CI = b ± t_{(1+level)/2, m−2} · se(b).
    Needs m ≥ 2 distinct positive x and positive t; with m = 2 the line is exact and the CI is
    unknown (NaN on both sides).
    """
    if not 0.0 < level < 1.0:
        raise InputError(f"confidence level must lie in (0, 1), got {level}")
    if len(x) != len(t):
        raise InputError("x and t must have the same length")
    pairs = [(float(a), float(b)) for a, b in zip(x, t, strict=True)]
    if any(not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)) for a, b in pairs):
        raise InputError("a log–log fit needs positive, finite x and t")
    u = [math.log(a) for a, _ in pairs]
    y = [math.log(b) for _, b in pairs]
    m = len(u)
    if m < 2 or len(set(u)) < 2:
        raise InputError("a fit needs at least two distinct sizes")
    u_mean, y_mean = sum(u) / m, sum(y) / m
    sxx = sum((ui - u_mean) ** 2 for ui in u)
    sxy = sum((ui - u_mean) * (yi - y_mean) for ui, yi in zip(u, y, strict=True))
    b = sxy / sxx
    a = y_mean - b * u_mean
    ssr = sum((yi - a - b * ui) ** 2 for ui, yi in zip(u, y, strict=True))
    syy = sum((yi - y_mean) ** 2 for yi in y)
    r2 = 1.0 - ssr / syy if syy > 0 else 1.0
    if m >= 3:
        s = math.sqrt(ssr / (m - 2))
        half = t_quantile(0.5 + level / 2.0, m - 2) * s / math.sqrt(sxx)
        lo, hi = b - half, b + half
    else:
        s, lo, hi = float("nan"), float("nan"), float("nan")
    return PowerFit(exponent=b, ci_low=lo, ci_high=hi, intercept=a, points=m, r2=r2, level=level,
                    resid_std=s, x_mean=u_mean, sxx=sxx)


# ---------------------------------------------------------------- timing

MAX_SECONDS = 10.0  # stop repeating (after at least two rounds) once this much time was spent
MIN_ROUND_SECONDS = 0.02  # rounds faster than this are repeated more (see time_interleaved)
AUTORANGE = 5  # … up to this many times the requested repeats


class _Clock:
    """Times one call: perf_counter on the CPU; CUDA events recorded on the stream on a GPU."""

    def __init__(self, engine: str, be: Backend) -> None:
        self.event: Callable[[], Any] | None = None
        if be.is_gpu and engine == "torch":
            import torch

            self.event = lambda: torch.cuda.Event(enable_timing=True)
            self.elapsed: Callable[[Any, Any], float] = lambda s, e: s.elapsed_time(e) / 1e3
        elif be.is_gpu:
            cp = be.xp
            self.event = cp.cuda.Event
            self.elapsed = lambda s, e: cp.cuda.get_elapsed_time(s, e) / 1e3

    @property
    def name(self) -> str:
        return "perf_counter" if self.event is None else "cuda-events"

    def run(self, fn: Callable[[], Any]) -> float:
        """Seconds of one fn() call, the GPU work included."""
        if self.event is None:
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0
        start, stop = self.event(), self.event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return self.elapsed(start, stop)


def time_interleaved(fns: dict[Any, tuple[Callable[[], Any], _Clock]], repeats: int = 5,
                     warmup: int = 1, max_seconds: float = MAX_SECONDS,
                     min_round_seconds: float = MIN_ROUND_SECONDS
                     ) -> tuple[dict[Any, list[float]], dict[Any, Any]]:
    """Time several functions round-robin (a, b, c, a, b, c, …) so background load hits each alike.

    Each gets `warmup` untimed calls (the last one's output is returned, for checking), then
    `repeats` timed ones. Fast rounds are noisy, so while one round takes under
    min_round_seconds, more rounds follow (up to AUTORANGE× repeats, until the rounds together
    took min_round_seconds × repeats). Once max_seconds have passed, at least two rounds are kept.
    Returns (seconds per timed call, warm-up output) per key.
    """
    outputs: dict[Any, Any] = {}
    for k, (fn, clock) in fns.items():
        for _ in range(warmup):
            outputs[k] = fn()
        if clock.event is not None and warmup:  # let queued GPU work finish before timing
            clock.run(lambda: None)
    times: dict[Any, list[float]] = {k: [] for k in fns}
    t_start = time.perf_counter()
    r = 0
    while r < AUTORANGE * repeats:
        for k, (fn, clock) in fns.items():
            times[k].append(clock.run(fn))
        r += 1
        elapsed = time.perf_counter() - t_start
        if r >= 2 and elapsed > max_seconds:
            break
        if r >= repeats and elapsed >= min_round_seconds * repeats:
            break
    return times, outputs


def _summary(times: list[float]) -> dict[str, float]:
    return {"seconds": float(np.median(times)), "seconds_min": float(min(times)),
            "seconds_max": float(max(times)), "repeats": len(times)}


# ---------------------------------------------------------------- one point


def torch_impl(impl: str, x: dict[str, Any], d: int) -> Any:
    """The torch reference of `impl` on the same inputs (torch tensors), returning O (n × d).

    dot: `torch.nn.functional.scaled_dot_product_attention` with scale 1/√d; additive: the
    factored scores, in the same ~4M-element blocks of the n_b × n × d_h tanh cube as ours.
    """
    import torch
    import torch.nn.functional as F

    if impl == "dot":
        return F.scaled_dot_product_attention(x["Q"][None], x["K"][None], x["V"][None],
                                              scale=1.0 / math.sqrt(d))[0]
    if impl != "additive":
        raise InputError(f"no torch reference for {impl!r}")
    A, B, v = x["Q"] @ x["W1"].T, x["K"] @ x["W2"].T, x["v"]
    n, d_h = A.shape
    S = torch.empty((n, B.shape[0]), dtype=A.dtype, device=A.device)
    block = max(1, (1 << 22) // max(1, B.shape[0] * d_h))
    for start in range(0, n, block):
        S[start:start + block] = torch.tanh(A[start:start + block, None, :] + B[None]) @ v
    return torch.softmax(S, dim=-1) @ x["V"]


def measure_points(be: Backend, series: Sequence[tuple[str, str]], n: int, d: int, d_h: int,
                   seed: int = 0, repeats: int = 5, warmup: int = 1) -> dict[tuple[str, str], dict]:
    """Time every (impl, engine) of `series` at one size on the same inputs, interleaved per engine.

    engine is the backend's own name (NumPy/CuPy through `experiments.run_impl`) or "torch".
    Each row: impl n d d_h seconds seconds_min seconds_max repeats flops special bytes
    intermediate_bytes gflops_per_s engine timer, and `output` (O as float64 NumPy, from warm-up).
    """
    item = np.dtype(be.dtype).itemsize
    x = ex.cost_inputs(be, n, d, d_h, seed)
    fns: dict[tuple[str, str], tuple[Callable[[], Any], _Clock]] = {}
    tx: dict[str, Any] | None = None
    for impl, eng in series:
        if eng == "torch":
            if tx is None:
                tx = _torch_inputs(x, be)
            fns[(impl, eng)] = (partial(torch_impl, impl, tx, d), _Clock(eng, be))
        else:
            fns[(impl, eng)] = (partial(ex.run_impl, impl, x, d), _Clock(eng, be))
    ctx: Any = nullcontext()
    if tx is not None:
        import torch

        ctx = torch.no_grad()
    times: dict[tuple[str, str], list[float]] = {}
    outputs: dict[tuple[str, str], Any] = {}
    with ctx:
        # Interleave within one engine only: alternating NumPy's BLAS threads with torch's OpenMP
        # pool makes each pay the other's thread wake-ups (measured: dot ×1.5 at n = 512).
        for eng in dict.fromkeys(e for _, e in fns):
            group = {k: v for k, v in fns.items() if k[1] == eng}
            t, out = time_interleaved(group, repeats, warmup)
            times.update(t)
            outputs.update(out)
    rows = {}
    for (impl, eng), (_, clock) in fns.items():
        m = ex.cost_model(impl, n, d, d_h, item)
        row: dict[str, Any] = {"impl": impl, "n": n, "d": d, "d_h": d_h, **_summary(times[(impl, eng)]),
                               **m}
        row["gflops_per_s"] = m["flops"] / row["seconds"] / 1e9
        row["engine"], row["timer"] = eng, clock.name
        out = outputs.get((impl, eng))
        if out is not None:
            row["output"] = (out.cpu().numpy() if eng == "torch" else be.asnumpy(out)).astype(np.float64)
        rows[(impl, eng)] = row
    return rows


def _torch_inputs(x: dict[str, Any], be: Backend) -> dict[str, Any]:
    import torch

    if be.is_gpu and not torch.cuda.is_available():
        raise InputError("this torch build has no CUDA, so there is no torch reference on the GPU")
    return {k: torch.as_tensor(v, device="cuda" if be.is_gpu else "cpu") for k, v in x.items()}


def measure_point(be: Backend, impl: str, n: int, d: int, d_h: int, seed: int = 0, repeats: int = 5,
                  engine: str | None = None, warmup: int = 1) -> dict[str, Any]:
    """`measure_points` for one series, without the output: the row `experiments.cost` reports."""
    row = measure_points(be, [(impl, engine or be.name)], n, d, d_h, seed, repeats, warmup)
    row = next(iter(row.values()))
    row.pop("output", None)
    return row


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
    clock = _Clock(be.name, be)
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
    be = backend if isinstance(backend, Backend) else get_backend(backend, dtype)
    ns = sorted({ex.check_n(n) for n in ns})
    ds = sorted({ex._positive_int(d, "d") for d in ds})
    if not ns or not ds:
        raise InputError("give at least one n and one d")
    impl_list = [ex._check_impl(i) for i in impls]
    if "dot" not in impl_list:
        impl_list = ["dot", *impl_list]  # every ratio is against dot
    if d_h is not None:
        d_h = ex._positive_int(d_h, "d_h")
    repeats = ex._positive_int(repeats, "repeats")
    if not naive_max_seconds > 0:
        raise InputError("naive_max_seconds must be positive")
    n_at = ex.check_n(n_at) if n_at is not None else ns[len(ns) // 2]
    d_at = ex._positive_int(d_at, "d") if d_at is not None else ds[len(ds) // 2]
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
                for s, row in measure_points(be, todo, n, d, h, seed, repeats).items():
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
              "naive_max_seconds": naive_max_seconds, "level": level}
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


__all__ = ["CI_LEVEL", "NAIVE_MAX_SECONDS", "PowerFit", "best_peak", "betainc", "datasheet_peak",
           "explore", "fit_power_law", "geometric_sizes", "machine_peak", "measure_point", "measure_points",
           "roofline_seconds", "t_cdf", "t_quantile", "time_interleaved", "torch_impl"]
