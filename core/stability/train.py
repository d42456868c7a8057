"""Train the miniature (core.stability.model): one variant, many learning rates at once.

Every run of one call starts from the same weights and sees the same batches (both seeded from
`seed` alone, from private torch.Generators, never the global RNG), so the runs differ only by their
learning rate η. The optimiser is Adam (β₁ = 0.9, β₂ = 0.95, ε = 1e-8, no weight decay, as in
Wortsman et al. 2023 without their weight decay), written out element-wise like core.training's so
that runs stacked along the leading axis R follow the path each would follow alone; the learning
rate warms up linearly over the first tenth of the steps, then decays to 0 along a cosine:

    η_t = η · min(1, (t + 1)/w) · ½(1 + cos(π·max(0, t − w)/(S − w))),   w = ⌈S/10⌉, S steps.

Every batch is fresh, so the training loss is also the held-out loss.

Divergence (logged per step): the cross-entropy is not finite, or it lies above the run's loss at
step 0 (ln V at initialisation, V answers). A run whose loss is not finite stops there: its later
steps are logged as NaN, flagged diverged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InputError
from core.sampling import sub_seed
from core.stability import model as mdl

METRICS: tuple[str, ...] = ("loss", "max_logit", "entropy_min", "entropy_mean", "logit_norm", "log_z",
                            "grad_norm", "diverged")
ADAM_BETAS = (0.9, 0.95)
ADAM_EPS = 1e-8
STEPS_RANGE = (10, 2000)
BATCH_RANGE = (1, 512)
LR_RANGE = (1e-6, 10.0)


@dataclass(frozen=True)
class TrainConfig:
    """Steps, batch size and seed of a training run (the model's size is a ModelConfig)."""

    steps: int = 200
    batch: int = 32
    seed: int = 0


def _int_in(x: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise InputError(f"{name} must be a whole number in [{lo}, {hi}], got {x!r}")
    return int(x)


def check_train(cfg: TrainConfig) -> TrainConfig:
    return TrainConfig(steps=_int_in(cfg.steps, "steps", *STEPS_RANGE),
                       batch=_int_in(cfg.batch, "batch", *BATCH_RANGE),
                       seed=_int_in(cfg.seed, "seed", 0, 2**31 - 1))


def check_lrs(lrs: Sequence[float]) -> list[float]:
    out = [float(x) for x in lrs]
    if not out:
        raise InputError("give at least one learning rate")
    for x in out:
        if not math.isfinite(x) or not LR_RANGE[0] <= x <= LR_RANGE[1]:
            raise InputError(f"learning rates must lie in [{LR_RANGE[0]:g}, {LR_RANGE[1]:g}], got {x}")
    return out


def schedule(step: int, steps: int) -> float:
    """η_t / η: linear warm-up over w = ⌈S/10⌉ steps, then a cosine decay to 0 (the module's formula)."""
    w = max(1, math.ceil(steps / 10))
    warm = min(1.0, (step + 1) / w)
    return warm * 0.5 * (1.0 + math.cos(math.pi * max(0, step - w) / max(1, steps - w)))


def _adam(params: dict[str, Any], state: dict[str, Any], lr: Any, step: int, alive: Any) -> None:
    """One Adam step (the module's constants) with a learning rate per run (lr: R); a run no longer
    alive is left as it is."""
    import torch

    b1, b2 = ADAM_BETAS
    with torch.no_grad():
        ws = list(params.values())
        if bool(alive.all()):  # the common case: no run to hold still, no mask to apply
            gs = [w.grad for w in ws]
        else:
            gs = [torch.where(alive.reshape(-1, *([1] * (w.dim() - 1))), w.grad, 0.0) for w in ws]
        if not state:
            state["m"] = [torch.zeros_like(w) for w in ws]
            state["v"] = [torch.zeros_like(w) for w in ws]
        m, v = state["m"], state["v"]
        torch._foreach_lerp_(m, gs, 1 - b1)
        torch._foreach_mul_(v, b2)
        torch._foreach_addcmul_(v, gs, gs, value=1 - b2)
        denom = torch._foreach_sqrt(v)
        torch._foreach_div_(denom, math.sqrt(1 - b2 ** step))
        torch._foreach_add_(denom, ADAM_EPS)
        upd = torch._foreach_div(m, denom)
        size = lr / (1 - b1 ** step) * alive
        for w, u in zip(ws, upd, strict=True):
            w.sub_(u * size.reshape(-1, *([1] * (w.dim() - 1))))


DEFAULT_MODEL = mdl.ModelConfig()
DEFAULT_TRAIN = TrainConfig()


def train_runs(variant: str, lrs: Sequence[float], cfg: mdl.ModelConfig = DEFAULT_MODEL,
               train: TrainConfig = DEFAULT_TRAIN,
               tick: Callable[[int], None] | None = None) -> list[dict[str, list[float]]]:
    """Train one run per learning rate, all at once; per run, {metric: [value per step]} (METRICS;
    `diverged` as 0.0 / 1.0). Logged before each step's update, from the loss that step minimises."""
    import torch

    mdl.check_variant(variant)
    lr_list = check_lrs(lrs)
    train = check_train(train)
    R = len(lr_list)
    params = mdl.init_params(cfg, variant, R, torch.Generator().manual_seed(sub_seed(train.seed, 57, 1)))
    data_gen = torch.Generator().manual_seed(sub_seed(train.seed, 57, 2))
    lr = torch.tensor(lr_list, dtype=torch.float32)
    alive = torch.ones(R, dtype=torch.bool)
    state: dict[str, Any] = {}
    logs: list[dict[str, list[float]]] = [{m: [] for m in METRICS} for _ in range(R)]
    start: Any = None
    for step in range(train.steps):
        batch = mdl.make_batch(cfg, train.batch, data_gen)
        out = mdl.forward(params, variant, cfg, batch)
        loss = mdl.losses(out["z"], batch["target"], variant)
        for p in params.values():
            p.grad = None
        total = loss["total"]
        torch.where(alive & total.isfinite(), total, torch.zeros_like(total)).sum().backward()
        with torch.no_grad():
            ce = loss["ce"].detach()
            if start is None:
                start = ce.clone()
            alive &= ce.isfinite()
            ent = mdl.head_entropies(out["probs"])
            gn = mdl.grad_norm(params)
            stats = torch.stack([ce, mdl.max_logit(out["scores"]), ent.amin(dim=1), ent.mean(dim=1),
                                 mdl.logit_norm(out["z"]), mdl.log_partition(out["z"]), gn,
                                 (~alive | (ce > start)).float()], dim=1)
            stats[~alive, :-1] = math.nan
            rows = stats.tolist()
        for log, row in zip(logs, rows, strict=True):
            for m, value in zip(METRICS, row, strict=True):
                log[m].append(float(value))
        if not bool(alive.any()):
            _pad(logs, train.steps)
            if tick is not None:
                tick(train.steps)
            break
        _adam(params, state, lr * schedule(step, train.steps), step + 1, alive)
        if tick is not None:
            tick(step + 1)
    return logs


def _pad(logs: list[dict[str, list[float]]], steps: int) -> None:
    """Every run stopped: the remaining steps as NaN, flagged diverged."""
    for log in logs:
        for m in METRICS:
            log[m] += [1.0 if m == "diverged" else math.nan] * (steps - len(log[m]))
