"""Q vs K: the two normalisations, tying, and gradients from autograd against the closed form."""

import math
import tracemalloc

import numpy as np
import pytest

from core import budget, qk
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


def test_q_and_k_through_the_gram_matrix_have_the_distribution_of_x_times_w(monkeypatch):
    """Where d_model ≥ 2n, Q and K are drawn as L·Z with L Lᵀ = X Xᵀ/d_model instead of X·W: the same
    distribution given X, so the same statistics as drawing W_Q and W_K (within their noise)."""
    assert qk._through_gram(8, 64) and not qk._through_gram(8, 15)
    Q, K = qk._projected(np.random.default_rng(0), 3, 8, 32, 64, tie=True)
    assert Q.shape == (3, 8, 32) and K is Q

    def moments(through_gram: bool, seed: int) -> np.ndarray:
        with monkeypatch.context() as m:
            m.setattr(qk, "_through_gram", lambda n, d_model: through_gram)
            Q, K = qk._projected(np.random.default_rng(seed), 4000, 4, 16, 32, tie=False)
        # unit variance; then E(k₀·k₁)² and E(q₀·k₀)², how the rows are tied together through X
        return np.array([(Q ** 2).mean(), (K ** 2).mean(), ((K[:, 0] * K[:, 1]).sum(-1) ** 2).mean() / 16,
                         ((Q[:, 0] * K[:, 0]).sum(-1) ** 2).mean() / 16])

    assert moments(True, 1) == pytest.approx(moments(False, 2), rel=0.06)
    gram = qk.tying_stats(n=8, d_k=64, d_model=64, trials=2000, seed=11)
    monkeypatch.setattr(qk, "_through_gram", lambda n, d_model: False)
    weights = qk.tying_stats(n=8, d_k=64, d_model=64, trials=2000, seed=12)
    for a, b in zip(gram["rows"], weights["rows"], strict=True):
        se = math.hypot(a["diag_weight_se"], b["diag_weight_se"])
        assert abs(a["diag_weight_mean"] - b["diag_weight_mean"]) < 5 * se + 1e-12
        assert a["diag_score_mean"] == pytest.approx(b["diag_score_mean"], rel=0.03, abs=0.05)
        assert a["asymmetry_mean"] == pytest.approx(b["asymmetry_mean"], rel=0.03, abs=1e-12)
        assert a["argmax_diag_fraction"] == pytest.approx(b["argmax_diag_fraction"], abs=0.02)


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


def _traced_peak_mb(fn, **kwargs) -> float:
    tracemalloc.start()
    try:
        fn(**kwargs)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_stays_bounded_at_the_pages_largest_settings():
    # The page's largest d_k (256) with few keys affords the most trials (279 at n = 4): drawn at
    # once, each trial's own W_Q and W_K (d_model × d_k) held 425 MB, two such runs on a 1 GB server.
    v = qk.view(n=4, d_k=256, d_model=256, trials=5000)
    trials = v["params"]["trials"]
    assert trials > 200
    limit = 2.5 * budget.CHUNK_BYTES / 2**20
    assert _traced_peak_mb(qk.tying_stats, n=4, d_k=256, d_model=256, trials=trials) < limit
    assert _traced_peak_mb(qk.grad_asymmetry, n=32, d_k=256, trials=trials) < limit


def test_chunked_draws_agree_with_one_chunk(monkeypatch):
    whole_t = qk.tying_stats(n=6, d_k=16, d_model=16, trials=600, seed=5)
    whole_g = qk.grad_asymmetry(n=6, d_k=16, trials=600, seed=5)
    # about 7 chunks each
    monkeypatch.setattr(budget, "CHUNK_BYTES", 90 * qk.tying_bytes_per_trial(6, 16, 16))
    parts_t = qk.tying_stats(n=6, d_k=16, d_model=16, trials=600, seed=5)
    monkeypatch.setattr(budget, "CHUNK_BYTES", 90 * qk.grad_bytes_per_trial(6, 16))
    parts_g = qk.grad_asymmetry(n=6, d_k=16, trials=600, seed=5)
    for a, b in zip(whole_t["rows"], parts_t["rows"], strict=True):
        se = math.hypot(a["diag_weight_se"], b["diag_weight_se"])
        assert abs(a["diag_weight_mean"] - b["diag_weight_mean"]) < 5 * se
        assert b["diag_score_mean"] == pytest.approx(a["diag_score_mean"], abs=0.3)
        assert b["argmax_diag_fraction"] == pytest.approx(a["argmax_diag_fraction"], abs=0.05)
    assert parts_t["rows"] != whole_t["rows"]  # really other draws, not the same chunk
    by_whole = {(x["scale"], x["wrt"]): x for x in whole_g["rows"]}
    for x in parts_g["rows"]:
        y = by_whole[(x["scale"], x["wrt"])]
        assert x["max_abs_err_vs_closed_form"] < 1e-10
        if x["wrt"] == "ratio":
            assert abs(x["ratio_mean"] - y["ratio_mean"]) < 5 * math.hypot(x["ratio_se"], y["ratio_se"])
        else:
            assert abs(x["row_cv_mean"] - y["row_cv_mean"]) < 5 * math.hypot(x["row_cv_se"], y["row_cv_se"])
    for scale in ("none", "sqrt"):
        pairs = np.array([parts_g["pairs"][scale]["Q"], parts_g["pairs"][scale]["K"]])
        assert pairs.shape == (2, 600) and np.all(np.isfinite(pairs)) and np.all(pairs > 0)
        assert len(parts_g["example"][scale]["Q"]) == 6
