"""Attention primitives: properties (hypothesis) and references (torch SDPA, torch autograd)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import attention as A

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False, width=64)
rows = st.integers(1, 6).flatmap(
    lambda r: st.integers(2, 12).flatmap(lambda n: arrays(np.float64, (r, n), elements=finite)))
prob_rows = rows.map(A.softmax)


@given(rows)
def test_softmax_rows_sum_to_one_and_are_nonnegative(S):
    P = A.softmax(S)
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=-1), 1.0, rtol=1e-12)


@given(rows, st.floats(-1e3, 1e3, allow_nan=False))
def test_softmax_is_shift_invariant(S, shift):
    np.testing.assert_allclose(A.softmax(S + shift), A.softmax(S), atol=1e-12)


def test_softmax_in_place_writes_into_input():
    S = np.array([[1.0, 2.0, 3.0]])
    out = A.softmax(S, out=S)
    assert out is S
    np.testing.assert_allclose(S.sum(), 1.0)


def test_notes_example_is_one_hot():
    # The notes: softmax([50, 1, 1, 1]) ≈ [1, 0, 0, 0]
    p = A.softmax(np.array([50.0, 1.0, 1.0, 1.0]))
    np.testing.assert_allclose(p, [1, 0, 0, 0], atol=1e-20)
    assert p[1] == pytest.approx(math.exp(-49) / (1 + 3 * math.exp(-49)), rel=1e-12)


def test_naive_softmax_overflows_where_stable_does_not():
    S = np.array([[1000.0, 0.0]])
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(A.naive_softmax(S)).any()
    np.testing.assert_allclose(A.softmax(S), [[1.0, 0.0]])


@given(prob_rows)
@settings(max_examples=60)
def test_jacobian_is_symmetric_psd_annihilates_ones_and_norm_at_most_half(P):
    J = A.softmax_jacobian(P)
    np.testing.assert_allclose(J, J.swapaxes(-1, -2), atol=1e-15)
    np.testing.assert_allclose(J @ np.ones(P.shape[-1]), 0.0, atol=1e-12)
    eig = np.linalg.eigvalsh(J)
    assert eig.min() >= -1e-12
    assert eig.max() <= 0.5 + 1e-12


@given(prob_rows)
@settings(max_examples=60)
def test_spectral_norm_matches_eigvalsh(P):
    expected = np.linalg.eigvalsh(A.softmax_jacobian(P)).max(axis=-1)
    got = A.jacobian_spectral_norm(P)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)


def test_spectral_norm_keeps_relative_precision_when_nearly_one_hot():
    # p = (1 − ε, ε): J = ε(1 − ε)[[1, −1], [−1, 1]], so ‖J‖₂ = 2ε(1 − ε) exactly.
    eps = 1e-30
    p = np.array([[1.0 - eps, eps]])  # 1 − ε rounds to 1; the tail sum keeps ε
    assert A.jacobian_spectral_norm(p)[0] == pytest.approx(2 * eps, rel=1e-9, abs=0)


def test_spectral_norm_keeps_its_precision_where_the_squares_underflow():
    # p_(2)² ≈ 1e-400 underflows to 0 in float64; ‖J‖₂ = 2 p₁ p₂ (n = 2) or close to it must not halve.
    assert A.jacobian_spectral_norm(np.array([[1.0, 1e-200]]))[0] == pytest.approx(2e-200, rel=1e-12, abs=0)
    # p = (1 − a − b, a, b), a, b ≪ 1: J = [[a+b, −a, −b], [−a, a, 0], [−b, 0, b]] up to O(a²),
    # whose largest eigenvalue is a + b + √(a² − ab + b²).
    a, b = 3e-190, 1e-190
    expected = a + b + np.sqrt(9.0 - 3.0 + 1.0) * 1e-190
    assert A.jacobian_spectral_norm(np.array([[1.0, a, b]]))[0] == pytest.approx(expected, rel=1e-12, abs=0)


def test_spectral_norm_uniform_is_one_over_n():
    for n in (2, 10, 100):
        assert A.jacobian_spectral_norm(np.full((1, n), 1 / n))[0] == pytest.approx(1 / n)


@given(prob_rows, st.integers(0, 2**31))
@settings(max_examples=60)
def test_backward_equals_jacobian_times_g(P, seed):
    g = np.random.default_rng(seed).standard_normal(P.shape)
    expected = (A.softmax_jacobian(P) @ g[..., None])[..., 0]
    np.testing.assert_allclose(A.softmax_backward(P, g), expected, atol=1e-12)


def test_backward_matches_torch_autograd_float64():
    rng = np.random.default_rng(3)
    for d_k, c in ((16, 1.0), (64, 0.125), (256, 1.0)):
        q = rng.standard_normal(d_k)
        K = rng.standard_normal((10, d_k))
        g = rng.standard_normal(10)
        p = A.softmax(c * K @ q)
        from core.experiments import grad_query
        ours = grad_query(K[None], p[None], g[None], c)[0]
        tq = torch.tensor(q, requires_grad=True)
        L = (torch.softmax(c * torch.tensor(K) @ tq, dim=0) * torch.tensor(g)).sum()
        L.backward()
        np.testing.assert_allclose(ours, tq.grad.numpy(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(("bh", "n", "d"), [(1, 1, 1), (1, 7, 3), (2, 33, 64), (1, 300, 16)])
def test_attention_matches_torch_sdpa_fp32(bh, n, d):
    rng = np.random.default_rng(n * 100 + d)
    Q, K, V = (rng.standard_normal((bh, n, d), dtype=np.float32) for _ in range(3))
    ours = A.attention(Q, K, V, 1 / math.sqrt(d), block=16)
    ref = torch.nn.functional.scaled_dot_product_attention(*map(torch.from_numpy, (Q, K, V)))
    np.testing.assert_allclose(ours, ref.numpy(), atol=1e-5)


def test_attention_blocking_does_not_change_result():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((50, 8)) for _ in range(3))
    np.testing.assert_allclose(A.attention(Q, K, V, 0.3, block=7), A.attention(Q, K, V, 0.3, block=50),
                               rtol=1e-12)


@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 6), st.integers(1, 6), st.integers(0, 99))
@settings(max_examples=40, deadline=None)
def test_additive_factored_equals_naive(n, m, d, d_h, seed):
    rng = np.random.default_rng(seed)
    Q, K = rng.standard_normal((n, d)), rng.standard_normal((m, d))
    W1, W2 = rng.standard_normal((d_h, d)), rng.standard_normal((d_h, d))
    v = rng.standard_normal(d_h)
    np.testing.assert_allclose(A.additive_attention_scores(Q, K, W1, W2, v),
                               A.additive_attention_scores_naive(Q, K, W1, W2, v), atol=1e-10)


def test_additive_matches_elementwise_definition():
    rng = np.random.default_rng(1)
    Q, K = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    W1, W2, v = rng.standard_normal((2, 4)), rng.standard_normal((2, 4)), rng.standard_normal(2)
    S = A.additive_attention_scores(Q, K, W1, W2, v)
    assert S[1, 3] == pytest.approx(v @ np.tanh(W1 @ Q[1] + W2 @ K[3]))


def test_entropy_from_scores_matches_entropy_of_softmax():
    rng = np.random.default_rng(2)
    S = rng.standard_normal((4, 20)) * 10
    P = A.softmax(S)
    pmax, H = A.entropy_from_scores(S.copy())
    np.testing.assert_allclose(H, A.entropy(P), atol=1e-12)
    np.testing.assert_allclose(pmax, P.max(axis=-1), rtol=1e-12)
    assert np.all(H <= math.log(20) + 1e-12)
