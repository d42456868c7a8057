"""Where a sweep's curves coincide (core.curve_overlap), and the beyond page's correlated-keys sweep
measured: at ÷d_k its entropy lines per ρ lie on top of one another at every d_k, at ÷√d_k only
while d_k is small."""

import math

import pytest

from core import beyond
from core.curve_overlap import COINCIDE, overlap, spread_by_x


def _rows(curves: dict[float, list[float]], xs: list[int]) -> list[dict]:
    return [{"x": x, "s": s, "y": y} for s, ys in curves.items() for x, y in zip(xs, ys, strict=True)]


def test_identical_curves_coincide_everywhere_with_no_spread():
    rows = _rows({0: [1.0, 2.0, 3.0], 1: [1.0, 2.0, 3.0]}, [2, 4, 8])
    ov = overlap(rows, "x", "y", "s", span=3.0)
    assert ov["all"] and ov["spread_max"] == 0 and ov["up_to"] == 8 and ov["apart_from"] is None
    assert ov["curves"] == 2


def test_curves_that_fan_out_coincide_up_to_the_last_x_below_the_limit():
    flat = [1.0, 1.0, 1.0, 1.0]
    rows = _rows({0: flat, 1: [1.0, 1.005, 1.5, 1.02], 2: flat}, [2, 4, 8, 16])
    assert spread_by_x(rows, "x", "y", "s") == pytest.approx({2: 0.0, 4: 0.005, 8: 0.5, 16: 0.02})
    ov = overlap(rows, "x", "y", "s", span=1.0)  # limit 0.01
    assert ov["limit"] == pytest.approx(COINCIDE)
    assert (ov["all"], ov["up_to"], ov["apart_from"], ov["x_at_max"]) == (False, 4, 8, 8)
    ov = overlap(rows, "x", "y", "s", span=1.0, tol=1e-4)
    assert (ov["up_to"], ov["apart_from"]) == (2, 4)  # a tighter tolerance: apart sooner


def test_curves_apart_at_the_first_x_have_no_range_of_coincidence_and_bad_input_is_refused():
    rows = _rows({0: [0.0, 0.0], 1: [1.0, 1.0]}, [1, 2])
    ov = overlap(rows, "x", "y", "s", span=1.0)
    assert ov["up_to"] is None and ov["apart_from"] == 1
    with pytest.raises(ValueError):
        overlap(_rows({0: [1.0]}, [1]), "x", "y", "s", span=1.0)  # one curve: nothing to compare
    with pytest.raises(ValueError):
        overlap(rows, "x", "y", "s", span=0.0)


@pytest.fixture(scope="module")
def sweep():
    """The beyond page's correlated sweep at its defaults (n = 32, the sidebar's; ρ 0, 0.25, 0.3, 0.5)."""
    return beyond.correlated_sweep([2**i for i in range(1, 11)], [0.0, 0.25, 0.3, 0.5], n=32, trials=100,
                                   seed=0, fit=True)["rows"]


def test_measured_the_rho_lines_coincide_at_every_dk_after_dividing_by_dk(sweep):
    part = [r for r in sweep if r["scale"] == "linear"]
    ov = overlap(part, "dk", "entropy_mean", "rho", span=math.log(32))
    assert ov["all"] and ov["curves"] == 4
    assert ov["spread_max"] < COINCIDE * math.log(32)
    # why: every logit is near 0, so every entropy is near ln n whatever ρ (within 7 % at d_k = 2)
    assert all(r["entropy_mean"] > 0.93 * r["ln_n"] for r in part)


def test_measured_the_rho_lines_separate_after_dividing_by_sqrt_dk(sweep):
    part = [r for r in sweep if r["scale"] == "sqrt"]
    ov = overlap(part, "dk", "entropy_mean", "rho", span=math.log(32))
    assert not ov["all"] and ov["apart_from"] <= 64
    assert ov["spread_max"] > 0.5 * math.log(32)  # far apart at large d_k: ρ√d_k pulls the weight to one key
