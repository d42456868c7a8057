"""Attention primitives, written once for NumPy and CuPy arrays alike.

Symbols as on screen: queries Q (n × d_k), keys K (n × d_k), values V (n × d_v),
scores S = c · Q Kᵀ, weights P = softmax(S) row by row, output O = P V.
Additive (Bahdanau) attention scores: s_ij = vᵀ tanh(W₁ q_i + W₂ k_j).
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = Any  # numpy.ndarray or cupy.ndarray


def array_module(x: Array) -> Any:
    """numpy or cupy, whichever owns x."""
    mod = type(x).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def scores(Q: Array, K: Array, c: float) -> Array:
    """S = c · Q Kᵀ over the last two axes. c is folded into Q: n·d_k multiplies instead of n²."""
    return (Q * Q.dtype.type(c)) @ K.swapaxes(-1, -2)


def softmax(S: Array, out: Array | None = None) -> Array:
    """Row softmax p_ij = exp(s_ij − m_i) / Σ_j exp(s_ij − m_i), m_i = max_j s_ij.

    Max-subtraction keeps every exponent ≤ 0, so nothing overflows. Pass `out=S` to work in place.
    """
    xp = array_module(S)
    if out is None:
        out = S.copy()
    elif out is not S:
        out[...] = S
    out -= out.max(axis=-1, keepdims=True)
    xp.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def naive_softmax(S: Array) -> Array:
    """exp(s_ij) / Σ_j exp(s_ij) with no max-subtraction: overflows to inf/NaN for large logits."""
    xp = array_module(S)
    E = xp.exp(S)
    return E / E.sum(axis=-1, keepdims=True)


def entropy(P: Array) -> Array:
    """H(p) = −Σ_j p_j ln p_j per row, in nats (0 ≤ H ≤ ln n); 0·ln 0 counts as 0."""
    xp = array_module(P)
    logp = xp.log(xp.where(P > 0, P, 1))
    return -(P * logp).sum(axis=-1)


def entropy_from_scores(S: Array) -> tuple[Array, Array]:
    """(max weight, entropy) per row straight from scores, never forming P twice.

    With z = s − max s and Z = Σ exp z:  p_max = 1/Z,  H = ln Z − Σ p z.
    Works in place on S (S is overwritten).
    """
    xp = array_module(S)
    S -= S.max(axis=-1, keepdims=True)
    E = xp.exp(S)
    Z = E.sum(axis=-1)
    H = xp.log(Z) - (E * S).sum(axis=-1) / Z
    return 1.0 / Z, xp.maximum(H, 0)


def attention(Q: Array, K: Array, V: Array, c: float, block: int | None = None) -> Array:
    """O = softmax(c · Q Kᵀ) V, computed in row blocks so the n × n score matrix never exists whole.

    Each block of queries: S_b = c·Q_b Kᵀ, softmax in place, O_b = P_b V. Blocks keep S_b in cache;
    the 1/Σ normalisation is applied to O_b (n_b × d_v) rather than to P_b (n_b × n).
    """
    xp = array_module(Q)
    n = Q.shape[-2]
    if block is None:
        block = _default_block(K.shape[-2], Q.dtype.itemsize)
    Qc = Q * Q.dtype.type(c)
    Kt = K.swapaxes(-1, -2)
    out = xp.empty((*Q.shape[:-1], V.shape[-1]), dtype=Q.dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        S = Qc[..., start:stop, :] @ Kt
        S -= S.max(axis=-1, keepdims=True)
        xp.exp(S, out=S)
        denom = S.sum(axis=-1, keepdims=True)
        O = S @ V
        O /= denom
        out[..., start:stop, :] = O
    return out


def _default_block(n_keys: int, itemsize: int) -> int:
    """Rows per block so one block of scores is about 4 MiB: big enough for efficient BLAS calls,
    small enough to stay in the last-level cache between the two products (measured: 256 rows at
    n = 4096 beat both 64 and the whole matrix)."""
    return int(max(16, min(4096, (4 << 20) // max(1, n_keys * itemsize))))


def additive_scores(A: Array, B: Array, v: Array) -> Array:
    """Factored additive scores s_ij = Σ_h v_h tanh(A_ih + B_jh), with A = Q W₁ᵀ, B = K W₂ᵀ given.

    This is the n²·d_h tanh part; the projections (n·d·d_h each) are computed once per token.
    Works in blocks of query rows so the n × n × d_h intermediate stays bounded.
    """
    xp = array_module(A)
    n, d_h = A.shape
    m = B.shape[0]
    out = xp.empty((n, m), dtype=A.dtype)
    block = int(max(1, (1 << 22) // max(1, m * d_h)))  # ~4M elements of the n_b × m × d_h cube
    for start in range(0, n, block):
        stop = min(start + block, n)
        T = A[start:stop, None, :] + B[None, :, :]
        xp.tanh(T, out=T)
        out[start:stop] = T @ v
    return out


def additive_attention_scores(Q: Array, K: Array, W1: Array, W2: Array, v: Array) -> Array:
    """s_ij = vᵀ tanh(W₁ q_i + W₂ k_j), factored: W₁Q and W₂K are computed once (O(n·d·d_h))."""
    return additive_scores(Q @ W1.T, K @ W2.T, v)


def additive_attention_scores_naive(Q: Array, K: Array, W1: Array, W2: Array, v: Array) -> Array:
    """s_ij = vᵀ tanh(W₁ q_i + W₂ k_j) with the projections recomputed for every pair: O(n²·d·d_h).

    This is where the notes' O(n²d²) comes from. Row by row, so memory stays n·d_h·d.
    """
    xp = array_module(Q)
    n, m = Q.shape[0], K.shape[0]
    out = xp.empty((n, m), dtype=Q.dtype)
    for i in range(n):
        qi = xp.broadcast_to(Q[i], K.shape)  # the same q_i, projected again for every key j
        pre = qi @ W1.T + K @ W2.T
        out[i] = xp.tanh(pre) @ v
    return out


def softmax_jacobian(p: Array) -> Array:
    """J = diag(p) − p pᵀ, the Jacobian ∂p/∂s of the softmax (batched over leading axes)."""
    xp = array_module(p)
    J = -p[..., :, None] * p[..., None, :]
    idx = xp.arange(p.shape[-1])
    J[..., idx, idx] += p
    return J


def softmax_backward(p: Array, g: Array) -> Array:
    """∂L/∂s = J g = p ⊙ (g − p·g) for L = g·p.

    Since J·1 = 0, g may be shifted by any constant; shifting by g at the arg-max of p makes
    the subtraction exact where p is nearly one-hot (no cancellation against p_max·g_max).
    """
    xp = array_module(p)
    top = xp.argmax(p, axis=-1)[..., None]
    r = g - xp.take_along_axis(g, top, axis=-1)
    return p * (r - (p * r).sum(axis=-1, keepdims=True))


def jacobian_spectral_norm(p: Array, iterations: int = 64) -> Array:
    """‖J‖₂ = λ_max(diag(p) − p pᵀ) per row, without forming J (O(n) memory per row).

    J is diagonal minus a rank-one term, so its eigenvalues interlace the sorted p:
    λ_max lies in [p_(2), p_(1)] and is the root of the secular equation
        f(λ) = 1 − Σ_i p_i² / (p_i − λ) = 0,
    decreasing in λ there. The top term is rewritten as (p₁(1−p₁) − λ)/(p₁ − λ) with
    1 − p₁ = Σ_{i≠1} p_i, so nearly one-hot rows keep full relative precision.
    The bound ‖J‖₂ ≤ 2(1 − p_max) (docs/science.md §3c) narrows the bracket. Computed in float64.

    Solved in units of s = 1 − p₁ (λ = s·μ, r_i = p_i / s for i ≠ 1), where f(λ) / s is
        F(μ) = (p₁ − μ)/(p₁ − s·μ) − Σ_{i≠1} r_i² / (r_i − μ),
    so the squares cannot underflow however saturated the row (p_(2) ≈ 1e-200 in float64).
    Safeguarded Newton: a step F/F′ that stays inside the bracket is taken, else the bracket is
    halved, and the sign of F shrinks the bracket either way; it stops once no row's μ moves by
    more than a few units in the last place (a handful of steps), or after `iterations` steps.
    """
    xp = array_module(p)
    P = xp.asarray(p, dtype=xp.float64)
    P = -xp.sort(-P, axis=-1)  # descending
    p1 = P[..., 0]
    tail = P[..., 1:].sum(axis=-1)  # 1 − p₁, accurately
    s = xp.where(tail > 0, tail, 1.0)
    r = P[..., 1:] / s[..., None]
    lo = r[..., 0]
    hi = xp.maximum(xp.minimum(p1, 2.0 * tail) / s, lo)
    ulp = 4.0 * np.finfo(np.float64).eps

    mu = 0.5 * (lo + hi)
    for _ in range(iterations):
        # At an exact tie (lo = hi) a term divides by zero; the bracket is then already closed.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gap = p1 - s * mu
            dr = r - mu[..., None]
            q = r * r / dr
            f = (p1 - mu) / gap - q.sum(axis=-1)
            df = -(p1 * p1) / (gap * gap) - (q / dr).sum(axis=-1)
            newton = mu - f / df
        lo = xp.where(f > 0, mu, lo)  # the root lies above μ
        hi = xp.where(f < 0, mu, hi)
        inside = (newton >= lo) & (newton <= hi)
        step = xp.where(f == 0, mu, xp.where(inside, newton, 0.5 * (lo + hi)))
        done = bool(xp.all(xp.abs(step - mu) <= ulp * xp.abs(step)))
        mu = step
        if done:
            break
    return s * mu
