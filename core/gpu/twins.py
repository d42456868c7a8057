"""NumPy twins of our kernels: the same computation in float64, the reference every kernel is checked against.

Each twin takes the inputs its kernel takes (as NumPy arrays) and rounds them as the kernel does
(scores c·r to float32 first) before computing in float64. Also the bfloat16 bit conversions the
attention kernel's bf16 inputs and outputs go through.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def row_stats_twin(raw: np.ndarray, scales: Sequence[float],
                   weights: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """NumPy twin of row_stats: s = c·r rounded to float32 (as the kernel), then float64:
    p_max = max_j p_j, H = −Σ_j p_j ln p_j, p = softmax(s)."""
    r = np.asarray(raw, dtype=np.float32)
    pm, hs, ps = [], [], []
    for c in scales:
        s = (r * np.float32(c)).astype(np.float64)
        z = s - s.max(axis=-1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=-1, keepdims=True)
        pm.append(p.max(axis=-1))
        hs.append(-(p * z).sum(axis=-1) + np.log(e.sum(axis=-1)))  # −Σ p ln p with ln p = z − ln Z
        ps.append(p)
    return np.stack(pm), np.maximum(np.stack(hs), 0.0), np.stack(ps) if weights else None


def attention_twin(Q: np.ndarray, K: np.ndarray, V: np.ndarray, scale: float | None = None) -> np.ndarray:
    """NumPy twin: O = softmax(c · Q Kᵀ) V in float64 (c = 1/√d by default), batched over leading axes."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    c = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale
    S = c * (Q @ K.swapaxes(-1, -2))
    S -= S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P /= P.sum(axis=-1, keepdims=True)
    return P @ V


def to_bfloat16_bits(x: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bit patterns (uint16), round to nearest even (what cvt.rn.bf16.f32 does)."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) → float32, exactly."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def additive_scores_twin(A: np.ndarray, B: np.ndarray, v: np.ndarray, softmax: bool = False) -> np.ndarray:
    """NumPy twin in float64: s_ij = Σ_h v_h tanh(A_ih + B_jh), then softmax over j if asked."""
    A, B, v = (np.asarray(x, dtype=np.float64) for x in (A, B, v))
    S = np.empty((A.shape[0], B.shape[0]))
    block = max(1, (1 << 22) // max(1, B.shape[0] * A.shape[1]))
    for i in range(0, A.shape[0], block):
        S[i:i + block] = np.tanh(A[i:i + block, None, :] + B[None, :, :]) @ v
    if softmax:
        S = np.exp(S - S.max(axis=1, keepdims=True))
        S /= S.sum(axis=1, keepdims=True)
    return S


def grad_norms_twin(raw: np.ndarray, K: np.ndarray, g: np.ndarray,
                    c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy twin: s = c·r rounded to float32, then float64: p = softmax(s), J g = (diag p − p pᵀ) g,
    ∂L/∂q = c·Kᵀ(J g). Returns (p, ‖∂L/∂q‖₂, ‖J g‖₂).

    J g is formed as p ⊙ (ρ − p·ρ) with ρ = g − g_top (J·1 = 0, so the shift changes nothing in exact
    arithmetic): written as p ⊙ g − p (p·g), a row with p_top = 1 − 5e-20 rounds p_top·(1 − p_top)
    to 0 and its entries of J g lose all precision (the CPU emulator caught the earlier twin doing so)."""
    s = (np.asarray(raw, dtype=np.float32) * np.float32(c)).astype(np.float64)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    g = np.asarray(g, dtype=np.float64)
    rho = g - np.take_along_axis(g, p.argmax(axis=-1)[..., None], axis=-1)
    Jg = p * (rho - (p * rho).sum(axis=-1, keepdims=True))
    grad = c * np.einsum("tnd,tn->td", np.asarray(K, dtype=np.float64), Jg)
    return p, np.linalg.norm(grad, axis=-1), np.linalg.norm(Jg, axis=-1)
