"""Measurements that need training: the one-head retrieval model of core.training, trained per seed.

Claims about "training" or "performance" are tested by training that model (docs/science.md §1 setting:
W_Q, W_K ∈ R^{d_k × d_model} with unit-variance q, k at step 0) with each scale on the same batches,
over `seeds` independent seeds; a statistic's error is the spread over seeds. The Q/K asymmetry run
trains the same model with W_K = W_Q at step 0 and with independent ones, on two tasks.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core import budget
from core import experiments as ex
from core import training as tr
from core.factcheck.rules import DROP_TOL, FEW_KEYS, TINY_REL, UNIFORM_TOL, Point, above, below, eq
from core.results import Progress, sub_progress, tick
from core.sampling import sub_seed

TASKS: tuple[str, ...] = ("retrieval", "successor")


def _mean_se(x: list[float]) -> tuple[float, float]:
    return float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0


def trained_runs(
    dks: list[int], scales: list[str], n: int, steps: int, seeds: int, seed: int, progress: Progress = None
) -> dict[tuple[int, str], dict[str, list[float]]]:
    """Per (d_k, scale): the run summaries of core.training over `seeds` seeds — final accuracy, the
    step accuracy first reached 0.9 (`steps` when never), entropy and ‖∂L/∂W_Q‖ at step 0."""
    out: dict[tuple[int, str], dict[str, list[float]]] = {}
    for k in range(seeds):
        res = tr.training(
            dks,
            scales,
            n=n,
            steps=steps,
            seed=sub_seed(seed, 130, k) % 2**31,
            progress=sub_progress(progress, k, seeds),
        )
        for r in res["runs"]:
            v = out.setdefault(
                (r["dk"], r["scale"]),
                {"accuracy": [], "steps_to_90": [], "entropy_first": [], "grad_first": []},
            )
            v["accuracy"].append(r["accuracy_final"])
            v["steps_to_90"].append(float(steps if r["step_to_90"] is None else r["step_to_90"]))
            v["entropy_first"].append(r["entropy_first"])
            v["grad_first"].append(r["grad_wq_norm_first"])
    return out


def run_double_sqrt(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """÷2√d_k: Var(scaled score) = 1/4 ("variance"); at step 0 the weights are near-uniform, entropy
    within UNIFORM_TOL of ln n ("too_small"); yet it trains no worse: steps to 90 % accuracy, claimed
    significantly more than with ÷√d_k ("training")."""
    d, n = p["dk"], p["n"]
    v = ex.variance([d], ["double-sqrt"], p["var_trials"], seed=seed)["rows"][0]
    s = ex.saturation([d], n, ["double-sqrt"], p["sat_trials"], seed=seed)["rows"][0]
    ln_n = math.log(n)
    pts = [
        eq(
            "var_scaled",
            0.25,
            v["var_scaled"],
            v["var_scaled_se"],
            part="variance",
            dk=d,
            scale="double-sqrt",
        ),
        eq(
            "entropy",
            ln_n,
            s["entropy_mean"],
            s["entropy_se"],
            UNIFORM_TOL * ln_n,
            part="too_small",
            dk=d,
            n=n,
            scale="double-sqrt",
        ),
    ]
    runs = trained_runs([d], ["sqrt", "double-sqrt"], p["train_n"], p["steps"], p["seeds"], seed, progress)
    (a, ea), (b, eb) = (
        _mean_se(runs[(d, "sqrt")]["steps_to_90"]),
        _mean_se(runs[(d, "double-sqrt")]["steps_to_90"]),
    )
    pts.append(
        above(
            "steps_to_90",
            a,
            b,
            math.hypot(ea, eb),
            part="training",
            dk=d,
            n=p["train_n"],
            scale="double-sqrt",
        )
    )
    return pts, {
        "dk": d,
        "n": n,
        "ln_n": ln_n,
        "steps_sqrt": a,
        "steps_double": b,
        "seeds": p["seeds"],
        "acc_sqrt": float(np.mean(runs[(d, "sqrt")]["accuracy"])),
        "acc_double": float(np.mean(runs[(d, "double-sqrt")]["accuracy"])),
        "keys": s["effective_keys_mean"],
    }


def run_unscaled_training(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Without scaling: at each d_k, significantly more steps to 90 % accuracy than with ÷√d_k
    ("converge"; `steps` when never reached); at the largest d_k, attention at step 0 concentrated on at
    most FEW_KEYS effective keys ("sharp"), and the step-0 ‖∂L/∂W_Q‖ claimed to vanish, i.e. to lie
    below ÷√d_k's ("vanish")."""
    runs = trained_runs(p["dks"], ["none", "sqrt"], p["n"], p["steps"], p["seeds"], seed, progress)
    top = p["dks"][-1]
    pts: list[Point] = []
    facts: dict[str, Any] = {"n": p["n"], "steps": p["steps"], "seeds": p["seeds"], "dk": top}
    for d in p["dks"]:
        (sn, esn), (ss, ess) = (
            _mean_se(runs[(d, "none")]["steps_to_90"]),
            _mean_se(runs[(d, "sqrt")]["steps_to_90"]),
        )
        pts.append(
            above("steps_to_90", ss, sn, math.hypot(esn, ess), part="converge", dk=d, n=p["n"], scale="none")
        )
        for s in ("none", "sqrt"):
            facts[f"acc_{s}_{d}_pct"] = float(np.mean(runs[(d, s)]["accuracy"]))
            facts[f"steps_{s}_{d}"] = float(np.mean(runs[(d, s)]["steps_to_90"]))
    h, eh = _mean_se(runs[(top, "none")]["entropy_first"])
    pts.append(below("entropy", math.log(FEW_KEYS), h, eh, part="sharp", dk=top, n=p["n"], scale="none"))
    (gn, egn), (gs, egs) = (
        _mean_se(runs[(top, "none")]["grad_first"]),
        _mean_se(runs[(top, "sqrt")]["grad_first"]),
    )
    pts.append(
        below("grad_wq_first", gs, gn, math.hypot(egn, egs), part="vanish", dk=top, n=p["n"], scale="none")
    )
    facts.update(
        {
            "grad_none": gn,
            "grad_sqrt": gs,
            "entropy_none": h,
            "keys_none": math.exp(h),
            "acc_none_top_pct": facts[f"acc_none_{top}_pct"],
            "acc_sqrt_top_pct": facts[f"acc_sqrt_{top}_pct"],
            "steps_none_top": facts[f"steps_none_{top}"],
            "steps_sqrt_top": facts[f"steps_sqrt_{top}"],
        }
    )
    return pts, facts


def run_long_sequences(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """Without scaling, a longer sequence loses accuracy: final accuracy at the short n minus at the
    long n, claimed at least DROP_TOL; the same drop with ÷√d_k is reported alongside."""
    short, long = p["ns"]
    acc: dict[tuple[int, str], tuple[float, float]] = {}
    for i, n in enumerate(p["ns"]):
        runs = trained_runs(
            [p["dk"]],
            ["none", "sqrt"],
            n,
            p["steps"],
            p["seeds"],
            seed,
            sub_progress(progress, i, len(p["ns"])),
        )
        for s in ("none", "sqrt"):
            acc[(n, s)] = _mean_se(runs[(p["dk"], s)]["accuracy"])
    drop = acc[(short, "none")][0] - acc[(long, "none")][0]
    err = math.hypot(acc[(short, "none")][1], acc[(long, "none")][1])
    pts = [above("accuracy_drop", 0.0, drop, err, DROP_TOL, dk=p["dk"], n=long, scale="none")]
    facts = {f"acc_{s}_n{n}_pct": acc[(n, s)][0] for n in p["ns"] for s in ("none", "sqrt")}
    facts.update(
        {
            "drop_none": drop,
            "drop_sqrt": acc[(short, "sqrt")][0] - acc[(long, "sqrt")][0],
            "short": short,
            "long": long,
            "dk": p["dk"],
            "seeds": p["seeds"],
        }
    )
    return pts, facts


# ---------------------------------------------------------------- Q/K asymmetry under training


def _task_batches(task: str, cfg: tr.TrainConfig) -> dict[str, Any]:
    """core.training's batches; for "successor" the query is σ(key at j*) for a fixed random
    permutation σ of the symbols, so the relation query → key is directed (σ is not its own inverse)."""
    import torch

    data = tr.make_batches(cfg)
    if task == "successor":
        g = torch.Generator().manual_seed(sub_seed(cfg.seed, 131))
        data = {**data, "query": torch.randperm(tr.VOCAB, generator=g)[data["query"]]}
    return data


def qk_run(task: str, tied: bool, d_k: int, cfg: tr.TrainConfig) -> dict[str, list[float]]:
    """Train core.training's model (÷√d_k, Adam) with W_K = W_Q at step 0 (`tied`) or independent;
    per step: loss, ‖W_Q − W_K‖_F and its size relative to (‖W_Q‖_F + ‖W_K‖_F)/2."""
    import torch
    import torch.nn.functional as F

    data = _task_batches(task, cfg)
    w0 = tr.init_weights(d_k, cfg.seed)
    if tied:
        w0["W_K"] = w0["W_Q"].clone()
    w = {k: v.clone().requires_grad_(k != "E") for k, v in w0.items()}
    opt = torch.optim.Adam([w[k] for k in ("W_Q", "W_K", "E_V", "W_O")], lr=cfg.lr)
    c = 1.0 / math.sqrt(d_k)
    log: dict[str, list[float]] = {"loss": [], "diff": [], "rel": []}
    for step in range(cfg.steps + 1):
        with torch.no_grad():
            diff = float((w["W_Q"] - w["W_K"]).norm())
            log["diff"].append(diff)
            log["rel"].append(diff / (0.5 * float(w["W_Q"].norm() + w["W_K"].norm())))
        if step == cfg.steps:
            break
        oq = F.one_hot(data["query"][step], tr.VOCAB).float()
        ok = F.one_hot(data["keys"][step], tr.VOCAB).float()
        ov = F.one_hot(data["vals"][step], tr.CLASSES).float()
        _, z = tr.forward(w, c, oq, ok, ov)
        loss = F.cross_entropy(z, data["target"][step])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        log["loss"].append(float(loss.detach()))
    return log


def qk_asymmetry(
    d_k: int, n: int, steps: int, seeds: int, seed: int = 0, progress: Progress = None
) -> dict[tuple[str, bool], list[dict[str, list[float]]]]:
    """qk_run for each task × (tied, independent) × seed; refused when over the time budget."""
    cfg0 = tr.check_config(tr.TrainConfig(n=n, steps=steps, seed=seed))
    runs = len(TASKS) * 2 * ex.check_trials(seeds)
    budget.check_time(
        runs * tr.estimate_seconds([d_k], 1, cfg0), "this Q/K training", "fewer steps or seeds", 120.0
    )
    out: dict[tuple[str, bool], list[dict[str, list[float]]]] = {}
    k = 0
    for task in TASKS:
        for tied in (True, False):
            for s in range(seeds):
                cfg = tr.TrainConfig(n=n, steps=steps, seed=sub_seed(seed, 132, s) % 2**31)
                out.setdefault((task, tied), []).append(qk_run(task, tied, d_k, cfg))
                k += 1
                tick(progress, k, runs)
    return out


def run_qk_amplified(seed: int, progress: Progress, p: dict[str, Any]) -> tuple[list[Point], dict]:
    """ "A tiny initial asymmetry between W_Q and W_K is amplified by training": the relative
    ‖W_Q − W_K‖ at step 0 with independent W_Q, W_K, claimed below TINY_REL ("tiny"); its ratio
    final / initial, absolute and relative, claimed above 1 on both tasks ("amplified"); and from
    W_K = W_Q at step 0 the directed task still drives them apart ("from_tied", relative > TINY_REL)."""
    res = qk_asymmetry(p["dk"], p["n"], p["steps"], p["seeds"], seed, progress)
    pts: list[Point] = []
    facts: dict[str, Any] = {"dk": p["dk"], "steps": p["steps"], "seeds": p["seeds"], "curves": {}}
    rel0 = _mean_se([r["rel"][0] for r in res[("successor", False)]])
    pts.append(below("rel_diff_init", TINY_REL, *rel0, part="tiny"))
    for task in TASKS:
        logs = res[(task, False)]
        for what in ("diff", "rel"):
            m, se = _mean_se([r[what][-1] / r[what][0] for r in logs])
            pts.append(above(f"{what}_ratio", 1.0, m, se, part="amplified", where=task))
            facts[f"{what}_ratio_{task}"] = m
        tied_end = _mean_se([r["rel"][-1] for r in res[(task, True)]])
        facts[f"tied_rel_{task}"] = tied_end[0]
        if task == "successor":
            pts.append(above("rel_diff_final", TINY_REL, *tied_end, part="from_tied", where=task))
        for tied in (True, False):
            logs = res[(task, tied)]
            facts["curves"][f"{task}/{'tied' if tied else 'independent'}"] = {
                "loss": np.mean([r["loss"] for r in logs], axis=0).tolist(),
                "rel": np.mean([r["rel"] for r in logs], axis=0).tolist(),
            }
            facts[f"loss_{task}_{'tied' if tied else 'indep'}"] = float(
                np.mean([r["loss"][-10:] for r in logs])
            )
    facts["rel_init"] = rel0[0]
    return pts, facts
