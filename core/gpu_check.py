"""`python -m core.gpu_check`: on a GPU, check every kernel, then the experiments, then time attention.

llm.c's habit: the same program first checks each kernel element by element against its NumPy
twin (core.gpu.checks, float64) on odd sizes, then against torch SDPA, then checks that the
experiments give the same figures on CuPy as on NumPy, and only then prints the benchmark table
(CUDA events, warm-up, median). Exit code 1 when any check fails, 2 without a GPU.
It runs the experiments, so it sits above them; the kernel checks themselves are in core.gpu.

Tolerances of the kernel checks: core/gpu/checks.py. Of the experiment checks:
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
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from core import experiments as ex
from core import gpu
from core.backend import cupy_available, get_backend
from core.gpu import checks as gpu_checks
from core.gpu.checks import TORCH_TOL, Check, kernel_checks, run_checks, scaled_error
from core.timing import Clock, time_one

BENCH_BH: tuple[int, ...] = (1, 16)
BENCH_N: tuple[int, ...] = (1024, 4096, 16384)
BENCH_D: tuple[int, ...] = (64, 128)


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
    (core.attention) on the very same draws. backend "numpy" is for a stand-in device (the tests'
    CPU emulator)."""

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
    kw = {"dks": [16, 64, 256], "n": 64, "trials": 256, "scales": ("none", "sqrt")}
    ra = ex.saturation(backend=a, **kw)["rows"]
    rb = ex.saturation(backend=b, seed=seed_b, **kw)["rows"]
    err = max(abs(x["entropy_mean"] - y["entropy_mean"])
              / (4 * math.hypot(x["entropy_se"], y["entropy_se"]) + 1e-9)
              for x, y in zip(ra, rb, strict=True))
    return Check(f"saturation: {a} vs {b} entropy (4 SE)", err)


def gradients_across(a: str = "cupy", b: str = "numpy", seed_b: int = 0) -> Check:
    """Median ‖∂L/∂q‖ (c = 1/√d_k) on backend a vs b within 15 % at 4000 trials (independent draws)."""
    kw = {"dks": [16, 64, 256], "n": 10, "trials": 4000, "scales": ("sqrt",)}
    ra = ex.gradients(backend=a, **kw)["rows"]
    rb = ex.gradients(backend=b, seed=seed_b, **kw)["rows"]
    err = max(abs(x["grad_q_norm_median"] / y["grad_q_norm_median"] - 1) / 0.15
              for x, y in zip(ra, rb, strict=True))
    return Check(f"gradients ÷√d_k: {a} vs {b} median ‖∂L/∂q‖ (15 %)", err)


def variance_across(a: str = "cupy", b: str = "numpy", seed_b: int = 0) -> Check:
    """Var(q·k) on backend a vs b (independent draws), ρ = 0 and 0.5, within 4 combined standard errors."""
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

    def bench_small() -> Check:
        rows = ex.bench([1024], [64], bh=2, backend="cupy", repeats=3)["rows"]
        err = max(r["max_abs_diff"] / TORCH_TOL[r.get("dtype", "float32")][0] for r in rows)
        return Check("bench: fused kernel vs torch SDPA / cuBLAS output", err, f"{len(rows)} rows")

    return [*same_draw_checks("cupy"), saturation_across, gradients_across, variance_across, bench_small]


# ---------------------------------------------------------------- benchmark


def ablation(bh: int = 16, n: int = 4096, d: int = 64) -> None:
    """Our kernel variants side by side, and the additive kernel's two tanh flavours."""
    cp = gpu.xp()
    events = Clock.cupy_events(cp)
    flops = 4.0 * bh * n * n * d
    Q, K, V = (cp.asarray(x) for x in gpu_checks.attention_inputs(bh, n, d, "float32"))
    for version, split in (("mma", 3), ("mma", 1), ("simt", 3)):
        t = time_one(lambda v=version, s=split: gpu.attention_forward(Q, K, V, version=v, split=s), events)
        label = f"{version}{'' if version == 'simt' else ' 3xTF32' if split == 3 else ' TF32'}"
        print(f"attention fp32 {label:12s} bh={bh} n={n} d={d}: {t * 1e3:8.3f} ms  "
              f"{flops / t / 1e12:6.1f} TFLOP/s")
    rng = gpu_checks.check_rng
    A, B = (cp.asarray(rng(5, i).standard_normal((n, 128)).astype(np.float32)) for i in range(2))
    v = cp.asarray((rng(6).standard_normal(128) / math.sqrt(128)).astype(np.float32))
    for fast in (False, True):
        t = time_one(lambda f=fast: gpu.additive_scores(A, B, v, fast=f), events)
        print(f"additive scores n=m={n} d_h=128 {'tanh.approx' if fast else 'tanhf':11s}: {t * 1e3:8.3f} ms  "
              f"{n * n * 128 / t / 1e9:8.1f} G tanh/s")


BENCH_COLUMNS = ("bh", "n", "d", "dtype", "ours_seconds", "torch_seconds", "cublas_seconds", "ratio",
                 "tflops", "torch_tflops", "cublas_tflops", "peak_fraction", "max_abs_diff")


def benchmark(repeats: int = 10) -> list[dict[str, Any]]:
    """The issue's table: BH ∈ {1, 16}, n ∈ {1024, 4096, 16384}, d ∈ {64, 128}, fp32 and fp16."""
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
    p = argparse.ArgumentParser(prog="python -m core.gpu_check", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="kernel checks on n ≤ 33 only")
    p.add_argument("--no-bench", action="store_true", help="correctness only")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--json", default=None, help="also write the benchmark rows to this JSON file")
    args = p.parse_args(argv)
    if not cupy_available():
        print(f"no CUDA GPU / CuPy not installed: {gpu.gpu_status()} "
              "(without a GPU: python -m tools.emulator runs the kernel checks on the CPU)", file=sys.stderr)
        return 2
    for source, state in gpu.compile_all().items():  # each compiled, then its first-use check
        print(f"compile and first-use check {source}: {state}")
    with gpu.first_use_checks(False):  # every kernel is compared below, each difference reported
        results = run_checks(kernel_checks(args.quick))
        results += run_checks(experiment_checks())
    failed = [c for c in results if not c.ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} checks passed")
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
