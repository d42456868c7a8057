"""core/views.py: what the pages show, checked without a browser."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from core import experiments as ex
from core import figure_budget, views
from core.errors import InputError


def test_views_never_imports_streamlit():
    code = "import sys, core.views; assert 'streamlit' not in sys.modules, 'core.views imported streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_sweep_contains_the_grid_and_the_current_dk():
    assert figure_budget.sweep_dks(100) == sorted([*figure_budget.DK_GRID, 100])
    assert figure_budget.sweep_dks(64) == list(figure_budget.DK_GRID)
    assert figure_budget.sweep_dks(1)[0] == 1


@given(trials=st.integers(1, 10_000), per=st.floats(0, 10))
def test_fit_trials_stays_between_one_and_the_request(trials, per):
    used = figure_budget.fit_trials(trials, per)
    assert 1 <= used <= trials


def test_grouping_by_scale_does_not_change_any_number():
    """log is undefined at d_k = 1: it is swept from 2, the others from 1, with the same numbers."""
    dks = [1, 2, 8]
    rows = views.saturation_view(figure_budget.sweep_dks(1), 8, ["none", "log"], trials=20)["rows"]
    assert [(r["dk"], r["scale"]) for r in rows][:5] == [(1, "none"), (2, "none"), (2, "log"),
                                                        (4, "none"), (4, "log")]
    direct = ex.saturation(dks, n=8, scales=["none"], trials=20)["rows"]
    mine = {(r["dk"], r["scale"]): r for r in rows}
    for r in direct:
        assert mine[(r["dk"], "none")]["entropy_mean"] == r["entropy_mean"]
    assert not any(r["scale"] == "log" and r["dk"] == 1 for r in rows)


def test_skipped_names_the_scales_undefined_at_the_current_dk():
    view = views.gradient_view([1, 2, 16], 4, ["log", "sqrt"], trials=10)
    here = views.at_dk(view, 1)
    assert here["skipped"] == ["log"]
    assert [r["scale"] for r in here["rows"]] == ["sqrt"]
    assert views.at_dk(view, 16)["skipped"] == []
    with pytest.raises(InputError):
        views.gradient_view([4], 4, [], trials=10)


def test_a_sweep_is_the_same_for_every_dk_on_the_grid():
    """Moving d_k along the grid changes only which point is picked, so the cached sweep is reused."""
    assert figure_budget.sweep_dks(64) == figure_budget.sweep_dks(128) == list(figure_budget.DK_GRID)


def test_histograms_are_densities_and_match_theory():
    h = views.score_samples(256, "sqrt", 20000, seed=3)
    for kind in ("raw", "scaled"):
        rows = [r for r in h["rows"] if r["kind"] == kind]
        area = sum(r["density"] * (r["x1"] - r["x0"]) for r in rows)
        assert area == pytest.approx(1.0, abs=1e-9)
    assert h["var_raw"] == pytest.approx(256, rel=0.05)
    assert h["var_scaled"] == pytest.approx(1.0, rel=0.05)


def test_correlated_scores_have_mean_rho_dk():
    h = views.score_samples(64, "linear", 20000, rho=0.5)
    assert h["theory_mean"] == pytest.approx(32.0)
    assert h["theory_var"] == pytest.approx(64 * 1.25)


def test_one_draw_rows_sum_to_one_and_jacobian_is_symmetric_with_zero_row_sums():
    d = views.one_draw(64, 16, "none", seed=1, query=3)
    w = np.array(d["heatmap"]["value"]).reshape(16, 16)
    assert np.allclose(w.sum(axis=1), 1.0)
    assert sum(d["row"]["weight"]) == pytest.approx(1.0)
    assert d["row"]["weight"] == pytest.approx(list(w[3]))
    J = np.array(d["jacobian"]["value"]).reshape(16, 16)
    assert np.allclose(J, J.T)
    assert np.allclose(J.sum(axis=1), 0.0, atol=1e-12)
    assert 0.0 <= d["jacobian_norm"] <= 0.5 + 1e-12
    assert 0.0 <= d["row_entropy"] <= math.log(16) + 1e-12
    assert d["row_effective_keys"] == pytest.approx(math.exp(d["row_entropy"]))


def test_large_n_is_downsampled_to_at_most_128_cells_a_side_and_keeps_mean_weight():
    d = views.one_draw(8, 300, "sqrt")
    assert d["heat_factor"] == 3 and d["heat_cells"] == 100
    assert len(d["heatmap"]["value"]) == 100 * 100
    assert len(d["jacobian"]["value"]) <= 64 * 64
    assert len(d["row"]["weight"]) == 300


def test_one_draw_rejects_a_query_outside_the_rows():
    with pytest.raises(InputError):
        views.one_draw(8, 4, "sqrt", query=4)


@settings(max_examples=12, deadline=None)
@given(dk=st.sampled_from([1, 3, 16, 200, 1024]), n=st.integers(2, 40),
       scale=st.sampled_from(["none", "sqrt", "linear", "power:0.3"]), seed=st.integers(0, 99))
def test_analytic_gradient_matches_torch_autograd(dk, n, scale, seed):
    check = views.autograd_check(dk, n, scale, seed=seed)
    assert check["agrees"], check["max_abs_diff"]
    assert check["grad_norm"] == pytest.approx(check["grad_norm_autograd"], rel=1e-6, abs=1e-11)


def test_autograd_check_would_notice_a_wrong_gradient(monkeypatch):
    monkeypatch.setattr(views.ex, "grad_query", lambda K, p, g, c: 1.001 * (K.T @ (p * (g - p @ g))) * c)
    assert not views.autograd_check(16, 8, "sqrt", seed=1)["agrees"]


def test_entropy_grid_stays_within_zero_and_ln_n():
    g = views.entropy_grid("none", trials=4, ns=(2, 8), dks=(2, 64))
    assert len(g["rows"]) == 4
    for r in g["rows"]:
        assert 0.0 <= r["entropy_mean"] <= math.log(r["n"]) + 1e-9
    low_dk = next(r for r in g["rows"] if r["n"] == 8 and r["dk"] == 2)
    high_dk = next(r for r in g["rows"] if r["n"] == 8 and r["dk"] == 64)
    assert high_dk["entropy_mean"] < low_dk["entropy_mean"]  # unscaled: entropy collapses with d_k


def test_precision_view_finds_the_fp16_overflow_for_unscaled_logits_only():
    v = views.precision_view(figure_budget.sweep_dks(64), 16, ["none", "sqrt"], trials=8)
    cross = {c["scale"]: c for c in v["crossings"]}
    assert cross["none"]["dk_naive_nan"] is not None and cross["none"]["dk_exp_overflow"] is not None
    assert cross["sqrt"]["dk_naive_nan"] is None
    assert v["mask"]["float16"] == -math.inf
    assert v["mask"]["float32"] == pytest.approx(-1e9)
    assert v["fp16_overflow_logit"] == pytest.approx(11.09, abs=0.01)


def test_overview_at_dk_equals_core_at_that_dk():
    dks = [2, 16, 64]
    s = views.overview_summary(dks, 8, ["none", "sqrt"], trials=40)
    t = s["trials"]
    var = ex.variance(dks, ["none", "sqrt"], trials=t["variance"])["rows"]
    grad = ex.gradient_sweep(dks, n=8, scales=["none", "sqrt"], trials=t["gradients"])["rows"]
    for row, v, g in zip(views.at_dk(s, 16)["rows"], var[2:4], grad[2:4], strict=True):
        assert row["var_scaled"] == v["var_scaled"]
        assert row["grad_q_norm_median"] == g["grad_q_norm_median"]


def test_interactive_budget_reduces_trials_for_huge_settings():
    assert figure_budget.saturation_trials(1000, 1024, figure_budget.DK_GRID, 2) < 10
    assert figure_budget.saturation_trials(100, 8, figure_budget.DK_GRID, 2) == 100


def test_precision_view_equals_core():
    """The view's rows are core's rows for the trials it reports (the sweep is NumPy's: the page
    needs no torch)."""
    dks, scales = [2, 64, 1024], ["none", "sqrt"]
    v = views.precision_view(dks, 256, scales, trials=4, seed=3)
    direct = ex.precision(dks, n=256, scales=scales, trials=v["trials"], seed=3)["rows"]
    assert repr(v["rows"]) == repr(direct)  # repr: NaN compares equal to NaN
