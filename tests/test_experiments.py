"""Experiments: theory recovered within sampling error, determinism, budgets."""

import math

import numpy as np
import pytest

from core import budget
from core import experiments as ex
from core.backend import get_backend
from core.errors import BudgetError, InputError
from core.sampling import dot_products, gram_scores


@pytest.mark.parametrize(("rho", "dist"), [(0.0, "normal"), (0.6, "normal"), (0.0, "uniform"),
                                           (0.0, "rademacher"), (-0.5, "normal"), (0.8, "uniform")])
def test_variance_recovers_theory_within_sampling_error(rho, dist):
    r = ex.variance([16, 64], ["none", "sqrt"], trials=40000, rho=rho, dist=dist, seed=1)
    for row in r["rows"]:
        assert abs(row["var_raw"] - row["theory_var"]) < 4.5 * row["var_raw_se"]
        assert abs(row["mean_raw"] - row["theory_mean"]) < 4.5 * math.sqrt(row["var_raw"] / 40000)
    sqrt_rows = [row for row in r["rows"] if row["scale"] == "sqrt"]
    for row in sqrt_rows:
        assert row["var_scaled"] == pytest.approx(row["var_raw"] / row["dk"])


def test_normal_theory_is_dk_times_one_plus_rho_squared():
    r = ex.variance([32], ["none"], trials=10, rho=0.5)
    assert r["rows"][0]["theory_var"] == pytest.approx(32 * 1.25)


def test_same_seed_same_numbers_and_rows_independent_of_other_rows():
    a = ex.saturation([16, 64], 10, ["none", "sqrt"], 300, seed=7)
    b = ex.saturation([64], 10, ["sqrt", "none"], 300, seed=7)
    row_a = next(r for r in a["rows"] if r["dk"] == 64 and r["scale"] == "sqrt")
    row_b = next(r for r in b["rows"] if r["dk"] == 64 and r["scale"] == "sqrt")
    assert row_a == row_b
    c = ex.saturation([64], 10, ["sqrt"], 300, seed=8)
    assert c["rows"][0]["entropy_mean"] != row_a["entropy_mean"]


@pytest.mark.parametrize("experiment", ["variance", "saturation", "gradients"])
def test_a_row_does_not_depend_on_the_largest_dk_of_the_sweep(experiment, monkeypatch):
    # a small chunk budget forces several chunks, whose size used to follow the largest d_k
    monkeypatch.setattr(budget, "CHUNK_BYTES", 1 << 16)
    fn = getattr(ex, experiment)
    kw = {"trials": 3000, "seed": 3} if experiment == "variance" else {"n": 10, "trials": 3000,
                                                                       "seed": 3}
    alone = fn([64], scales=["sqrt"], **kw)["rows"][0]
    swept = next(r for r in fn([64, 4096], scales=["sqrt"], **kw)["rows"] if r["dk"] == 64)
    assert alone == swept


def test_saturation_grows_unscaled_and_is_flat_under_sqrt():
    r = ex.saturation([16, 256], 10, ["none", "sqrt"], 2000, seed=0)
    get = {(row["dk"], row["scale"]): row for row in r["rows"]}
    assert get[256, "none"]["entropy_mean"] < get[16, "none"]["entropy_mean"] - 0.4
    assert get[256, "none"]["saturated_fraction"] > get[16, "none"]["saturated_fraction"]
    assert abs(get[256, "sqrt"]["entropy_mean"] - get[16, "sqrt"]["entropy_mean"]) < 0.05
    for row in r["rows"]:
        assert 0 <= row["entropy_mean"] <= math.log(10)
        assert row["max_weight_q10"] <= row["max_weight_q50"] <= row["max_weight_q90"]


def test_gram_sampler_matches_direct_products_in_distribution():
    rng = np.random.default_rng(5)
    n, d, t = 6, 40, 20000
    S = gram_scores(rng, t, n, d, 0.0, "float64")
    Q = rng.standard_normal((t, n, d))
    D = Q @ rng.standard_normal((t, n, d)).swapaxes(1, 2)
    se = math.sqrt(2 * d * d / t)  # s.e. of a variance estimate of a ~normal variable of var d
    assert abs(S.var() - d) < 6 * se / math.sqrt(n)
    assert abs(S.var() - D.var()) < 8 * se / math.sqrt(n)
    # the max of a row (what saturation depends on) has the same mean
    assert abs(S.max(-1).mean() - D.max(-1).mean()) < 0.1 * math.sqrt(d)


def test_gram_sampler_with_correlation_has_mean_rho_d_on_the_diagonal():
    rng = np.random.default_rng(6)
    S = gram_scores(rng, 20000, 4, 50, 0.5, "float64")
    diag = S[:, np.arange(4), np.arange(4)]
    assert abs(diag.mean() - 25.0) < 0.2
    assert abs(diag.var() - 50 * 1.25) < 3.0
    assert abs(S[:, 0, 1].mean()) < 0.3


@pytest.mark.parametrize(("d", "rho"), [(1, 0.0), (2, 0.0), (3, 0.6), (40, 0.0), (40, -0.5)])
def test_dot_sampler_matches_direct_products_in_distribution(d, rho):
    """q·k from ‖q‖ and one normal (core.sampling.dot_products) against q and k drawn and multiplied:
    the same mean, variance and deciles, and the heavy tails of small d_k (excess kurtosis 6/d_k at
    ρ = 0: a sampler that drew √d_k·z would have none)."""
    t = 200_000
    fast = dot_products(np.random.default_rng(11), t, d, rho, "normal", "float64")
    rng = np.random.default_rng(12)
    q = rng.standard_normal((t, d))
    direct = (q * (rho * q + math.sqrt(1 - rho * rho) * rng.standard_normal((t, d)))).sum(axis=1)
    var = d * (1 + rho * rho)
    assert abs(fast.mean() - rho * d) < 5 * math.sqrt(var / t)
    assert fast.var() == pytest.approx(var, rel=0.03)
    deciles = np.linspace(0.1, 0.9, 9)
    assert np.allclose(np.quantile(fast, deciles), np.quantile(direct, deciles), atol=0.03 * math.sqrt(var))
    kurt = lambda x: ((x - x.mean()) ** 4).mean() / x.var() ** 2 - 3  # noqa: E731
    assert kurt(fast) == pytest.approx(kurt(direct), abs=0.25 + 0.1 * kurt(direct))
    if rho == 0.0:
        assert kurt(fast) == pytest.approx(6 / d, abs=0.25 + 0.1 * 6 / d)


def test_dot_sampler_draws_and_multiplies_independent_uniform_components():
    """Uniform q and k at ρ = 0 are drawn and multiplied: the same numbers as by hand."""
    from core.sampling import draw

    got = dot_products(np.random.default_rng(3), 50, 8, 0.0, "uniform", "float32")
    rng = np.random.default_rng(3)
    q, k = draw(rng, (50, 8), "uniform", "float32"), draw(rng, (50, 8), "uniform", "float32")
    assert np.array_equal(got, (q * k).sum(axis=1, dtype="float64"))


def test_independent_rademacher_components_take_one_binomial_draw_a_sample():
    """±1 components at ρ = 0: every q_i·k_i is an independent ±1, so q·k = 2·Binomial(d, ½) − d, one
    draw a sample; a generator without `binomial` draws the ±1 components, a bounded block at a time."""
    from core import sampling

    got = dot_products(np.random.default_rng(3), 50, 8, 0.0, "rademacher", "float32")
    assert np.array_equal(got, 2.0 * np.random.default_rng(3).binomial(8, 0.5, 50) - 8)

    class NoBinomial:  # the calls dot_products may make, without binomial
        def __init__(self, seed: int) -> None:
            self.g = np.random.default_rng(seed)

        def integers(self, *args, **kwargs):
            return self.g.integers(*args, **kwargs)

    blocks = sampling._products(np.random.default_rng(4), 1001, 16, "rademacher", "float32", block=100)
    whole = sampling._products(np.random.default_rng(4), 1001, 16, "rademacher", "float32")
    assert blocks.shape == (1001,) and set(np.unique(blocks)) <= set(range(-16, 17, 2))
    assert blocks.var() == pytest.approx(16, rel=0.15) and whole.var() == pytest.approx(16, rel=0.15)
    drawn = dot_products(NoBinomial(5), 20_000, 16, 0.0, "rademacher", "float32")
    assert abs(drawn.mean()) < 0.2 and drawn.var() == pytest.approx(16, rel=0.05)


@pytest.mark.parametrize(("dist", "d", "rho"), [("rademacher", 1, 0.0), ("rademacher", 9, 0.0),
                                                 ("rademacher", 3, 0.6), ("rademacher", 40, -0.5),
                                                 ("uniform", 1, 0.6), ("uniform", 40, -0.5)])
def test_other_distributions_match_direct_products_in_distribution(dist, d, rho):
    """The few-draw forms of q·k for Rademacher and uniform components (core.sampling.dot_products)
    against q and k drawn and multiplied as `correlate` forms them: mean, variance (docs/science.md
    §1: d_k·(1 + ρ²(κ − 2))), deciles, and the lattice of ±1 sums where there is one."""
    from core.sampling import correlate, draw, theory_variance

    t = 200_000
    fast = dot_products(np.random.default_rng(11), t, d, rho, dist, "float64")
    rng = np.random.default_rng(12)
    q = draw(rng, (t, d), dist, "float64")
    k = correlate(rng, q, rho, "float64") if rho else draw(rng, (t, d), dist, "float64")
    direct = (q * k).sum(axis=1)
    var = theory_variance(d, rho, dist)
    assert abs(fast.mean() - rho * d) < 5 * math.sqrt(var / t)
    assert fast.var() == pytest.approx(var, rel=0.03) and direct.var() == pytest.approx(var, rel=0.03)
    if dist == "rademacher" and rho == 0.0:  # a lattice, d − 2j for j = 0 … d: the same frequencies
        values, counts = np.unique(fast, return_counts=True)
        direct_values, direct_counts = np.unique(direct, return_counts=True)
        assert np.array_equal(values, direct_values)
        assert np.allclose(counts / t, direct_counts / t, atol=0.006)
    else:
        deciles = np.linspace(0.1, 0.9, 9)
        assert np.allclose(np.quantile(fast, deciles), np.quantile(direct, deciles),
                           atol=0.03 * math.sqrt(var))


@pytest.mark.parametrize(("m", "n", "d"), [(3, 4, 4), (5, 8, 40)])
def test_cross_scores_match_queries_and_keys_drawn_and_multiplied(m, n, d):
    """Q Kᵀ of m queries and n keys from the Bartlett form (core.sampling.cross_scores) against Q and K
    drawn and multiplied: each entry N-like with variance d_k, the deciles of a row's largest |logit|
    (what the precision sweep reads), and the dependence through a shared key that independent
    entries would lack: E[s_ij² s_i'j²] = E‖k_j‖⁴ = d_k(d_k + 2), not d_k²."""
    from core.sampling import cross_scores

    t = 60_000
    fast = cross_scores(np.random.default_rng(21), t, m, n, d, "float64")
    rng = np.random.default_rng(22)
    q, k = rng.standard_normal((t, m, d)), rng.standard_normal((t, n, d))
    direct = q @ k.swapaxes(-1, -2)
    assert fast.shape == direct.shape == (t, m, n)
    assert fast.var() == pytest.approx(d, rel=0.02) and abs(fast.mean()) < 0.02 * math.sqrt(d)
    deciles = np.linspace(0.1, 0.9, 9)
    row_max = lambda s: np.abs(s).max(axis=-1).ravel()  # noqa: E731
    assert np.allclose(np.quantile(row_max(fast), deciles), np.quantile(row_max(direct), deciles),
                       rtol=0.03)
    shared = (fast[:, 0, 0] ** 2 * fast[:, 1, 0] ** 2).mean()
    assert shared == pytest.approx(d * (d + 2), rel=0.06)
    with pytest.raises(ValueError):
        cross_scores(rng, 1, m, n, n - 1, "float64")


def test_variance_of_other_distributions_draws_component_by_component_in_chunks():
    """Uniform rows are the mean and variance of q·k drawn and multiplied, chunk by chunk as the
    memory budget cuts the trials (three d-vectors of the dtype a sample), so a sweep whose trials
    span several chunks gives the numbers it always gave; Rademacher rows (ρ = 0) are binomial draws,
    three numbers a sample, in one chunk."""
    from core import budget
    from core.sampling import draw, sub_seed

    d, trials, seed = 4096, 1827, 3
    chunk = budget.chunk_trials(3 * d * 4, trials, "variance")
    assert chunk < trials  # several chunks
    rademacher = ex.variance([d], ["none"], trials=trials, seed=seed, dist="rademacher")["rows"][0]
    x = 2.0 * np.random.default_rng(sub_seed(seed, 1, d)).binomial(d, 0.5, trials) - d
    assert rademacher["var_raw"] == pytest.approx(float(x.var(ddof=1)), rel=1e-9)
    for dist in ("uniform",):
        rng = np.random.default_rng(sub_seed(seed, 1, d))
        dots = []
        for start in range(0, trials, chunk):
            t = min(chunk, trials - start)
            q, k = draw(rng, (t, d), dist, "float32"), draw(rng, (t, d), dist, "float32")
            dots.append((q * k).sum(axis=1, dtype="float64"))
        x = np.concatenate(dots)
        row = ex.variance([d], ["none"], trials=trials, seed=seed, dist=dist)["rows"][0]
        assert row["mean_raw"] == pytest.approx(float(x.mean()), rel=1e-12, abs=1e-9)
        assert row["var_raw"] == pytest.approx(float(x.var(ddof=1)), rel=1e-9)


def test_gradients_median_collapses_unscaled_but_not_scaled():
    r = ex.gradients([16, 256], 10, ["none", "sqrt"], 3000, seed=0)
    get = {(row["dk"], row["scale"]): row for row in r["rows"]}
    assert get[256, "none"]["grad_q_norm_median"] < 0.2 * get[16, "none"]["grad_q_norm_median"]
    assert get[256, "sqrt"]["grad_q_norm_median"] == pytest.approx(
        get[16, "sqrt"]["grad_q_norm_median"], rel=0.15)
    # the mean does not collapse: rare near-ties dominate it
    assert get[256, "none"]["grad_q_norm_mean"] > 10 * get[256, "none"]["grad_q_norm_median"]
    for row in r["rows"]:
        assert 0 < row["jacobian_norm_median"] <= 0.5


@pytest.mark.parametrize("d", [1, 16, 64])
def test_reduced_gradient_sampler_matches_direct_computation(d):
    # normal components use the reduced exact form; uniform rescaled to N(0,1)-like is not
    # needed: compare against the direct form by drawing normal q and K explicitly.
    rng = np.random.default_rng(d)
    t, n, c = 20000, 10, 1.0 / math.sqrt(d)
    q = rng.standard_normal((t, d))
    K = rng.standard_normal((t, n, d))
    g = rng.standard_normal((t, n))
    from core.attention import softmax
    p = softmax(c * (K @ q[:, :, None])[..., 0])
    direct = np.linalg.norm(ex.grad_query(K, p, g, c), axis=-1)
    reduced, _ = ex.grad_draws(rng, t, n, d, "normal", "float64").grad_norm(c)
    for qu in (0.25, 0.5, 0.75):
        a, b = np.quantile(direct, qu), np.quantile(reduced, qu)
        assert abs(a - b) < 0.04 * a, (qu, a, b)


def test_precision_fp16_naive_softmax_overflows_unscaled_at_large_dk():
    r = ex.precision([512], 32, ["none", "sqrt"], ["float16", "float32"], trials=16)
    get = {(row["scale"], row["dtype"]): row for row in r["rows"]}
    assert get["none", "float16"]["naive_nonfinite_fraction"] > 0.9
    assert get["sqrt", "float16"]["naive_nonfinite_fraction"] == 0
    assert all(row["stable_nonfinite_fraction"] == 0 for row in r["rows"])
    assert get["none", "float16"]["mask_value"] == -math.inf
    assert get["none", "float32"]["mask_value"] == -1e9
    assert get["none", "float16"]["overflow_logit"] == pytest.approx(math.log(65504))


def test_cost_model_hand_computed():
    m = ex.cost_model("dot", n=4, d=2, d_h=3)
    assert m["flops"] == 2 * 16 * 2 + 5 * 16 + 2 * 16 * 2
    assert m["intermediate_bytes"] == 4 * 16
    m = ex.cost_model("additive", n=4, d=2, d_h=3)
    assert m["flops"] == 4 * 4 * 2 * 3 + 3 * 16 * 3 + 5 * 16 + 2 * 16 * 2
    assert m["special"] == 16 * 3 + 16
    naive = ex.cost_model("additive-naive", n=4, d=2, d_h=3)
    assert naive["flops"] - m["flops"] == 4 * 16 * 2 * 3 - 4 * 4 * 2 * 3


def test_cost_implementations_agree():
    be = get_backend("numpy", "float64")
    x = ex.cost_inputs(be, 20, 8, 5, seed=0)
    np.testing.assert_allclose(ex.run_impl("additive", x, 8), ex.run_impl("additive-naive", x, 8),
                               atol=1e-10)


def test_work_over_budget_is_refused_with_a_smaller_setting():
    with pytest.raises(BudgetError, match="--trials"):
        ex.saturation([4096], 1024, ["none"], 100000)
    with pytest.raises(BudgetError, match="GiB"):
        ex.saturation([64], 200000, ["none"], 1)


@pytest.mark.parametrize("call", [
    lambda: ex.saturation([0], 10, ["none"], 10),
    lambda: ex.saturation([16], 1, ["none"], 10),
    lambda: ex.saturation([16], 10, ["nope"], 10),
    lambda: ex.saturation([1], 10, ["log"], 10),
    lambda: ex.saturation([16], 10, ["none"], 0),
    lambda: ex.variance([16], ["none"], 10, rho=1.5),
    lambda: ex.variance([16], ["none"], 10, rho=float("nan")),
    lambda: ex.variance([16], ["none"], 10, dist="cauchy"),
])
def test_bad_input_raises_input_error(call):
    with pytest.raises(InputError):
        call()
