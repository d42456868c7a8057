"""`python -m core.kernels.gpu_check`: on a GPU, check every kernel, then time attention.

llm.c's habit: the same program first checks each kernel element by element against its NumPy
twin (core/gpu.py, float64) on odd sizes, then against torch SDPA, then checks that the experiments
give the same figures on CuPy as on NumPy, and only then prints the benchmark table
(CUDA events, warm-up, median). Exit code 1 when any check fails.

Tolerances (|got − want| ≤ atol + rtol·|want| everywhere, `want` from the float64 twin fed the
very same inputs, rounded to the kernel's dtype first):
    attention fp32 (3xTF32 tensor cores or SIMT FMA)  atol 2e-5,  rtol 1e-4
    attention TF32 (split = 1, 10-bit mantissa)        atol 5e-3,  rtol 5e-3
    attention fp16 (P and O rounded to fp16)           atol 2e-3,  rtol 4e-3
    attention bf16 (P and O rounded to bf16)           atol 1e-2,  rtol 1.6e-2
    vs torch SDPA: fp32 1e-4/1e-4, fp16 4e-3/8e-3, bf16 3e-2/6e-2 (both sides' rounding)
    row statistics: p_max and H atol 5e-5, rtol 5e-5; weights atol 1e-6, rtol 1e-4
    additive scores: accurate tanhf atol 1e-5·Σ_h|v_h|; tanh.approx.f32 atol 2^-10·Σ_h|v_h|
                     (its max error is about 2^-11); softmax of them: twice that on p
    gradient norms: p atol 1e-7, rtol 1e-4; ‖∂L/∂q‖ rtol 1e-4 plus atol 1e-5·c·‖|K|ᵀ|J g|‖
                    (the sum Σ_j K_jk (J g)_j cancels; its size, not the result's, sets fp32 error)
    experiments, same draws, kernels vs reference path: rtol 1e-4 (saturated fraction ± 2 rows)
    experiments, NumPy vs CuPy (different generators): entropy within 4 combined standard errors,
                    median ‖∂L/∂q‖ (÷√d_k) within 15 % at 4000 trials, Var(q·k) within 4 combined
                    standard errors at 20000 trials (ρ = 0 and 0.5); two NumPy seeds pass them too
                    (tests/test_gpu_twins.py), so a failure on the GPU is not sampling noise
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core import gpu

SIZES_N: tuple[int, ...] = (1, 2, 31, 33, 1000, 4097)
SIZES_D: tuple[int, ...] = (1, 3, 64, 128, 256)
# On the CPU emulator (one fiber per thread) the large sizes take minutes; these still cover one,
# two and three tiles of every kernel, partial tiles and both sides of each power of two.
EMULATED_SIZES_N: tuple[int, ...] = (1, 2, 31, 33, 130)
ATTENTION_TOL: dict[str, tuple[float, float]] = {
    "float32": (2e-5, 1e-4), "tf32": (5e-3, 5e-3), "float16": (2e-3, 4e-3), "bfloat16": (1e-2, 1.6e-2)}
TORCH_TOL: dict[str, tuple[float, float]] = {
    "float32": (1e-4, 1e-4), "float16": (4e-3, 8e-3), "bfloat16": (3e-2, 6e-2)}
STATS_TOL = (5e-5, 5e-5)
WEIGHTS_TOL = (1e-6, 1e-4)
BENCH_BH: tuple[int, ...] = (1, 16)
BENCH_N: tuple[int, ...] = (1024, 4096, 16384)
BENCH_D: tuple[int, ...] = (64, 128)


@dataclass(frozen=True)
class Check:
    """One comparison: err = max |got − want| / (atol + rtol·|want|); it passes when err ≤ 1."""

    name: str
    err: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.err <= 1.0


def scaled_error(got: Any, want: Any, atol: float | np.ndarray, rtol: float) -> float:
    """max |got − want| / (atol + rtol·|want|); inf on a shape mismatch or a non-finite value."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape or not np.isfinite(got).all():
        return math.inf
    return float((np.abs(got - want) / (atol + rtol * np.abs(want))).max(initial=0.0))


def _cp() -> Any:
    """The launchers' array namespace: CuPy, or the CPU emulator's inside core.gpu.emulated()."""
    return gpu._cupy()


_host = gpu.to_host


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng([20240, *key])


# ---------------------------------------------------------------- kernel vs twin


def check_row_stats(n: int, version: int = 2, trials: int | None = None) -> Check:
    """softmax_stats.cu vs row_stats_twin on trials × n × n raw scores, three scales."""
    cp = _cp()
    trials = trials or (3 if n < 1000 else 1)
    raw = (_rng(1, n).standard_normal((trials, n, n)) * 8).astype(np.float32)
    scales = (1.0, 0.125, 0.02)
    pm, H, P = gpu.row_stats(cp.asarray(raw), scales, weights=True, version=version)
    tpm, tH, tP = gpu.row_stats_twin(raw, scales, weights=True)
    err = max(scaled_error(_host(pm), tpm, *STATS_TOL), scaled_error(_host(H), tH, *STATS_TOL),
              scaled_error(_host(P), tP, *WEIGHTS_TOL))
    return Check(f"row_stats v{version} trials={trials} n={n}", err)


def attention_inputs(bh: int, n: int, d: int, dtype: str, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Q, K, V ~ N(0, 1) as the kernel sees them: float32, float16, or bfloat16 bits (uint16)."""
    x = _rng(2, bh, n, d, seed).standard_normal((3, bh, n, d)).astype(np.float32)
    if dtype == "float16":
        return tuple(x.astype(np.float16))
    if dtype == "bfloat16":
        return tuple(gpu.to_bfloat16_bits(x))
    return tuple(x)


def _as_float(x: np.ndarray, dtype: str) -> np.ndarray:
    return gpu.from_bfloat16_bits(x) if dtype == "bfloat16" else np.asarray(x, dtype=np.float32)


def check_attention(bh: int, n: int, d: int, dtype: str = "float32", version: str = "auto",
                    split: int = 3) -> Check:
    """attention_forward.cu vs attention_twin on the same (rounded) inputs."""
    cp = _cp()
    Q, K, V = attention_inputs(bh, n, d, dtype)
    O = gpu.attention_forward(*(cp.asarray(x) for x in (Q, K, V)), version=version, split=split,
                              bfloat16=dtype == "bfloat16")
    want = gpu.attention_twin(*(_as_float(x, dtype) for x in (Q, K, V)))
    tol = ATTENTION_TOL["tf32" if dtype == "float32" and split == 1 else dtype]
    plan = gpu.attention_plan(bh, n, d, dtype, version, split)
    return Check(f"attention {dtype} {plan.name} bh={bh} n={n} d={d}",
                 scaled_error(_as_float(_host(O), dtype), want, *tol))


def check_attention_torch(bh: int, n: int, d: int, dtype: str = "float32") -> Check | None:
    """Our fused kernel vs torch.nn.functional.scaled_dot_product_attention; None without torch CUDA."""
    torch = gpu._torch_cuda()
    if torch is None or gpu._state["emulator"] is not None:
        return None
    cp = _cp()
    Q, K, V = attention_inputs(bh, n, d, dtype, seed=1)
    xs = [cp.asarray(x) for x in (Q, K, V)]
    O = gpu.attention_forward(*xs, bfloat16=dtype == "bfloat16")
    tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]
    if dtype == "bfloat16":
        ts = [torch.as_tensor(x.view(cp.int16), device="cuda").view(torch.bfloat16) for x in xs]
    else:
        ts = [torch.as_tensor(x, device="cuda") for x in xs]
    ts = [t.reshape(1, bh, n, d).to(tdt) for t in ts]
    with torch.no_grad():
        ref = torch.nn.functional.scaled_dot_product_attention(*ts).reshape(bh, n, d).float().cpu().numpy()
    return Check(f"attention {dtype} vs torch SDPA bh={bh} n={n} d={d}",
                 scaled_error(_as_float(_host(O), dtype), ref, *TORCH_TOL[dtype]))


def check_additive(n: int, m: int, dh: int, fast: bool, softmax: bool) -> Check:
    """additive_scores.cu vs additive_scores_twin; A = Q W₁ᵀ-like (std 1), v with std 1/√d_h."""
    cp = _cp()
    rng = _rng(3, n, m, dh)
    A = rng.standard_normal((n, dh)).astype(np.float32)
    B = rng.standard_normal((m, dh)).astype(np.float32)
    v = (rng.standard_normal(dh) / math.sqrt(dh)).astype(np.float32)
    got = gpu.additive_scores(cp.asarray(A), cp.asarray(B), cp.asarray(v), fast=fast, softmax=softmax)
    want = gpu.additive_scores_twin(A, B, v, softmax=softmax)
    vsum = float(np.abs(v.astype(np.float64)).sum())
    atol = (2.0**-10 if fast else 1e-5) * vsum * (2.0 if softmax else 1.0)
    tanh = "tanh.approx" if fast else "tanhf"
    return Check(f"additive {'softmax' if softmax else 'scores'} {tanh} n={n} m={m} d_h={dh}",
                 scaled_error(_host(got), want, atol + 1e-7, 0.0))


def check_grad_norms(trials: int, n: int, d: int, c: float) -> Check:
    """softmax_backward.cu vs grad_norms_twin on raw = K q (float32, as the experiment forms it)."""
    cp = _cp()
    rng = _rng(4, trials, n, d)
    q = rng.standard_normal((trials, d)).astype(np.float32)
    K = rng.standard_normal((trials, n, d)).astype(np.float32)
    g = rng.standard_normal((trials, n)).astype(np.float32)
    raw = (K @ q[:, :, None])[..., 0]
    p, gn, jn = gpu.grad_norms(cp.asarray(raw), cp.asarray(K), cp.asarray(g), c)
    tp, tgn, tjn = gpu.grad_norms_twin(raw, K, g, c)
    rho = g - np.take_along_axis(g, tp.argmax(axis=-1)[..., None], axis=-1)
    Jg = tp * (rho - (tp * rho).sum(axis=-1, keepdims=True))
    size = c * np.linalg.norm(np.einsum("tnd,tn->td", np.abs(K.astype(np.float64)), np.abs(Jg)), axis=-1)
    err = max(scaled_error(_host(p), tp, 1e-7, 1e-4), scaled_error(_host(gn), tgn, 1e-5 * size + 1e-30, 1e-4),
              scaled_error(_host(jn), tjn, 1e-7, 1e-4))
    return Check(f"grad_norms trials={trials} n={n} d={d} c={c:.3g}", err)


def kernel_checks(quick: bool = False,
                  sizes_n: Sequence[int] = SIZES_N) -> Iterable[Callable[[], Check | None]]:
    """Every kernel check, as thunks (so a failure in one does not stop the rest)."""
    ns = tuple(sizes_n)[:4] if quick else tuple(sizes_n)
    ds = SIZES_D
    for version in (1, 2):
        for n in ns:
            yield lambda n=n, v=version: check_row_stats(n, v)
    for dtype in gpu.ATTENTION_DTYPES:
        for n in ns:
            for d in ds:
                yield lambda n=n, d=d, t=dtype: check_attention(2, n, d, t)
                if d <= 128:
                    yield lambda n=n, d=d, t=dtype: check_attention(2, n, d, t, version="simt")
        for d in (64, 128):
            yield lambda d=d, t=dtype: check_attention_torch(4, 1000, d, t)
    for n in ns:
        for d in (64, 128):
            yield lambda n=n, d=d: check_attention(1, n, d, "float32", split=1)
    shapes = [(n, n) for n in ns if n <= 1000] + [(33, 4097), (4097, 33), (1000, 31)]
    for n, m in shapes:
        for dh in ds if n * m <= 40000 else (1, 64):
            for fast in (False, True):
                for softmax in (False, True):
                    yield lambda n=n, m=m, dh=dh, f=fast, s=softmax: check_additive(n, m, dh, f, s)
    for n in ns:
        for d in ds:
            for c in (1.0, 1.0 / math.sqrt(d)):
                yield lambda n=n, d=d, c=c: check_grad_norms(16, n, d, c)


def _call(fn: Callable[..., Check | None], *args: Any, **kw: Any) -> Callable[[], Check | None]:
    """A thunk for fn(*args, **kw) whose __name__ says which call it is (shown if it crashes)."""
    def thunk() -> Check | None:
        return fn(*args, **kw)

    thunk.__name__ = f"{fn.__name__}{args}{kw or ''}"
    return thunk


def first_use_checks(source: str) -> list[Callable[[], Check | None]]:
    """The small checks core.gpu runs on one `.cu` right after compiling it on a device, before any
    experiment uses it: every kernel instantiation the launchers can pick, on sizes of two or three
    tiles with a partial one (well under a millisecond each on a GPU, seconds on the emulator)."""
    if source == "softmax_stats.cu":
        return [_call(check_row_stats, 33, 2), _call(check_row_stats, 32, 2), _call(check_row_stats, 33, 1)]
    if source == "attention_forward.cu":
        return ([_call(check_attention, 2, 65, d, t) for t in gpu.ATTENTION_DTYPES for d in (3, 64, 128, 256)]
                + [_call(check_attention, 1, 65, d, version="simt") for d in (64, 128)]
                + [_call(check_attention, 1, 65, d, split=1) for d in (64, 128)])
    if source == "additive_scores.cu":
        return [_call(check_additive, 33, 70, 64, fast, softmax) for fast in (False, True)
                for softmax in (False, True)]
    if source == "softmax_backward.cu":
        return [_call(check_grad_norms, 4, 33, 64, 0.125), _call(check_grad_norms, 4, 2, 128, 1.0)]
    raise ValueError(f"no first-use checks for {source!r}")


# ---------------------------------------------------------------- experiments: CuPy vs NumPy


def _close_rows(a: list[dict], b: list[dict], rtol: float, atol: float, skip: Iterable[str] = ()) -> float:
    worst = 0.0
    for ra, rb in zip(a, b, strict=True):
        for key, va in ra.items():
            if key in skip or not isinstance(va, float):
                continue
            worst = max(worst, scaled_error(va, rb[key], atol, rtol))
    return worst


def same_draw_checks(backend: str = "cupy", trials: int = 64,
                     grad_trials: int = 2000) -> list[Callable[[], Check]]:
    """The experiments give the same figures through our kernels as through the reference path
    (core.attention) on the very same draws. backend "numpy" is for the CPU emulator."""
    from core import experiments as ex

    def saturation_same_draws() -> Check:
        kw = {"dks": [16, 64, 256], "n": 64, "trials": trials, "backend": backend, "scales": ("none", "sqrt")}
        a = ex.saturation(**kw)["rows"]
        with gpu.reference_only():
            b = ex.saturation(**kw)["rows"]
        err = _close_rows(a, b, 1e-4, 1e-5, skip=("saturated_fraction",))
        frac = max(abs(x["saturated_fraction"] - y["saturated_fraction"]) * x["rows"] / 2
                   for x, y in zip(a, b, strict=True))
        return Check("saturation: kernels vs reference path (same draws)", max(err, frac))

    def gradients_same_draws() -> Check:
        kw = {"dks": [16, 64, 256], "n": 10, "trials": grad_trials, "backend": backend}
        a = ex.gradients(**kw)["rows"]
        with gpu.reference_only():
            b = ex.gradients(**kw)["rows"]
        return Check("gradients: kernels vs reference path (same draws)", _close_rows(a, b, 1e-4, 1e-12))

    def cost_same_inputs() -> Check:
        from core.backend import get_backend

        be = get_backend(backend)
        worst = 0.0
        for n, d, d_h in ((100, 64, 64), (67, 32, 48)):
            x = ex.cost_inputs(be, n, d, d_h, seed=3)
            for impl in ("dot", "additive"):
                got = be.asnumpy(ex.run_impl(impl, x, d))
                with gpu.reference_only():
                    want = be.asnumpy(ex.run_impl(impl, x, d))
                worst = max(worst, scaled_error(got, want, 1e-5, 1e-4))
        return Check("cost: dot and additive attention, kernels vs reference path (same inputs)", worst)

    return [saturation_same_draws, gradients_same_draws, cost_same_inputs]


def saturation_across(a: str = "cupy", b: str = "numpy", seed_b: int = 0) -> Check:
    """Mean entropy on backend a vs backend b (different generators: independent draws), within
    4 combined standard errors."""
    from core import experiments as ex

    kw = {"dks": [16, 64, 256], "n": 64, "trials": 256, "scales": ("none", "sqrt")}
    ra = ex.saturation(backend=a, **kw)["rows"]
    rb = ex.saturation(backend=b, seed=seed_b, **kw)["rows"]
    err = max(abs(x["entropy_mean"] - y["entropy_mean"])
              / (4 * math.hypot(x["entropy_se"], y["entropy_se"]) + 1e-9)
              for x, y in zip(ra, rb, strict=True))
    return Check(f"saturation: {a} vs {b} entropy (4 SE)", err)


def gradients_across(a: str = "cupy", b: str = "numpy", seed_b: int = 0) -> Check:
    """Median ‖∂L/∂q‖ (c = 1/√d_k) on backend a vs b within 15 % at 4000 trials (independent draws)."""
    from core import experiments as ex

    kw = {"dks": [16, 64, 256], "n": 10, "trials": 4000, "scales": ("sqrt",)}
    ra = ex.gradients(backend=a, **kw)["rows"]
    rb = ex.gradients(backend=b, seed=seed_b, **kw)["rows"]
    err = max(abs(x["grad_q_norm_median"] / y["grad_q_norm_median"] - 1) / 0.15
              for x, y in zip(ra, rb, strict=True))
    return Check(f"gradients ÷√d_k: {a} vs {b} median ‖∂L/∂q‖ (15 %)", err)


def variance_across(a: str = "cupy", b: str = "numpy", seed_b: int = 0) -> Check:
    """Var(q·k) on backend a vs b (independent draws), ρ = 0 and 0.5, within 4 combined standard errors."""
    from core import experiments as ex

    err = 0.0
    for rho in (0.0, 0.5):
        kw = {"dks": [16, 256, 4096], "trials": 20000, "rho": rho, "scales": ("sqrt",)}
        ra = ex.variance(backend=a, **kw)["rows"]
        rb = ex.variance(backend=b, seed=seed_b, **kw)["rows"]
        err = max(err, *(abs(x["var_raw"] - y["var_raw"]) / (4 * math.hypot(x["var_raw_se"], y["var_raw_se"]))
                         for x, y in zip(ra, rb, strict=True)))
    return Check(f"variance: {a} vs {b} Var(q·k) (4 SE)", err)


def experiment_checks() -> Iterable[Callable[[], Check]]:
    """Same figures on CuPy (our kernels) as on the reference path and as on NumPy."""
    from core import experiments as ex

    def bench_small() -> Check:
        rows = ex.bench([1024], [64], bh=2, backend="cupy", repeats=3)["rows"]
        err = max(r["max_abs_diff"] / TORCH_TOL[r.get("dtype", "float32")][0] for r in rows)
        return Check("bench: fused kernel vs torch SDPA / cuBLAS output", err, f"{len(rows)} rows")

    return [*same_draw_checks("cupy"), saturation_across, gradients_across, variance_across, bench_small]


# ---------------------------------------------------------------- driver


def evaluate(thunks: Iterable[Callable[[], Check | None]]) -> list[Check]:
    """Run each check; a crash is a failed check (err = inf) that names the exception."""
    out = []
    for thunk in thunks:
        try:
            check = thunk()
        except Exception as exc:
            check = Check(getattr(thunk, "__name__", "check"), math.inf, f"{type(exc).__name__}: {exc}")
        if check is not None:
            out.append(check)
    return out


def run_checks(thunks: Iterable[Callable[[], Check | None]]) -> list[Check]:
    """evaluate, printing one line per check as it finishes."""
    out = []
    for thunk in thunks:
        for check in evaluate([thunk]):
            out.append(check)
            mark = "ok  " if check.ok else "FAIL"
            print(f"{mark} {check.err:9.3g}  {check.name}  {check.detail}", flush=True)
    return out


def ablation(bh: int = 16, n: int = 4096, d: int = 64) -> None:
    """Our kernel variants side by side, and the additive kernel's two tanh flavours."""
    cp = _cp()
    flops = 4.0 * bh * n * n * d
    Q, K, V = (cp.asarray(x) for x in attention_inputs(bh, n, d, "float32"))
    for version, split in (("mma", 3), ("mma", 1), ("simt", 3)):
        t = gpu.time_gpu(lambda v=version, s=split: gpu.attention_forward(Q, K, V, version=v, split=s))
        label = f"{version}{'' if version == 'simt' else ' 3xTF32' if split == 3 else ' TF32'}"
        print(f"attention fp32 {label:12s} bh={bh} n={n} d={d}: {t * 1e3:8.3f} ms  "
              f"{flops / t / 1e12:6.1f} TFLOP/s")
    A, B = (cp.asarray(_rng(5, i).standard_normal((n, 128)).astype(np.float32)) for i in range(2))
    v = cp.asarray((_rng(6).standard_normal(128) / math.sqrt(128)).astype(np.float32))
    for fast in (False, True):
        t = gpu.time_gpu(lambda f=fast: gpu.additive_scores(A, B, v, fast=f))
        print(f"additive scores n=m={n} d_h=128 {'tanh.approx' if fast else 'tanhf':11s}: {t * 1e3:8.3f} ms  "
              f"{n * n * 128 / t / 1e9:8.1f} G tanh/s")


BENCH_COLUMNS = ("bh", "n", "d", "dtype", "ours_seconds", "torch_seconds", "cublas_seconds", "ratio",
                 "tflops", "torch_tflops", "cublas_tflops", "peak_fraction", "max_abs_diff")


def benchmark(repeats: int = 10) -> list[dict[str, Any]]:
    """The issue's table: BH ∈ {1, 16}, n ∈ {1024, 4096, 16384}, d ∈ {64, 128}, fp32 and fp16."""
    from core import experiments as ex

    rows = []
    for bh in BENCH_BH:
        rows += ex.bench(list(BENCH_N), list(BENCH_D), bh=bh, backend="cupy", repeats=repeats)["rows"]
    print("  ".join(f"{c:>14s}" for c in BENCH_COLUMNS))
    for r in rows:
        print("  ".join(f"{_fmt(r.get(c)):>14s}" for c in BENCH_COLUMNS))
    return rows


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "-" if v is None else str(v)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m core.kernels.gpu_check", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="kernel checks on n ≤ 33 only")
    p.add_argument("--no-bench", action="store_true", help="correctness only")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--json", default=None, help="also write the benchmark rows to this JSON file")
    p.add_argument("--emulate", action="store_true",
                   help="no GPU needed: run the kernel checks on the CPU emulator "
                        f"(core/kernels/emulator.py), n in {EMULATED_SIZES_N}, and the same-draw experiment "
                        "checks on NumPy arrays; no benchmark")
    p.add_argument("--schedule", type=int, default=0,
                   help="with --emulate: 0 threads in order, 1 reversed, >= 2 shuffled with that seed")
    args = p.parse_args(argv)
    from core.backend import cupy_available

    if args.emulate:
        try:
            with gpu.emulated(args.schedule):
                checks = run_checks(kernel_checks(args.quick, EMULATED_SIZES_N))
                checks += run_checks(same_draw_checks("numpy", trials=16, grad_trials=200))
        except gpu.KernelError as exc:
            print(str(exc), file=sys.stderr)
            return 2
        failed = [c for c in checks if not c.ok]
        print(f"\n{len(checks) - len(failed)}/{len(checks)} checks passed on the CPU emulator")
        return 1 if failed else 0

    if not cupy_available():
        print(f"no CUDA GPU / CuPy not installed: {gpu.gpu_status()}", file=sys.stderr)
        return 2
    for source, state in gpu.compile_all().items():  # each compiled, then its first-use check
        print(f"compile and first-use check {source}: {state}")
    with gpu.first_use_checks(False):  # every kernel is compared below, each difference reported
        checks = run_checks(kernel_checks(args.quick))
        checks += run_checks(experiment_checks())
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)}/{len(checks)} checks passed")
    print(gpu.gpu_status())
    if not args.no_bench:
        ablation()
        rows = benchmark(args.repeats)
        if args.json:
            import json

            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
