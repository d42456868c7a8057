"""Measurements of what the components' scale does: products of independent variables, component
standard deviations other than 1, initialisation schemes (Xavier, the notes' N(0, 1/√dim)) and cosine
similarity's normalisation, each by drawing q and k directly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.factcheck.measure_scores import dot_moments, pairs
from core.factcheck.rules import Point, eq
from core.results import Progress, tick
from core.sampling import sub_seed


def run_product_variance(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Var(XY) = Var X·Var Y + E[X]²·Var Y + E[Y]²·Var X for independent X, Y: measured at the notes'
    N(0, 1) (where it is 1) and at other means and spreads (p["cases"]: (μx, μy, σx, σy))."""
    pts, facts = [], {"count": p["count"]}
    for i, (mx, my, sx, sy) in enumerate(p["cases"]):
        m = dot_moments(seed, 101 + i, p["count"], 1, (mx, my), (sx, sy))
        claimed = sx * sx * sy * sy + mx * mx * sy * sy + my * my * sx * sx
        pts.append(
            eq(
                "var_product",
                claimed,
                m["var"],
                m["var_se"],
                part="notes" if i == 0 else "general",
                where=f"μ = ({mx:g}, {my:g}), σ = ({sx:g}, {sy:g})",
            )
        )
        facts[f"var_{i}"] = m["var"]
        tick(progress, i + 1, len(p["cases"]))
    return pts, facts


def run_sigma_power(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """The notes' Var(q·k) = dim·σ² against measurement with component std σ (the truth: dim·σ⁴)."""
    d, pts, facts = p["dim"], [], {"dim": p["dim"], "count": p["count"]}
    for i, sigma in enumerate(p["sigmas"]):
        m = dot_moments(seed, 102, p["count"], d, std=(sigma, sigma))
        pts.append(
            eq(
                "var_raw",
                d * sigma**2,
                m["var"],
                m["var_se"],
                part="sigma1" if sigma == 1 else "general",
                dk=d,
                where=f"σ = {sigma:g}",
            )
        )
        facts[f"var_sigma_{i}"] = m["var"]
        facts[f"sigma_{i}"] = sigma
        facts[f"sigma4_{i}"] = d * sigma**4
        tick(progress, i + 1, len(p["sigmas"]))
    return pts, facts


def run_init_reading(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """N(0, 1/√dim): read as a standard deviation (what the notes' dim·(1/√dim)² uses) or as a
    variance (what makes Var(q·k) = 1). Var(q·k) measured under each reading, claimed 1."""
    d = p["dim"]
    readings = (("std", d**-0.5), ("variance", d**-0.25))  # (reading, component standard deviation)
    pts, facts = [], {"dim": d}
    for i, (name, sd) in enumerate(readings):
        m = dot_moments(seed, 103 + i, p["count"], d, std=(sd, sd))
        pts.append(
            eq("var_raw", 1.0, m["var"], m["var_se"], part=f"{name}_reading", dk=d, where=f"std = {sd:.4g}")
        )
        facts[f"var_{name}"] = m["var"]
        tick(progress, i + 1, 2)
    facts["inv_dim"] = 1.0 / d
    return pts, facts


def run_cosine(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Is ÷√dim "like" cosine similarity's ÷‖q‖‖k‖? Measured: ‖q‖·‖k‖/√dim, claimed 1; it is ≈ √dim,
    because ‖q‖‖k‖ ≈ dim — cosine similarity is the ÷dim score, not the ÷√dim one."""
    pts, facts = [], {}
    for i, d in enumerate(p["dims"]):
        r = np.concatenate(
            [
                np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1) / math.sqrt(d)
                for q, k in pairs(seed, 109, p["count"], d)
            ]
        )
        pts.append(
            eq("norm_product_over_sqrt", 1.0, float(r.mean()), float(r.std() / math.sqrt(r.size)), dk=d)
        )
        facts[f"ratio_{d}"] = float(r.mean())
        tick(progress, i + 1, len(p["dims"]))
    return pts, facts


def run_xavier(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Xavier/Glorot normal (torch.nn.init.xavier_normal_) on W ∈ R^{d_model×d_k}: entry variance
    2/(d_model + d_k) (part "formula"), and the variance of q = x W for x with unit-variance components
    (a LayerNorm'd input), which the notes take to be 1 (part "unit"): it is d_model·2/(d_model + d_k)."""
    import torch

    pts, facts = [], {"draws": p["draws"]}
    for i, (d_model, d_k) in enumerate(p["shapes"]):
        g = torch.Generator().manual_seed(sub_seed(seed, 110, d_model, d_k))
        w_var, q_var = [], []
        for _ in range(p["draws"]):
            W = torch.nn.init.xavier_normal_(torch.empty(d_k, d_model, dtype=torch.float64), generator=g)
            x = torch.randn(p["inputs"], d_model, dtype=torch.float64, generator=g)
            w_var.append(float(W.var()))
            q_var.append(float((x @ W.T).var()))
        for name, vals, claimed in (("w_var", w_var, 2.0 / (d_model + d_k)), ("q_var", q_var, 1.0)):
            m, se = float(np.mean(vals)), float(np.std(vals, ddof=1) / math.sqrt(len(vals)))
            pts.append(
                eq(
                    name,
                    claimed,
                    m,
                    se,
                    part="formula" if name == "w_var" else "unit",
                    dk=d_k,
                    where=f"d_model = {d_model}, d_k = {d_k}",
                )
            )
            facts[f"{name}_{d_model}_{d_k}"] = m
        facts[f"theory_q_{d_model}_{d_k}"] = 2.0 * d_model / (d_model + d_k)
        tick(progress, i + 1, len(p["shapes"]))
    return pts, facts
