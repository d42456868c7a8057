"""core.stats: Student-t quantiles (scipy.stats) and the power-law fit with its confidence and prediction
intervals. (The hand-written continued fraction these quantiles replaced agreed with them to 1e-12
relative on every quantile the fits use, df 1…200, levels 0.5…0.999, before it was removed.)"""

import math
import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import stats
from core.errors import InputError

# ---------------------------------------------------------------- the t distribution


@pytest.mark.parametrize(("df", "p", "expected"), [
    (1, 0.975, 12.7062), (2, 0.975, 4.3027), (3, 0.975, 3.1824), (5, 0.975, 2.5706),
    (10, 0.975, 2.2281), (30, 0.975, 2.0423), (4, 0.95, 2.1318), (8, 0.995, 3.3554),
])
def test_t_quantile_matches_printed_tables(df, p, expected):
    assert stats.t_quantile(p, df) == pytest.approx(expected, abs=5e-4)


def test_t_quantile_tends_to_the_normal():
    z = statistics.NormalDist().inv_cdf(0.975)
    assert stats.t_quantile(0.975, 1e6) == pytest.approx(z, abs=1e-5)
    assert stats.t_quantile(0.975, 100) > z  # heavier tails at finite df


@given(st.floats(0.001, 0.999))
def test_t_quantile_closed_forms_df1_and_df2(p):
    assert stats.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12, abs=1e-12)
    assert stats.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-12,
                                                   abs=1e-12)


@given(st.floats(0.001, 0.999), st.floats(0.5, 200))
def test_t_quantile_is_odd(p, df):
    assert stats.t_quantile(1 - p, df) == pytest.approx(-stats.t_quantile(p, df), rel=1e-9, abs=1e-9)


def test_t_rejects_bad_levels_and_degrees_of_freedom():
    for p in (0.0, 1.0, 1.5, math.nan):
        with pytest.raises(InputError):
            stats.t_quantile(p, 3)
    for df in (0, -1, math.nan):
        with pytest.raises(InputError):
            stats.t_quantile(0.975, df)


# ---------------------------------------------------------------- the log–log fit


def test_fit_recovers_an_exact_power_law():
    n = [64, 128, 256, 512, 1024]
    fit = stats.fit_power_law(n, [3e-9 * x**2.0 for x in n])
    assert fit.exponent == pytest.approx(2.0, abs=1e-12)
    assert fit.ci_high - fit.ci_low == pytest.approx(0.0, abs=1e-9)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.predict(4096) == pytest.approx(3e-9 * 4096**2, rel=1e-9)


def test_fit_with_two_points_is_exact_and_has_no_interval():
    fit = stats.fit_power_law([10, 100], [1.0, 1000.0])
    assert fit.exponent == pytest.approx(3.0)
    assert math.isnan(fit.ci_low) and math.isnan(fit.ci_high)


def test_fit_ci_covers_the_true_exponent_95_percent_of_the_time():
    """Coverage with m = 5 points. A normal quantile (1.96 instead of t₃ = 3.18) would give ~86%."""
    rng = np.random.default_rng(0)
    x = np.array([128, 256, 512, 1024, 2048], dtype=float)
    sims, hits, widths = 2000, 0, []
    for _ in range(sims):
        t = 2e-9 * x**1.7 * np.exp(rng.normal(0.0, 0.2, x.size))
        fit = stats.fit_power_law(x, t)
        hits += fit.ci_low <= 1.7 <= fit.ci_high
        widths.append(fit.ci_high - fit.ci_low)
    assert 0.93 <= hits / sims <= 0.97
    assert np.median(widths) < 1.0


def test_prediction_interval_covers_a_new_point_95_percent():
    rng = np.random.default_rng(1)
    x = np.array([100, 200, 400, 800], dtype=float)
    sims, hits = 1500, 0
    for _ in range(sims):
        fit = stats.fit_power_law(x, 1e-8 * x**2 * np.exp(rng.normal(0, 0.1, x.size)))
        lo, hi = fit.interval(3200)
        hits += lo <= 1e-8 * 3200**2 * math.exp(rng.normal(0, 0.1)) <= hi
    assert 0.93 <= hits / sims <= 0.97


@pytest.mark.parametrize(("x", "t"), [([1], [1]), ([5, 5], [1, 2]), ([1, 2], [0, 1]), ([1, 2], [1])])
def test_fit_rejects_unusable_data(x, t):
    with pytest.raises(InputError):
        stats.fit_power_law(x, t)




def test_t_quantile_does_not_load_scipy_stats():
    """scipy.stats takes 0.5-1 s to import; the quantile comes from scipy.special alone."""
    import subprocess
    import sys

    code = ("import sys; from core import stats; stats.t_quantile(0.975, 3.0); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
