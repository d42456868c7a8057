"""The lesson: why attention divides by √d_k in eight steps, each one claim, one chart, one question.

Pure (no Streamlit). Each step function takes the current settings and returns plain data:

- `chart`: rows {x, y, series, stage} for one figure, with its axes; `stage` is "context" (shown
  from the start) or "answer" (shown once the student has committed to a guess), so the figure
  never gives the answer away before the question is answered;
- `question`: the measured `value` the question asks for, the `choices` a student picks from
  (bins of the value, or candidate formulas) and `correct`, the indices of the choices the
  measurement falls in.

Every number is measured here through core.experiments / core.views / core.beyond for the
settings passed in; nothing is copied from notes. The page translates the keys.

    1 variance    Var(q·k) = d_k for d_k iid unit-variance components
    2 saturation  unscaled, the top key takes almost all the weight as d_k grows
    3 gradients   a saturated softmax passes almost no gradient back: J = diag(p) − p pᵀ → 0
    4 fix         c = 1/√d_k keeps Var(c·q·k) = 1, and the softmax stays spread at every d_k
    5 scales      1/d_k flattens attention towards uniform, 1/ln d_k still lets it saturate
    6 length      √d_k fixes the dimension, not the length: the top weight fades like 1/n
    7 training    trained q and k correlate (ρ): E[q·k] = ρ·d_k, so ÷√d_k grows like ρ√d_k (μP: 1/d)
    8 modern      QK-norm / cosine attention bound the logits when ‖q‖, ‖k‖ grow; soft-capping with
                  Gemma 2's cap of 50 barely does at these sizes
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core import beyond, figure_budget, views
from core import experiments as ex
from core.errors import InputError
from core.scales import parse_scale

Row = dict[str, Any]

# Bins a student picks the measured value from (edges, ascending; the last bin is open above).
MAX_WEIGHT_BINS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.9, 0.99, 1.0)
GRADIENT_BINS: tuple[float, ...] = (0.0, 1e-4, 1e-2, 1e-1, math.inf)
EFFECTIVE_FRACTION_BINS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.95, 1.0)
LENGTH_WEIGHT_BINS: tuple[float, ...] = (0.0, 0.02, 0.1, 0.5, 1.0)
RMS_BINS: tuple[float, ...] = (0.0, 2.0, 5.0, 20.0, math.inf)

OTHER_SCALES: tuple[str, ...] = ("log", "linear", "double-sqrt")   # step 5's choice
RHO_RANGE: tuple[float, float] = (0.0, 1.0)                          # step 7's ρ
NORM_REMEDIES: tuple[str, ...] = ("qk-norm", "cosine", "softcap")    # step 8's choice
ALPHAS: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)     # step 8: q, k → α·q, α·k
ALPHA_ASKED = 4.0          # step 8 asks about q and k grown four-fold (logits ×16 under ÷√d_k)
SOFTCAP = beyond.GEMMA2_CAP  # step 8: Gemma 2's attention logit cap (arXiv:2408.00118 §2)
COSINE_TAU = 0.1           # step 8: cos(q, k)/τ, a typical learnt temperature (Swin V2 clamps τ ≥ 0.01)
LENGTH_TRIALS = 200        # step 6: one query against n keys, O(n) per trial (core.beyond.one_query_scores)
N_GRID: tuple[int, ...] = figure_budget.N_GRID


@dataclass(frozen=True)
class Step:
    """One step of the lesson: its name (translation keys "lesson.<name>.*"), the one setting the
    student may move on it ("dk", "n", "scale", "rho" or "method"), and the function measuring it."""

    name: str
    control: str
    compute: Callable[..., dict[str, Any]]


# ---------------------------------------------------------------- questions


def bin_choices(value: float, edges: Sequence[float]) -> dict[str, Any]:
    """Choices "below e₁", "e₁ to e₂", …, "above e_{k−1}" over `edges`, and the one `value` lies in.

    The first and last edges are the range (0 … 1, or 0 … ∞); a value on an edge belongs to the
    bin above it, the largest edge to the last bin.
    """
    inner = list(edges[1:-1])
    if not inner or inner != sorted(inner):
        raise InputError("bin edges must be ascending, with at least one inner edge")
    choices: list[dict[str, Any]] = [{"key": "below", "hi": inner[0]}]
    choices += [{"key": "between", "lo": lo, "hi": hi} for lo, hi in itertools.pairwise(inner)]
    choices.append({"key": "above", "lo": inner[-1]})
    index = sum(1 for e in inner if value >= e)
    return {"value": float(value), "choices": choices, "correct": [index]}


def nearest_choices(value: float, candidates: Sequence[tuple[str, float]]) -> dict[str, Any]:
    """Choices "about <formula> = <number>"; correct: the candidates nearest to `value` on a log scale
    (several when they coincide, as √d_k = d_k = 1 at d_k = 1)."""
    if not value > 0 or any(not c > 0 for _, c in candidates):
        raise InputError("nearest_choices compares positive numbers on a log scale")
    gaps = [abs(math.log(value) - math.log(c)) for _, c in candidates]
    best = min(gaps)
    return {"value": float(value), "choices": [{"key": key, "value": c} for key, c in candidates],
            "correct": [i for i, g in enumerate(gaps) if math.isclose(g, best, rel_tol=1e-9, abs_tol=1e-12)]}


def _chart(x: str, y: str, rows: list[Row], x_log: bool = True, y_log: bool = False,
           y_domain: tuple[float, float] | None = None, current: float | None = None,
           series_args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"x": x, "y": y, "x_log": x_log, "y_log": y_log,
            "y_domain": list(y_domain) if y_domain else None, "current": current,
            "rows": rows, "series_args": series_args or {}}


def _row(x: float, y: float, series: str, answer: bool) -> Row:
    return {"x": float(x), "y": float(y), "series": series, "stage": "answer" if answer else "context"}


def _at(rows: list[Row], dk: int, scale: str) -> Row:
    return next(r for r in rows if r["dk"] == dk and r["scale"] == scale)


# ---------------------------------------------------------------- the steps


def variance_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                  dtype: str = "float32") -> dict[str, Any]:
    """Step 1: Var(q·k) = Σᵢ Var(qᵢkᵢ) = d_k, measured over the d_k sweep (the /variance page's draws).

    Before the reveal the chart shows the measured points below the current d_k (the trend to
    extrapolate); the rest, and the theory line d_k, come with the answer.
    """
    dks = figure_budget.sweep_dks(dk)
    samples = figure_budget.variance_samples(trials, n, dks, backend == "cupy")
    res = ex.variance(dks, ["none"], trials=samples, seed=seed, backend=backend, dtype=dtype)["rows"]
    rows = [_row(r["dk"], r["var_raw"], "measured", r["dk"] >= dk) for r in res]
    rows += [_row(r["dk"], r["theory_var"], "theory_dk", True) for r in res]
    value = _at(res, dk, "none")["var_raw"]
    root = math.sqrt(dk)
    q = nearest_choices(value, [("one", 1.0), ("sqrt_dk", root), ("dk", float(dk)), ("dk2", float(dk) ** 2)])
    return {"chart": _chart("dk", "var", rows, y_log=True, current=dk), "question": q,
            "params": {"dk": dk}, "draws": samples}


def saturation_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                    dtype: str = "float32") -> dict[str, Any]:
    """Step 2: the mean max weight max_j p_ij without scaling, against d_k (uniform would be 1/n)."""
    dks = figure_budget.sweep_dks(dk)
    view = views.saturation_view(dks, n, ["none"], trials, seed=seed, backend=backend, dtype=dtype)
    rows = [_row(r["dk"], r["max_weight_mean"], "none", r["dk"] >= dk) for r in view["rows"]]
    rows += [_row(d, 1.0 / n, "uniform", False) for d in dks]
    q = bin_choices(_at(view["rows"], dk, "none")["max_weight_mean"], MAX_WEIGHT_BINS)
    return {"chart": _chart("dk", "max_weight", rows, y_domain=(0.0, 1.0), current=dk,
                            series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n}, "draws": view["trials"]}


def gradients_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
                   dtype: str = "float32") -> dict[str, Any]:
    """Step 3: the median ‖∂L/∂q‖ = ‖c·Kᵀ(J g)‖ without scaling, against d_k (log axis).

    Rows whose median is exactly 0 (all of a d_k's draws one-hot in float arithmetic) cannot sit on a
    log axis; they are left out of the chart, and the question still asks about the measured value.
    """
    dks = figure_budget.sweep_dks(dk)
    view = views.gradient_view(dks, n, ["none"], trials, seed=seed, backend=backend, dtype=dtype)
    rows = [_row(r["dk"], r["grad_q_norm_median"], "none", r["dk"] >= dk)
            for r in view["rows"] if r["grad_q_norm_median"] > 0]
    q = bin_choices(_at(view["rows"], dk, "none")["grad_q_norm_median"], GRADIENT_BINS)
    return {"chart": _chart("dk", "grad", rows, y_log=True, current=dk), "question": q,
            "params": {"dk": dk, "n": n}, "draws": view["trials"]}


def fix_step(dk: int, n: int, trials: int, seed: int = 0, backend: str = "numpy",
             dtype: str = "float32") -> dict[str, Any]:
    """Step 4: with c = 1/√d_k, Var(c·q·k) = 1 at every d_k, so the mean max weight stays put.

    The unscaled curve (step 2) is context; the whole ÷√d_k curve is the answer.
    """
    dks = figure_budget.sweep_dks(dk)
    view = views.saturation_view(dks, n, ["none", "sqrt"], trials, seed=seed, backend=backend, dtype=dtype)
    rows = [_row(r["dk"], r["max_weight_mean"], r["scale"], r["scale"] == "sqrt") for r in view["rows"]]
    rows += [_row(d, 1.0 / n, "uniform", False) for d in dks]
    q = bin_choices(_at(view["rows"], dk, "sqrt")["max_weight_mean"], MAX_WEIGHT_BINS)
    return {"chart": _chart("dk", "max_weight", rows, y_domain=(0.0, 1.0), current=dk,
                            series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n}, "draws": view["trials"]}


def scales_step(dk: int, n: int, trials: int, scale: str = "log", seed: int = 0, backend: str = "numpy",
                dtype: str = "float32") -> dict[str, Any]:
    """Step 5: effective keys e^H (out of n) per d_k under another scale, against 1/√d_k.

    1/d_k shrinks the scores' variance to 1/d_k (attention → uniform, e^H → n); 1/ln d_k leaves
    d_k/ln² d_k (→ ∞: saturation returns). The question: the share e^H/n at the current d_k.
    """
    name = parse_scale(scale).name
    if name not in OTHER_SCALES:
        raise InputError(f"step 5 compares one of {', '.join(OTHER_SCALES)} with sqrt, got {scale!r}")
    dks = figure_budget.sweep_dks(dk)
    if name == "log" and dk < 2:
        raise InputError("1/ln d_k is undefined at d_k = 1 (ln 1 = 0); choose d_k ≥ 2")
    view = views.saturation_view(dks, n, ["sqrt", name], trials, seed=seed, backend=backend, dtype=dtype)
    rows = [_row(r["dk"], r["effective_keys_mean"], r["scale"], r["scale"] == name) for r in view["rows"]]
    rows += [_row(d, float(n), "all_keys", False) for d in dks]
    share = _at(view["rows"], dk, name)["effective_keys_mean"] / n
    q = {**bin_choices(share, EFFECTIVE_FRACTION_BINS), "format": "pct"}
    return {"chart": _chart("dk", "effective", rows, y_log=True, current=dk, series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n, "scale": name}, "draws": view["trials"]}


def length_step(dk: int, n: int, seed: int = 0) -> dict[str, Any]:
    """Step 6: mean max weight of softmax(K q/√d_k) over n keys, against n; and with log-n scaling
    (λ = ln n, Chiang & Cholak 2022) as the remedy. Below the current n: context; from it on: answer."""
    ns = sorted({*N_GRID, int(n)})
    res = beyond.length_sweep(ns, d_k=dk, trials=LENGTH_TRIALS, seed=seed)["rows"]
    rows = [_row(r["n"], r["max_weight_mean"], "sqrt", r["n"] >= n) for r in res if r["method"] == "none"]
    rows += [_row(r["n"], r["max_weight_mean"], "log-n", True) for r in res if r["method"] == "log-n"]
    rows += [_row(m, 1.0 / m, "uniform_n", False) for m in ns]
    value = next(r["max_weight_mean"] for r in res if r["n"] == n and r["method"] == "none")
    q = bin_choices(value, LENGTH_WEIGHT_BINS)
    return {"chart": _chart("n", "max_weight", rows, y_log=True, current=n), "question": q,
            "params": {"dk": dk, "n": n}, "draws": LENGTH_TRIALS}


def training_step(dk: int, n: int, trials: int, rho: float = 0.5, seed: int = 0, backend: str = "numpy",
                  dtype: str = "float32") -> dict[str, Any]:
    """Step 7: the RMS of the scaled score c·q·k = √(c²(Var + mean²)) under ÷√d_k when k = ρq + √(1−ρ²)z.

    Theory √(ρ²d_k + 1 + ρ²): flat at 1 for ρ = 0 (context), growing like ρ√d_k otherwise (answer).
    """
    rho = float(rho)
    if not RHO_RANGE[0] <= rho <= RHO_RANGE[1]:
        raise InputError(f"ρ must lie in [{RHO_RANGE[0]}, {RHO_RANGE[1]}], got {rho}")
    dks = figure_budget.sweep_dks(dk)
    # Moving ρ recomputes both sweeps, and that rerun must stay well under half a second:
    # each sweep gets a quarter of one figure's budget.
    samples = max(2, figure_budget.variance_samples(trials, n, dks, backend == "cupy") // 4)

    def scaled_rms(r_: float) -> dict[int, float]:
        res = ex.variance(dks, ["sqrt"], trials=samples, seed=seed, rho=r_, backend=backend, dtype=dtype)
        return {r["dk"]: r["c"] * math.sqrt(r["var_raw"] + r["mean_raw"] ** 2) for r in res["rows"]}

    independent = scaled_rms(0.0)
    aligned = independent if rho == 0.0 else scaled_rms(rho)
    rows = [_row(d, y, "rho0", False) for d, y in independent.items()]
    rows += [_row(d, y, "rho", True) for d, y in aligned.items()]
    value = aligned[dk]
    rows += [_row(d, math.sqrt(rho * rho * d + 1 + rho * rho), "theory_rho", True) for d in dks]
    q = bin_choices(value, RMS_BINS)
    return {"chart": _chart("dk", "rms", rows, y_log=True, current=dk, series_args={"rho": f"{rho:g}"}),
            "question": q, "params": {"dk": dk, "rho": rho}, "draws": samples}


def modern_step(dk: int, n: int, trials: int, method: str = "qk-norm", seed: int = 0) -> dict[str, Any]:
    """Step 8: q, k → α·q, α·k (weights grow in training): mean max weight against α under ÷√d_k
    alone (logits ×α², context) and under one remedy (answer): QK-norm, cosine/τ, or Gemma 2's
    soft-cap 50. The question asks at α = 4."""
    if method not in NORM_REMEDIES:
        raise InputError(f"step 8 shows one of {', '.join(NORM_REMEDIES)}, got {method!r}")
    res = beyond.norm_growth_sweep(dk, n, ALPHAS, tau=COSINE_TAU, cap=SOFTCAP, trials=trials, seed=seed,
                                   fit=True)
    rows = [_row(r["alpha"], r["max_weight_mean"], "grown" if r["method"] == "sqrt" else method,
                 r["method"] == method) for r in res["rows"] if r["method"] in ("sqrt", method)]
    rows += [_row(a, 1.0 / n, "uniform", False) for a in ALPHAS]
    value = next(r["max_weight_mean"] for r in res["rows"]
                 if r["alpha"] == ALPHA_ASKED and r["method"] == method)
    q = bin_choices(value, MAX_WEIGHT_BINS)
    return {"chart": _chart("alpha", "max_weight", rows, y_domain=(0.0, 1.0), current=ALPHA_ASKED,
                            series_args={"n": n}),
            "question": q, "params": {"dk": dk, "n": n, "method": method, "alpha": ALPHA_ASKED},
            "draws": res["params"]["trials"]}


STEPS: tuple[Step, ...] = (
    Step("variance", "dk", variance_step),
    Step("saturation", "dk", saturation_step),
    Step("gradients", "dk", gradients_step),
    Step("fix", "dk", fix_step),
    Step("scales", "scale", scales_step),
    Step("length", "n", length_step),
    Step("training", "rho", training_step),
    Step("modern", "method", modern_step),
)


def step_inputs(step: Step, values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings among `values` that `step` measures with (so a cache keyed by them is not
    invalidated by settings the step does not use)."""
    wanted = inspect.signature(step.compute).parameters
    return {k: v for k, v in values.items() if k in wanted}
