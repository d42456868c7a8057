"""The learning-rate sweep of the miniature (docs/science.md, "Why modern models bound the logits").

For each variant, one run per learning rate η (8 rates, log-spaced over two decades by default),
every run from the same weights on the same batches (core.stability.train). Per run: the final loss
(mean cross-entropy over the last tenth of the steps), whether it diverged, and what its attention
did. Per variant, the learning-rate sensitivity as Wortsman et al. 2023 (§3.1) define it:

    sensitivity = E_η [ min(ℓ(η), ℓ₀) − min_η′ ℓ(η′) ]

with ℓ(η) the final loss at η, ℓ₀ the loss at initialisation and the expectation the mean over the
swept rates (a run that diverged to NaN counts as ℓ₀). 0 means every rate reaches the best loss.

A run *diverged* when its loss is NaN or its final loss lies above its loss at step 0 (the per-step
flag of core.stability.train, held over the last tenth). Its attention *collapsed* when the smallest
head entropy, averaged over the last tenth, is under COLLAPSE_NATS (or NaN): a row with H < 0.1 nats has
a top weight above 0.97 (Zhai et al. 2023's "entropy collapse").
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

from core import budget
from core.errors import InputError
from core.results import Progress, Result
from core.stability import model as mdl
from core.stability import train as tr

DEFAULT_LRS: tuple[float, ...] = tuple(3e-3 * 10 ** (2 * k / 7) for k in range(8))  # 0.003 … 0.3
DEFAULT_STEPS = 150
DEFAULT_BATCH = 16
COLLAPSE_NATS = 0.1
CURVE_EVERY = 2  # the per-step curves keep every second step (the last one always)
APP_TIME_BUDGET_S = 90.0
# Wall seconds per run and step of the default model at batch 16, one thread, on the 2-core machine
# under load (docs/performance.md: 31 s for 32 runs × 150 steps), for refusing a sweep that would not
# fit the time budget.
SECONDS_PER_RUN_STEP = 0.0065


def estimate_seconds(n_variants: int, n_lrs: int, steps: int, batch: int) -> float:
    """Rough wall time: runs × steps × SECONDS_PER_RUN_STEP, scaled by batch/16."""
    return n_variants * n_lrs * steps * SECONDS_PER_RUN_STEP * max(1.0, batch / DEFAULT_BATCH)


def lr_sensitivity(final: Sequence[float], initial: float) -> float:
    """E_η[min(ℓ(η), ℓ₀) − min_η′ ℓ(η′)] over the given final losses (NaN counts as ℓ₀)."""
    capped = [initial if not math.isfinite(x) else min(x, initial) for x in final]
    if not capped:
        raise InputError("the sensitivity needs at least one final loss")
    best = min(capped)
    return sum(c - best for c in capped) / len(capped)


def summarise(log: dict[str, list[float]], steps: int) -> dict[str, Any]:
    """One run's summary from its per-step log (core.stability.train.METRICS)."""
    tail = max(1, steps // 10)
    loss = log["loss"]
    finite = [x for x in loss if math.isfinite(x)]
    last = loss[-tail:]
    final = sum(last) / tail if all(math.isfinite(x) for x in last) else math.nan
    ent_tail = log["entropy_min"][-tail:]
    ent_final = sum(ent_tail) / tail if all(math.isfinite(x) for x in ent_tail) else math.nan
    peaks = [x for x in log["max_logit"] if math.isfinite(x)]
    collapse = next((i for i, h in enumerate(log["entropy_min"]) if h < COLLAPSE_NATS), None)
    nan_step = next((i for i, x in enumerate(loss) if not math.isfinite(x)), None)
    return {
        "loss_start": loss[0], "loss_final": final, "loss_best": min(finite) if finite else math.nan,
        "diverged": not math.isfinite(final) or final > loss[0],
        "nan_step": nan_step,
        "steps_above_start": int(sum(log["diverged"][1:])),
        "max_logit_start": log["max_logit"][0], "max_logit_peak": max(peaks) if peaks else math.nan,
        "entropy_min_final": ent_final, "collapsed": not ent_final >= COLLAPSE_NATS,
        "collapse_step": collapse,
        "logit_norm_final": log["logit_norm"][-1], "grad_norm_peak": max(
            (x for x in log["grad_norm"] if math.isfinite(x)), default=math.nan),
    }


def sweep(variants: Sequence[str] = mdl.VARIANTS, lrs: Sequence[float] = DEFAULT_LRS,
          steps: int = DEFAULT_STEPS, batch: int = DEFAULT_BATCH, seed: int = 0,
          progress: Progress = None, time_budget: float | None = None) -> Result:
    """Train every (variant, η) run; final loss against η, the sensitivity per variant, the curves.

    Returns {"experiment": "stability", "backend", "params", "rows", "variants", "curves"}: `rows`
    one per run (variant, lr and `summarise`'s fields); `variants` one per variant (sensitivity,
    best loss, runs diverged and collapsed, wall and CPU seconds (this thread's) to train its
    curve); `curves` the per-step log of every run, every CURVE_EVERY-th step (with the last), as
    rows (variant, lr, step, METRICS).
    """
    var_list = [mdl.check_variant(v) for v in variants]
    if not var_list:
        raise InputError("give at least one variant")
    lr_list = tr.check_lrs(lrs)
    cfg_train = tr.check_train(tr.TrainConfig(steps=steps, batch=batch, seed=seed))
    budget.check_time(estimate_seconds(len(var_list), len(lr_list), cfg_train.steps, cfg_train.batch),
                      "this learning-rate sweep", "fewer steps, rates or variants", time_budget)
    cfg = mdl.ModelConfig()
    rows: list[dict[str, Any]] = []
    per_variant: list[dict[str, Any]] = []
    curves: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    total = len(var_list) * cfg_train.steps
    with _one_thread():
        for k, variant in enumerate(var_list):
            _train_curve(k, variant, lr_list, cfg, cfg_train, progress, total, rows, per_variant, curves)
    params = {"variants": var_list, "lrs": lr_list, "steps": cfg_train.steps, "batch": cfg_train.batch,
              "seed": cfg_train.seed, "d_model": cfg.d_model, "heads": cfg.heads, "layers": cfg.layers,
              "d_k": cfg.d_k, "pairs": cfg.pairs, "tokens": cfg.tokens, "keys": cfg.keys,
              "values": cfg.values, "ln_values": math.log(cfg.values), "ln_tokens": math.log(cfg.tokens),
              "collapse_nats": COLLAPSE_NATS, "soft_cap": mdl.SOFT_CAP, "z_loss": mdl.Z_LOSS,
              "seconds_total": time.perf_counter() - t_start}
    return {"experiment": "stability", "backend": "torch-cpu", "params": params, "rows": rows,
            "variants": per_variant, "curves": curves}


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """torch at one intra-op thread for the sweep (as on the server), restored afterwards: the same
    seed then gives the same numbers from the CLI, the tests and the app."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _train_curve(k: int, variant: str, lr_list: list[float], cfg: mdl.ModelConfig,
                 cfg_train: tr.TrainConfig, progress: Progress, total: int, rows: list[dict[str, Any]],
                 per_variant: list[dict[str, Any]], curves: list[dict[str, Any]]) -> None:
    """Train variant number k at every rate; append its runs, its summary and its curves."""
    every = max(1, cfg_train.steps // 20)

    def tick(step: int) -> None:
        if progress is not None and (step % every == 0 or step == cfg_train.steps):
            progress(min(1.0, (k * cfg_train.steps + step) / total))

    t0, c0 = time.perf_counter(), time.thread_time()
    logs = tr.train_runs(variant, lr_list, cfg, cfg_train, tick)
    seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
    keep = [*range(0, cfg_train.steps, CURVE_EVERY)]
    if keep[-1] != cfg_train.steps - 1:
        keep.append(cfg_train.steps - 1)
    mine = []
    for lr, log in zip(lr_list, logs, strict=True):
        mine.append({"variant": variant, "lr": lr, **summarise(log, cfg_train.steps)})
        curves.extend({"variant": variant, "lr": lr, "step": i, **{m: log[m][i] for m in tr.METRICS}}
                      for i in keep)
    rows.extend(mine)
    start = mine[0]["loss_start"]
    finals = [r["loss_final"] if math.isfinite(r["loss_final"]) else math.inf for r in mine]
    best = min(range(len(mine)), key=finals.__getitem__)
    sensitivity = lr_sensitivity([r["loss_final"] for r in mine], start)
    per_variant.append({"variant": variant, "sensitivity": sensitivity,
                        "loss_start": start, "loss_best": min(finals[best], start), "lr_best": lr_list[best],
                        "diverged": sum(r["diverged"] for r in mine),
                        "collapsed": sum(r["collapsed"] for r in mine), "seconds": seconds,
                        "cpu_seconds": cpu})


def collapse_lr(out: Result) -> float:
    """The learning rate of the collapse view: the smallest swept η at which the baseline's attention
    collapsed while its QK-norm twin's did not; else the largest η."""
    by = {(r["variant"], r["lr"]): r for r in out["rows"]}
    for lr in sorted(out["params"]["lrs"]):
        base, twin = by.get(("baseline", lr)), by.get(("qk-norm", lr))
        if base and twin and base["collapsed"] and not twin["collapsed"]:
            return lr
    return max(out["params"]["lrs"])


def collapse_view(out: Result) -> dict[str, Any]:
    """The baseline and its QK-norm twin at `collapse_lr`: their per-step curves and summaries."""
    lr = collapse_lr(out)
    pair = [v for v in ("baseline", "qk-norm") if v in out["params"]["variants"]]
    return {"lr": lr,
            "curves": [c for c in out["curves"] if c["lr"] == lr and c["variant"] in pair],
            "runs": [r for r in out["rows"] if r["lr"] == lr and r["variant"] in pair]}


def diverges_first_question(out: Result, lr: float | None = None) -> dict[str, Any]:
    """A lesson question built on the sweep: "which run diverges first?", at one learning rate (the
    collapse view's by default). Choices: the variants, then "none of them"; `correct`: the run whose
    loss first went NaN or stayed above its start for the last tenth, else — when no run diverged so —
    the run whose attention collapsed first (`measure` says which), else "none". Ties share the answer.
    """
    lr = collapse_lr(out) if lr is None else lr
    runs = [r for r in out["rows"] if r["lr"] == lr]
    if not runs:
        raise InputError(f"no run at learning rate {lr}")
    steps = out["params"]["steps"]

    def divergence_step(r: dict[str, Any]) -> int | None:
        if r["nan_step"] is not None:
            return r["nan_step"]
        return steps - max(1, steps // 10) if r["diverged"] else None

    measure = "diverged" if any(divergence_step(r) is not None for r in runs) else "collapse_step"
    when = [divergence_step(r) if measure == "diverged" else r["collapse_step"] for r in runs]
    choices = [{"key": r["variant"], "step": w} for r, w in zip(runs, when, strict=True)]
    choices.append({"key": "none", "step": None})
    seen = [w for w in when if w is not None]
    correct = [i for i, w in enumerate(when) if w is not None and w == min(seen)] if seen else [len(runs)]
    return {"question": "diverges_first", "lr": lr, "measure": measure, "choices": choices,
            "correct": correct}


def findings(out: Result) -> dict[str, Any]:
    """What the page says about a sweep, as numbers: the sensitivity per variant, the rates at which the
    baseline's attention collapsed while its QK-norm twin's did not, the runs that diverged, the
    largest attention logit and output-logit norm per variant."""
    rows = out["rows"]
    by = {(r["variant"], r["lr"]): r for r in rows}
    twins = [lr for lr in out["params"]["lrs"] if ("baseline", lr) in by and ("qk-norm", lr) in by]
    only_base = [lr for lr in twins
                 if by[("baseline", lr)]["collapsed"] and not by[("qk-norm", lr)]["collapsed"]]

    def peak(variant: str, field: str) -> float:
        values = [r[field] for r in rows if r["variant"] == variant and math.isfinite(r[field])]
        return max(values) if values else math.nan

    variants = out["params"]["variants"]
    return {"sensitivity": {v["variant"]: v["sensitivity"] for v in out["variants"]},
            "twins": len(twins), "collapse_only_baseline": only_base,
            "diverged": sum(bool(r["diverged"]) for r in rows), "runs": len(rows),
            "peak_logit": {v: peak(v, "max_logit_peak") for v in variants},
            "logit_norm": {v: peak(v, "logit_norm_final") for v in variants}}
