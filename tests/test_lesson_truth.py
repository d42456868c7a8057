"""Every lesson step's take-away holds across its own range: each step's statement (core.lesson Step.holds)
checked over a grid of the step's settings — d_k, n, the step's control and the seed — with the
page's default trials and with few trials (docs/science.md, "The lesson's statements")."""

from __future__ import annotations

import itertools
import math

import pytest

from core import lesson
from core.errors import InputError

DKS = (2, 4, 16, 64, 256, 1024, 4096)
NS = (2, 8, 32, 256, 1024)
SEEDS = (0, 1)
CONTROLS = {"scale": lesson.OTHER_SCALES, "rho": (0.2, 0.5, 1.0), "factor": lesson.FACTORS,
            "method": lesson.NORM_REMEDIES}
# The steps whose measurement does not depend on every grid setting: a smaller grid covers them.
SLOW = {"gradients": {"dk": (64,), "n": (2, 8, 32, 256)},
        "modern": {"dk": (16, 256, 1024), "n": (2, 32, 256)},
        "absorb": {"dk": (4, 64, 1024), "n": (2, 32, 256)},
        "length": {"n": (2, 3, 8, 33, 100, 256)},  # any n of the sidebar's, not only powers of two
        "scales": {"n": (2, 32, 256)}}


def grid(step: lesson.Step, trials: int):
    over = SLOW.get(step.name, {})
    dks = [d for d in over.get("dk", DKS) if lesson.step_inputs(step, {"dk": d}).get("dk", d) == d]
    ns = [n for n in over.get("n", NS) if lesson.step_inputs(step, {"n": n}).get("n", n) == n]
    controls = CONTROLS.get(step.control, (None,))
    for dk, n, c, seed in itertools.product(dks, ns, controls, SEEDS):
        values = {"dk": dk, "n": n, "trials": trials, "seed": seed}
        if c is not None:
            values[step.control] = c
        if step.name == "scales" and c == "log" and dk < 2:
            continue
        yield lesson.step_inputs(step, values)


@pytest.mark.slow
@pytest.mark.parametrize("trials", [100, 20])
@pytest.mark.parametrize("step", lesson.STEPS, ids=lambda s: s.name)
def test_every_steps_statement_holds_at_every_point_of_its_range(step, trials):
    seen, failed = set(), []
    for inputs in grid(step, trials):
        key = tuple(sorted(inputs.items()))
        if key in seen:
            continue
        seen.add(key)
        out = step.compute(**inputs)
        if not step.holds(out):
            failed.append(inputs)
    assert seen, "the grid is not empty"
    assert not failed, f"{step.name}: the statement fails at {failed[:5]} ({len(failed)} of {len(seen)})"


@pytest.mark.parametrize("step", lesson.STEPS, ids=lambda s: s.name)
def test_every_statement_can_fail(step):
    """Each statement rejects a doctored measurement: the property test above is not vacuous."""
    values = {"dk": 64, "n": 32, "trials": 40, "seed": 0, "scale": "log", "rho": 0.5, "factor": 2.0,
              "method": "softcap"}
    out = step.compute(**lesson.step_inputs(step, values))
    assert step.holds(out)
    bad = {**out, "question": {**out["question"], "value": out["question"]["value"] * 50 + 7,
                               "correct": [0]}}
    if step.name == "scales":
        bad["chart"] = {**out["chart"], "rows": [{**r, "y": r["y"] * (9 if r["series"] == "log" else 1)}
                                                 for r in out["chart"]["rows"]]}
    if step.name == "gradients":
        bad["ratios"] = {d: 1 / r for d, r in out["ratios"].items()}
    if step.name == "overflow":
        bad["raw"] = [{**r, "stable_nonfinite_fraction": 0.5} for r in out["raw"]]
    if step.name == "absorb":
        bad["gaps"] = {a: 0.1 for a in out["gaps"]}
    if step.name == "length":
        bad["falls"] = {m: 4.0 for m in out["falls"]}
    if step.name == "modern":
        bad["rise"] = {m: 1.0 for m in out["rise"]}
    if step.name == "trained":
        bad["fit"] = {d: (m + 1, se) for d, (m, se) in out["fit"].items()}
    assert not step.holds(bad), f"{step.name}'s statement accepts a doctored measurement"


def test_no_wrong_choice_shares_its_bin_with_the_truth_at_the_defaults():
    """At the defaults each step has exactly one correct choice, and it is not a named misconception."""
    values = {"dk": 64, "n": 32, "trials": 100, "seed": 0, "scale": "log", "rho": 0.5, "factor": 2.0,
              "method": "qk-norm"}
    for step in lesson.STEPS:
        q = step.compute(**lesson.step_inputs(step, values))["question"]
        assert len(q["correct"]) == 1, step.name
        assert q["choices"][q["correct"][0]]["key"] not in step.wrong, step.name
        assert not step.expected or step.expected in step.wrong, step.name


def test_the_gradient_step_says_unscaled_is_larger_at_64_and_collapses_past_the_crossing():
    """Issue: at d_k = 64, n = 32 the unscaled median ‖∂L/∂q‖ is larger than the scaled one."""
    out = lesson.step_named("gradients").compute(dk=64, n=32, trials=100, seed=0)
    assert out["facts"]["none"] > 2 * out["facts"]["sqrt"]
    assert out["question"]["choices"][out["question"]["correct"][0]]["key"] == "grad_larger"
    assert 100 < out["facts"]["cross"] < 400
    late = lesson.step_named("gradients").compute(dk=1024, n=32, trials=100, seed=0)
    assert late["question"]["choices"][late["question"]["correct"][0]]["key"] == "grad_smaller"


def test_the_trained_step_correlates_the_matching_key_only():
    """The other keys' scores stay centred: only key 0 (the match) moves with ρ (core.beyond's model)."""
    import numpy as np

    from core import beyond

    S = beyond.one_query_scores(np.random.default_rng(0), 20000, 4, 64, 0.5) / 8
    assert abs(S[:, 1:].mean()) < 0.05 and S[:, 0].mean() == pytest.approx(0.5 * 8, rel=0.05)


def test_the_length_step_fades_slower_than_1_over_n():
    out = lesson.step_named("length").compute(dk=64, n=32, seed=0)
    assert 1.25 < out["question"]["value"] < 3.5
    assert out["question"]["choices"][out["question"]["correct"][0]]["key"] == "fall_less"


def test_ranges_clamp_the_settings_and_the_steps_reject_what_is_outside():
    assert lesson.step_inputs(lesson.step_named("double"), {"dk": 2})["dk"] == 16
    assert lesson.step_inputs(lesson.step_named("length"), {"n": 1024})["n"] == 256
    with pytest.raises(InputError):
        lesson.step_named("length").compute(dk=64, n=1024)
    with pytest.raises(InputError):
        lesson.step_named("trained").compute(dk=64, rho=0.0)
    with pytest.raises(InputError):
        lesson.step_named("absorb").compute(dk=64, n=8, trials=10, factor=3.0)


def test_plans_parse_names_and_numbers_in_order():
    assert lesson.parse_plan("gradients,1,gradients") == ((3, 0), None)
    assert lesson.parse_plan(None) == (tuple(range(len(lesson.STEPS))), None)
    plan, problem = lesson.parse_plan("variance,nope")
    assert plan == (0,) and problem == "malformed"
    assert lesson.parse_plan("nope")[0] == tuple(range(len(lesson.STEPS)))
    assert lesson.plan_text((3, 0)) == "gradients,variance"
    fifty = tuple(lesson.NAMES.index(n) for n in lesson.PLAN_50)
    assert lesson.plan_minutes(fifty) <= 50 < lesson.plan_minutes(fifty) + sum(m for _, m in lesson.PHASES)
    assert math.isclose(lesson.plan_minutes(()), lesson.FRAME_MINUTES)
