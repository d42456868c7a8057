"""Measurements of the largest scores and of the share inside a range: what softmax sees is the largest of
many scores, not one, so ranges quoted for a single q·k are checked against n × n matrices and the notes'
own snippets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import budget
from core import experiments as ex
from core.attention import scores, softmax
from core.factcheck.measure_scores import rng_for, scaled_dots
from core.factcheck.rules import (
    FLOAT32_ROUNDING,
    MAY_FRACTION,
    PLAUSIBLE,
    Z_TOL,
    Point,
    above,
    eq,
    fraction_error,
    half_unit,
)
from core.results import Progress, tick
from core.sampling import draw, gram_scores, sub_seed
from core.scales import scale_factor


def fraction_within(
    dks: Sequence[int], n: int, trials: int, k: float, seed: int, progress: Progress = None
) -> dict[int, dict[str, float]]:
    """Per d_k: the fraction of scaled logits q·k/√d_k with |s| ≤ k, its standard error, and the
    fraction of rows of n logits entirely inside. Per-trial fractions give the error honestly (the
    n² logits of one trial share queries and keys)."""
    ex.check_dks(dks)
    n = ex.check_n(n)
    t = ex.check_trials(trials)
    out = {}
    for i, d in enumerate(dks):
        rng = rng_for(seed, 63, d, n)
        Q, K = draw(rng, (t, n, d), "normal", "float32"), draw(rng, (t, n, d), "normal", "float32")
        inside = np.abs(scores(Q, K, scale_factor("sqrt", d))) <= k
        per_trial = inside.reshape(t, -1).mean(axis=1)
        out[d] = {
            "fraction": float(per_trial.mean()),
            "se": float(per_trial.std(ddof=1) / math.sqrt(t)),
            "rows_inside": float(inside.all(axis=-1).mean()),
        }
        tick(progress, i + 1, len(dks))
    return out


def run_range_3(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The 3-sigma rule's 99.7 % inside [−3, 3] against the measured share of scaled logits."""
    claimed = math.erf(p["k"] / math.sqrt(2.0))
    res = fraction_within(p["dks"], p["n"], p["trials"], p["k"], seed, progress)
    pts = [
        Point(
            "fraction_inside",
            claimed,
            r["fraction"],
            r["se"],
            Z_TOL * r["se"] + half_unit(p["printed"]),
            dk=d,
            n=p["n"],
            scale="sqrt",
        )
        for d, r in res.items()
    ]
    p_in = pts[-1].measured
    top = p["dks"][-1]
    facts = {
        "claimed_pct": claimed,
        "n": p["n"],
        "k": p["k"],
        "dk_max": top,
        "dk_min": p["dks"][0],
        "min_dk_pct": pts[0].measured,
        "rows_inside_max_pct": res[top]["rows_inside"],
        "long_n": p["long_n"],
        "rows_inside_long_pct": p_in ** p["long_n"],
    }
    return pts, facts


def largest_scores(d: int, n: int, trials: int, seed: int) -> np.ndarray:
    """Per trial, the largest |q_i·k_j|/√d_k over an n × n score matrix (exact Gram sampler, d_k ≥ n)."""
    ex.check_dks([d])
    n = ex.check_n(n)
    trials = ex.check_trials(trials)
    if d < n:
        raise ValueError("largest_scores needs d_k ≥ n")
    budget.check_time(
        budget.estimate_seconds(flops=2.0 * trials * n**3, samples=2.0 * trials * n * n),
        "this largest-score sample",
        "fewer trials or a smaller n",
        60.0,
    )
    chunk = budget.chunk_trials(3 * 4 * n * n, trials, "largest scores")
    rng = rng_for(seed, 107, d, n)
    out = [
        np.abs(gram_scores(rng, min(chunk, trials - s), n, d, 0.0, "float32")).reshape(-1, n * n).max(axis=1)
        for s in range(0, trials, chunk)
    ]
    return np.concatenate(out).astype(np.float64) / math.sqrt(d)


def run_largest(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The largest of the n² scores at d_k = p["dim"] for each n in p["ns"] (trials p["trials"][i]).

    mode "scaled": its mean against the claimed ±3 (slack: half a unit of "3"), plus the share of
    all scaled scores inside [−3, 3] against 99.7 %. mode "raw": how often an n × n matrix holds a
    raw |q·k| ≥ p["size"], claimed to happen (in at least MAY_FRACTION of matrices)."""
    d, pts, facts = p["dim"], [], {"dim": p["dim"], "std": math.sqrt(p["dim"])}
    for i, (n, t) in enumerate(zip(p["ns"], p["trials"], strict=True)):
        x = largest_scores(d, n, t, seed)
        if p["mode"] == "scaled":
            pts.append(
                eq(
                    "largest_scaled",
                    float(p["printed"]),
                    float(x.mean()),
                    float(x.std() / math.sqrt(t)),
                    half_unit(p["printed"]),
                    part="largest",
                    dk=d,
                    n=n,
                    scale="sqrt",
                )
            )
            facts[f"largest_{n}"] = float(x.mean())
        else:
            hit = float((x * math.sqrt(d) >= p["size"]).mean())
            pts.append(
                above(
                    "matrices_with_extreme",
                    MAY_FRACTION,
                    hit,
                    fraction_error(hit, t),
                    dk=d,
                    n=n,
                    scale="none",
                    where=f"max |q·k| ≥ {p['size']:g}",
                )
            )
            facts[f"hit_{n}_pct"], facts[f"largest_raw_{n}"] = hit, float(x.mean()) * math.sqrt(d)
        tick(progress, i + 1, len(p["ns"]) + 1)
    if p["mode"] == "scaled":
        s = scaled_dots(seed, 108, p["count"], d)
        inside = float((np.abs(s) <= 3.0).mean())
        pts.append(
            eq(
                "fraction_inside",
                0.997,
                inside,
                fraction_error(inside, s.size),
                half_unit("0.997"),
                part="three_sigma",
                dk=d,
                scale="sqrt",
            )
        )
        facts["inside_pct"] = inside
    tick(progress, 1, 1)
    return pts, {**facts, "ns": list(p["ns"]), "size_sigma": p.get("size", 0) / math.sqrt(d)}


def run_snippet(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The notes' snippet (Q, K = torch.randn(batch, seq, dim), float32), run p["draws"] times: each
    printed std against the central PLAUSIBLE share of what it can print (parts "printed_raw",
    "printed_scaled"), and
    the largest |row sum − 1| of the softmax against float32 rounding (part "sums")."""
    import torch

    b, n, d, draws = p["batch"], p["seq"], p["dim"], ex.check_trials(p["draws"])
    budget.check_time(
        budget.estimate_seconds(flops=2.0 * draws * b * n * n * d, samples=2.0 * draws * b * n * d),
        "this snippet sample",
        "fewer draws",
        60.0,
    )
    g = torch.Generator().manual_seed(sub_seed(seed, 112, b, n, d))
    raw_std, scaled_std, worst = [], [], 0.0
    for _ in range(max(1, draws // 500)):
        Q, K = torch.randn(500, b, n, d, generator=g), torch.randn(500, b, n, d, generator=g)
        raw = Q @ K.transpose(-2, -1)
        scaled = raw / d**0.5
        raw_std.append(raw.reshape(500, -1).std(dim=1).numpy())
        scaled_std.append(scaled.reshape(500, -1).std(dim=1).numpy())
        P = softmax(scaled.numpy())
        worst = max(worst, float(np.abs(P.sum(axis=-1) - 1.0).max()))
    tick(progress, 1, 1)
    a = (1.0 - PLAUSIBLE) / 2.0
    pts, facts = [], {"draws": draws, "plausible_pct": PLAUSIBLE, "sum_error": worst}
    for part, vals, printed in (
        ("raw", raw_std, p["printed_raw"]),
        ("scaled", scaled_std, p["printed_scaled"]),
    ):
        x = np.concatenate(vals).astype(np.float64)
        lo, hi = np.quantile(x, [a, 1.0 - a])
        r = half_unit(printed)
        pts.append(
            Point(
                "printed_std",
                float(printed),
                float(np.median(x)),
                float(x.std() / math.sqrt(x.size)),
                r,
                relation="within",
                part=f"printed_{part}",
                dk=d,
                n=n,
                lo=float(lo) - r,
                hi=float(hi) + r,
            )
        )
        facts[f"median_{part}"], facts[f"lo_{part}"], facts[f"hi_{part}"] = (
            float(np.median(x)),
            float(lo),
            float(hi),
        )
    pts.append(eq("row_sum_error", 0.0, worst, 0.0, FLOAT32_ROUNDING, part="sums", dk=d, n=n))
    return pts, facts
