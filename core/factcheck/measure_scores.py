"""Measurements of the scores themselves: variance, shape, ranges and largest values of q·k.

Every sample is drawn afresh from the notes' own assumptions (iid components, mean 0, variance 1
unless a claim says otherwise). Two samplers: `pairs` draws q and k directly (any mean and standard
deviation), `scaled_dots` draws q·k/√d_k exactly as √(χ²_{d_k}/d_k)·Z (core.sampling.gram_scores with
n = 1), which costs O(1) per sample instead of O(d_k) — the same distribution, so a shape statistic
can use millions of samples.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from core import budget
from core import experiments as ex
from core.backend import get_backend
from core.factcheck.rules import (
    NORMAL_KURT_TOL,
    NORMAL_TAIL_REL,
    Point,
    above,
    eq,
    fraction_error,
    half_unit,
    local_slopes,
)
from core.results import Progress, tick
from core.sampling import draw, gram_scores, sub_seed

NORMAL_OUTSIDE_3 = math.erfc(3.0 / math.sqrt(2.0))  # P(|Z| > 3) = 0.0027 for Z ~ N(0, 1)


def rng_for(seed: int, *keys: int) -> Any:
    return get_backend("numpy", "float32").rng(sub_seed(seed, *keys))


def pairs(
    seed: int,
    tag: int,
    count: int,
    d: int,
    mean: tuple[float, float] = (0.0, 0.0),
    std: tuple[float, float] = (1.0, 1.0),
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of (q, k), count × d in all, components iid N(mean, std²) — q and k independent."""
    count = ex.check_trials(count)
    chunk = budget.chunk_trials(3 * 4 * d, count, "these samples")
    rng = rng_for(seed, tag, d, count)
    for start in range(0, count, chunk):
        t = min(chunk, count - start)
        q = draw(rng, (t, d), "normal", "float32") * np.float32(std[0]) + np.float32(mean[0])
        k = draw(rng, (t, d), "normal", "float32") * np.float32(std[1]) + np.float32(mean[1])
        yield q, k


def dot_moments(
    seed: int,
    tag: int,
    count: int,
    d: int,
    mean: tuple[float, float] = (0.0, 0.0),
    std: tuple[float, float] = (1.0, 1.0),
) -> dict[str, float]:
    """Mean and variance of s = q·k over `count` direct draws, each with its standard error:
    se(mean) = √(Var/N), se(Var) = √((m₄ − Var²)/N) with m₄ the fourth central moment."""
    s = np.concatenate(
        [(q.astype(np.float64) * k).sum(axis=1) for q, k in pairs(seed, tag, count, d, mean, std)]
    )
    return _moments(s)


def _moments(s: np.ndarray) -> dict[str, float]:
    mu = float(s.mean())
    c = s - mu
    m2, m4 = float((c * c).mean()), float((c**4).mean())
    return {
        "mean": mu,
        "mean_se": math.sqrt(m2 / s.size),
        "var": m2 * s.size / max(1, s.size - 1),
        "var_se": math.sqrt(max(0.0, m4 - m2 * m2) / s.size),
        "count": int(s.size),
    }


def scaled_dots(seed: int, tag: int, count: int, d: int) -> np.ndarray:
    """`count` exact draws of q·k/√d_k for iid N(0, 1) components (float64)."""
    ex.check_dks([d])
    count = ex.check_trials(count)
    chunk = budget.chunk_trials(8 * 4, count, "these samples")
    rng = rng_for(seed, tag, d)
    parts = [
        gram_scores(rng, min(chunk, count - s), 1, d, 0.0, "float64").reshape(-1)
        for s in range(0, count, chunk)
    ]
    return np.concatenate(parts) / math.sqrt(d)


def shape(x: np.ndarray, k: float = 3.0) -> dict[str, float]:
    """Excess kurtosis γ = m₄/m₂² − 3 and the tail mass P(|x − mean| > k·sd), with standard errors.

    se(γ) by the influence function of m₄/m₂²: IF = z⁴ − 2(γ + 3)·z², z the standardised sample."""
    z = (x - x.mean()) / x.std()
    g = float((z**4).mean() - 3.0)
    influence = z**4 - 2.0 * (g + 3.0) * z * z
    tail = float((np.abs(z) > k).mean())
    return {
        "kurtosis": g,
        "kurtosis_se": float(influence.std() / math.sqrt(x.size)),
        "tail": tail,
        "tail_se": fraction_error(tail, x.size),
    }


# ---------------------------------------------------------------- runs (seed, progress, params)


def run_variance(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Var(q·k) = d_k (part "raw"), Var(q·k/√d_k) = 1 ("scaled"), E[q·k] = 0 ("mean"): core's variance
    experiment at p["dks"], the parts p["parts"] asks for."""
    res = ex.variance(p["dks"], ["none", "sqrt"], p["trials"], seed=seed, progress=progress)
    parts = p.get("parts", ("raw", "scaled"))
    pts: list[Point] = []
    for r in res["rows"]:
        d = r["dk"]
        if r["scale"] == "none" and "raw" in parts:
            pts.append(eq("var_raw", d, r["var_raw"], r["var_raw_se"], part="raw", dk=d, scale="none"))
        if r["scale"] == "none" and "mean" in parts:
            pts.append(
                eq(
                    "mean_raw",
                    0.0,
                    r["mean_raw"],
                    math.sqrt(r["var_raw"] / p["trials"]),
                    part="mean",
                    dk=d,
                    scale="none",
                )
            )
        if r["scale"] == "sqrt" and "scaled" in parts:
            pts.append(
                eq("var_scaled", 1.0, r["var_scaled"], r["var_scaled_se"], part="scaled", dk=d, scale="sqrt")
            )
    by = {(r["dk"], r["scale"]): r for r in res["rows"]}
    facts = {
        "trials": p["trials"],
        **{f"var_{d}": by[(d, "none")]["var_raw"] for d in p["dks"]},
        **{f"var_scaled_{d}": by[(d, "sqrt")]["var_scaled"] for d in p["dks"]},
        "ratio_max": max(by[(d, "none")]["var_raw"] / d for d in p["dks"]),
        "ratio_min": min(by[(d, "none")]["var_raw"] / d for d in p["dks"]),
    }
    return pts, facts


def run_normality(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Is q·k/√d_k N(0, 1)? Per d_k, the excess kurtosis against 0 (theory 6/d_k) and the mass
    beyond 3σ against a normal's 0.27 %, each within its stated slack."""
    pts, facts = [], {"count": p["count"], "normal_tail": NORMAL_OUTSIDE_3}
    for i, d in enumerate(p["dks"]):
        s = shape(scaled_dots(seed, 104, p["count"], d))
        pts.append(
            eq("excess_kurtosis", 0.0, s["kurtosis"], s["kurtosis_se"], NORMAL_KURT_TOL, dk=d, scale="sqrt")
        )
        pts.append(
            eq(
                "tail_3sigma",
                NORMAL_OUTSIDE_3,
                s["tail"],
                s["tail_se"],
                NORMAL_TAIL_REL * NORMAL_OUTSIDE_3,
                dk=d,
                scale="sqrt",
            )
        )
        facts[f"kurtosis_{d}"], facts[f"tail_{d}_pct"] = s["kurtosis"], s["tail"]
        tick(progress, i + 1, len(p["dks"]))
    normal = [kurt.dk for kurt, tail in zip(pts[::2], pts[1::2], strict=True) if kurt.agrees and tail.agrees]
    facts["dk_normal_from"] = min(normal) if normal else None
    return pts, facts


def run_raw_range(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Standard deviations of q·k and of q·k/√d_k against printed values (p["std"], p["std_scaled"]:
    {d_k: "22.6"}), the mean of q·k against 0 (p["mean"]: [d_k]), the share of raw q·k inside ±bound
    (p["inside"]: {d_k: (bound, "0.997")}) and the share beyond a size the notes call common
    (p["beyond"]: (d_k, size, at least)). Shares come from the exact sampler."""
    pts, facts = [], {"count": p.get("count")}
    dks = sorted({*p.get("std", {}), *p.get("std_scaled", {}), *p.get("mean", [])})
    rows = ex.variance(dks, ["none", "sqrt"], p["trials"], seed=seed)["rows"] if dks else []
    for r in rows:
        d, part = r["dk"], "std" if r["scale"] == "none" else "std_scaled"
        printed = p.get(part, {}).get(d)
        if printed is not None:
            sd = math.sqrt(r["var_scaled"])
            pts.append(
                eq(
                    part,
                    float(printed),
                    sd,
                    r["var_scaled_se"] / (2.0 * sd),
                    half_unit(printed),
                    part=part,
                    dk=d,
                    scale=r["scale"],
                )
            )
            facts[f"{part}_{d}"] = sd
        if r["scale"] == "none" and d in p.get("mean", []):
            pts.append(
                eq(
                    "mean_raw",
                    0.0,
                    r["mean_raw"],
                    math.sqrt(r["var_raw"] / p["trials"]),
                    part="mean",
                    dk=d,
                    scale="none",
                )
            )
            facts[f"mean_{d}"] = r["mean_raw"]
    for d, (bound, printed) in p.get("inside", {}).items():
        x = scaled_dots(seed, 105, p["count"], d) * math.sqrt(d)
        inside = float((np.abs(x) <= bound).mean())
        pts.append(
            eq(
                "fraction_inside_raw",
                float(printed),
                inside,
                fraction_error(inside, x.size),
                half_unit(printed),
                part="inside",
                dk=d,
                scale="none",
                where=f"|q·k| ≤ {bound:g}",
            )
        )
        facts[f"inside_{d}_pct"], facts[f"three_sigma_{d}"] = inside, 3.0 * math.sqrt(d)
    if p.get("beyond"):
        d, size, least = p["beyond"]
        x = scaled_dots(seed, 106, p["count"], d) * math.sqrt(d)
        share = float((np.abs(x) >= size).mean())
        pts.append(
            above(
                "fraction_beyond_raw",
                least,
                share,
                fraction_error(share, x.size),
                part="common",
                dk=d,
                scale="none",
                where=f"|q·k| ≥ {size:g}",
            )
        )
        facts["beyond_pct"], facts["beyond_sigma"], facts["least_pct"] = share, size / math.sqrt(d), least
    tick(progress, 1, 1)
    return pts, facts


def run_growth(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "The dot product grows with dim": local log-log slopes of std(q·k) against d_k, claimed above 0
    (the footnote's theory says 1/2: std = √d_k)."""
    rows = ex.variance(p["dks"], ["none"], p["trials"], seed=seed, progress=progress)["rows"]
    sds = [math.sqrt(r["var_raw"]) for r in rows]
    errs = [r["var_raw_se"] / (2.0 * sd) for r, sd in zip(rows, sds, strict=True)]
    slopes = local_slopes(p["dks"], sds, errs)
    pts = [
        above("log_slope_std", 0.0, b, se, dk=p["dks"][i + 1], scale="none")
        for i, (b, se) in enumerate(slopes)
    ]
    return pts, {
        "slope": float(np.mean([b for b, _ in slopes])),
        **{f"std_{d}": sd for d, sd in zip(p["dks"], sds, strict=True)},
    }


def run_sqrt_optimal(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """E[s²] of the scaled logit s = q·k/√d_k, claimed 1 at every d_k: with independent q, k (part "iid")
    and with q, k correlated at ρ = p["rho"], as training tends to make them (part "trained").
    E[s²] = c²(Var + mean²), its error by the delta method."""
    pts: list[Point] = []
    for k, rho in enumerate((0.0, p["rho"])):
        res = ex.variance(
            p["dks"],
            ["sqrt"],
            p["trials"],
            seed=seed,
            rho=rho,
            progress=None if progress is None else (lambda f, k=k: progress((k + f) / 2)),
        )
        for r in res["rows"]:
            c2 = r["c"] ** 2
            se_mean = math.sqrt(r["var_raw"] / p["trials"])
            m = c2 * (r["var_raw"] + r["mean_raw"] ** 2)
            se = c2 * math.hypot(r["var_raw_se"], 2.0 * abs(r["mean_raw"]) * se_mean)
            pts.append(
                eq(
                    "second_moment_scaled",
                    1.0,
                    m,
                    se,
                    part="iid" if rho == 0.0 else "trained",
                    dk=r["dk"],
                    scale="sqrt",
                )
            )
    trained = [x for x in pts if x.part == "trained"]
    return pts, {
        "rho": p["rho"],
        "trials": p["trials"],
        "dk_max": trained[-1].dk,
        "trained_max": trained[-1].measured,
    }
