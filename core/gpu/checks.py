"""Each kernel against its NumPy twin, element by element: the full checks and the first-use ones.

llm.c's habit: a kernel is checked against its CPU reference on odd sizes before it is timed or
trusted. `kernel_checks` is every comparison (python -m core.gpu_check runs them on a GPU, the
tests on the CPU emulator); `first_use_checks(source)` the few that core.gpu.guard runs on each
`.cu` before any experiment uses it on a device. A check is a thunk returning a `Check`, so a
crash in one is reported and does not stop the rest (`evaluate`).

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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.gpu import device, launch, twins

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
    """The launchers' array namespace: CuPy, or a stand-in device's (core.gpu.device.stand_in)."""
    return device.xp()


_host = device.to_host


def check_rng(*key: int) -> np.random.Generator:
    """The generator of one check's inputs, seeded by the check's own parameters."""
    return np.random.default_rng([20240, *key])


# ---------------------------------------------------------------- kernel vs twin


def check_row_stats(n: int, version: int = 2, trials: int | None = None) -> Check:
    """softmax_stats.cu vs row_stats_twin on trials × n × n raw scores, three scales."""
    cp = _cp()
    trials = trials or (3 if n < 1000 else 1)
    raw = (check_rng(1, n).standard_normal((trials, n, n)) * 8).astype(np.float32)
    scales = (1.0, 0.125, 0.02)
    pm, H, P = launch.row_stats(cp.asarray(raw), scales, weights=True, version=version)
    tpm, tH, tP = twins.row_stats_twin(raw, scales, weights=True)
    err = max(scaled_error(_host(pm), tpm, *STATS_TOL), scaled_error(_host(H), tH, *STATS_TOL),
              scaled_error(_host(P), tP, *WEIGHTS_TOL))
    return Check(f"row_stats v{version} trials={trials} n={n}", err)


def attention_inputs(bh: int, n: int, d: int, dtype: str, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Q, K, V ~ N(0, 1) as the kernel sees them: float32, float16, or bfloat16 bits (uint16)."""
    x = check_rng(2, bh, n, d, seed).standard_normal((3, bh, n, d)).astype(np.float32)
    if dtype == "float16":
        return tuple(x.astype(np.float16))
    if dtype == "bfloat16":
        return tuple(twins.to_bfloat16_bits(x))
    return tuple(x)


def _as_float(x: np.ndarray, dtype: str) -> np.ndarray:
    return twins.from_bfloat16_bits(x) if dtype == "bfloat16" else np.asarray(x, dtype=np.float32)


def check_attention(bh: int, n: int, d: int, dtype: str = "float32", version: str = "auto",
                    split: int = 3) -> Check:
    """attention_forward.cu vs attention_twin on the same (rounded) inputs."""
    cp = _cp()
    Q, K, V = attention_inputs(bh, n, d, dtype)
    O = launch.attention_forward(*(cp.asarray(x) for x in (Q, K, V)), version=version, split=split,
                              bfloat16=dtype == "bfloat16")
    want = twins.attention_twin(*(_as_float(x, dtype) for x in (Q, K, V)))
    tol = ATTENTION_TOL["tf32" if dtype == "float32" and split == 1 else dtype]
    plan = launch.attention_plan(bh, n, d, dtype, version, split)
    return Check(f"attention {dtype} {plan.name} bh={bh} n={n} d={d}",
                 scaled_error(_as_float(_host(O), dtype), want, *tol))


def check_attention_torch(bh: int, n: int, d: int, dtype: str = "float32") -> Check | None:
    """Our fused kernel vs torch.nn.functional.scaled_dot_product_attention; None without torch CUDA."""
    torch = device.torch_cuda()
    if torch is None or device.stand_in_active():
        return None
    cp = _cp()
    Q, K, V = attention_inputs(bh, n, d, dtype, seed=1)
    xs = [cp.asarray(x) for x in (Q, K, V)]
    O = launch.attention_forward(*xs, bfloat16=dtype == "bfloat16")
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
    rng = check_rng(3, n, m, dh)
    A = rng.standard_normal((n, dh)).astype(np.float32)
    B = rng.standard_normal((m, dh)).astype(np.float32)
    v = (rng.standard_normal(dh) / math.sqrt(dh)).astype(np.float32)
    got = launch.additive_scores(cp.asarray(A), cp.asarray(B), cp.asarray(v), fast=fast, softmax=softmax)
    want = twins.additive_scores_twin(A, B, v, softmax=softmax)
    vsum = float(np.abs(v.astype(np.float64)).sum())
    atol = (2.0**-10 if fast else 1e-5) * vsum * (2.0 if softmax else 1.0)
    tanh = "tanh.approx" if fast else "tanhf"
    return Check(f"additive {'softmax' if softmax else 'scores'} {tanh} n={n} m={m} d_h={dh}",
                 scaled_error(_host(got), want, atol + 1e-7, 0.0))


def check_grad_norms(trials: int, n: int, d: int, c: float) -> Check:
    """softmax_backward.cu vs grad_norms_twin on raw = K q (float32, as the experiment forms it)."""
    cp = _cp()
    rng = check_rng(4, trials, n, d)
    q = rng.standard_normal((trials, d)).astype(np.float32)
    K = rng.standard_normal((trials, n, d)).astype(np.float32)
    g = rng.standard_normal((trials, n)).astype(np.float32)
    raw = (K @ q[:, :, None])[..., 0]
    p, gn, jn = launch.grad_norms(cp.asarray(raw), cp.asarray(K), cp.asarray(g), c)
    tp, tgn, tjn = twins.grad_norms_twin(raw, K, g, c)
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
    for dtype in launch.ATTENTION_DTYPES:
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
    """The small checks core.gpu.guard runs on one `.cu` right after compiling it on a device, before
    any experiment uses it: every kernel instantiation the launchers can pick, on sizes of two or three
    tiles with a partial one (well under a millisecond each on a GPU, seconds on the emulator)."""
    if source == "softmax_stats.cu":
        return [_call(check_row_stats, 33, 2), _call(check_row_stats, 32, 2), _call(check_row_stats, 33, 1)]
    if source == "attention_forward.cu":
        return ([_call(check_attention, 2, 65, d, t) for t in launch.ATTENTION_DTYPES
                 for d in (3, 64, 128, 256)]
                + [_call(check_attention, 1, 65, d, version="simt") for d in (64, 128)]
                + [_call(check_attention, 1, 65, d, split=1) for d in (64, 128)])
    if source == "additive_scores.cu":
        return [_call(check_additive, 33, 70, 64, fast, softmax) for fast in (False, True)
                for softmax in (False, True)]
    if source == "softmax_backward.cu":
        return [_call(check_grad_norms, 4, 33, 64, 0.125), _call(check_grad_norms, 4, 2, 128, 1.0)]
    raise ValueError(f"no first-use checks for {source!r}")


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
