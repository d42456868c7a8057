"""The NumPy twins of our CUDA kernels (core/gpu/twins.py), on the CPU: each is checked against
core.attention / core.experiments and against a straightforward float64 formula or torch, so the
references the GPU tests rely on are themselves right. Also the launch planning and the fallback
behaviour that need no GPU.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core import attention as A
from core import gpu, gpu_check
from core.backend import cupy_available
from core.experiments import grad_query
from core.gpu import checks, guard

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("n", [1, 2, 31, 33, 300])
def test_row_stats_twin_matches_entropy_from_scores_and_the_definition(n: int) -> None:
    raw = (RNG.standard_normal((3, n, n)) * 6).astype(np.float32)
    scales = (1.0, 0.125)
    pmax, H, P = gpu.row_stats_twin(raw, scales, weights=True)
    for i, c in enumerate(scales):
        S = (raw * np.float32(c)).astype(np.float64)
        ref_pmax, ref_H = A.entropy_from_scores(S.copy())
        np.testing.assert_allclose(pmax[i], ref_pmax, rtol=1e-12)
        np.testing.assert_allclose(H[i], ref_H, rtol=1e-9, atol=1e-12)
        p = np.exp(S - S.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        np.testing.assert_allclose(P[i], p, rtol=1e-12)
        explicit_H = -(np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0)).sum(-1)
        np.testing.assert_allclose(H[i], explicit_H, atol=1e-9)
    np.testing.assert_allclose(P.sum(-1), 1.0, rtol=1e-12)
    assert (H >= 0).all() and (H <= math.log(n) + 1e-12).all()


def test_row_stats_twin_single_key_is_one_hot() -> None:
    pmax, H, _ = gpu.row_stats_twin(np.ones((4, 1, 1), np.float32), [3.0])
    assert (pmax == 1).all() and (H == 0).all()


@pytest.mark.parametrize(("bh", "n", "d"), [(1, 1, 1), (2, 31, 3), (3, 33, 64), (1, 200, 256)])
def test_attention_twin_matches_core_attention_and_torch_sdpa(bh: int, n: int, d: int) -> None:
    Q, K, V = RNG.standard_normal((3, bh, n, d))
    O = gpu.attention_twin(Q, K, V)
    np.testing.assert_allclose(O, A.attention(Q, K, V, 1 / math.sqrt(d)), rtol=1e-10, atol=1e-12)
    ref = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(x) for x in (Q, K, V)))
    np.testing.assert_allclose(O, ref.numpy(), rtol=1e-10, atol=1e-12)


def test_attention_twin_explicit_scale_and_single_key_returns_v() -> None:
    Q, K, V = RNG.standard_normal((3, 5, 1, 4))
    np.testing.assert_allclose(gpu.attention_twin(Q, K, V, scale=10.0), V, rtol=1e-15)


@pytest.mark.parametrize(("n", "m", "dh"), [(1, 1, 1), (31, 33, 3), (33, 2, 64), (40, 50, 256)])
def test_additive_twin_matches_core_attention_and_a_loop(n: int, m: int, dh: int) -> None:
    Ad = RNG.standard_normal((n, dh))
    Bd = RNG.standard_normal((m, dh))
    v = RNG.standard_normal(dh)
    S = gpu.additive_scores_twin(Ad, Bd, v)
    np.testing.assert_allclose(S, A.additive_scores(Ad, Bd, v), rtol=1e-12, atol=1e-12)
    i, j = n - 1, m // 2
    assert S[i, j] == pytest.approx(sum(v[h] * math.tanh(Ad[i, h] + Bd[j, h]) for h in range(dh)), abs=1e-12)
    P = gpu.additive_scores_twin(Ad, Bd, v, softmax=True)
    np.testing.assert_allclose(P, A.softmax(S), rtol=1e-12)
    np.testing.assert_allclose(P.sum(1), 1.0, rtol=1e-12)


@pytest.mark.parametrize(("n", "d", "c"), [(1, 3, 1.0), (2, 1, 1.0), (10, 16, 0.25), (33, 64, 1.0)])
def test_grad_norms_twin_matches_grad_query_and_torch_autograd(n: int, d: int, c: float) -> None:
    T = 6
    q = RNG.standard_normal((T, d))
    K = RNG.standard_normal((T, n, d))
    g = RNG.standard_normal((T, n))
    raw = (K @ q[:, :, None])[..., 0].astype(np.float32)
    p, gn, jn = gpu.grad_norms_twin(raw, K, g, c)
    s = (raw * np.float32(c)).astype(np.float64)
    ref_p = A.softmax(s)
    np.testing.assert_allclose(p, ref_p, rtol=1e-12)
    ref_gn = np.linalg.norm(grad_query(K, ref_p, g, c), axis=-1)
    np.testing.assert_allclose(gn, ref_gn, rtol=1e-9, atol=1e-14)
    ref_jn = np.linalg.norm(A.softmax_backward(ref_p, g), axis=-1)
    np.testing.assert_allclose(jn, ref_jn, rtol=1e-9, atol=1e-14)
    # autograd on L = g·softmax(c·K q), with q entering through the scores
    tq = torch.from_numpy(q).requires_grad_(True)
    tK = torch.from_numpy(K)
    L = (torch.from_numpy(g) * torch.softmax(c * (tK @ tq[:, :, None])[..., 0], -1)).sum()
    L.backward()  # float64 scores; the twin's are rounded to float32 first, hence rtol 1e-4
    np.testing.assert_allclose(gn, tq.grad.norm(dim=-1).numpy(), rtol=1e-4, atol=1e-9)


def test_grad_norms_twin_keeps_precision_on_a_saturated_row() -> None:
    """Two keys, p = (ε, 1 − ε) with ε ≈ 5e-20: J g = ε(1 − ε)(g₀ − g₁)·(1, −1) exactly, so
    ‖J g‖ = √2·ε·|g₀ − g₁| (the unshifted p⊙g − p(p·g) loses the second entry to 1 − ε = 1)."""
    raw = np.array([[-21.454, 22.893]], np.float32)
    g = np.array([[0.7, -1.9]])
    K = np.array([[[1.0, 0.0], [0.0, 2.0]]])
    p, gn, jn = gpu.grad_norms_twin(raw, K, g, 1.0)
    eps = p[0, 0]
    assert 1e-20 < eps < 1e-18
    assert jn[0] == pytest.approx(math.sqrt(2) * eps * 2.6, rel=1e-12)
    assert gn[0] == pytest.approx(eps * 2.6 * math.hypot(1.0, 2.0), rel=1e-12)  # Kᵀ(ε·2.6·(1, −1))


def test_bfloat16_bits_round_to_nearest_even_like_torch() -> None:
    x = np.concatenate([RNG.standard_normal(10000).astype(np.float32) * 100,
                        np.array([0.0, -0.0, 1.0, 1 + 2**-8, 1 + 3 * 2**-8, 65504.0, 1e-30], np.float32)])
    bits = gpu.to_bfloat16_bits(x)
    ref = torch.from_numpy(x).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(bits, ref)
    back = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(gpu.from_bfloat16_bits(bits), back)


@pytest.mark.parametrize("dtype", gpu.ATTENTION_DTYPES)
def test_attention_plan_fits_shared_memory_and_covers_every_row(dtype: str) -> None:
    names = set(gpu.SOURCES["attention_forward.cu"])
    for d in range(1, gpu.MAX_D + 1):
        for version in ("auto", "simt") + (("mma",) if d <= 128 else ()):
            for n in (1, 63, 64, 65, 4097):
                plan = gpu.attention_plan(3, n, d, dtype, version)
                assert plan.name in names
                assert plan.smem <= 227 * 1024
                rows_per_block = 64 if "mma" in plan.name else 32
                assert plan.grid == (-(-n // rows_per_block), 3)
                assert ("mma" in plan.name) == (version == "mma" or (version == "auto" and d <= 128))


def test_attention_plan_refuses_what_the_kernels_cannot_do() -> None:
    for bad in ({"d": 257}, {"d": 0}, {"n": 0}, {"bh": 70000}, {"split": 2}, {"dtype": "float64"},
                {"d": 129, "version": "mma"}, {"version": "fast"}):
        kw = {"bh": 1, "n": 8, "d": 64, **bad}
        with pytest.raises(gpu.KernelError):
            gpu.attention_plan(**kw)


def test_without_a_gpu_the_launchers_raise_and_the_helpers_fall_back_with_a_notice() -> None:
    if cupy_available():
        pytest.skip("a GPU is present; this checks the CPU-only behaviour")
    assert gpu.gpu_status().startswith("NumPy on CPU")
    with pytest.raises(gpu.KernelError, match="no CUDA GPU"):
        gpu.row_stats(np.zeros((2, 2), np.float32), [1.0])
    assert gpu.row_stats_or_none(np.zeros((1, 2, 2), np.float32), [1.0]) is None
    assert any("saturation row statistics" in m for m in gpu.notices())
    with gpu.reference_only():
        assert gpu.row_stats_or_none(np.zeros((1, 2, 2), np.float32), [1.0]) is None
    assert guard._state["reference_only"] is False


def test_gpu_check_scaled_error_fails_on_nan_shape_and_excess() -> None:
    assert checks.scaled_error([1.0, np.nan], [1.0, 1.0], 1e-3, 0) == math.inf
    assert checks.scaled_error([1.0], [1.0, 1.0], 1e-3, 0) == math.inf
    assert checks.scaled_error([1.002], [1.0], 1e-3, 0) == pytest.approx(2.0)
    assert not checks.Check("x", 2.0).ok and checks.Check("x", 1.0).ok


def test_gpu_check_covers_the_issue_sizes() -> None:
    assert set(checks.SIZES_N) == {1, 2, 31, 33, 1000, 4097}
    assert set(checks.SIZES_D) == {1, 3, 64, 128, 256}
    assert len(list(checks.kernel_checks())) > 300


def test_gpu_check_exits_2_without_a_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    if cupy_available():
        pytest.skip("a GPU is present")
    assert gpu_check.main(["--no-bench"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err


# ---------------------------------------------------------------- CuPy vs NumPy checks, on the CPU

ACROSS = [gpu_check.saturation_across, gpu_check.gradients_across, gpu_check.variance_across]


@pytest.mark.parametrize("check", ACROSS, ids=lambda f: f.__name__)
def test_cross_backend_tolerances_hold_for_independent_draws(check) -> None:
    """On the GPU these compare CuPy's generator with NumPy's: independent draws. Two NumPy seeds
    are that too, so the stated tolerance must hold here (it is sampling error, not a bug)."""
    result = check("numpy", "numpy", 1)
    assert result.ok, f"{result.name}: {result.err:.3g} × tolerance"


@pytest.mark.parametrize(("check", "experiment", "field"), [
    (gpu_check.saturation_across, "saturation", "entropy_mean"),
    (gpu_check.gradients_across, "gradients", "grad_q_norm_median"),
    (gpu_check.variance_across, "variance", "var_raw"),
], ids=["saturation", "gradients", "variance"])
def test_cross_backend_checks_catch_a_backend_that_is_off_by_a_fifth(monkeypatch: pytest.MonkeyPatch, check,
                                                                     experiment: str, field: str) -> None:
    from core import experiments as ex

    real = getattr(ex, experiment)

    def skewed(*args, backend="numpy", **kw):
        out = real(*args, backend="numpy", **kw)
        if backend == "skewed":
            for row in out["rows"]:
                row[field] *= 1.2
        return out

    monkeypatch.setattr(ex, experiment, skewed)
    assert not check("skewed", "numpy", 1).ok


def test_kernel_warm_up_compiles_everything_in_the_background_only_where_there_is_a_gpu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(guard, "compile_all", lambda: calls.append("compile_all") or {})
    monkeypatch.setattr(guard, "cupy_available", lambda: False)
    assert gpu.warm_up_in_background() is None and calls == []
    monkeypatch.setattr(guard, "cupy_available", lambda: True)
    thread = gpu.warm_up_in_background()
    thread.join(5)
    assert calls == ["compile_all"] and thread.daemon
