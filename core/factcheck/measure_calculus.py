"""Exact computations behind the notes' printed numbers and formulas: softmax outputs, exponentials,
the softmax Jacobian and the attention gradients, each against float64 arithmetic or torch autograd.

Nothing here is sampled: a point's error is 0 and its tolerance is half a unit in the last digit the
notes printed, or ROUNDING (relative) where a formula is compared with autograd.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.attention import naive_softmax, softmax, softmax_jacobian
from core.factcheck.rules import NEAR, ROUNDING, Point, above, eq, fraction_error, half_unit
from core.results import Progress, tick
from core.sampling import sub_seed


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max |b| (0 when both are 0)."""
    scale = float(np.abs(b).max())
    return float(np.abs(a - b).max()) / scale if scale > 0 else float(np.abs(a).max())


def run_printed(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Printed numbers recomputed in float64: softmax(p["inputs"]) against p["printed"] entry by entry
    (part "softmax"), m·e^x against each (x, m, printed) of p["exps"] (part "exp"), whether e^x
    overflows float16 (p["overflow"], part "overflow"), and whether every entry of the Jacobian is ≈ 0,
    within NEAR (p["jacobian_zero"], part "gradient")."""
    pts: list[Point] = []
    facts: dict[str, Any] = {}
    if "inputs" in p:
        x = np.array(p["inputs"], dtype=np.float64)
        probs = softmax(x[None, :])[0]
        for xi, pi, printed in zip(x, probs, p["printed"], strict=True):
            pts.append(
                eq(
                    "softmax_entry",
                    float(printed),
                    float(pi),
                    0.0,
                    half_unit(printed),
                    part="softmax",
                    where=f"x = {xi:g}",
                )
            )
        facts.update(
            {
                "softmax": [float(v) for v in probs],
                "top": float(probs.max()),
                "printed_sum": sum(float(v) for v in p["printed"]),
                "sigmoid": [float(1 / (1 + math.exp(-v))) for v in x],
                "pq_min": float((probs * (1 - probs)).min()),
            }
        )
        if p.get("jacobian_zero"):
            J = softmax_jacobian(probs)
            pts.append(eq("jacobian_max_abs", 0.0, float(np.abs(J).max()), 0.0, NEAR, part="gradient"))
            facts["jacobian_max"] = float(np.abs(J).max())
    for x, mult, printed in p.get("exps", ()):
        value = mult * math.exp(x)
        pts.append(
            eq(
                "exp_value",
                float(printed),
                value,
                0.0,
                half_unit(printed),
                part="exp",
                where=f"{mult:g}·e^{x:g}" if mult != 1 else f"e^{x:g}",
            )
        )
    if "overflow" in p:
        import torch

        x = float(p["overflow"])
        flags = {
            name: not math.isfinite(float(torch.exp(torch.tensor(x, dtype=getattr(torch, name)))))
            for name in ("float16", "bfloat16", "float32")
        }
        pts.append(eq("exp_overflows", 1.0, float(flags["float16"]), 0.0, part="overflow", where="float16"))
        facts.update({f"overflow_{k}": v for k, v in flags.items()})
    tick(progress, 1, 1)
    return pts, facts


def run_pq(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "After scaling, p(1 − p) > 0.01": the smallest p(1 − p) of the notes' own example (part
    "example"), and the share of weights with p(1 − p) > 0.01 in random scaled rows of n keys at d_k
    (claimed: all of them, part "random")."""
    x = np.array(p["inputs"], dtype=np.float64)
    probs = softmax(x[None, :])[0]
    pq = probs * (1 - probs)
    pts = [above("pq_min", p["threshold"], float(pq.min()), 0.0, part="example")]
    rng = np.random.default_rng(sub_seed(seed, 120, p["dk"], p["n"]))
    q = rng.standard_normal((p["trials"], p["dk"]))
    K = rng.standard_normal((p["trials"], p["n"], p["dk"]))
    P = softmax((K @ q[:, :, None])[..., 0] / math.sqrt(p["dk"]))
    share = float((P * (1 - P) > p["threshold"]).mean())
    pts.append(
        eq(
            "pq_share",
            1.0,
            share,
            fraction_error(share, P.size),
            part="random",
            dk=p["dk"],
            n=p["n"],
            scale="sqrt",
        )
    )
    tick(progress, 1, 1)
    return pts, {
        "pq_example": [float(v) for v in pq],
        "pq_min": float(pq.min()),
        "share_pct": share,
        "dk": p["dk"],
        "n": p["n"],
        "threshold": p["threshold"],
    }


def run_onehot(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """One input far above the rest (x = [gap, 0, …, 0], n inputs): softmax ≈ one-hot (the top
    weight within NEAR of 1, the others within NEAR of 0) and every Jacobian entry within NEAR of 0."""
    pts: list[Point] = []
    n = p["n"]
    for gap in p["gaps"]:
        x = np.zeros(n)
        x[0] = gap
        probs = softmax(x[None, :])[0]
        J = softmax_jacobian(probs)
        where = f"gap = {gap:g}"
        pts += [
            eq("top_weight", 1.0, float(probs[0]), 0.0, NEAR, where=where),
            eq("other_weight_max", 0.0, float(probs[1:].max()), 0.0, NEAR, where=where),
            eq("jacobian_max_abs", 0.0, float(np.abs(J).max()), 0.0, NEAR, where=where),
        ]
    tick(progress, 1, 1)
    # the gap beyond which the top weight exceeds 1 − NEAR: 1/(1 + (n−1)e^{−g}) ≥ 1 − NEAR
    return pts, {"n": n, "gap_needed": math.log((n - 1) * (1 - NEAR) / NEAR), "near": NEAR}


def _random_rows(seed: int, tag: int, rows: int, n: int) -> np.ndarray:
    return np.random.default_rng(sub_seed(seed, tag, rows, n)).standard_normal((rows, n)) * 3.0


def run_jacobian(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """∂p_j/∂z_k = p_j(δ_jk − p_k) (diagonal p_j(1 − p_j)) against torch.autograd's Jacobian of softmax,
    float64, on random rows: the largest relative difference, claimed 0 up to ROUNDING."""
    import torch
    from torch.autograd.functional import jacobian

    z = _random_rows(seed, 121, p["rows"], p["n"])
    worst = diag = 0.0
    for row in z:
        ours = softmax_jacobian(softmax(row[None, :])[0])
        ref = jacobian(lambda t: torch.softmax(t, dim=-1), torch.tensor(row)).numpy()
        worst = max(worst, _relative(ours, ref))
        pr = softmax(row[None, :])[0]
        diag = max(diag, _relative(pr * (1 - pr), np.diag(ref)))
    tick(progress, 1, 1)
    pts = [
        eq("formula_vs_autograd", 0.0, worst, 0.0, ROUNDING, part="jacobian", n=p["n"]),
        eq("diagonal_vs_autograd", 0.0, diag, 0.0, ROUNDING, part="diagonal", n=p["n"]),
    ]
    return pts, {"worst": worst, "diag": diag, "rows": p["rows"], "n": p["n"]}


def run_softmax_properties(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """On random rows: every weight ≥ 0, every row sums to 1 (within ROUNDING), z_i > z_j ⇒ p_i > p_j,
    max-subtraction gives the naive softmax's numbers where the naive one is finite, and stays finite
    where it overflows (a row holding 1000)."""
    z = _random_rows(seed, 122, p["rows"], p["n"])
    P, N = softmax(z), naive_softmax(z)
    i, j = np.triu_indices(p["n"], 1)
    order_ok = float((np.sign(z[:, i] - z[:, j]) == np.sign(P[:, i] - P[:, j])).mean())
    big = z.copy()
    big[:, 0] = 1000.0
    with np.errstate(over="ignore", invalid="ignore"):
        naive_big_finite = float(np.isfinite(naive_softmax(big)).all(axis=1).mean())
    stable_big_finite = float(np.isfinite(softmax(big)).all(axis=1).mean())
    pts = [
        eq("negative_weights", 0.0, float((P < 0).sum()), 0.0, part="nonnegative"),
        eq("row_sum_error", 0.0, float(np.abs(P.sum(axis=1) - 1).max()), 0.0, ROUNDING, part="normalised"),
        eq("order_kept", 1.0, order_ok, 0.0, part="monotone"),
        eq("stable_vs_naive", 0.0, _relative(P, N), 0.0, ROUNDING, part="equivalent"),
        eq("stable_finite", 1.0, stable_big_finite, 0.0, part="no_overflow", where="z₁ = 1000"),
    ]
    tick(progress, 1, 1)
    return pts, {"rows": p["rows"], "n": p["n"], "naive_big_finite_pct": naive_big_finite}


def _attention_grads(Q: Any, K: Any, V: Any, G: Any) -> tuple[Any, Any, Any]:
    """(∂L/∂S, ∂L/∂Q, ∂L/∂K) by autograd for L = Σ G ⊙ softmax(Q Kᵀ) V, with S = Q Kᵀ unscaled (the notes)."""
    import torch

    Q, K = Q.clone().requires_grad_(True), K.clone().requires_grad_(True)
    S = Q @ K.T
    S.retain_grad()
    (G * (torch.softmax(S, dim=-1) @ V)).sum().backward()
    return S.grad, Q.grad, K.grad


def run_grad_formulas(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """∂L/∂Q = (∂L/∂S)·K and ∂L/∂K = (∂L/∂S)ᵀ·Q against autograd (part "formulas"), and the two
    differing even at Q = K, since ∂L/∂S is not symmetric (part "different": relative gap > 0)."""
    import torch

    g = torch.Generator().manual_seed(sub_seed(seed, 123))
    n, d, dv = p["n"], p["dk"], p["dv"]
    Q, K = (
        torch.randn(n, d, dtype=torch.float64, generator=g),
        torch.randn(n, d, dtype=torch.float64, generator=g),
    )
    V, G = (
        torch.randn(n, dv, dtype=torch.float64, generator=g),
        torch.randn(n, dv, dtype=torch.float64, generator=g),
    )
    dS, dQ, dK = _attention_grads(Q, K, V, G)
    err_q, err_k = _relative((dS @ K).numpy(), dQ.numpy()), _relative((dS.T @ Q).numpy(), dK.numpy())
    dS2, dQ2, dK2 = _attention_grads(Q, Q, V, G)
    gap = float((dQ2 - dK2).norm() / dQ2.norm())
    pts = [
        eq("formula_vs_autograd", 0.0, err_q, 0.0, ROUNDING, part="formulas", where="∂L/∂Q"),
        eq("formula_vs_autograd", 0.0, err_k, 0.0, ROUNDING, part="formulas", where="∂L/∂K"),
        above("grad_q_vs_k_at_equal", 0.0, gap, 0.0, ROUNDING, part="different", where="Q = K"),
    ]
    tick(progress, 1, 1)
    asym = float((dS2 - dS2.T).norm() / dS2.norm())
    return pts, {"err_q": err_q, "err_k": err_k, "gap": gap, "ds_asymmetry": asym, "n": n, "dk": d}


def run_grad_weights(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The notes' ∂L/∂W^Q = ∂L/∂Q · Xᵀ against autograd, where Q = X W^Q. Its shapes only conform when
    n = d_model = d_k, so it is evaluated there; the chain rule gives Xᵀ · ∂L/∂Q (a fact, not the claim)."""
    import torch

    g = torch.Generator().manual_seed(sub_seed(seed, 124))
    m = p["size"]  # n = d_model = d_k
    X, Wq, Wk = (torch.randn(m, m, dtype=torch.float64, generator=g) for _ in range(3))
    V, G = (
        torch.randn(m, m, dtype=torch.float64, generator=g),
        torch.randn(m, m, dtype=torch.float64, generator=g),
    )
    Wq.requires_grad_(True)
    Q = X @ Wq
    Q.retain_grad()
    (G * (torch.softmax(Q @ (X @ Wk).T, dim=-1) @ V)).sum().backward()
    notes = _relative((Q.grad @ X.T).numpy(), Wq.grad.numpy())
    chain = _relative((X.T @ Q.grad).numpy(), Wq.grad.numpy())
    tick(progress, 1, 1)
    return (
        [eq("formula_vs_autograd", 0.0, notes, 0.0, ROUNDING, where=f"n = d_model = d_k = {m}")],
        {"notes_error": notes, "chain_error": chain, "size": m},
    )


def run_row_normalisation(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """A = softmax(S) normalises over keys, A_swap = softmax(Sᵀ) over queries: the largest |A − A_swapᵀ|
    (claimed > 0) on one draw of n queries and keys at d_k, ÷√d_k; A's column sums are not 1."""
    rng = np.random.default_rng(sub_seed(seed, 125, p["n"], p["dk"]))
    Q, K = rng.standard_normal((p["n"], p["dk"])), rng.standard_normal((p["n"], p["dk"]))
    S = Q @ K.T / math.sqrt(p["dk"])
    A, A_swap = softmax(S), softmax(S.T)
    gap = float(np.abs(A - A_swap.T).max())
    cols = A.sum(axis=0)
    tick(progress, 1, 1)
    return (
        [above("a_vs_swap", 0.0, gap, 0.0, ROUNDING, n=p["n"], dk=p["dk"], scale="sqrt")],
        {"gap": gap, "col_min": float(cols.min()), "col_max": float(cols.max()), "n": p["n"]},
    )


def run_transpose(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """W^Q(W^K)ᵀ ≠ W^K(W^Q)ᵀ for independently drawn W^Q, W^K: ‖M − Mᵀ‖_F / ‖M‖_F, claimed > 0.
    W^K(W^Q)ᵀ is the transpose of W^Q(W^K)ᵀ: the two differ because M is not symmetric."""
    rng = np.random.default_rng(sub_seed(seed, 126, p["d_model"], p["dk"]))
    std = math.sqrt(2.0 / (p["d_model"] + p["dk"]))
    Wq, Wk = (rng.standard_normal((p["d_model"], p["dk"])) * std for _ in range(2))
    M = Wq @ Wk.T
    rel = float(np.linalg.norm(M - Wk @ Wq.T) / np.linalg.norm(M))
    tick(progress, 1, 1)
    return (
        [above("m_vs_transpose", 0.0, rel, 0.0, ROUNDING, dk=p["dk"], where=f"d_model = {p['d_model']}")],
        {"rel": rel, "transpose_error": float(np.abs((Wk @ Wq.T) - M.T).max())},
    )
