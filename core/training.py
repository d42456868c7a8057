"""Training dynamics: a tiny single-head attention model learns key–value retrieval.

The task. Each example holds n (key, value) pairs: n distinct key symbols drawn from a
vocabulary of V, each paired with a value class in {0, …, C−1}, and a query symbol equal to one
of the n keys (position j*). The target is the value class paired with the query's key, so the
model can only succeed by attending to position j*: attention must *select*.

The model (one head, symbols as in the rest of the explorer):

    e_a ∈ R^{d_model}          fixed random symbol embeddings, entries iid N(0, 1)
    q   = W_Q e_query          W_Q, W_K ∈ R^{d_k × d_model}, entries iid N(0, 1/d_model),
    k_j = W_K e_{key_j}        so every component of q and k has variance 1 at step 0 —
                               the footnote's assumption, hence Var(q·k) = d_k there
    s_j = c · (q · k_j)        c from the scale family (core.scales)
    p   = softmax(s)           over the n keys of the example
    o   = Σ_j p_j E_V[val_j]   learned value embeddings E_V ∈ R^{C × d_v}
    z   = W_O o                learned read-out W_O ∈ R^{C × d_v}; loss L = cross-entropy(z, target)

The loss sits behind the value path, as in a real transformer, so ∂L/∂s = J ∂L/∂p with the
softmax Jacobian J = diag(p) − p pᵀ (docs/science.md §1, §3c): a saturated p kills the gradient
that would have to move W_Q and W_K. (Cross-entropy straight on s would not: p − onehot never
vanishes; that is why the read-out is there.)

Logged at every step, before the optimiser update: loss, accuracy (arg-max class = target),
mean attention entropy H(p) = −Σ_j p_j ln p_j (nats, ≤ ln n), ‖∂L/∂W_Q‖_F and max |s_j|.

Fairness and reproducibility. Every run of one call sees the same batches (seeded from `seed`
only); the symbol embeddings, E_V and W_O are the same for every run; W_Q and W_K are seeded from
(seed, d_k), so all scales at one d_k start from identical weights and differ only by c. All
randomness comes from private `torch.Generator`s (never the global RNG, which Streamlit sessions
share). Gathers are written as one-hot matrix products, so the backward pass has no atomic
scatter and is deterministic on the GPU too.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from core import budget
from core.errors import BackendError, InputError
from core.results import Progress, Result
from core.sampling import sub_seed
from core.scales import Scale, parse_scale, scale_factor

VOCAB = 128  # V: key symbols
CLASSES = 32  # C: value classes (chance accuracy ≈ 1/C)
D_MODEL = 64  # width of the fixed symbol embeddings
D_V = 32  # width of the learned value embeddings
DK_RANGE = (1, 4096)
N_RANGE = (2, 64)
STEPS_RANGE = (1, 5000)
BATCH_RANGE = (1, 1024)
LR_RANGE = (1e-5, 1.0)
OPTIMIZERS = ("adam", "sgd")
DEVICES = ("auto", "cpu", "cuda")
METRICS = ("loss", "accuracy", "entropy", "grad_wq_norm", "max_logit")

DEFAULT_DKS = (16, 64, 256, 1024)
DEFAULT_SCALES = ("none", "sqrt", "linear")


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run except d_k and the scale."""

    n: int = 16
    steps: int = 200
    batch: int = 64
    lr: float = 0.01
    optimizer: str = "adam"
    seed: int = 0


# ---------------------------------------------------------------- validation


def _int_in(x: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, int):
        raise InputError(f"{name} must be a whole number, got {x!r}")
    if not lo <= x <= hi:
        raise InputError(f"{name} must lie in [{lo}, {hi}], got {x}")
    return int(x)


def check_config(cfg: TrainConfig) -> TrainConfig:
    """Validate every field; raises InputError with the allowed range."""
    n = _int_in(cfg.n, "n", *N_RANGE)
    steps = _int_in(cfg.steps, "steps", *STEPS_RANGE)
    batch = _int_in(cfg.batch, "batch", *BATCH_RANGE)
    if not isinstance(cfg.lr, (int, float)) or not math.isfinite(cfg.lr) or not (
            LR_RANGE[0] <= cfg.lr <= LR_RANGE[1]):
        raise InputError(f"learning rate must lie in [{LR_RANGE[0]:g}, {LR_RANGE[1]:g}], got {cfg.lr}")
    if cfg.optimizer not in OPTIMIZERS:
        raise InputError(f"unknown optimizer {cfg.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
    seed = _int_in(cfg.seed, "seed", 0, 2**31 - 1)
    return TrainConfig(n=n, steps=steps, batch=batch, lr=float(cfg.lr), optimizer=cfg.optimizer,
                       seed=seed)


def resolve_device(device: str) -> str:
    """"auto" → "cuda" when torch sees a GPU, else "cpu"; "cuda" without one raises BackendError."""
    import torch

    if device not in DEVICES:
        raise InputError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    has_cuda = torch.cuda.is_available()
    if device == "cuda" and not has_cuda:
        raise BackendError("device 'cuda' is not available: torch sees no CUDA GPU")
    if device == "auto":
        return "cuda" if has_cuda else "cpu"
    return device


def estimate_seconds(dks: Sequence[int], n_scales: int, cfg: TrainConfig, gpu: bool = False) -> float:
    """Rough wall time: per step and run ≈ 6·d_model²·d_k FLOPs (forward and backward of W_Qᵀ W_K)
    plus, per step and d_k (every run trains in one loop, `train_grid`), ~1 ms of Python and
    small-op overhead and a little more per run as the batch grows (2 CPU cores; the GPU has
    the same overhead, not less)."""
    per_step = sum(6.0 * D_MODEL * D_MODEL * d + 12.0 * VOCAB * D_MODEL * D_MODEL for d in dks) * n_scales
    flops = per_step * cfg.steps
    overhead = 1.0e-3 * cfg.steps * len(dks) * (1.0 + n_scales * cfg.batch * cfg.n / 8192.0)
    return budget.estimate_seconds(flops=flops, gpu=gpu) + overhead


# ---------------------------------------------------------------- data and model


def make_batches(cfg: TrainConfig) -> dict[str, Any]:
    """All batches of a run, seeded from cfg.seed alone (so every d_k and scale sees the same data).

    keys (steps, B, n): n distinct symbols per example; vals (steps, B, n): their value classes;
    pos (steps, B): j*, the position whose key the query repeats; query = keys[pos]; target = vals[pos].
    """
    import torch

    g = torch.Generator().manual_seed(sub_seed(cfg.seed, 70, cfg.n, cfg.batch, cfg.steps))
    shape = (cfg.steps, cfg.batch)
    keys = torch.argsort(torch.rand((*shape, VOCAB), generator=g), dim=-1)[..., : cfg.n]
    vals = torch.randint(0, CLASSES, (*shape, cfg.n), generator=g)
    pos = torch.randint(0, cfg.n, shape, generator=g)
    query = keys.gather(-1, pos[..., None])[..., 0]
    target = vals.gather(-1, pos[..., None])[..., 0]
    return {"keys": keys, "vals": vals, "pos": pos, "query": query, "target": target}


def init_weights(d_k: int, seed: int) -> dict[str, Any]:
    """Initial weights: E (V × d_model) ~ N(0, 1) fixed; W_Q, W_K ~ N(0, 1/d_model) so q, k have
    unit-variance components; E_V ~ N(0, 1); W_O ~ N(0, 1/d_v). W_Q, W_K depend on (seed, d_k) only."""
    import torch

    g_shared = torch.Generator().manual_seed(sub_seed(seed, 71))
    E = torch.randn((VOCAB, D_MODEL), generator=g_shared)
    E_V = torch.randn((CLASSES, D_V), generator=g_shared)
    W_O = torch.randn((CLASSES, D_V), generator=g_shared) / math.sqrt(D_V)
    g_qk = torch.Generator().manual_seed(sub_seed(seed, 72, d_k))
    W_Q = torch.randn((d_k, D_MODEL), generator=g_qk) / math.sqrt(D_MODEL)
    W_K = torch.randn((d_k, D_MODEL), generator=g_qk) / math.sqrt(D_MODEL)
    return {"E": E, "W_Q": W_Q, "W_K": W_K, "E_V": E_V, "W_O": W_O}


def forward(w: dict[str, Any], c: Any, onehot_query: Any, onehot_keys: Any,
            onehot_vals: Any) -> tuple[Any, Any]:
    """(scores s (B × n), class logits z (B × C)) for one batch, every gather a matrix product.

    G = c · (E W_Qᵀ)(E W_Kᵀ)ᵀ (V × V) holds c·q·k for every (query symbol, key symbol) pair,
    so s_bj = G[query_b, key_bj]; the value mixture o_b = Σ_j p_bj E_V[val_bj]; z = o W_Oᵀ.
    G is formed as E (c · W_Qᵀ W_K) Eᵀ: the d_k-long contraction happens once, on a
    d_model × d_model matrix, so a step costs O(d_model²·d_k) instead of O(V²·d_k).
    Runs stacked along a leading axis R (W_Q, W_K, E_V, W_O with R in front, c a length-R tensor)
    give s (R × B × n) and z (R × B × C), each run computed from its own weights.
    """
    import torch

    if not isinstance(c, (int, float)):
        c = c.reshape(*c.shape, 1, 1)
    M = (w["W_Q"].mT * c) @ w["W_K"]  # (…, d_model, d_model)
    G = (w["E"] @ M) @ w["E"].T  # (…, V, V)
    rows = onehot_query @ G  # (…, B, V): the query's row of G
    s = torch.einsum("bnv,...bv->...bn", onehot_keys, rows)  # (…, B, n): s_bj = G[query_b, key_bj]
    p = s.softmax(dim=-1)
    mix = torch.einsum("...bn,bnc->...bc", p, onehot_vals)  # (…, B, C): weight on each value class
    o = mix @ w["E_V"]  # (…, B, d_v) = Σ_j p_bj E_V[val_bj]
    return s, o @ w["W_O"].mT


@contextlib.contextmanager
def _threads(n: int | None) -> Iterator[None]:
    """Temporarily set torch's intra-op thread count, restoring it afterwards."""
    import torch

    if n is None:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


ADAM_BETAS = (0.9, 0.999)  # torch.optim.Adam's defaults, as `_update` applies them
ADAM_EPS = 1e-8


def _update(params: list[Any], state: list[dict[str, Any]], cfg: TrainConfig, step: int) -> None:
    """One optimiser step on every tensor of `params` (their .grad set), in place.

    SGD: θ ← θ − lr·g. Adam (Kingma & Ba; the operations of torch.optim.Adam's single-tensor path
    on the CPU, defaults betas = (0.9, 0.999), ε = 1e-8, no weight decay): m ← β₁m + (1 − β₁)g,
    v ← β₂v + (1 − β₂)g², θ ← θ − lr/(1 − β₁ᵗ) · m / (√v/√(1 − β₂ᵗ) + ε), t = step.
    Written out rather than taken from torch.optim, whose first use imports torch's compiler
    (about a second on a fresh server); tests hold it to torch.optim's results. Element-wise, so
    runs stacked along a leading axis are updated exactly as they would be one by one.
    """
    import torch

    with torch.no_grad():
        for w, st in zip(params, state, strict=True):
            g = w.grad
            if cfg.optimizer == "sgd":
                w.add_(g, alpha=-cfg.lr)
                continue
            b1, b2 = ADAM_BETAS
            if not st:
                st["m"], st["v"] = torch.zeros_like(w), torch.zeros_like(w)
            st["m"].lerp_(g, 1 - b1)
            st["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
            step_size = cfg.lr / (1 - b1 ** step)
            denom = (st["v"].sqrt() / (1 - b2 ** step) ** 0.5).add_(ADAM_EPS)
            w.addcdiv_(st["m"], denom, value=-step_size)


def train_grid(dks: Sequence[int], scales: Sequence[Scale], cfg: TrainConfig, data: dict[str, Any],
               device: str = "cpu", tick: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Train one model per (d_k, scale), all at once; per-run, per-step metric lists.

    The runs of one d_k are stacked along a leading axis R (one entry per scale): W_Q, W_K
    (R × d_k × d_model), E_V, W_O, c (R); they start from the same weights (`init_weights(d_k,
    seed)`). Every run sees the same batches. The loss is the sum of every run's loss, whose
    gradient with respect to one run's weights is that run's own gradient, and the optimiser is
    element-wise, so each run follows the path it would follow alone (up to float32 rounding), for
    one Python loop, one backward pass and one host copy per step instead of one per run.
    Returns {"logs": [per d_k, in order: [per scale, in order: {metric: [per step]}]],
    "c": [per d_k: [per scale: c]]} (a d_k or a scale given twice trains twice).
    """
    import torch
    import torch.nn.functional as F

    groups = []
    for d_k in dks:
        cs = [scale_factor(s, d_k) for s in scales]
        w0 = init_weights(d_k, cfg.seed)
        w = {k: (v.to(device) if k == "E"
                 else v.to(device).expand(len(cs), *v.shape).clone().requires_grad_())
             for k, v in w0.items()}
        groups.append((w, torch.tensor(cs, dtype=torch.float32, device=device), cs))
    params = [w[k] for w, _, _ in groups for k in ("W_Q", "W_K", "E_V", "W_O")]
    state: list[dict[str, Any]] = [{} for _ in params]
    logs = [[{m: [] for m in METRICS} for _ in scales] for _ in dks]
    flat = [log for group in logs for log in group]  # the order of the rows of each step's stats
    ln_p_floor = torch.finfo(torch.float32).tiny
    for step in range(cfg.steps):
        oq = F.one_hot(data["query"][step].to(device), VOCAB).float()
        ok = F.one_hot(data["keys"][step].to(device), VOCAB).float()
        ov = F.one_hot(data["vals"][step].to(device), CLASSES).float()
        target = data["target"][step].to(device)
        outs = []
        for w, c, _ in groups:
            s, z = forward(w, c, oq, ok, ov)  # (R, B, n), (R, B, C)
            losses = F.cross_entropy(z.transpose(1, 2), target.expand(len(c), -1),
                                     reduction="none").mean(dim=1)
            outs.append((s, z, losses))
        for p in params:
            p.grad = None
        torch.stack([losses.sum() for _, _, losses in outs]).sum().backward()
        with torch.no_grad():
            stats = []
            for (w, _, _), (s, z, losses) in zip(groups, outs, strict=True):
                p = s.softmax(dim=-1)
                H = -(p * p.clamp_min(ln_p_floor).log()).sum(dim=-1)
                stats.append(torch.stack([
                    losses.detach(),
                    (z.argmax(dim=-1) == target).float().mean(dim=-1),
                    H.mean(dim=-1),
                    w["W_Q"].grad.flatten(1).norm(dim=1),
                    s.abs().flatten(1).amax(dim=1),
                ], dim=1))
            rows = torch.cat(stats).cpu().tolist()  # one device → host copy per step: runs × METRICS
        for log, row in zip(flat, rows, strict=True):
            for m, v in zip(METRICS, row, strict=True):
                log[m].append(float(v))
        _update(params, state, cfg, step + 1)
        if tick is not None:
            tick(step + 1)
    if device == "cuda":
        torch.cuda.synchronize()
    return {"logs": logs, "c": [cs for _, _, cs in groups]}


# ---------------------------------------------------------------- the experiment


def training(dks: Sequence[int] = DEFAULT_DKS, scales: Sequence[str | Scale] = DEFAULT_SCALES,
             n: int = 16, steps: int = 200, batch: int = 64, lr: float = 0.01,
             optimizer: str = "adam", seed: int = 0, device: str = "auto",
             threads: int | None = None, progress: Progress = None,
             time_budget: float | None = None) -> Result:
    """Train one model per (d_k, scale) on the same batches; per-step curves plus a run summary.

    Returns {"experiment": "training", "backend", "params", "rows", "runs"}: `rows` has one row
    per (d_k, scale, step) with the METRICS; `runs` one per (d_k, scale) with c,
    the first and last loss, final accuracy (mean of the last 10% of steps), and the first step
    whose batch accuracy reached 0.9 (None if never).
    params["seconds_total"] is the wall time of the whole grid (data included).
    `threads` sets torch's intra-op threads for the call and restores them afterwards.
    """
    cfg = check_config(TrainConfig(n=n, steps=steps, batch=batch, lr=lr, optimizer=optimizer,
                                   seed=seed))
    dk_list = [_int_in(d, "d_k", *DK_RANGE) for d in dks]
    if not dk_list:
        raise InputError("give at least one d_k")
    scale_list = [s if isinstance(s, Scale) else parse_scale(s) for s in scales]
    if not scale_list:
        raise InputError("give at least one scale")
    for s in scale_list:
        for d in dk_list:
            scale_factor(s, d)
    if threads is not None:
        threads = _int_in(threads, "threads", 1, 256)
    dev = resolve_device(device)
    est = estimate_seconds(dk_list, len(scale_list), cfg, gpu=dev == "cuda")
    budget.check_time(est, "this training grid", "fewer steps, fewer d_k or fewer scales", time_budget)

    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    with _threads(threads):
        data = make_batches(cfg)
        every = max(1, cfg.steps // 25)  # ~25 progress updates: a UI update is not free

        def tick(k: int) -> None:
            if progress is not None and (k % every == 0 or k == cfg.steps):
                progress(min(1.0, k / cfg.steps))

        out = train_grid(dk_list, scale_list, cfg, data, dev, tick)
        for d, logs, cs in zip(dk_list, out["logs"], out["c"], strict=True):
            for s, log, c in zip(scale_list, logs, cs, strict=True):
                for step in range(cfg.steps):
                    rows.append({"dk": d, "scale": s.name, "c": c, "step": step,
                                 **{m: log[m][step] for m in METRICS}})
                runs.append(_summary(d, s, log, c, cfg.steps))
    params = {"dk": dk_list, "scale": [s.name for s in scale_list], "n": cfg.n, "steps": cfg.steps,
              "batch": cfg.batch, "lr": cfg.lr, "optimizer": cfg.optimizer, "seed": cfg.seed,
              "vocab": VOCAB, "classes": CLASSES, "d_model": D_MODEL, "device": dev,
              "ln_n": math.log(cfg.n), "chance_accuracy": 1.0 / CLASSES,
              "seconds_total": time.perf_counter() - t_start}
    return {"experiment": "training", "backend": f"torch-{dev}", "params": params, "rows": rows,
            "runs": runs}


def _summary(d: int, s: Scale, log: dict[str, list[float]], c: float, steps: int) -> dict[str, Any]:
    tail = max(1, steps // 10)
    reached = next((i for i, a in enumerate(log["accuracy"]) if a >= 0.9), None)
    finite = [x for x in log["loss"] if math.isfinite(x)]
    return {
        "dk": d, "scale": s.name, "c": c,
        "loss_first": log["loss"][0], "loss_last": log["loss"][-1],
        "loss_min": min(finite) if finite else math.nan,
        "accuracy_final": sum(log["accuracy"][-tail:]) / tail,
        "entropy_first": log["entropy"][0], "entropy_last": log["entropy"][-1],
        "grad_wq_norm_first": log["grad_wq_norm"][0],
        "max_logit_first": log["max_logit"][0], "max_logit_last": log["max_logit"][-1],
        "step_to_90": reached,
        # steps whose whole-batch ∂L/∂W_Q is exactly 0: every row's float32 softmax is one-hot
        "grad_zero_steps": sum(g == 0.0 for g in log["grad_wq_norm"]),
    }
