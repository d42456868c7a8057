"""What modern models do instead of (or on top of) 1/√d_k — measured (docs/science.md §4).

- Correlated q and k: k = ρ·q + √(1 − ρ²)·z gives E[q·k] = ρ·d_k, so the logit's typical size
  √E[(q·k)²] = √(ρ²d_k² + d_k(1 + ρ²)) grows like d_k, not √d_k. μP (Tensor Programs V,
  arXiv:2203.03466, Def. 4.1) therefore scales attention by 1/d.
- Norm growth: during training ‖q‖ and ‖k‖ grow (ViT-22B, arXiv:2302.05442 §2). With q, k → α·q, α·k
  the scores grow like α². Remedies:
      QK-norm        s = LN(q)·LN(k)/√d_k                      (Henry et al. 2020, arXiv:2010.04245)
      cosine / τ     s = cos(q, k)/τ,  τ ≥ 0.01                 (Swin V2, arXiv:2111.09883 §3.2)
      soft-cap       s ← cap·tanh(s/cap),  cap = 50             (Gemma 2, arXiv:2408.00118 §2)
- Length: √d_k fixes the dimension, not the number of keys n. For iid logits of variance σ²,
  H → ln n − σ²/2 as n → ∞, so the weight on any one key fades like 1/n. Remedies multiply the
  logits by a length factor λ(n):
      log-n          λ = ln n                                   (Chiang & Cholak 2022, arXiv:2202.12172)
      SSMax          λ = s·ln n, s learnable                    (Scalable-Softmax, arXiv:2501.19399)
- Initialisation realism: Var(q) and the logit variance for real torch modules on LayerNorm'd x.

Every function returns {"experiment", "backend", "params", "rows"} like core.experiments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import budget, figure_budget
from core import experiments as ex
from core.attention import entropy_from_scores, softmax
from core.backend import get_backend
from core.errors import InputError
from core.results import Progress, Result, result, sub_progress, tick
from core.sampling import check_rho, correlate, draw, sub_seed

NORM_METHODS: tuple[str, ...] = ("sqrt", "softcap", "cosine", "qk-norm")
LENGTH_METHODS: tuple[str, ...] = ("none", "log-n", "ssmax")
INIT_SCHEMES: tuple[str, ...] = ("xavier-square", "mha", "linear-default", "gpt2")
GEMMA2_CAP = 50.0  # Gemma 2 attention logit soft-cap (arXiv:2408.00118 §2)
TAU_MIN = 0.01  # Swin V2 clamps the learnable temperature at 0.01 (arXiv:2111.09883 §3.2)
GPT2_STD = 0.02  # GPT-2 initialises every linear weight N(0, 0.02²)
LN_EPS = 1e-5  # torch.nn.LayerNorm's default eps


# ---------------------------------------------------------------- score functions


def softcap(S: Any, cap: float) -> Any:
    """Logit soft-capping s ← cap·tanh(s/cap): |s| < cap always, ≈ s for |s| ≪ cap (Gemma 2)."""
    if not cap > 0:
        raise InputError(f"the soft-cap must be > 0, got {cap}")
    return cap * np.tanh(S / cap)


def cosine_scores(Q: Any, K: Any, tau: float) -> Any:
    """s_ij = cos(q_i, k_j)/τ = (q_i/‖q_i‖)·(k_j/‖k_j‖)/τ, so |s_ij| ≤ 1/τ whatever the norms."""
    if not tau >= TAU_MIN:
        raise InputError(f"the temperature τ must be ≥ {TAU_MIN}, got {tau}")
    Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
    return (Qn @ Kn.swapaxes(-1, -2)) / Q.dtype.type(tau)


def layer_norm(X: Any, eps: float = LN_EPS) -> Any:
    """LN(x) = (x − mean(x)) / √(var(x) + ε) over the last axis, no affine (LayerNorm at init)."""
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + X.dtype.type(eps))


def qk_norm_scores(Q: Any, K: Any) -> Any:
    """QK-norm: s_ij = LN(q_i)·LN(k_j)/√d_k. ‖LN(x)‖² ≈ d_k, so s = √d_k·cos(q̃, k̃) — bounded by √d_k."""
    d = Q.shape[-1]
    return (layer_norm(Q) @ layer_norm(K).swapaxes(-1, -2)) / Q.dtype.type(math.sqrt(d))


def length_factor(method: str, n: int, s: float = 1.0) -> float:
    """λ(n) multiplying the ÷√d_k logits: none → 1, log-n → ln n, ssmax → s·ln n."""
    if method not in LENGTH_METHODS:
        raise InputError(f"unknown length method {method!r}; choose one of {', '.join(LENGTH_METHODS)}")
    if n < 2:
        raise InputError(f"n must be ≥ 2, got {n}")
    if method == "none":
        return 1.0
    if method == "log-n":
        return math.log(n)
    if not s > 0:
        raise InputError(f"the SSMax parameter s must be > 0, got {s}")
    return s * math.log(n)


def entropy_limit(n: int, sigma2: float) -> float:
    """Large-n entropy of softmax over n iid N(0, σ²) logits: H → ln n − σ²/2."""
    return math.log(n) - sigma2 / 2.0


def logit_rms(d_k: int, rho: float) -> float:
    """√E[(q·k)²] = √(ρ²d_k² + d_k(1 + ρ²)) for normal components (mean ρ·d_k, Var d_k(1 + ρ²))."""
    return math.sqrt(rho * rho * d_k * d_k + d_k * (1.0 + rho * rho))


# ---------------------------------------------------------------- correlated q and k


def correlated_sweep(dks: Sequence[int], rhos: Sequence[float], n: int = 10, trials: int = 300,
                     var_trials: int = 1000, seed: int = 0, fit: bool = False,
                     progress: Progress = None) -> Result:
    """Per (ρ, d_k, scale ∈ {÷√d_k, ÷d_k}): E[q·k], its RMS, and the entropy over n keys.

    Entropy from core.experiments.saturation (each query's own key correlated at ρ), moments from
    core.experiments.variance. The logit of the matching key after scaling has mean c·ρ·d_k:
    ρ·√d_k under ÷√d_k (grows), ρ under ÷d_k (stays) — μP's reason for 1/d.
    fit=True lowers `trials` to what an interactive figure affords (core.views' budget).
    """
    rho_list = [check_rho(float(r)) for r in rhos]
    if not rho_list:
        raise InputError("give at least one ρ")
    asked = trials
    if fit:
        trials = figure_budget.saturation_trials(trials, n, list(dks) * len(rho_list), 2)
    rows: list[dict[str, Any]] = []
    scales = ["sqrt", "linear"]
    for k, rho in enumerate(rho_list):
        sat = ex.saturation(dks, n, scales, trials, seed=seed, rho=rho,
                            progress=sub_progress(progress, 2 * k, 2 * len(rho_list)))
        var = ex.variance(dks, scales, var_trials, seed=seed, rho=rho,
                          progress=sub_progress(progress, 2 * k + 1, 2 * len(rho_list)))
        mom = {(r["dk"], r["scale"]): r for r in var["rows"]}
        for r in sat["rows"]:
            m = mom[(r["dk"], r["scale"])]
            rms = math.sqrt(m["var_raw"] + m["mean_raw"] ** 2)
            rows.append({
                "rho": rho, "dk": r["dk"], "scale": r["scale"], "c": r["c"], "n": n,
                "entropy_mean": r["entropy_mean"], "entropy_se": r["entropy_se"],
                "max_weight_mean": r["max_weight_mean"], "ln_n": r["ln_n"],
                "mean_raw": m["mean_raw"], "theory_mean": m["theory_mean"],
                "rms_raw": rms, "theory_rms": logit_rms(r["dk"], rho),
                "sqrt_dk": math.sqrt(r["dk"]), "rho_dk": rho * r["dk"],
                "mean_scaled": r["c"] * m["mean_raw"], "theory_mean_scaled": r["c"] * rho * r["dk"],
            })
    params = {"dk": list(dks), "rho": rho_list, "n": n, "trials": trials, "trials_asked": asked,
              "var_trials": var_trials, "seed": seed}
    return result("correlated", "numpy", params, rows)


# ---------------------------------------------------------------- norm growth: QK-norm, cosine, soft-cap


def norm_growth_sweep(d_k: int, n: int, alphas: Sequence[float], rho: float = 0.0, tau: float = 0.1,
                      cap: float = GEMMA2_CAP, trials: int = 200, seed: int = 0, fit: bool = False,
                      progress: Progress = None) -> Result:
    """Entropy when q and k grow to α·q, α·k (as weights grow in training), per remedy.

        sqrt      s = α²·(q·k)/√d_k                 (grows like α²: entropy collapses)
        softcap   s = cap·tanh(α²·(q·k)/√d_k / cap)  (|s| < cap; the order of the logits is kept)
        cosine    s = cos(q, k)/τ                    (independent of α)
        qk-norm   s = LN(αq)·LN(αk)/√d_k             (independent of α)
    The same draws serve every α and method. Rows: alpha, method, entropy_mean, entropy_se,
    max_weight_mean, max_abs_logit. fit=True lowers `trials` to the interactive budget.
    """
    d_k = ex.check_dks([d_k])[0]
    n = ex.check_n(n)
    trials = ex.check_trials(trials)
    asked = trials
    if fit:
        per_trial = budget.estimate_seconds(flops=6.0 * n * n * d_k,
                                            elementwise=4.0 * n * n * (1 + 3 * len(alphas)),
                                            samples=2.0 * n * d_k)
        trials = figure_budget.fit_trials(trials, per_trial)
    rho = check_rho(rho)
    alpha_list = [float(a) for a in alphas]
    if not alpha_list or any(not (a > 0 and math.isfinite(a)) for a in alpha_list):
        raise InputError("every α must be a positive number")
    budget.chunk_trials(4 * trials * n * (2 * d_k + 4 * n), 1, "norm growth sweep")
    be = get_backend("numpy", "float32")
    rng = be.rng(sub_seed(seed, 70, d_k, n))
    Q = draw(rng, (trials, n, d_k), "normal", "float32")
    K = correlate(rng, Q, rho, "float32") if rho else draw(rng, (trials, n, d_k), "normal", "float32")
    raw = (Q @ K.swapaxes(-1, -2)) / np.float32(math.sqrt(d_k))
    fixed = {"cosine": cosine_scores(Q, K, tau), "qk-norm": qk_norm_scores(Q, K)}
    rows = []
    for i, a in enumerate(alpha_list):
        grown = raw * np.float32(a * a)
        per = {"sqrt": grown, "softcap": softcap(grown, cap), **fixed}
        for method in NORM_METHODS:
            S = per[method]
            max_abs = float(np.abs(S).max())
            pmax, H = entropy_from_scores(S.copy())
            rows.append({"alpha": a, "method": method, "d_k": d_k, "n": n, "rho": rho,
                         **_entropy_summary(H, pmax), "max_abs_logit": max_abs,
                         "ln_n": math.log(n)})
        tick(progress, i + 1, len(alpha_list))
    params = {"d_k": d_k, "n": n, "alpha": alpha_list, "rho": rho, "tau": tau, "cap": cap,
              "trials": trials, "trials_asked": asked, "seed": seed}
    return result("norm_growth", "numpy", params, rows)


# ---------------------------------------------------------------- length: log-n and SSMax


def one_query_scores(rng: Any, trials: int, n: int, d_k: int, rho: float) -> np.ndarray:
    """Raw scores K q (trials × n) of one query against n keys, key 0 correlated with q at ρ.

    Exact reduced sampler for normal components: given q, the k_j·q are iid N(0, ‖q‖²) and
    k_0·q = ρ‖q‖² + √(1 − ρ²)·‖q‖·z₀, with ‖q‖² ~ χ²_{d_k}. Cost O(n) per trial, not O(n·d_k).
    """
    q2 = rng.chisquare(d_k, size=(trials, 1))
    qn = np.sqrt(q2)
    S = rng.standard_normal((trials, n)) * qn
    if rho:
        S[:, :1] = rho * q2 + math.sqrt(max(0.0, 1.0 - rho * rho)) * S[:, :1]
    return S


def length_sweep(ns: Sequence[int], d_k: int = 64, rho: float = 0.0, s_param: float = 0.5,
                 trials: int = 200, seed: int = 0, progress: Progress = None) -> Result:
    """Per (n, method): entropy, max weight and the weight on the matching key (key 0) of
    softmax(λ(n)·K q/√d_k), λ from `length_factor`. At ρ = 0 with λ = 1 the theory line is
    H → ln n − σ²/2 with σ² = E‖q‖²/d_k = 1.

    Common random numbers across n: each trial draws one query and max(ns) keys once
    (`one_query_scores`), and a context of n keys is the first n of them, so every n sees the same
    query and the shorter contexts are prefixes of the longer ones. Each n's draws have exactly the
    right distribution, and each trial follows one path as the context grows: the curves over n
    show the length effect, not fresh noise at every n (‖q‖² varies a lot from trial to trial).
    """
    d_k = ex.check_dks([d_k])[0]
    ns = [ex.check_n(n) for n in ns]
    trials = ex.check_trials(trials)
    rho = check_rho(rho)
    if not ns:
        raise InputError("give at least one n")
    budget.chunk_trials(8 * trials * max(ns) * 3, 1, "length sweep")
    rng = np.random.default_rng(sub_seed(seed, 71, d_k))
    scores = one_query_scores(rng, trials, max(ns), d_k, rho) / math.sqrt(d_k)
    rows = []
    for i, n in enumerate(ns):
        raw = scores[:, :n]
        for method in LENGTH_METHODS:
            lam = length_factor(method, n, s_param)
            P = softmax(raw * lam)
            pmax, H = entropy_from_scores(raw * lam)
            target = P[:, 0]
            rows.append({"n": n, "method": method, "factor": lam, "d_k": d_k, "rho": rho,
                         **_entropy_summary(H, pmax),
                         "target_weight_mean": float(target.mean()),
                         "target_weight_se": float(target.std() / math.sqrt(target.size)),
                         "ln_n": math.log(n), "uniform_weight": 1.0 / n,
                         "theory_entropy": entropy_limit(n, 1.0) if method == "none" and rho == 0 else None})
        tick(progress, i + 1, len(ns))
    params = {"n": ns, "d_k": d_k, "rho": rho, "s": s_param, "trials": trials, "seed": seed,
              "common_random_numbers": True}
    return result("length", "numpy", params, rows)


# ---------------------------------------------------------------- initialisation realism


def init_theory(scheme: str, d_model: int) -> float:
    """Var(q) per component for x with E[x_i²] = 1 (LayerNorm'd): d_model·Var(w) (+ Var(b)).

        xavier-square   U, Var(w) = 2/(d + d)                 → 1
        mha             xavier on the packed 3d × d in_proj   → 2d/(d + 3d) = 1/2
        linear-default  kaiming_uniform(a=√5): Var(w) = 1/(3d), bias U(±1/√d) → 1/3 + 1/(3d)
        gpt2            N(0, 0.02²)                            → 0.0004·d
    """
    _check_scheme(scheme)
    d = d_model
    if scheme == "xavier-square":
        return 1.0
    if scheme == "mha":
        return 2.0 * d / (d + 3 * d)
    if scheme == "linear-default":
        return 1.0 / 3.0 + 1.0 / (3.0 * d)
    return GPT2_STD**2 * d


def _check_scheme(scheme: str) -> str:
    if scheme not in INIT_SCHEMES:
        raise InputError(f"unknown initialisation {scheme!r}; choose one of {', '.join(INIT_SCHEMES)}")
    return scheme


def _projections(scheme: str, d_model: int) -> tuple[Any, Any, Any, Any]:
    """(W_Q, b_Q, W_K, b_K) from a real torch module initialised the way `scheme` says."""
    import torch
    from torch import nn
    from torch.nn.utils import skip_init

    d = d_model
    if scheme == "mha":
        m = nn.MultiheadAttention(d, num_heads=1, bias=True)
        W, b = m.in_proj_weight, m.in_proj_bias
        return W[:d], b[:d], W[d:2 * d], b[d:2 * d]
    if scheme == "gpt2":
        c_attn = skip_init(nn.Linear, d, 3 * d)  # GPT-2's packed c_attn, initialised below only
        nn.init.normal_(c_attn.weight, std=GPT2_STD)
        nn.init.zeros_(c_attn.bias)
        W, b = c_attn.weight, c_attn.bias
        return W[:d], b[:d], W[d:2 * d], b[d:2 * d]
    bias = scheme == "linear-default"
    lin_q, lin_k = skip_init(nn.Linear, d, d, bias=bias), skip_init(nn.Linear, d, d, bias=bias)
    for lin in (lin_q, lin_k):
        if scheme == "xavier-square":
            nn.init.xavier_uniform_(lin.weight)
        else:
            lin.reset_parameters()  # torch's own default: kaiming_uniform_(a=√5), bias U(±1/√fan_in)
    zero = torch.zeros(d)
    bq = lin_q.bias if lin_q.bias is not None else zero
    bk = lin_k.bias if lin_k.bias is not None else zero
    return lin_q.weight, bq, lin_k.weight, bk


def init_variance(d_model: int, d_k: int, schemes: Sequence[str] = INIT_SCHEMES, tokens: int = 256,
                  instances: int = 3, seed: int = 0, progress: Progress = None) -> Result:
    """Per scheme: Var(q), Var(k) and Var(q_i·k_j/√d_k) (i ≠ j) from real torch modules.

    x = LayerNorm(z), z ~ N(0, I) (tokens × d_model); q = x W_Qᵀ + b_Q, first d_k components (one
    head); the same for k. Each of `instances` fresh modules gives one estimate; the error is
    their spread. Theory: Var(q) from `init_theory`, logit variance Var(q)·Var(k).
    """
    import torch
    from torch import nn

    d_model = ex.check_dks([d_model])[0]
    d_k = ex.check_dks([d_k])[0]
    if d_k > d_model:
        raise InputError(f"d_k ({d_k}) cannot exceed d_model ({d_model})")
    tokens = ex.check_n(tokens)
    instances = ex.check_trials(instances)
    scheme_list = [_check_scheme(s) for s in schemes]
    if not scheme_list:
        raise InputError("give at least one initialisation")
    budget.chunk_trials(4 * 4 * d_model * d_model, 1, "init variance")
    rows = []
    total, done = len(scheme_list) * instances, 0
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        for s_idx, scheme in enumerate(scheme_list):
            vq, vk, vl = [], [], []
            for i in range(instances):
                torch.manual_seed(sub_seed(seed, 72, d_model, s_idx, i) % 2**63)
                Wq, bq, Wk, bk = _projections(scheme, d_model)
                x = nn.LayerNorm(d_model)(torch.randn(tokens, d_model))
                q = x @ Wq[:d_k].T + bq[:d_k]
                k = x @ Wk[:d_k].T + bk[:d_k]
                logits = (q @ k.T) / math.sqrt(d_k)
                off = logits[~torch.eye(tokens, dtype=torch.bool)]
                vq.append(float(q.pow(2).mean()))
                vk.append(float(k.pow(2).mean()))
                vl.append(float(off.pow(2).mean()))
                done += 1
                tick(progress, done, total)
            th = init_theory(scheme, d_model)
            rows.append({"scheme": scheme, "d_model": d_model, "d_k": d_k,
                         "var_q": float(np.mean(vq)), "var_q_se": _se(vq),
                         "var_k": float(np.mean(vk)), "var_k_se": _se(vk),
                         "var_logit": float(np.mean(vl)), "var_logit_se": _se(vl),
                         "theory_var_q": th, "theory_var_logit": th * th})
    params = {"d_model": d_model, "d_k": d_k, "scheme": scheme_list, "tokens": tokens,
              "instances": instances, "seed": seed}
    return result("init", "numpy", params, rows)


# ---------------------------------------------------------------- helpers


def _entropy_summary(H: Any, pmax: Any) -> dict[str, float]:
    H = np.asarray(H, dtype=np.float64).ravel()
    pmax = np.asarray(pmax, dtype=np.float64).ravel()
    return {"entropy_mean": float(H.mean()), "entropy_se": float(H.std() / math.sqrt(H.size)),
            "max_weight_mean": float(pmax.mean())}


def _se(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else float("nan")
