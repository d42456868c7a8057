"""The core calls the pages make through the result store (pages/ui/compute.py), with their
arguments, at three sizes: `small` (seconds for all of them, the tests' round trips), `page` (the
sidebar's defaults) and `largest` (the biggest results a page can ask for, the codec's benchmark).

Each entry is (label, function, kwargs). The lesson's steps and every measured fact-check claim are
listed one by one, as the pages call them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = tuple[str, Callable[..., Any], dict[str, Any]]
SIZES = ("small", "page", "largest")


def _settings(size: str) -> dict[str, Any]:
    if size == "small":
        return {"dk": 16, "n": 8, "trials": 10}
    if size == "page":
        return {"dk": 64, "n": 32, "trials": 100}
    return {"dk": 256, "n": 1024, "trials": 100}


def story_calls(size: str = "small") -> list[Call]:
    """The story pages' calls (overview, variance, saturation, gradients, precision): NumPy only."""
    from core import figure_budget, views

    s = _settings(size)
    common = {"dks": figure_budget.sweep_dks(s["dk"]), "n": min(s["n"], 64), "scales": ["none", "sqrt"],
              "trials": s["trials"], "seed": 0}
    backend = {"backend": "numpy", "dtype": "float32"}
    return [
        ("overview_summary", views.overview_summary, {**common, **backend}),
        ("variance_view", views.variance_view, {**common, "rho": 0.0, "dist": "normal", **backend}),
        ("score_samples", views.score_samples,
         {"dk": s["dk"], "scale": "sqrt", "seed": 0, "rho": 0.0, "dist": "normal",
          "samples": 2000 if size == "small" else 20000}),
        ("saturation_view", views.saturation_view, {**common, **backend}),
        ("one_draw", views.one_draw, {"dk": s["dk"], "n": s["n"], "scale": "sqrt", "seed": 0, "query": 0}),
        ("entropy_grid", views.entropy_grid, {"scale": "sqrt", "trials": s["trials"], "seed": 0, **backend}),
        ("gradient_view", views.gradient_view, {**common, **backend}),
        ("precision_view", views.precision_view, common),
    ]


def lesson_calls(size: str = "small") -> list[Call]:
    """Each of the lesson's eight steps, with the settings it measures with."""
    from core import lesson

    s = _settings(size)
    values = {"dk": s["dk"], "n": s["n"], "trials": s["trials"], "seed": 0, "backend": "numpy",
              "dtype": "float32", "scale": lesson.OTHER_SCALES[0], "rho": 0.5,
              "method": lesson.NORM_REMEDIES[0]}
    return [(f"lesson.{step.name}", step.compute, lesson.step_inputs(step, values)) for step in lesson.STEPS]


def factcheck_calls() -> list[Call]:
    """Every fact-check claim, measured or from the literature (the page calls them one at a time)."""
    from core import factcheck as fc

    return [(f"factcheck.{c.id}", fc.check, {"claim_id": c.id, "seed": 0}) for c in fc.CLAIMS]


def torch_calls(size: str = "small") -> list[Call]:
    """The calls that need torch: the autograd checks, Q vs K, the beyond page, the training grid."""
    from core import beyond, qk, views
    from core import training as tr

    s = _settings(size)
    dk = min(s["dk"], 64)
    qk_n = 8 if size == "small" else 32
    train = ({"dks": [16], "scales": ["sqrt"], "n": 4, "steps": 20} if size == "small" else
             {"dks": list(tr.DEFAULT_DKS), "scales": ["none", "sqrt", "linear"], "n": 16,
              "steps": 200 if size == "page" else 1000})
    return [
        ("autograd_check", views.autograd_check, {"dk": s["dk"], "n": s["n"], "scale": "sqrt", "seed": 0}),
        ("qk.view", qk.view, {"n": qk_n, "d_k": dk, "d_model": dk, "seed": 0, "tie": False,
                              "trials": s["trials"]}),
        ("qk.grad_view", qk.grad_view,
         {"n": qk_n, "d_k": dk, "d_model": dk, "seed": 0, "trials": s["trials"]}),
        ("beyond.correlated_sweep", beyond.correlated_sweep,
         {"dks": [2**i for i in range(1, 7 if size == "small" else 11)], "rhos": [0.0, 0.25, 0.3, 0.5],
          "n": min(s["n"], 64), "trials": s["trials"], "seed": 0, "fit": True}),
        ("beyond.norm_growth_sweep", beyond.norm_growth_sweep,
         {"d_k": s["dk"], "n": min(s["n"], 64), "alphas": [1.0, 2.0, 4.0, 8.0], "rho": 0.3, "tau": 0.1,
          "cap": 50.0, "trials": s["trials"], "seed": 0, "fit": True}),
        ("beyond.length_sweep", beyond.length_sweep,
         {"ns": [16, 64, 256] if size == "small" else [16, 64, 256, 1024, 4096, 16384], "d_k": s["dk"],
          "rho": 0.3, "s_param": 0.5, "trials": s["trials"], "seed": 0}),
        ("beyond.init_variance", beyond.init_variance,
         {"d_model": 256 if size == "small" else 768, "d_k": s["dk"], "seed": 0}),
        ("training", tr.training, {**train, "lr": 0.01, "optimizer": "adam", "seed": 0, "device": "cpu",
                                   "time_budget": 60.0}),
    ]


def cost_calls(size: str = "small") -> list[Call]:
    """The cost page's live timing (wall-clock times: the values differ run to run, their form not)."""
    from core import cost

    ns, ds = ([64, 128], [8, 16]) if size == "small" else ([64, 128, 256, 512, 1024], [8, 16, 32, 64, 128])
    return [("cost.explore", cost.explore, {"ns": ns, "ds": ds, "d_h": None, "d_at": ds[-1],
                                            "torch_ref": size != "small", "backend": "numpy",
                                            "dtype": "float32", "repeats": 2, "seed": 0,
                                            "naive_max_seconds": 0.1, "time_budget": 30.0})]


def all_calls(size: str = "small") -> list[Call]:
    """Every call above at `size`."""
    return [*story_calls(size), *lesson_calls(size), *factcheck_calls(), *torch_calls(size),
            *cost_calls(size)]
