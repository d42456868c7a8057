"""core/lesson/: the steps' measurements, their questions and what their charts hide (their statements
over each step's range: tests/test_lesson_truth.py)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from core import beyond, figure_budget, lesson, views
from core import experiments as ex
from core.errors import InputError

SMALL = {"dk": 64, "n": 16, "trials": 40, "seed": 3}
EXTRA = {"scale": "log", "rho": 0.5, "method": "qk-norm", "factor": 2.0}


def run(step: lesson.Step, **over) -> dict:
    return step.compute(**lesson.step_inputs(step, {**SMALL, **EXTRA, **over}))


def test_lesson_never_imports_streamlit():
    code = "import sys, core.lesson; assert 'streamlit' not in sys.modules, 'core.lesson imported streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_steps_have_distinct_names_known_controls_and_a_plan_that_fits_50_minutes():
    names = [s.name for s in lesson.STEPS]
    assert len(set(names)) == len(names) == 9
    assert names[0] == "variance" and names[-1] == "modern"
    assert {s.control for s in lesson.STEPS} <= {"dk", "n", "scale", "rho", "method", "factor"}
    assert set(lesson.PLAN_50) <= set(names)
    assert lesson.plan_minutes(tuple(names.index(n) for n in lesson.PLAN_50)) <= 50


@given(value=st.floats(0, 1, allow_nan=False))
def test_a_value_falls_in_exactly_one_bin_and_that_bin_contains_it(value):
    q = lesson.bin_choices(value, (0.0, 0.25, 0.5, 0.9, 0.99, 1.0))
    assert len(q["correct"]) == 1
    c = q["choices"][q["correct"][0]]
    assert c.get("lo", -math.inf) <= value
    assert value < c.get("hi", math.inf)


def test_bins_read_as_below_between_above():
    q = lesson.bin_choices(0.95, (0.0, 0.5, 0.9, 1.0))
    assert [c["key"] for c in q["choices"]] == ["below", "between", "above"]
    assert q["correct"] == [2]
    assert lesson.bin_choices(0.5, (0.0, 0.5, 0.9, 1.0))["correct"] == [1]  # an edge belongs to the bin above
    with pytest.raises(InputError):
        lesson.bin_choices(0.5, (0.0, 1.0))


def test_nearest_choice_is_nearest_on_a_log_scale_and_ties_are_all_right():
    q = lesson.nearest_choices(70.0, [("one", 1.0), ("sqrt_dk", 8.0), ("dk", 64.0), ("dk2", 4096.0)])
    assert q["correct"] == [2]
    q = lesson.nearest_choices(20.0, [("a", 8.0), ("b", 64.0)])  # |ln 20/8| < |ln 20/64|
    assert q["correct"] == [0]
    q = lesson.nearest_choices(1.02, [("one", 1.0), ("sqrt_dk", 1.0), ("dk", 1.0)])
    assert q["correct"] == [0, 1, 2]
    with pytest.raises(InputError):
        lesson.nearest_choices(0.0, [("one", 1.0)])


@pytest.mark.parametrize("step", lesson.STEPS, ids=lambda s: s.name)
def test_every_step_measures_its_question_and_hides_the_answer_until_the_reveal(step):
    out = run(step)
    q, chart = out["question"], out["chart"]
    assert math.isfinite(q["value"]) and q["value"] >= 0
    assert len(q["choices"]) >= 3 and q["correct"]
    assert {r["stage"] for r in chart["rows"]} == {"context", "answer"}
    if chart["y_log"]:
        assert all(math.isfinite(r["y"]) and r["y"] > 0 for r in chart["rows"]), "every point fits a log axis"
    answer = {r["series"] for r in chart["rows"] if r["stage"] == "answer"}
    context = {r["series"] for r in chart["rows"] if r["stage"] == "context"}
    assert not answer & context, "no series is half drawn: the asked series is hidden as a whole"
    assert out["draws"] >= 1


def test_variance_step_asks_for_the_measured_variance_and_answers_d_k():
    out = run(lesson.STEPS[0], dk=256)
    dks = [d for d in figure_budget.sweep_dks(256) if d >= 4]
    samples = max(4000, figure_budget.variance_samples(SMALL["trials"], SMALL["n"], dks))
    row = next(r for r in ex.variance(dks, ["none"], trials=samples, seed=3)["rows"] if r["dk"] == 256)
    assert out["question"]["value"] == row["var_raw"]
    assert out["question"]["choices"][out["question"]["correct"][0]]["key"] == "dk"
    before = {r["series"] for r in out["chart"]["rows"] if r["stage"] == "context"}
    assert before == {"cand_one", "cand_sqrt_dk", "cand_dk", "cand_dk2"}, "the four candidates, not the data"


def test_double_step_answers_a_quarter_at_every_d_k_and_draws_1_over_d_k_beside_it():
    for dk in (16, 4096):
        q = run(lesson.STEPS[1], dk=dk)["question"]
        assert q["choices"][q["correct"][0]]["key"] == "quarter"
        assert q["value"] == pytest.approx(0.25, rel=0.1)


def test_scales_step_linear_is_near_uniform_and_log_collapses_at_large_d_k():
    linear = run(lesson.STEPS[2], scale="linear", dk=1024)["question"]
    log = run(lesson.STEPS[2], scale="log", dk=4096)["question"]
    assert linear["value"] > 0.95 and linear["correct"] == [3]
    assert log["value"] < 0.25 and log["correct"] == [0]
    with pytest.raises(InputError):
        run(lesson.STEPS[2], scale="sqrt")
    with pytest.raises(InputError):
        lesson.STEPS[2].compute(dk=1, n=8, trials=10, scale="log")
    assert run(lesson.STEPS[2], scale="log", dk=1)["params"]["dk"] == 2, "the step's range starts at 2"


def test_gradient_step_matches_the_gradient_experiment():
    out = run(lesson.STEPS[3], dk=64)
    g = views.gradient_view(sorted(figure_budget.DK_GRID), 16, ["none", "sqrt"], 2000, seed=3)
    med = {(r["dk"], r["scale"]): r["grad_q_norm_median"] for r in g["rows"]}
    assert out["question"]["value"] == pytest.approx(med[(64, "none")] / med[(64, "sqrt")])


def test_overflow_step_the_naive_softmax_overflows_and_the_stable_one_never():
    out = run(lesson.STEPS[4], dk=256)
    assert out["question"]["value"] == 0 and out["question"]["correct"] == [0]
    naive = [r for r in out["chart"]["rows"] if r["series"] == "naive"]
    assert max(r["y"] for r in naive) > 0.5, "the context shows why overflow sounds right"
    assert out["facts"]["ln_max"] == pytest.approx(math.log(65504))


def test_absorb_step_w_q_over_a_leaves_every_weight_and_a_temperature_does_not():
    out = run(lesson.STEPS[5], factor=4.0)
    assert out["question"]["value"] < 1e-4 and out["question"]["correct"] == [0]
    hot = {r["x"]: r["y"] for r in out["chart"]["rows"] if r["series"] == "temperature"}
    assert hot[4.0] > hot[1.0] + 0.05, "a bare temperature does change the weights"


def test_trained_step_measures_rho_sqrt_d_k_for_the_matching_key():
    for rho, dk in ((0.2, 4), (0.5, 1024), (1.0, 64)):
        q = run(lesson.STEPS[6], rho=rho, dk=dk)["question"]
        assert q["value"] == pytest.approx(rho * math.sqrt(dk), rel=0.1), (rho, dk)
        assert q["choices"][q["correct"][0]]["key"] == "rho_sqrt_dk"
    with pytest.raises(InputError):
        run(lesson.STEPS[6], rho=1.5)


def test_length_step_matches_the_length_sweep():
    out = run(lesson.STEPS[7], n=64)
    ref = beyond.length_sweep(list(lesson.N_GRID), d_k=64, trials=lesson.LENGTH_TRIALS, seed=3)["rows"]
    top = {r["n"]: r["max_weight_mean"] for r in ref if r["method"] == "none"}
    assert out["question"]["value"] == pytest.approx(top[64] / top[256])


def test_modern_step_qk_norm_does_not_rise_and_the_soft_cap_does():
    qk = run(lesson.STEPS[8], method="qk-norm")
    cap = run(lesson.STEPS[8], method="softcap")
    assert qk["question"]["correct"] == [0] and cap["question"]["correct"] == [2]
    grown = sorted((r["x"], r["y"]) for r in qk["chart"]["rows"] if r["series"] == "grown")
    assert grown[-1][1] > 0.9 > grown[0][1]
    with pytest.raises(InputError):
        run(lesson.STEPS[8], method="sqrt")


def test_step_inputs_keep_only_what_the_step_measures_with():
    assert lesson.step_inputs(lesson.STEPS[7], {**SMALL, **EXTRA, "backend": "numpy"}) == {
        "dk": 64, "n": 16, "seed": 3}
    assert "rho" in lesson.step_inputs(lesson.STEPS[6], {**SMALL, **EXTRA})
