"""The experiments behind every figure: variance, saturation, gradients, precision, cost, bench.

Each returns a `Result` {"experiment", "backend", "params", "rows"} with one row per combination
of parameters. Work is vectorised over trials and chunked so memory stays bounded; it is
estimated and refused (BudgetError) before it starts when it would not fit.
Every row is seeded from (seed, its own parameters), so a row does not depend on which
other rows were asked for: same seed, same backend → same numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

import numpy as np

from core import budget
from core.attention import (
    attention,
    entropy_from_scores,
    jacobian_spectral_norm,
    softmax,
    softmax_backward,
)
from core.backend import Backend, get_backend
from core.errors import InputError
from core.sampling import (
    check_distribution,
    check_rho,
    correlate,
    draw,
    gram_scores,
    sub_seed,
    theory_variance,
)
from core.scales import Scale, parse_scale, scale_factor

Result = dict[str, Any]
Progress = Callable[[float], None] | None

SATURATION_THRESHOLD = 0.99  # a row is saturated when its max weight exceeds this (SCIENCE.md §1)
MAX_WEIGHT_QUANTILES = (0.1, 0.5, 0.9)


# ---------------------------------------------------------------- validation


def check_dks(dks: Iterable[int]) -> list[int]:
    out = [_positive_int(d, "d_k") for d in dks]
    if not out:
        raise InputError("give at least one d_k")
    return out


def check_n(n: int) -> int:
    n = _positive_int(n, "n")
    if n < 2:
        raise InputError(f"n must be ≥ 2 (softmax over one key is always 1), got {n}")
    return n


def check_trials(trials: int) -> int:
    return _positive_int(trials, "trials")


def check_scales(scales: Iterable[str | Scale], dks: Sequence[int]) -> list[Scale]:
    out = [s if isinstance(s, Scale) else parse_scale(s) for s in scales]
    if not out:
        raise InputError("give at least one scale")
    for s in out:
        for d in dks:
            scale_factor(s, d)  # raises where undefined (log at d_k = 1)
    return out


def _positive_int(x: Any, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        if isinstance(x, float) and x.is_integer():
            x = int(x)
        else:
            raise InputError(f"{name} must be a whole number, got {x!r}")
    if x <= 0:
        raise InputError(f"{name} must be ≥ 1, got {x}")
    return int(x)


def _chunks(bytes_per_trial: Callable[[int], int], dks: Sequence[int], trials: int,
            what: str) -> dict[int, int]:
    """Trials per chunk for each d_k, decided by that d_k alone (so a row never depends on the
    other rows of the sweep); every d_k is checked against the memory budget before any work."""
    return {d: budget.chunk_trials(bytes_per_trial(d), trials, what) for d in dks}


def _result(experiment: str, backend: Backend, params: dict[str, Any], rows: list[dict]) -> Result:
    return {"experiment": experiment, "backend": backend.name, "params": params, "rows": rows}


def _tick(progress: Progress, done: float, total: float) -> None:
    if progress is not None:
        progress(min(1.0, done / max(total, 1e-12)))


# ---------------------------------------------------------------- variance


def variance(dks: Sequence[int], scales: Sequence[str | Scale] = ("sqrt",), trials: int = 20000,
             seed: int = 0, rho: float = 0.0, dist: str = "normal", backend: str | Backend = "numpy",
             dtype: str = "float32", progress: Progress = None) -> Result:
    """Per d_k and scale: mean and variance of the raw dot product q·k and of c·(q·k).

    Theory: E[q·k] = ρ·d_k, Var(q·k) = d_k·(1 + ρ²(κ − 2)) (κ = E[x⁴]; normal: d_k·(1 + ρ²)),
    and Var(c·q·k) = c²·Var(q·k). `var_raw_se` is the standard error of the sample variance.
    """
    be = _backend(backend, dtype)
    dks = check_dks(dks)
    trials = check_trials(trials)
    rho = check_rho(rho)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = _chunks(lambda d: 3 * d * item, dks, trials, "variance")
    total = sum(2.0 * trials * d for d in dks)
    budget.check_time(budget.estimate_seconds(samples=total, elementwise=total, gpu=be.is_gpu),
                      "this variance sweep", "fewer trials or a smaller d_k")
    rows, done = [], 0.0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 1, d))
        dots = []
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            q = draw(rng, (t, d), dist, be.dtype)
            k = correlate(rng, q, rho, be.dtype) if rho else draw(rng, (t, d), dist, be.dtype)
            dots.append(be.asnumpy((q * k).sum(axis=1, dtype="float64")))
            done += 2.0 * t * d
            _tick(progress, done, total)
        x = np.concatenate(dots)
        mean = float(x.mean())
        c2 = x - mean
        s2 = float((c2 * c2).mean())
        s4 = float((c2**4).mean())
        var_raw = s2 * trials / max(1, trials - 1)
        se = math.sqrt(max(0.0, s4 - s2 * s2) / trials)
        for s in scale_list:
            c = scale_factor(s, d)
            rows.append({
                "dk": d, "rho": rho, "scale": s.name, "dist": dist,
                "mean_raw": mean, "var_raw": var_raw, "var_raw_se": se,
                "theory_mean": rho * d, "theory_var": theory_variance(d, rho, dist),
                "c": c, "var_scaled": c * c * var_raw, "var_scaled_se": c * c * se,
            })
    params = {"dk": dks, "scale": [s.name for s in scale_list], "trials": trials, "seed": seed,
              "rho": rho, "dist": dist, "dtype": be.dtype}
    return _result("variance", be, params, rows)


# ---------------------------------------------------------------- saturation


def _kernels_run(be: Backend | None) -> bool:
    """Our CUDA kernels take this work: on a CuPy backend, or on the CPU emulator inside
    core.gpu.emulated() (tests and `python -m core.kernels.gpu_check --emulate`)."""
    if be is not None and be.is_gpu:
        return True
    from core import gpu

    return gpu.emulating()


def saturation(dks: Sequence[int], n: int = 64, scales: Sequence[str | Scale] = ("none", "sqrt"),
               trials: int = 256, seed: int = 0, rho: float = 0.0, dist: str = "normal",
               backend: str | Backend = "numpy", dtype: str = "float32",
               progress: Progress = None, time_budget: float | None = None) -> Result:
    """Per (d_k, n, scale): how peaked softmax(c · Q Kᵀ) is, over `trials` draws of n queries and n keys.

    Per row i: max weight max_j p_ij, entropy H = −Σ_j p_ij ln p_ij (nats), effective keys exp(H),
    saturated when max weight > 0.99. Means are over all rows of all trials.
    With ρ ≠ 0 each query's own key is correlated with it: k_i = ρ·q_i + √(1 − ρ²)·z_i.
    The raw scores are drawn once per d_k and shared by every scale.
    """
    be = _backend(backend, dtype)
    dks = check_dks(dks)
    n = check_n(n)
    trials = check_trials(trials)
    rho = check_rho(rho)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = _chunks(lambda d: item * (2 * n * d + 3 * n * n), dks, trials, "saturation")
    flops = sum(2.0 * trials * n * n * d for d in dks)
    elem = 3.0 * trials * n * n * len(dks) * len(scale_list)
    samples = sum(2.0 * trials * n * d for d in dks)
    est = budget.estimate_seconds(flops, elem, samples, gpu=be.is_gpu)
    fit = max(1, int(trials * (time_budget or budget.TIME_BUDGET) / max(est, 1e-9)))
    budget.check_time(est, "this saturation sweep", f"--trials {fit} or a smaller n / d_k",
                      time_budget)
    rows, done = [], 0.0
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 2, d, n))
        acc = {s.name: _SatAccumulator() for s in scale_list}
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            raw = _raw_scores(rng, t, n, d, rho, dist, be.dtype)
            fused = None
            if _kernels_run(be):  # fused scores → softmax → row statistics (kernels/softmax_stats.cu)
                from core import gpu

                fused = gpu.row_stats_or_none(raw, [scale_factor(s, d) for s in scale_list])
            for s in scale_list:
                if fused is not None:  # None: kernel unavailable, reference path below
                    pmax, H = fused.pop(0)
                    acc[s.name].add(be.asnumpy(pmax).ravel(), be.asnumpy(H).ravel())
                    continue
                S = raw * raw.dtype.type(scale_factor(s, d))
                pmax, H = entropy_from_scores(S)
                acc[s.name].add(be.asnumpy(pmax).ravel(), be.asnumpy(H).ravel())
            done += 2.0 * t * n * n * d
            _tick(progress, done, flops)
        for s in scale_list:
            rows.append({"dk": d, "n": n, "scale": s.name, "c": scale_factor(s, d),
                         **acc[s.name].summary(n)})
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "trials": trials,
              "seed": seed, "rho": rho, "dist": dist, "dtype": be.dtype}
    return _result("saturation", be, params, rows)


def _raw_scores(rng: Any, t: int, n: int, d: int, rho: float, dist: str, dtype: str) -> Any:
    """Raw scores Q Kᵀ for t trials of n queries and n keys (k_i correlated with q_i at ρ).

    Normal components with d_k ≥ n use the exact Gram sampler (cost independent of d_k);
    otherwise Q and K are drawn and multiplied.
    """
    if dist == "normal" and d >= n:
        return gram_scores(rng, t, n, d, rho, dtype)
    Q = draw(rng, (t, n, d), dist, dtype)
    K = correlate(rng, Q, rho, dtype) if rho else draw(rng, (t, n, d), dist, dtype)
    return Q @ K.swapaxes(-1, -2)


class _SatAccumulator:
    def __init__(self) -> None:
        self.pmax: list[np.ndarray] = []
        self.H: list[np.ndarray] = []

    def add(self, pmax: np.ndarray, H: np.ndarray) -> None:
        self.pmax.append(pmax.astype(np.float64))
        self.H.append(H.astype(np.float64))

    def summary(self, n: int) -> dict[str, float]:
        pmax = np.concatenate(self.pmax)
        H = np.concatenate(self.H)
        q = np.quantile(pmax, MAX_WEIGHT_QUANTILES)
        return {
            "entropy_mean": float(H.mean()),
            "entropy_se": float(H.std() / math.sqrt(H.size)),
            "max_weight_mean": float(pmax.mean()),
            "effective_keys_mean": float(np.exp(H).mean()),
            "saturated_fraction": float((pmax > SATURATION_THRESHOLD).mean()),
            **{f"max_weight_q{round(100 * p):02d}": float(v)
               for p, v in zip(MAX_WEIGHT_QUANTILES, q, strict=True)},
            "ln_n": math.log(n),
            "rows": int(H.size),
        }


# ---------------------------------------------------------------- gradients


def gradients(dks: Sequence[int], n: int = 10, scales: Sequence[str | Scale] = ("none", "sqrt"),
              trials: int = 2000, seed: int = 0, dist: str = "normal",
              backend: str | Backend = "numpy", dtype: str = "float32",
              progress: Progress = None, time_budget: float | None = None) -> Result:
    """Per (d_k, n, scale): how much gradient reaches the query (SCIENCE.md §1).

    One query q against n keys K, p = softmax(c·K q), upstream g ~ N(0, I_n), L = g·p.
    ∂L/∂s = J g = p ⊙ (g − p·g), J = diag(p) − p pᵀ, and ∂L/∂q = c · Kᵀ (J g).
    Reports the median and mean of ‖∂L/∂q‖₂ over trials and the median ‖J‖₂.
    """
    be = _backend(backend, dtype)
    dks = check_dks(dks)
    n = check_n(n)
    trials = check_trials(trials)
    dist = check_distribution(dist)
    scale_list = check_scales(scales, dks)
    item = np.dtype(be.dtype).itemsize
    chunks = _chunks(lambda d: item * (n * d + 2 * d + 8 * n) + 8 * 4 * n, dks, trials,
                     "gradients")
    flops = sum(4.0 * trials * n * d for d in dks) * len(scale_list)
    elem = 80.0 * trials * n * len(dks) * len(scale_list)  # bisection for ‖J‖₂
    est = budget.estimate_seconds(flops, elem, sum(trials * n * d for d in dks), gpu=be.is_gpu)
    fit = max(1, int(trials * (time_budget or budget.TIME_BUDGET) / max(est, 1e-9)))
    budget.check_time(est, "this gradient sweep", f"--trials {fit} or a smaller n / d_k", time_budget)
    rows, done, total = [], 0.0, float(trials * len(dks))
    for d in dks:
        chunk = chunks[d]
        rng = be.rng(sub_seed(seed, 3, d, n))
        norms = {s.name: [] for s in scale_list}
        jnorms = {s.name: [] for s in scale_list}
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            draws = _grad_draws(rng, t, n, d, dist, be.dtype)
            for s in scale_list:
                c = scale_factor(s, d)
                if _kernels_run(be):  # fused softmax → J g → ‖∂L/∂q‖ (kernels/softmax_backward.cu)
                    from core import gpu

                    fused = gpu.grad_norm_or_none(draws, c)
                    if fused is not None:
                        norms[s.name].append(be.asnumpy(fused[0]))
                        jnorms[s.name].append(be.asnumpy(jacobian_spectral_norm(fused[1])))
                        continue
                gn, p = draws.grad_norm(c)
                norms[s.name].append(be.asnumpy(gn))
                jnorms[s.name].append(be.asnumpy(jacobian_spectral_norm(p)))
            done += t
            _tick(progress, done, total)
        for s in scale_list:
            gn = np.concatenate(norms[s.name]).astype(np.float64)
            jn = np.concatenate(jnorms[s.name])
            rows.append({"dk": d, "n": n, "scale": s.name, "c": scale_factor(s, d),
                         "grad_q_norm_median": float(np.median(gn)),
                         "grad_q_norm_mean": float(gn.mean()),
                         "grad_q_norm_q90": float(np.quantile(gn, 0.9)),
                         "jacobian_norm_median": float(np.median(jn)),
                         "jacobian_norm_mean": float(jn.mean())})
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "trials": trials,
              "seed": seed, "dist": dist, "dtype": be.dtype}
    return _result("gradients", be, params, rows)


class _GradDraws:
    """One chunk of the gradient experiment's random inputs, in one of two exact forms.

    Direct: q (t × d_k), K (t × n × d_k), g (t × n); ‖∂L/∂q‖ = ‖c·Kᵀ(J g)‖.
    Reduced (normal components only): write q = r·u with r² = ‖q‖² ~ χ²_{d_k} and split each key
    into a_j = k_j·u ~ N(0, 1) along u and a part orthogonal to it. Then K q = r·a and
        ‖∂L/∂q‖² = c²·[(aᵀv)² + ‖v‖²·w],   v = J g,  w ~ χ²_{d_k − 1},
    because the orthogonal parts project v onto a Gaussian in d_k − 1 dimensions. Same
    distribution as the direct form, at O(n) cost per trial instead of O(n·d_k).
    """

    def __init__(self, g: Any, raw: Any, K: Any = None, a: Any = None, w: Any = None) -> None:
        self.g, self.raw, self.K, self.a, self.w = g, raw, K, a, w

    def grad_norm(self, c: float) -> tuple[Any, Any]:
        """(‖∂L/∂q‖ per trial, p per trial) for the scale factor c."""
        p = softmax(self.raw * self.raw.dtype.type(c))
        if self.K is not None:
            grad_q = grad_query(self.K, p, self.g, c)
            return (grad_q * grad_q).sum(axis=-1) ** 0.5, p
        v = softmax_backward(p, self.g)
        along = (self.a * v).sum(axis=-1)
        return abs(c) * (along * along + (v * v).sum(axis=-1) * self.w) ** 0.5, p


def _grad_draws(rng: Any, t: int, n: int, d: int, dist: str, dtype: str) -> _GradDraws:
    if dist != "normal":
        q = draw(rng, (t, d), dist, dtype)
        K = draw(rng, (t, n, d), dist, dtype)
        g = rng.standard_normal((t, n), dtype=dtype)
        return _GradDraws(g, (K @ q[:, :, None])[..., 0], K=K)
    r = rng.chisquare(d, size=t).astype(dtype) ** 0.5
    a = rng.standard_normal((t, n), dtype=dtype)
    g = rng.standard_normal((t, n), dtype=dtype)
    w = (rng.chisquare(d - 1, size=t) if d > 1 else rng.random(t) * 0).astype(dtype)
    return _GradDraws(g, r[:, None] * a, a=a, w=w)


def grad_query(K: Any, p: Any, g: Any, c: float) -> Any:
    """∂L/∂q = c · Kᵀ (J g) for L = g·p, p = softmax(c·K q); batched over leading axes of K."""
    Jg = softmax_backward(p, g)
    return (K.swapaxes(-1, -2) @ Jg[..., None])[..., 0] * K.dtype.type(c)


# ---------------------------------------------------------------- precision

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
    chunks = _chunks(lambda d: 4 * (2 * n * d + 4 * n * n), dks, trials, "precision")
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
        _tick(progress, done, len(dks))
    params = {"dk": dks, "n": n, "scale": [s.name for s in scale_list], "dtype": dtype_list,
              "trials": trials, "seed": seed, "dist": dist}
    return _result("precision", be, params, rows)


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


# ---------------------------------------------------------------- cost

IMPLS: tuple[str, ...] = ("dot", "additive", "additive-naive")


def cost_model(impl: str, n: int, d: int, d_h: int, itemsize: int = 4) -> dict[str, float]:
    """FLOPs, tanh/exp count and bytes of one attention forward O = softmax(S) V, S from `impl`.

    dot:             S = Q Kᵀ/√d: 2n²d; softmax ≈ 5n² (with n² exp); O = P V: 2n²d.
    additive:        A = Q W₁ᵀ, B = K W₂ᵀ once: 4·n·d·d_h; s_ij = Σ_h v_h tanh(A_ih + B_jh):
                     3·n²·d_h (+ n²·d_h tanh); softmax and P V as above.
    additive-naive:  the projections again for every pair: 4·n²·d·d_h, then as additive.
    Bytes: inputs (Q, K, V), the intermediate (n² scores for dot, the n²·d_h tanh argument
    for additive), and the output, each once.
    """
    _check_impl(impl)
    tail = 5.0 * n * n + 2.0 * n * n * d
    if impl == "dot":
        flops = 2.0 * n * n * d + tail
        special = n * n
        inter = n * n
    else:
        proj = 4.0 * n * d * d_h if impl == "additive" else 4.0 * n * n * d * d_h
        flops = proj + 3.0 * n * n * d_h + tail
        special = n * n * d_h + n * n
        inter = n * n * d_h
    io = 3 * n * d + n * d
    return {"flops": flops, "special": float(special), "bytes": float(itemsize * (io + inter)),
            "intermediate_bytes": float(itemsize * inter)}


def _check_impl(impl: str) -> str:
    if impl not in IMPLS:
        raise InputError(f"unknown implementation {impl!r}; choose one of {', '.join(IMPLS)}")
    return impl


def cost_inputs(be: Backend, n: int, d: int, d_h: int, seed: int) -> dict[str, Any]:
    """Random Q, K, V (n × d) and additive weights W₁, W₂ (d_h × d, std 1/√d), v (d_h, std 1/√d_h)."""
    rng = be.rng(sub_seed(seed, 5, n, d, d_h))
    x = {k: draw(rng, (n, d), "normal", be.dtype) for k in ("Q", "K", "V")}
    x["W1"] = draw(rng, (d_h, d), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d**-0.5)
    x["W2"] = draw(rng, (d_h, d), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d**-0.5)
    x["v"] = draw(rng, (d_h,), "normal", be.dtype) * be.xp.dtype(be.dtype).type(d_h**-0.5)
    return x


def run_impl(impl: str, x: dict[str, Any], d: int) -> Any:
    """One attention forward with the scores of `impl`; returns O (n × d).

    On a GPU in float32, dot and factored additive run our CUDA kernels (core/kernels:
    attention_forward.cu; additive_scores.cu with accurate tanhf, fused softmax) after cuBLAS
    projections; when a kernel is unavailable they fall back, with a notice, to the path below.
    """
    from core import attention as A

    if impl in ("dot", "additive") and x["Q"].dtype == np.float32 and (
            A.array_module(x["Q"]) is not np or _kernels_run(None)):
        from core import gpu

        out = gpu._or_none(f"cost {impl}", lambda: _run_kernel(impl, x, d))
        if out is not None:
            return out
    if impl == "dot":
        return attention(x["Q"], x["K"], x["V"], 1.0 / math.sqrt(d))
    if impl == "additive":
        S = A.additive_attention_scores(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    else:
        S = A.additive_attention_scores_naive(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    return softmax(S, out=S) @ x["V"]


def _run_kernel(impl: str, x: dict[str, Any], d: int) -> Any:
    from core import gpu

    if impl == "dot":
        return gpu.attention_forward(x["Q"], x["K"], x["V"], 1.0 / math.sqrt(d))
    P = gpu.additive_scores(x["Q"] @ x["W1"].T, x["K"] @ x["W2"].T, x["v"],
                            fast=gpu.ADDITIVE_COST_TANH == "fast", softmax=True)
    return P @ x["V"]


def time_call(fn: Callable[[], Any], sync: Callable[[], None], repeats: int = 5,
              warmup: int = 1, max_seconds: float = 5.0) -> dict[str, float]:
    """Median, min and max seconds of fn() after warm-up; fewer repeats when one run is slow."""
    return time_calls({"fn": fn}, sync, repeats, warmup, max_seconds)["fn"]


def time_calls(fns: dict[str, Callable[[], Any]], sync: Callable[[], None], repeats: int = 5,
               warmup: int = 1, max_seconds: float = 10.0) -> dict[str, dict[str, float]]:
    """Time several functions interleaved (a, b, a, b, …) so load from elsewhere hits each alike.

    Each gets `warmup` untimed calls, then up to `repeats` timed ones (at least 2 once the
    total passes max_seconds). Returns median, min and max seconds per name.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
            sync()
    times: dict[str, list[float]] = {k: [] for k in fns}
    t_start = time.perf_counter()
    for r in range(repeats):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            sync()
            times[k].append(time.perf_counter() - t0)
        if r >= 1 and time.perf_counter() - t_start > max_seconds:
            break
    return {k: {"seconds": float(np.median(v)), "seconds_min": float(min(v)),
                "seconds_max": float(max(v)), "repeats": len(v)} for k, v in times.items()}


def cost(ns: Sequence[int], ds: Sequence[int], impls: Sequence[str] = IMPLS,
         d_h: int | None = None, seed: int = 0, backend: str | Backend = "numpy",
         dtype: str = "float32", repeats: int = 5, progress: Progress = None,
         time_budget: float | None = None) -> Result:
    """Per (impl, n, d): the FLOP/byte model next to measured seconds (warm-up, median of repeats).

    d_h (the additive hidden size) defaults to d.
    """
    be = _backend(backend, dtype)
    ns = [check_n(n) for n in ns]
    ds = [_positive_int(d, "d") for d in ds]
    impl_list = [_check_impl(i) for i in impls]
    if not ns or not ds or not impl_list:
        raise InputError("give at least one n, one d and one implementation")
    if d_h is not None:
        d_h = _positive_int(d_h, "d_h")
    item = np.dtype(be.dtype).itemsize
    combos = [(i, n, d, d_h or d) for i in impl_list for n in ns for d in ds]
    est = 0.0
    for impl, n, d, h in combos:
        m = cost_model(impl, n, d, h, item)
        budget.chunk_trials(int(4 * item * n * d + item * n * n + item * (1 << 22)), 1, "cost")
        est += (repeats + 1) * budget.estimate_seconds(m["flops"], m["special"], gpu=be.is_gpu)
    smaller = "a smaller n, d or d_h, or leave out additive-naive"
    budget.check_time(est, "this cost sweep", smaller, time_budget)
    from core.cost import measure_point  # one timer for the CLI and the app (CUDA events on GPU)

    rows = []
    for k, (impl, n, d, h) in enumerate(combos):
        rows.append(measure_point(be, impl, n, d, h, seed, repeats))
        _tick(progress, k + 1, len(combos))
    params = {"n": ns, "d": ds, "impl": impl_list, "d_h": d_h, "seed": seed, "dtype": be.dtype,
              "repeats": repeats}
    return _result("cost", be, params, rows)


# ---------------------------------------------------------------- bench


def bench(ns: Sequence[int], ds: Sequence[int] = (64,), bh: int = 1, seed: int = 0,
          backend: str | Backend = "numpy", dtype: str = "float32", repeats: int = 7,
          progress: Progress = None) -> Result:
    """Our attention forward vs torch.nn.functional.scaled_dot_product_attention, same inputs.

    ratio = ours_seconds / torch_seconds (below 1 means we are faster); max_abs_diff compares
    the two outputs. Both run in this process, on the backend's device.
    """
    import torch
    import torch.nn.functional as F

    be = _backend(backend, dtype)
    ns = [check_n(n) for n in ns]
    ds = [_positive_int(d, "d") for d in ds]
    bh = _positive_int(bh, "bh")
    item = np.dtype(be.dtype).itemsize
    for n in ns:
        for d in ds:
            budget.chunk_trials(item * bh * 4 * n * d, 1, "bench")
    est = sum(2 * (repeats + 2) * budget.estimate_seconds(4.0 * bh * n * n * d, bh * n * n,
                                                          gpu=be.is_gpu) for n in ns for d in ds)
    budget.check_time(est, "this benchmark", "a smaller n")
    device = "cuda" if be.is_gpu else "cpu"
    rows, k = [], 0
    for n in ns:
        for d in ds:
            rng = be.rng(sub_seed(seed, 6, n, d, bh))
            Q, K, V = (draw(rng, (bh, n, d), "normal", be.dtype) for _ in range(3))
            c = 1.0 / math.sqrt(d)
            if be.is_gpu:  # fused kernel vs torch SDPA vs cuBLAS, fp32 and fp16, CUDA events
                from core import gpu

                gpu_rows = gpu.bench_rows_or_none(Q, K, V, c, repeats)
                if gpu_rows is not None:
                    rows += gpu_rows
                    k += 1
                    _tick(progress, k, len(ns) * len(ds))
                    continue
            tq, tk, tv = (torch.as_tensor(x, device=device) for x in (Q, K, V))
            sync = torch.cuda.synchronize if be.is_gpu else (lambda: None)
            def both_sync(sync: Callable[[], None] = sync) -> None:
                be.synchronize()
                sync()

            with torch.no_grad():
                t = time_calls({"ours": partial(attention, Q, K, V, c),
                                "torch": partial(F.scaled_dot_product_attention, tq, tk, tv)},
                               both_sync, repeats, warmup=2)
                ours, ref = t["ours"], t["torch"]
                out = be.asnumpy(attention(Q, K, V, c))
                out_ref = F.scaled_dot_product_attention(tq, tk, tv).cpu().numpy()
            rows.append({"n": n, "d": d, "bh": bh, "ours_seconds": ours["seconds"],
                         "torch_seconds": ref["seconds"],
                         "ratio": ours["seconds"] / ref["seconds"],
                         "max_abs_diff": float(np.abs(out - out_ref).max()),
                         "ours_gflops_per_s": 4.0 * bh * n * n * d / ours["seconds"] / 1e9})
            k += 1
            _tick(progress, k, len(ns) * len(ds))
    params = {"n": ns, "d": ds, "bh": bh, "seed": seed, "dtype": be.dtype, "repeats": repeats,
              "peer": "torch.nn.functional.scaled_dot_product_attention",
              "device": be.describe()}
    return _result("bench", be, params, rows)


def _backend(backend: str | Backend, dtype: str) -> Backend:
    return backend if isinstance(backend, Backend) else get_backend(backend, dtype)
