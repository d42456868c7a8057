"""core/lesson.py: the eight steps' measurements, their questions and what their charts hide."""

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
EXTRA = {"scale": "log", "rho": 0.5, "method": "qk-norm"}


def run(step: lesson.Step, **over) -> dict:
    return step.compute(**lesson.step_inputs(step, {**SMALL, **EXTRA, **over}))


def test_lesson_never_imports_streamlit():
    code = "import sys, core.lesson; assert 'streamlit' not in sys.modules, 'core.lesson imported streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_there_are_eight_steps_with_distinct_names_and_known_controls():
    names = [s.name for s in lesson.STEPS]
    assert len(names) == 8 and len(set(names)) == 8
    assert names[0] == "variance" and names[-1] == "modern"
    assert {s.control for s in lesson.STEPS} <= {"dk", "n", "scale", "rho", "method"}


@given(value=st.floats(0, 1, allow_nan=False))
def test_a_value_falls_in_exactly_one_bin_and_that_bin_contains_it(value):
    q = lesson.bin_choices(value, lesson.MAX_WEIGHT_BINS)
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
    assert all(math.isfinite(r["y"]) and r["y"] > 0 for r in chart["rows"]), "every point sits on a log axis"
    assert out["draws"] >= 1


def test_variance_step_asks_for_the_measured_variance_and_answers_d_k():
    out = run(lesson.STEPS[0], dk=256)
    samples = figure_budget.variance_samples(SMALL["trials"], SMALL["n"], figure_budget.sweep_dks(256))
    row = next(r for r in ex.variance(figure_budget.sweep_dks(256), ["none"], trials=samples, seed=3)["rows"]
               if r["dk"] == 256)
    assert out["question"]["value"] == row["var_raw"]
    assert out["question"]["choices"][out["question"]["correct"][0]]["key"] == "dk"
    before = [r for r in out["chart"]["rows"] if r["stage"] == "context"]
    assert before and all(r["series"] == "measured" and r["x"] < 256 for r in before)


def test_unscaled_steps_are_extrapolations_below_the_current_d_k():
    for step in lesson.STEPS[1:3]:
        rows = run(step, dk=256)["chart"]["rows"]
        asked = [r for r in rows if r["series"] == "none"]
        assert all((r["stage"] == "answer") == (r["x"] >= 256) for r in asked)


def test_saturation_and_fix_agree_with_the_saturation_page():
    view = views.saturation_view(figure_budget.sweep_dks(64), 16, ["none", "sqrt"], 40, seed=3)
    at = {r["scale"]: r["max_weight_mean"] for r in views.at_dk(view, 64)["rows"]}
    assert run(lesson.STEPS[1])["question"]["value"] == pytest.approx(at["none"])
    assert run(lesson.STEPS[3])["question"]["value"] == pytest.approx(at["sqrt"])
    assert at["none"] > 0.5 > at["sqrt"], "without scaling the top key wins; with it the row stays spread"


def test_gradient_step_matches_the_gradient_experiment_and_vanishes_at_large_d_k():
    g = views.gradient_view(figure_budget.sweep_dks(1024), 16, ["none"], 40, seed=3)
    want = next(r["grad_q_norm_median"] for r in g["rows"] if r["dk"] == 1024)
    out = run(lesson.STEPS[2], dk=1024)
    assert out["question"]["value"] == want
    assert out["question"]["correct"] == [0], f"median ‖∂L/∂q‖ at d_k = 1024 is {want}, not below 1e-4"


def test_the_fix_is_the_whole_answer_series_and_uniform_is_context():
    rows = run(lesson.STEPS[3])["chart"]["rows"]
    assert all(r["stage"] == "answer" for r in rows if r["series"] == "sqrt")
    assert all(r["stage"] == "context" for r in rows if r["series"] in ("none", "uniform"))
    assert all(r["y"] == pytest.approx(1 / 16) for r in rows if r["series"] == "uniform")


def test_scales_step_linear_is_near_uniform_and_log_collapses_at_large_d_k():
    linear = run(lesson.STEPS[4], scale="linear", dk=1024)["question"]
    log = run(lesson.STEPS[4], scale="log", dk=4096)["question"]
    assert linear["value"] > 0.95 and linear["correct"] == [3]
    assert log["value"] < 0.25 and log["correct"] == [0]
    with pytest.raises(InputError):
        run(lesson.STEPS[4], scale="sqrt")
    with pytest.raises(InputError):
        run(lesson.STEPS[4], scale="log", dk=1)


def test_length_step_top_weight_fades_with_n_and_matches_the_length_sweep():
    out = run(lesson.STEPS[5], n=256)
    ref = beyond.length_sweep(sorted({*lesson.N_GRID, 256}), d_k=64, trials=lesson.LENGTH_TRIALS, seed=3)
    want = next(r["max_weight_mean"] for r in ref["rows"] if r["n"] == 256 and r["method"] == "none")
    assert out["question"]["value"] == want
    plain = sorted((r["x"], r["y"]) for r in out["chart"]["rows"] if r["series"] == "sqrt")
    assert plain[0][1] > 10 * plain[-1][1], "the top weight falls by more than 10x from n = 2 to n = 1024"


def test_training_step_scaled_scores_grow_like_rho_sqrt_dk():
    for rho, dk in ((0.0, 1024), (0.5, 1024), (1.0, 64)):
        out = run(lesson.STEPS[6], rho=rho, dk=dk)
        theory = math.sqrt(rho * rho * dk + 1 + rho * rho)
        assert out["question"]["value"] == pytest.approx(theory, rel=0.25), (rho, dk)
    with pytest.raises(InputError):
        run(lesson.STEPS[6], rho=1.5)


def test_modern_step_norms_do_not_matter_to_qk_norm_but_saturate_plain_scaling():
    out = run(lesson.STEPS[7], method="qk-norm")
    rows = out["chart"]["rows"]
    qk = [r["y"] for r in rows if r["series"] == "qk-norm"]
    grown = sorted((r["x"], r["y"]) for r in rows if r["series"] == "grown")
    assert max(qk) - min(qk) < 1e-9, "QK-norm's scores do not depend on α"
    assert grown[-1][1] > 0.9 > grown[0][1]
    assert out["question"]["value"] == pytest.approx(qk[0])
    with pytest.raises(InputError):
        run(lesson.STEPS[7], method="sqrt")


def test_step_inputs_keep_only_what_the_step_measures_with():
    assert lesson.step_inputs(lesson.STEPS[5], {**SMALL, **EXTRA, "backend": "numpy"}) == {
        "dk": 64, "n": 16, "seed": 3}
    assert "rho" in lesson.step_inputs(lesson.STEPS[6], {**SMALL, **EXTRA})
