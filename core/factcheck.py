"""The notes' claims as data, each with the experiment that tests it and a verdict computed from it.

A claim is quoted verbatim from its seed file (Chinese), rendered in English, and — when it can be
measured — re-measured live under its own assumptions (iid N(0, 1) components, n = 10 keys where the
notes' code uses seq_len = 10). The measurement becomes a list of `Point`s: claimed value, measured
value, sampling error, tolerance and the relation that must hold between them. The verdict is a pure
function of those numbers:

    a point agrees     eq:     |m − c| ≤ tol
                       below:  m ≤ c − tol          (significantly below a reference c)
                       above:  m ≥ c + tol
                       within: lo ≤ c ≤ hi          (c is a plausible single draw of m's distribution)
    one statement      holds when every point agrees, partly when at least half do, else fails
    several statements holds when every statement agrees, partly when at least one does, else fails

Tolerances: `Z_TOL` standard errors of the measurement, plus half a unit in the last digit the notes
printed (a claimed "2.1" stands for [2.05, 2.15]), plus the modelling slack named per claim.
What measurement cannot settle (the paper's Table 3, K = V tying) is marked as literature and cited.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from core import experiments as ex
from core.attention import additive_attention_scores, additive_attention_scores_naive, scores, softmax
from core.backend import get_backend
from core.errors import InputError
from core.experiments import measure_points
from core.sampling import draw, sub_seed
from core.scales import scale_factor

Progress = Callable[[float], None] | None

VERDICTS: tuple[str, ...] = ("holds", "partly", "fails")
RELATIONS: tuple[str, ...] = ("eq", "below", "above", "within")

Z_TOL = 3.0  # standard errors a measurement may sit from the claim and still agree
PARTLY_FRACTION = 0.5  # one-statement claims: at least this fraction of points agree → partly holds
UNIFORM_TOL = 0.05  # "over-scaled" = entropy within 5% of ln n (uniform attention)
SLOPE_TOL = 0.25  # a local log-log slope within a quarter of a power of the claimed exponent
EXPONENT_TOL = 0.5  # a cost exponent within half a power of the claimed one
TIME_TOL = 0.5  # "slower" = a median time ratio of at least 1 + 0.5 (timings are not Gaussian)
PLAUSIBLE = 0.99  # a printed single-draw output is plausible inside the central 99% of its distribution
RHO_TRAINED = 0.5  # q/k correlation standing in for "after training" (SCIENCE.md §3b)
N_NOTES = 10  # the notes' code: Q = torch.randn(1, 10, d_k)


# ---------------------------------------------------------------- points and verdicts


@dataclass(frozen=True)
class Point:
    """One comparison: the claimed value c against the measured value m (± error, one standard error).

    `quantity` names what is compared (a translation key on screen), `part` the statement of the
    claim the point tests; `dk`, `n`, `scale` say where it was measured.
    """

    quantity: str
    claimed: float
    measured: float
    error: float
    tolerance: float
    relation: str = "eq"
    part: str = "main"
    dk: int | None = None
    n: int | None = None
    scale: str | None = None
    lo: float | None = None
    hi: float | None = None

    @property
    def agrees(self) -> bool:
        return point_agrees(self.relation, self.claimed, self.measured, self.tolerance, self.lo, self.hi)


def point_agrees(relation: str, claimed: float, measured: float, tolerance: float,
                 lo: float | None = None, hi: float | None = None) -> bool:
    """The relation a point needs (see the module docstring); NaN measurements never agree."""
    if relation not in RELATIONS:
        raise InputError(f"unknown relation {relation!r}")
    if relation == "within":
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
            return False
        return lo <= claimed <= hi
    if math.isnan(measured) or math.isnan(tolerance):
        return False
    if relation == "eq":
        return abs(measured - claimed) <= tolerance
    if relation == "below":
        return measured <= claimed - tolerance
    return measured >= claimed + tolerance


def verdict(points: Sequence[Point]) -> str:
    """holds / partly / fails from the points alone (rules in the module docstring)."""
    if not points:
        raise InputError("a verdict needs at least one point")
    parts: dict[str, list[bool]] = {}
    for p in points:
        parts.setdefault(p.part, []).append(p.agrees)
    if len(parts) == 1:
        (ok,) = parts.values()
        frac = sum(ok) / len(ok)
        if frac == 1.0:
            return "holds"
        return "partly" if frac >= PARTLY_FRACTION else "fails"
    whole = [all(v) for v in parts.values()]
    if all(whole):
        return "holds"
    return "partly" if any(whole) else "fails"


def half_unit(printed: str) -> float:
    """Half a unit in the last printed digit: "2.1" → 0.05, "0.342" → 0.0005, "16" → 0.5."""
    _, _, frac = printed.strip().partition(".")
    return 0.5 * 10.0 ** (-len(frac))


def local_slopes(xs: Sequence[float], ys: Sequence[float], errs: Sequence[float]
                 ) -> list[tuple[float, float]]:
    """Slopes d ln y / d ln x between neighbours, with their standard error by the delta method:

        b = ln(y₂/y₁) / ln(x₂/x₁),   se(b) = √((σ₁/y₁)² + (σ₂/y₂)²) / ln(x₂/x₁).
    """
    out = []
    for i in range(len(xs) - 1):
        lx = math.log(xs[i + 1] / xs[i])
        y1, y2 = ys[i], ys[i + 1]
        if y1 <= 0 or y2 <= 0:
            out.append((float("nan"), float("nan")))
            continue
        se = math.hypot(errs[i] / y1, errs[i + 1] / y2) / lx
        out.append((math.log(y2 / y1) / lx, se))
    return out


# ---------------------------------------------------------------- claims as data


@dataclass(frozen=True)
class Source:
    """Where the literature settles (part of) a claim."""

    cite: str
    arxiv: str | None = None
    where: str = ""

    @property
    def url(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else None


@dataclass(frozen=True)
class Claim:
    """A claim from the notes. `quote_zh` is verbatim from `seed` (markdown); `run` measures it."""

    id: str
    seed: str
    quote_zh: str
    quote_en: str
    question_en: str
    question_zh: str
    claimed: dict[str, Any]
    sources: tuple[Source, ...]
    experiment: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    run: Callable[..., tuple[list[Point], dict[str, Any]]] | None = None
    literature_verdict: str | None = None
    quote_format: str = "markdown"  # "markdown" or "code" (printed output, ASCII art)

    @property
    def kind(self) -> str:
        return "measured" if self.run is not None else "literature"


VASWANI = "Vaswani et al. 2017, Attention Is All You Need"


def _normal_within(k: float) -> float:
    """P(|Z| ≤ k) for Z ~ N(0, 1) — the "3-sigma rule" value at k = 3."""
    return math.erf(k / math.sqrt(2.0))


# ---------------------------------------------------------------- the measurements


def _run_var_dk(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    res = ex.variance(p["dks"], ["none", "sqrt"], p["trials"], seed=seed, progress=progress)
    pts: list[Point] = []
    for r in res["rows"]:
        if r["scale"] == "none":
            pts.append(Point("var_raw", float(r["dk"]), r["var_raw"], r["var_raw_se"],
                             Z_TOL * r["var_raw_se"], part="raw", dk=r["dk"], scale="none"))
        else:
            pts.append(Point("var_scaled", 1.0, r["var_scaled"], r["var_scaled_se"],
                             Z_TOL * r["var_scaled_se"], part="scaled", dk=r["dk"], scale="sqrt"))
    return pts, {"trials": p["trials"]}


def _second_moment(r: dict[str, Any], trials: int) -> tuple[float, float]:
    """E[s²] = c²(Var + mean²) of the scaled logit, with its standard error (delta method)."""
    c2 = r["c"] ** 2
    se_mean = math.sqrt(r["var_raw"] / trials)
    value = c2 * (r["var_raw"] + r["mean_raw"] ** 2)
    se = c2 * math.hypot(r["var_raw_se"], 2.0 * abs(r["mean_raw"]) * se_mean)
    return value, se


def _run_sqrt_optimal(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    pts: list[Point] = []
    for k, rho in enumerate((0.0, p["rho"])):
        res = ex.variance(p["dks"], ["sqrt"], p["trials"], seed=seed, rho=rho,
                          progress=_sub(progress, k, 2))
        for r in res["rows"]:
            m, se = _second_moment(r, p["trials"])
            pts.append(Point("second_moment_scaled", 1.0, m, se, Z_TOL * se,
                             part="iid" if rho == 0.0 else "trained", dk=r["dk"], scale="sqrt"))
    trained = [x for x in pts if x.part == "trained"]
    return pts, {"rho": p["rho"], "trials": p["trials"], "dk_max": trained[-1].dk,
                 "trained_max": trained[-1].measured}


def _run_linear_log(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    n = p["n"]
    res = ex.saturation(p["dks"], n, ["sqrt", "linear", "log"], p["trials"], seed=seed,
                        progress=progress)
    by = {(r["dk"], r["scale"]): r for r in res["rows"]}
    ln_n = math.log(n)
    pts: list[Point] = []
    for d in p["dks"]:
        lin, lg, sq = by[(d, "linear")], by[(d, "log")], by[(d, "sqrt")]
        pts.append(Point("entropy", ln_n, lin["entropy_mean"], lin["entropy_se"],
                         UNIFORM_TOL * ln_n + Z_TOL * lin["entropy_se"], part="over", dk=d, n=n,
                         scale="linear"))
        se = math.hypot(lg["entropy_se"], sq["entropy_se"])
        pts.append(Point("entropy_vs_sqrt", sq["entropy_mean"], lg["entropy_mean"], se, Z_TOL * se,
                         relation="below", part="under", dk=d, n=n, scale="log"))
    top = p["dks"][-1]
    facts = {"n": n, "ln_n": ln_n, "trials": p["trials"], "uniform_tol": UNIFORM_TOL, "dk_max": top,
             "saturated_log_max": by[(top, "log")]["saturated_fraction"],
             "saturated_sqrt_max": by[(top, "sqrt")]["saturated_fraction"],
             "entropy_log_max": by[(top, "log")]["entropy_mean"],
             "entropy_sqrt_max": by[(top, "sqrt")]["entropy_mean"]}
    return pts, facts


def _run_entropy_table(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    n = p["n"]
    res = ex.saturation(p["dks"], n, ["none", "sqrt"], p["trials"], seed=seed, progress=progress)
    by = {(r["dk"], r["scale"]): r for r in res["rows"]}
    pts = []
    for (d, scale), printed in p["claimed"].items():
        r = by[(d, scale)]
        pts.append(Point("entropy", float(printed), r["entropy_mean"], r["entropy_se"],
                         Z_TOL * r["entropy_se"] + half_unit(printed), dk=d, n=n, scale=scale))
    unscaled = [by[(d, "none")]["entropy_mean"] for d in p["dks"]]
    facts = {"n": n, "ln_n": math.log(n), "trials": p["trials"],
             "unscaled_falls": bool(all(a > b for a, b in itertools.pairwise(unscaled)))}
    return pts, facts


def _normal_qk(seed: int, tag: int, trials: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Q, K (trials × n × d_k) with iid N(0, 1) float32 components, seeded by (seed, tag, d_k, n)."""
    rng = get_backend("numpy", "float32").rng(sub_seed(seed, tag, d, n))
    return draw(rng, (trials, n, d), "normal", "float32"), draw(rng, (trials, n, d), "normal", "float32")


def matrix_max_weights(dks: Sequence[int], scales: Sequence[str], n: int, draws: int, seed: int,
                       progress: Progress = None) -> dict[tuple[int, str], np.ndarray]:
    """The notes' printed statistic, per draw: max_{i,j} softmax(c · Q Kᵀ)_ij for one n × n draw.

    `attn.max()` in the notes' code is the largest weight of the whole matrix, not a row mean.
    """
    ex.check_dks(dks)
    n = ex.check_n(n)
    draws = ex.check_trials(draws)
    out = {}
    for k, d in enumerate(dks):
        Q, K = _normal_qk(seed, 61, draws, n, d)
        for s in scales:
            P = softmax(scores(Q, K, scale_factor(s, d)))
            out[(d, s)] = P.reshape(draws, -1).max(axis=1).astype(np.float64)
        _tick(progress, k + 1, len(dks))
    return out


def _run_max_weight(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    n = p["n"]
    dks = sorted({d for d, _ in p["claimed"]})
    stats = matrix_max_weights(dks, ["none", "sqrt"], n, p["draws"], seed, progress)
    a = (1.0 - PLAUSIBLE) / 2.0
    pts = []
    for (d, scale), printed in p["claimed"].items():
        x = stats[(d, scale)]
        lo, hi = np.quantile(x, [a, 1.0 - a])
        r = half_unit(printed)
        se = float(x.std() / math.sqrt(x.size))
        pts.append(Point("matrix_max_weight", float(printed), float(np.median(x)), se, r,
                         relation="within", dk=d, n=n, scale=scale, lo=float(lo) - r, hi=float(hi) + r))
    return pts, {"n": n, "draws": p["draws"], "plausible": PLAUSIBLE,
                 "outside": sum(not x.agrees for x in pts), "total": len(pts)}


def _run_grad(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Median ‖∂L/∂q‖ from `replicates` independent runs; the spread gives the median's error."""
    reps = p["replicates"]
    med: dict[tuple[int, str], list[float]] = {}
    mean: dict[tuple[int, str], list[float]] = {}
    for k in range(reps):
        res = ex.gradients(p["dks"], p["n"], ["none", "sqrt"], p["trials"],
                           seed=sub_seed(seed, 62, k), progress=_sub(progress, k, reps))
        for r in res["rows"]:
            med.setdefault((r["dk"], r["scale"]), []).append(r["grad_q_norm_median"])
            mean.setdefault((r["dk"], r["scale"]), []).append(r["grad_q_norm_mean"])
    pts = []
    facts: dict[str, Any] = {"n": p["n"], "trials": p["trials"] * reps, "median": {}, "mean": {}}
    top = p["dks"][-1]
    for scale, claimed_slope, part in (("none", -1.0, "unscaled"), ("sqrt", 0.0, "scaled_flat")):
        ys = [float(np.mean(med[(d, scale)])) for d in p["dks"]]
        es = [float(np.std(med[(d, scale)], ddof=1) / math.sqrt(reps)) for d in p["dks"]]
        facts["median"][scale] = dict(zip(p["dks"], ys, strict=True))
        facts["mean"][scale] = {d: float(np.mean(mean[(d, scale)])) for d in p["dks"]}
        for i, (b, se) in enumerate(local_slopes(p["dks"], ys, es)):
            pts.append(Point("log_slope", claimed_slope, b, se, SLOPE_TOL + Z_TOL * se, part=part,
                             dk=p["dks"][i + 1], n=p["n"], scale=scale))
    facts.update({"dk_max": top, "slopes_unscaled": [x.measured for x in pts if x.part == "unscaled"],
                  "median_unscaled_max": facts["median"]["none"][top],
                  "mean_unscaled_max": facts["mean"]["none"][top],
                  "median_scaled_max": facts["median"]["sqrt"][top],
                  # the claim drawn through the first measured point: median(d) = median(d₀)·d₀/d
                  "claimed_line": {d: facts["median"]["none"][p["dks"][0]] * p["dks"][0] / d
                                   for d in p["dks"]}})
    return pts, facts


def _run_additive(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Same scores both ways, then the cost of the cheaper way, then the practical gap (timing)."""
    be = get_backend("numpy", "float64")
    x = ex.cost_inputs(be, p["check_n"], p["check_d"], p["check_d"], seed)
    fast = additive_attention_scores(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    slow = additive_attention_scores_naive(x["Q"], x["K"], x["W1"], x["W2"], x["v"])
    same = float(np.abs(fast - slow).max())
    impl = "additive" if same <= 1e-9 * max(1.0, float(np.abs(slow).max())) else "additive-naive"
    n, (d1, d2) = p["n"], p["ds"]
    f1, f2 = (ex.cost_model(impl, n, d, d)["flops"] for d in (d1, d2))
    exponent = math.log(f2 / f1) / math.log(d2 / d1)
    naive_exp = math.log(ex.cost_model("additive-naive", n, d2, d2)["flops"]
                         / ex.cost_model("additive-naive", n, d1, d1)["flops"]) / math.log(d2 / d1)
    _tick(progress, 1, 3)
    be32 = get_backend("numpy", "float32")
    rows = measure_points(be32, [("dot", "numpy"), ("additive", "numpy")], p["time_n"], p["time_d"],
                          p["time_d"], seed, repeats=p["repeats"], warmup=2)
    _tick(progress, 3, 3)
    t = {impl: r for (impl, _), r in rows.items()}
    ratio = t["additive"]["seconds"] / t["dot"]["seconds"]
    # spread of the repeats, for display: half the log-range of each timing, combined
    spread = 0.5 * math.hypot(math.log(t["additive"]["seconds_max"] / t["additive"]["seconds_min"]),
                              math.log(t["dot"]["seconds_max"] / t["dot"]["seconds_min"]))
    err = ratio * spread
    pts = [Point("cost_exponent_d", 2.0, exponent, 0.0, EXPONENT_TOL, part="complexity", n=n),
           Point("time_ratio", 1.0, ratio, err, TIME_TOL, relation="above", part="practical",
                 n=p["time_n"], dk=p["time_d"])]
    facts = {"max_abs_diff": same, "counted_impl": impl, "naive_exponent": naive_exp,
             "exponent": exponent, "ratio": ratio,
             "additive_seconds": t["additive"]["seconds"], "dot_seconds": t["dot"]["seconds"],
             "n": n, "ds": [d1, d2], "time_n": p["time_n"], "time_d": p["time_d"]}
    return pts, facts


def fraction_within(dks: Sequence[int], n: int, trials: int, k: float, seed: int,
                    progress: Progress = None) -> dict[int, dict[str, float]]:
    """Per d_k: the fraction of scaled logits q·k/√d_k with |s| ≤ k, its standard error, and the
    fraction of rows of n logits entirely inside. Per-trial fractions give the error honestly (the
    n² logits of one trial share queries and keys)."""
    ex.check_dks(dks)
    n = ex.check_n(n)
    t = ex.check_trials(trials)
    out = {}
    for i, d in enumerate(dks):
        Q, K = _normal_qk(seed, 63, t, n, d)
        inside = np.abs(scores(Q, K, scale_factor("sqrt", d))) <= k
        per_trial = inside.reshape(t, -1).mean(axis=1)
        out[d] = {"fraction": float(per_trial.mean()),
                  "se": float(per_trial.std(ddof=1) / math.sqrt(t)),
                  "rows_inside": float(inside.all(axis=-1).mean())}
        _tick(progress, i + 1, len(dks))
    return out


def _run_range(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    claimed = _normal_within(p["k"])
    res = fraction_within(p["dks"], p["n"], p["trials"], p["k"], seed, progress)
    pts = [Point("fraction_inside", claimed, r["fraction"], r["se"],
                 Z_TOL * r["se"] + half_unit(p["printed"]), dk=d, n=p["n"], scale="sqrt")
           for d, r in res.items()]
    p_in = pts[-1].measured
    top = p["dks"][-1]
    facts = {"claimed_fraction": claimed, "n": p["n"], "k": p["k"], "dk_max": top, "dk_min": p["dks"][0],
             "fraction_min_dk": pts[0].measured, "rows_inside_max": res[top]["rows_inside"],
             "long_n": p["long_ns"][0], "rows_inside_long_n": p_in ** p["long_ns"][0],
             "rows_inside": {d: r["rows_inside"] for d, r in res.items()},
             "rows_inside_long": {m: p_in**m for m in p["long_ns"]}}
    return pts, facts


def _tick(progress: Progress, done: float, total: float) -> None:
    if progress is not None:
        progress(min(1.0, done / max(total, 1e-12)))


def _sub(progress: Progress, k: int, total: int, width: int = 1) -> Progress:
    """Map a sub-task's 0..1 progress onto slots [k, k + width) of `total`."""
    if progress is None:
        return None
    return lambda f: progress(min(1.0, (k + width * f) / total))


# ---------------------------------------------------------------- the claims

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="var_dk", seed="002_3123e0cc24257c42.txt",
        quote_zh=r"$$ \boxed{\text{Var}(q \cdot k) = d_k} $$点积的方差等于它的维度 $d_k$。",
        quote_en=r"$\mathrm{Var}(q\cdot k) = d_k$: the variance of the dot product equals its "
                 r"dimension $d_k$.",
        question_en="With iid unit-variance components, what is Var(q·k), and what is it after ÷√d_k?",
        question_zh="各分量独立同分布、方差为 1 时，Var(q·k) 是多少？除以 √d_k 之后呢？",
        claimed={"var_raw": "d_k", "var_scaled": 1},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1, footnote 4"),),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256, 512], "trials": 20000},
        run=_run_var_dk,
    ),
    Claim(
        id="sqrt_optimal", seed="001_34c0065eb83ef83b.txt",
        quote_zh="√dk是理论推导的最优解，能够精确地将方差控制为1",
        quote_en="√d_k is the theoretically derived optimal solution; it controls the variance to exactly 1.",
        question_en="Is 1/√d_k the optimal scale factor?",
        question_zh="1/√d_k 是最优的缩放因子吗？",
        claimed={"second_moment_scaled": 1},
        sources=(Source("Yang et al. 2022, Tensor Programs V (μP)", "2203.03466",
                        "Def. 4.1 and footnote 8: attention scaled by 1/d"),
                 Source("Raffel et al. 2020, T5: no 1/√d in the forward pass, folded into W_Q's init",
                        "1910.10683", "§3.1 / Mesh TensorFlow initialisation")),
        experiment="core.experiments.variance",
        params={"dks": [16, 64, 256], "trials": 20000, "rho": RHO_TRAINED},
        run=_run_sqrt_optimal,
    ),
    Claim(
        id="linear_log", seed="001_34c0065eb83ef83b.txt",
        quote_zh="- 用dk会过度缩放，使得注意力权重过于平均，失去选择性\n"
                 "- 用log(dk)缩放不足，仍然存在饱和问题",
        quote_en="- Dividing by d_k over-scales: the weights become too even and lose selectivity.\n"
                 "- Dividing by log(d_k) under-scales: saturation remains.",
        question_en="Why not divide by d_k, or by log d_k?",
        question_zh="为什么不除以 d_k，或者除以 log d_k？",
        claimed={"linear": "entropy ≈ ln n", "log": "entropy below ÷√d_k"},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1, footnote 4 (the variance argument)"),),
        experiment="core.experiments.saturation",
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000},
        run=_run_linear_log,
    ),
    Claim(
        id="entropy_table", seed="003_9b7f13ecea4abb3a.txt",
        quote_zh="| $d_k$ | 未缩放熵 | 缩放后熵 |\n|-------|---------|---------|\n"
                 "| 16    | 2.1     | 2.3     |\n| 64    | 0.8     | 2.3     |\n"
                 "| 256   | 0.2     | 2.3     |",
        quote_en="| $d_k$ | entropy, unscaled | entropy, scaled |\n|---|---|---|\n"
                 "| 16 | 2.1 | 2.3 |\n| 64 | 0.8 | 2.3 |\n| 256 | 0.2 | 2.3 |",
        question_en="How much entropy does attention over 10 random keys have, with and without ÷√d_k?",
        question_zh="对 10 个随机键做注意力，缩放与不缩放时的熵分别是多少？",
        claimed={(16, "none"): "2.1", (64, "none"): "0.8", (256, "none"): "0.2",
                 (16, "sqrt"): "2.3", (64, "sqrt"): "2.3", (256, "sqrt"): "2.3"},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1"),),
        experiment="core.experiments.saturation",
        params={"dks": [16, 64, 256], "n": N_NOTES, "trials": 2000},
        run=_run_entropy_table,
    ),
    Claim(
        id="max_weight_print", seed="003_9b7f13ecea4abb3a.txt",
        quote_zh="# d_k= 16 | 未缩放最大值: 0.342 | 缩放后最大值: 0.289\n"
                 "# d_k= 64 | 未缩放最大值: 0.891 | 缩放后最大值: 0.276\n"
                 "# d_k=256 | 未缩放最大值: 0.998 | 缩放后最大值: 0.301",
        quote_en="# d_k= 16 | max unscaled: 0.342 | max scaled: 0.289\n"
                 "# d_k= 64 | max unscaled: 0.891 | max scaled: 0.276\n"
                 "# d_k=256 | max unscaled: 0.998 | max scaled: 0.301",
        question_en="Run the notes' snippet (10 queries, 10 keys): what does attn.max() print?",
        question_zh="运行笔记里的代码（10 个查询、10 个键）：attn.max() 会打印什么？",
        claimed={(16, "none"): "0.342", (64, "none"): "0.891", (256, "none"): "0.998",
                 (16, "sqrt"): "0.289", (64, "sqrt"): "0.276", (256, "sqrt"): "0.301"},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1"),),
        experiment="core.factcheck.matrix_max_weights",
        params={"n": N_NOTES, "draws": 4000},
        run=_run_max_weight,
        quote_format="code",
    ),
    Claim(
        id="grad_inverse_dk", seed="003_9b7f13ecea4abb3a.txt",
        quote_zh="未缩放：∂L/∂Q 范数 ∝ 1/d_k  （梯度消失）\n缩放：  ∂L/∂Q 范数 ≈ 常数   （梯度稳定）",
        quote_en="unscaled: ‖∂L/∂Q‖ ∝ 1/d_k (vanishing gradient)\n"
                 "scaled:   ‖∂L/∂Q‖ ≈ constant (stable gradient)",
        question_en="Without scaling, how does the gradient reaching Q fall with d_k?",
        question_zh="不缩放时，传到 Q 的梯度随 d_k 如何下降？",
        claimed={"none": "slope −1", "sqrt": "slope 0"},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1: 'extremely small gradients'"),),
        experiment="core.experiments.gradients",
        params={"dks": [16, 64, 256, 1024], "n": N_NOTES, "trials": 800, "replicates": 5},
        run=_run_grad,
        quote_format="code",
    ),
    Claim(
        id="additive_cost", seed="002_3123e0cc24257c42.txt",
        quote_zh="每个词对:$O(d^2)$\n总共 $n^2$ 个词对:\n"
                 "加法注意力 $O(n^2 d^2)$ $O(n^2 + nd)$ 结论:点积注意力少一个 $d$ 因子,更快。",
        quote_en="Per pair: $O(d^2)$; $n^2$ pairs in all. Additive attention $O(n^2 d^2)$. "
                 "Conclusion: dot-product attention has one factor of $d$ less, so it is faster.",
        question_en="Is additive attention really O(n²d²)?",
        question_zh="加性注意力真的是 O(n²d²) 吗？",
        claimed={"cost_exponent_d": 2, "time_ratio": "> 1"},
        sources=(Source(VASWANI, "1706.03762",
                        "§3.2.1: 'similar in theoretical complexity … much faster and more "
                        "space-efficient in practice'"),
                 Source("Bahdanau et al. 2014", "1409.0473",
                        "App. A.1.2: W_a s and U_a h_j are precomputed once per token")),
        experiment="core.experiments.cost_model + core.cost.measure_points",
        params={"n": 512, "ds": [32, 128], "check_n": 48, "check_d": 32, "time_n": 512,
                "time_d": 64, "repeats": 5},
        run=_run_additive,
    ),
    Claim(
        id="table3_b", seed="003_9b7f13ecea4abb3a.txt",
        quote_zh="**实验对比**（论文 Table 3, Row B）：\n- **不缩放**：当 $d_k$ 从 64 降到 32 时，BLEU 提升\n"
                 "- **缩放**：$d_k$ 变化时性能稳定",
        quote_en="**Experiment** (paper, Table 3, row B):\n- **unscaled**: BLEU improves when d_k drops "
                 "from 64 to 32\n- **scaled**: performance is stable as d_k changes",
        question_en="What does row (B) of Table 3 in the Transformer paper show?",
        question_zh="Transformer 论文 Table 3 的 (B) 行说明了什么？",
        claimed={"reading": "unscaled vs scaled"},
        sources=(Source(VASWANI, "1706.03762",
                        "§6.2 and Table 3 row (B): 'reducing the attention key size d_k hurts model "
                        "quality' — every row uses scaled attention; unscaled vs additive is §3.2.1, "
                        "citing Britz et al. 2017"),
                 Source("Britz et al. 2017, Massive Exploration of NMT Architectures", "1703.03906",
                        "§5 (attention mechanism)")),
        literature_verdict="fails",
    ),
    Claim(
        id="range_3", seed="002_3123e0cc24257c42.txt",
        quote_zh="- Softmax 的输入始终处于一个\"合理\"的、非饱和的范围(通常在 $[-3, 3]$ 内)",
        quote_en="- The softmax input always stays in a 'reasonable', unsaturated range (usually within "
                 "$[-3, 3]$).",
        question_en="After ÷√d_k, what range do the logits fall in?",
        question_zh="除以 √d_k 之后，logit 落在什么范围？",
        claimed={"fraction_inside": "99.7% (3-sigma rule)"},
        sources=(Source(VASWANI, "1706.03762", "§3.2.1, footnote 4"),),
        experiment="core.factcheck (draw → scores)",
        params={"dks": [16, 64, 512], "n": N_NOTES, "trials": 2000, "k": 3.0, "printed": "0.997",
                "long_ns": [1024, 8192]},
        run=_run_range,
    ),
    Claim(
        id="kv_bottleneck", seed="002_3123e0cc24257c42.txt",
        quote_zh="如果 $K=V$, $W^{KV}$ 矩阵被迫在“优化匹配关系”和“保留语义内容”之间找到一个糟糕的妥协 "
                 "(Suboptimal Compromise)。这在优化上是一个表征瓶颈 (Representational Bottleneck)。",
        quote_en="If $K = V$, the matrix $W^{KV}$ must strike a poor compromise between 'optimising "
                 "matching' and 'keeping semantic content'. This is a representational bottleneck.",
        question_en="Would tying K = V be a representational bottleneck?",
        question_zh="让 K = V 共享投影，会造成表征瓶颈吗？",
        claimed={"kv_tying": "bottleneck"},
        sources=(Source("K/Q/V tying ablation (2026): K = V costs about 3% perplexity; Q = K is the "
                        "harmful tying", "2606.04032"),),
        literature_verdict="partly",
    ),
)

CLAIM_IDS: tuple[str, ...] = tuple(c.id for c in CLAIMS)


def get_claim(claim_id: str) -> Claim:
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise InputError(f"unknown claim {claim_id!r}; choose one of {', '.join(CLAIM_IDS)}")


def check(claim_id: str, seed: int = 0, progress: Progress = None) -> dict[str, Any]:
    """Run one claim's experiment and judge it.

    Returns {"id", "kind", "verdict", "points": [dict with "agrees"], "facts", "params", "experiment"}.
    Literature claims carry the verdict their sources give and no points.
    """
    c = get_claim(claim_id)
    if c.run is None:
        return {"id": c.id, "kind": "literature", "verdict": c.literature_verdict, "points": [],
                "facts": {}, "params": {}, "experiment": ""}
    pts, facts = c.run(int(seed), progress, {**c.params, "claimed": c.claimed})
    return {"id": c.id, "kind": "measured", "verdict": verdict(pts),
            "points": [{**asdict(p), "agrees": p.agrees} for p in pts],
            "facts": facts, "params": _jsonable(c.params), "experiment": c.experiment}


def check_all(seed: int = 0, progress: Progress = None) -> list[dict[str, Any]]:
    """Every claim, in order; progress runs 0 → 1 over the measured ones."""
    measured = [c for c in CLAIMS if c.run is not None]
    out, k = [], 0
    for c in CLAIMS:
        if c.run is None:
            out.append(check(c.id, seed))
            continue
        out.append(check(c.id, seed, _sub(progress, k, len(measured))))
        k += 1
    return out


def tolerances() -> dict[str, float]:
    """The tolerance constants, for the page to state them."""
    return {"z": Z_TOL, "partly": PARTLY_FRACTION, "uniform": UNIFORM_TOL, "slope": SLOPE_TOL,
            "exponent": EXPONENT_TOL, "plausible": PLAUSIBLE, "rho": RHO_TRAINED}


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x
