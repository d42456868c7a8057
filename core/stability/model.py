"""A miniature transformer whose attention logits can grow: two pre-LN layers on associative recall.

The task (generated in code, nothing downloaded). An example holds P (key, value) pairs — P distinct
key symbols out of K, each with a value symbol out of V — and a query that repeats one of the keys;
the answer is that key's value. Token j < P is the pair e_key[k_j] + e_val[v_j]; token P is the query
e_key[k_q] + e_query. So the model can only answer by attending from the query to the matching pair.

The model, in the explorer's symbols, for each of L = 2 layers (pre-LN, no biases, attention over all
T = P + 1 tokens), H heads of width d_k = d_model / H:

    h = LN(x);  q = h W_Q,  k = h W_K,  v = h W_V        (per head)
    s_ij = q_i·k_j / √d_k                                  baseline
    s_ij = LN(q_i)·LN(k_j) / √d_k                          qk-norm  (Dehghani et al. 2023; LN with a
                                                            learned gain per component, no bias)
    s_ij ← cap·tanh(s_ij / cap),  cap = 50                 soft-cap (Gemma 2)
    p_i = softmax(s_i);  x ← x + (Σ_j p_ij v_j) W_O;  x ← x + GELU(LN(x) W_1) W_2
    z = LN(x_P) W_U  (V answer logits);  L = −ln softmax(z)_y  (+ 1e-4·(ln Z)², z-loss; Z = Σ e^z)

Initial weights: every linear map N(0, 1/fan_in), so q and k have unit-variance components on a
LayerNorm'd input and s has variance ≈ 1 at step 0 (the footnote's assumption); embeddings N(0, 1).

Many runs are trained at once: every parameter carries a leading run axis R, and each run's
forward pass uses its own weights only. Quantities logged per run (docs/science.md, "Why modern models
bound the logits"): the largest attention logit max s_ij over every layer, head, example and
(i, j); the attention entropy H(p_i) = −Σ_j p_ij ln p_ij averaged over examples and rows, per head,
then its minimum and mean over the L·H heads; the output-logit norm ‖z‖₂ and ln Z averaged over the
batch; the gradient norm √(Σ over every parameter of g²).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

VARIANTS: tuple[str, ...] = ("baseline", "qk-norm", "soft-cap", "z-loss")
SOFT_CAP = 50.0  # Gemma 2's attention logit cap (arXiv:2408.00118 §2), as core.beyond.GEMMA2_CAP
Z_LOSS = 1e-4  # the z-loss coefficient of Wortsman et al. 2023 (after PaLM)
LN_EPS = 1e-5  # torch.nn.LayerNorm's default


@dataclass(frozen=True)
class ModelConfig:
    """The miniature's size and its task's: width, heads, layers, key and value vocabularies, pairs."""

    d_model: int = 64
    heads: int = 4
    layers: int = 2
    keys: int = 32
    values: int = 16
    pairs: int = 4
    mlp: int = 2

    @property
    def d_k(self) -> int:
        return self.d_model // self.heads

    @property
    def tokens(self) -> int:
        return self.pairs + 1


def make_batch(cfg: ModelConfig, batch: int, generator: Any) -> dict[str, Any]:
    """One batch of associative recall: keys (B × P, distinct per example), vals (B × P), pos (B,) the
    pair the query repeats, query = keys[pos], target = vals[pos]."""
    import torch

    keys = torch.argsort(torch.rand((batch, cfg.keys), generator=generator), dim=-1)[:, : cfg.pairs]
    vals = torch.randint(0, cfg.values, (batch, cfg.pairs), generator=generator)
    pos = torch.randint(0, cfg.pairs, (batch,), generator=generator)
    query = keys.gather(1, pos[:, None])[:, 0]
    target = vals.gather(1, pos[:, None])[:, 0]
    return {"keys": keys, "vals": vals, "pos": pos, "query": query, "target": target}


def init_params(cfg: ModelConfig, variant: str, runs: int, generator: Any) -> dict[str, Any]:
    """Initial weights, the same for each of the `runs` runs (a leading axis R), drawn in the same order
    for every variant: qk-norm only adds its gains (ones), so every variant starts from one model."""
    import torch

    check_variant(variant)
    d, f = cfg.d_model, cfg.mlp * cfg.d_model

    def normal(*shape: int, std: float) -> Any:
        return torch.randn(shape, generator=generator) * std

    base: dict[str, Any] = {"e_key": normal(cfg.keys, d, std=1.0), "e_val": normal(cfg.values, d, std=1.0),
                            "e_query": normal(d, std=1.0)}
    for layer in range(cfg.layers):
        base |= {f"l{layer}.ln1": torch.ones(d), f"l{layer}.w_qkv": normal(d, 3 * d, std=d ** -0.5),
                 f"l{layer}.w_o": normal(d, d, std=d ** -0.5), f"l{layer}.ln2": torch.ones(d),
                 f"l{layer}.w_1": normal(d, f, std=d ** -0.5), f"l{layer}.w_2": normal(f, d, std=f ** -0.5)}
        if variant == "qk-norm":
            base |= {f"l{layer}.q_norm": torch.ones(cfg.d_k), f"l{layer}.k_norm": torch.ones(cfg.d_k)}
    base |= {"ln_f": torch.ones(d), "w_u": normal(d, cfg.values, std=d ** -0.5)}
    return {k: v.expand(runs, *v.shape).clone().requires_grad_() for k, v in base.items()}


def check_variant(variant: str) -> str:
    from core.errors import InputError

    if variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return variant


def layer_norm(x: Any, gain: Any) -> Any:
    """(x − mean) / √(var + ε) over the last axis, times a gain whose leading axis is the run's
    (gain: R × width, broadcast over the axes between)."""
    import torch.nn.functional as F

    g = gain.reshape(gain.shape[0], *([1] * (x.dim() - 2)), gain.shape[-1])
    return F.layer_norm(x, (x.shape[-1],), eps=LN_EPS) * g


def linear(x: Any, w: Any) -> Any:
    """x W for each run: x (R × … × d_in), w (R × d_in × d_out), as one batched product per run."""
    R = x.shape[0]
    return (x.reshape(R, -1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[-1])


def forward(params: dict[str, Any], variant: str, cfg: ModelConfig, batch: dict[str, Any]) -> dict[str, Any]:
    """Answer logits z (R × B × V) and, per layer, the attention logits s and weights p
    (R × B × H × T × T) of every run on one batch."""
    import torch
    import torch.nn.functional as F

    R = params["e_key"].shape[0]
    H, dk = cfg.heads, cfg.d_k
    pairs = params["e_key"][:, batch["keys"]] + params["e_val"][:, batch["vals"]]  # R, B, P, d
    query = params["e_key"][:, batch["query"]] + params["e_query"][:, None, :]  # R, B, d
    x = torch.cat([pairs, query[:, :, None, :]], dim=2)  # R, B, T, d
    B, T = x.shape[1], x.shape[2]
    scores, probs = [], []
    for layer in range(cfg.layers):
        h = layer_norm(x, params[f"l{layer}.ln1"])
        qkv = linear(h, params[f"l{layer}.w_qkv"])  # R, B, T, 3d
        q, k, v = (part.reshape(R, B, T, H, dk).transpose(2, 3) for part in qkv.split(cfg.d_model, dim=-1))
        if variant == "qk-norm":
            q = layer_norm(q, params[f"l{layer}.q_norm"])
            k = layer_norm(k, params[f"l{layer}.k_norm"])
        s = q @ k.transpose(-1, -2) / math.sqrt(dk)  # R, B, H, T, T
        if variant == "soft-cap":
            s = SOFT_CAP * torch.tanh(s / SOFT_CAP)
        p = s.softmax(dim=-1)
        o = (p @ v).transpose(2, 3).reshape(R, B, T, cfg.d_model)
        x = x + linear(o, params[f"l{layer}.w_o"])
        h = layer_norm(x, params[f"l{layer}.ln2"])
        x = x + linear(F.gelu(linear(h, params[f"l{layer}.w_1"])), params[f"l{layer}.w_2"])
        scores.append(s)
        probs.append(p)
    z = layer_norm(x[:, :, -1], params["ln_f"]) @ params["w_u"]  # R, B, V
    return {"z": z, "scores": scores, "probs": probs}


def losses(z: Any, target: Any, variant: str) -> dict[str, Any]:
    """Per run (R,): the cross-entropy −ln softmax(z)_y averaged over the batch, the z-loss term
    1e-4·mean (ln Z)² (z-loss variant only, else 0) and their sum, the loss that is minimised."""
    import torch.nn.functional as F

    R = z.shape[0]
    ce = F.cross_entropy(z.reshape(-1, z.shape[-1]), target.repeat(R), reduction="none")
    ce = ce.reshape(R, -1).mean(dim=1)
    zl = Z_LOSS * (z.logsumexp(dim=-1) ** 2).mean(dim=1) if variant == "z-loss" else ce * 0.0
    return {"ce": ce, "z_loss": zl, "total": ce + zl}


# ---------------------------------------------------------------- what is logged


def entropy(p: Any) -> Any:
    """H(p) = −Σ_j p_j ln p_j over the last axis, with 0·ln 0 = 0 (nats)."""
    import torch

    return -(p * torch.where(p > 0, p, 1.0).log()).sum(dim=-1)


def head_entropies(probs: list[Any]) -> Any:
    """Per run and head (R × L·H): H(p_i) averaged over the batch and the query rows i."""
    import torch

    return torch.cat([entropy(p).mean(dim=(1, 3)) for p in probs], dim=1)


def max_logit(scores: list[Any]) -> Any:
    """Per run (R,): the largest attention logit s_ij over every layer, head, example, i and j."""
    import torch

    return torch.stack([s.flatten(1).amax(dim=1) for s in scores]).amax(dim=0)


def logit_norm(z: Any) -> Any:
    """Per run (R,): the answer logits' norm ‖z‖₂ averaged over the batch."""
    return z.norm(dim=-1).mean(dim=1)


def log_partition(z: Any) -> Any:
    """Per run (R,): ln Z = ln Σ_c e^{z_c} averaged over the batch (the z-loss keeps it near 0)."""
    return z.logsumexp(dim=-1).mean(dim=1)


def grad_norm(params: dict[str, Any]) -> Any:
    """Per run (R,): √(Σ over every parameter's entries of g²), the gradient of the minimised loss."""
    import torch

    total = sum(p.grad.flatten(1).pow(2).sum(dim=1) for p in params.values() if p.grad is not None)
    return torch.as_tensor(total).sqrt()
