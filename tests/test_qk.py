"""Q vs K: the two normalisations, tying, and gradients from autograd against the closed form."""

import math

import numpy as np
import pytest

from core import qk
from core.errors import InputError


def test_rows_over_keys_vs_rows_over_queries():
    r = qk.normalisations(n=8, d_k=32, d_model=32, seed=0)
    A, A_swap, S = (np.array(r[k]) for k in ("A", "A_swap", "S"))
    assert A.sum(axis=1) == pytest.approx(np.ones(8))
    assert A_swap.sum(axis=1) == pytest.approx(np.ones(8))
    # softmax(K Qᵀ) is the column-normalised S, transposed
    col = np.exp(S - S.max(axis=0)) / np.exp(S - S.max(axis=0)).sum(axis=0)
    assert A_swap.T == pytest.approx(col)
    m = r["metrics"]
    assert m["max_abs_diff_swap"] > 0.01
    assert m["col_sum_min"] < 1.0 < m["col_sum_max"]
    assert m["row_sum_max_dev"] < 1e-12


def test_tying_gives_a_symmetric_score_matrix_with_a_heavy_diagonal():
    r = qk.normalisations(n=8, d_k=64, d_model=64, seed=1, tie=True)
    S = np.array(r["S"])
    assert S == pytest.approx(S.T)
    assert r["metrics"]["asymmetry"] == pytest.approx(0.0, abs=1e-12)
    assert r["metrics"]["theory_diag_score"] == pytest.approx(math.sqrt(64))
    assert r["metrics"]["diag_weight_mean"] > 0.5


def test_tying_stats_against_theory():
    r = qk.tying_stats(n=16, d_k=64, d_model=64, trials=300, seed=2)
    untied, tied = r["rows"]
    assert not untied["tie"] and tied["tie"]
    assert abs(untied["diag_weight_mean"] - 1 / 16) < 5 * untied["diag_weight_se"] + 0.005
    assert tied["diag_score_mean"] == pytest.approx(math.sqrt(64), rel=0.05)  # E‖q‖²/√d_k = √d_k
    assert tied["argmax_diag_fraction"] > 0.95 and tied["asymmetry_mean"] == pytest.approx(0.0)
    assert untied["asymmetry_mean"] > 1.0


def test_autograd_matches_the_closed_form():
    rng = np.random.default_rng(3)
    Q, K, V, G = (rng.standard_normal((2, 5, 8)) for _ in range(4))
    for c in (1.0, 1 / math.sqrt(8)):
        aq, ak = qk.autograd_grads(Q, K, V, G, c)
        cq, ck = qk.closed_form_grads(Q, K, V, G, c)
        assert aq == pytest.approx(cq, abs=1e-12)
        assert ak == pytest.approx(ck, abs=1e-12)
        assert not np.allclose(aq, ak)


def test_grad_asymmetry_rows():
    r = qk.grad_asymmetry(n=12, d_k=32, trials=100, seed=4)
    by = {(x["scale"], x["wrt"]): x for x in r["rows"]}
    assert all(x["max_abs_err_vs_closed_form"] < 1e-10 for x in r["rows"])
    for scale in ("none", "sqrt"):
        assert by[(scale, "ratio")]["rel_diff_mean"] > 0.01  # per draw the two norms differ
        assert len(r["example"][scale]["Q"]) == 12 and len(r["pairs"][scale]["K"]) == 100
    # unscaled, saturated rows of dS vanish: the query-side gradient is the more uneven one
    assert by[("none", "Q")]["row_cv_mean"] > by[("none", "K")]["row_cv_mean"]


def test_bad_sizes_are_input_errors():
    with pytest.raises(InputError):
        qk.normalisations(n=1)
    with pytest.raises(InputError):
        qk.normalisations(n=100)
