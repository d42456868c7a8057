"""Sweeps drawn at the app's default settings do not contradict their captions: a curve the text calls
rising or falling is monotone, and any other wiggle is smaller than the curve's own 95 % band.

Defaults: the sidebar's (d_k = 64, n = 32, trials = 100, seed = 0, pages/ui/sidebar.py DEFAULTS) and
each page's own (the saturation page's map uses the first scale, "none"; the beyond page's length
section ρ = 0.3, s = 0.5, n ∈ NS, min(trials, 200) trials).
"""

from __future__ import annotations

import itertools
import math

import pytest

from core import beyond, views
from core import experiments as ex

Z95 = 1.96
TRIALS = 100  # the sidebar's default
LENGTH_NS = (16, 64, 256, 1024, 4096, 16384)  # pages/beyond.py NS
LENGTH_DEFAULTS = {"d_k": 64, "rho": 0.3, "s_param": 0.5, "trials": min(TRIALS, 200), "seed": 0}


def wiggles(ys: list[float], ses: list[float]) -> list[tuple[int, float, float]]:
    """(index, size, band) of every interior turn (a local maximum or minimum) whose smaller step exceeds
    the combined 95 % band z·√(se_i² + se_j²) of the point and its nearer neighbour."""
    out = []
    for i in range(1, len(ys) - 1):
        a, b = ys[i] - ys[i - 1], ys[i + 1] - ys[i]
        if a * b < 0:
            j = i - 1 if abs(a) < abs(b) else i + 1
            size, band = min(abs(a), abs(b)), Z95 * math.hypot(ses[i], ses[j])
            if size > band:
                out.append((i, size, band))
    return out


def test_wiggles_flags_a_turn_larger_than_the_band_and_only_that():
    band = pytest.approx(Z95 * math.sqrt(2) * 0.01)
    assert wiggles([1.0, 0.5, 0.9, 0.1], [0.01] * 4) == [(1, pytest.approx(0.4), band),
                                                         (2, pytest.approx(0.4), band)]
    assert wiggles([1.0, 0.5, 0.9, 0.1], [0.5] * 4) == []
    assert wiggles([1.0, 0.5, 0.4, 0.1], [0.0] * 4) == []


def _grid(scale: str) -> dict:
    return views.entropy_grid(scale, trials=TRIALS, seed=0)


@pytest.fixture(scope="module")
def grid_none() -> dict:
    return _grid("none")


def _lines(rows: list[dict], along: str, across: str) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for r in sorted(rows, key=lambda r: (r[across], r[along])):
        out.setdefault(r[across], []).append(r)
    return out


def test_default_entropy_map_without_scaling_falls_with_dk_at_every_n(grid_none):
    # caption (saturation.grid.caption): "without scaling the entropy collapses as d_k grows at every n"
    for n, line in _lines(grid_none["rows"], "dk", "n").items():
        ys = [r["entropy_mean"] for r in line]
        rises = [(line[i]["dk"], line[i + 1]["dk"]) for i in range(len(ys) - 1) if ys[i + 1] >= ys[i]]
        assert not rises, f"n = {n}: entropy rises from d_k = {rises[0][0]} to {rises[0][1]}: {ys}"


def test_default_entropy_map_without_scaling_is_smooth_along_n_within_its_band(grid_none):
    for dk, line in _lines(grid_none["rows"], "n", "dk").items():
        bad = wiggles([r["entropy_mean"] for r in line], [r["entropy_se"] for r in line])
        assert not bad, f"d_k = {dk}: turns beyond the band at n = {[line[i]['n'] for i, _, _ in bad]}"


def test_default_entropy_map_with_sqrt_depends_on_n_only():
    # caption: "with 1/√d_k it depends on n only": flat in d_k within the band, rising with n
    g = _grid("sqrt")
    for n, line in _lines(g["rows"], "dk", "n").items():
        ys, ses = [r["entropy_mean"] for r in line], [r["entropy_se"] for r in line]
        assert not wiggles(ys, ses), f"n = {n}: turns beyond the band along d_k: {ys}"
    for dk, line in _lines(g["rows"], "n", "dk").items():
        ys = [r["entropy_mean"] for r in line]
        assert all(b > a for a, b in itertools.pairwise(ys)), f"d_k = {dk}: not rising with n: {ys}"


@pytest.mark.parametrize(("n", "dk"), [(8, 4), (8, 64), (32, 16)])
def test_entropy_grid_draws_have_the_distribution_of_independent_q_and_k(n, dk):
    # the shared-path sampler (exact Bartlett factor, d_k below and above n) against drawing Q and K
    grid = ex.entropy_grid([2, n], [2, dk, 128], "none", lambda _: 400, seed=3)
    ours = next(r for r in grid["rows"] if r["n"] == n and r["dk"] == dk)
    ref = ex.saturation([dk], n=n, scales=["none"], trials=400, seed=4)["rows"][0]
    band = 4.0 * math.hypot(ours["entropy_se"], ref["entropy_se"])
    assert abs(ours["entropy_mean"] - ref["entropy_mean"]) < band


@pytest.fixture(scope="module")
def length() -> list[dict]:
    return beyond.length_sweep(LENGTH_NS, **LENGTH_DEFAULTS)["rows"]


def _by_method(rows: list[dict]) -> dict[str, list[dict]]:
    return {m: sorted((r for r in rows if r["method"] == m), key=lambda r: r["n"])
            for m in beyond.LENGTH_METHODS}


def test_default_length_sweep_weight_on_the_matching_key_fades_with_n(length):
    # beyond.len.text: "the weight on the one matching key fades" as the context grows, for every λ(n)
    for method, line in _by_method(length).items():
        ys = [r["target_weight_mean"] for r in line]
        assert all(b < a for a, b in itertools.pairwise(ys)), f"{method}: {ys}"


def test_default_length_sweep_entropy_is_smooth_within_its_band(length):
    lines = _by_method(length)
    plain = [r["entropy_mean"] for r in lines["none"]]
    # "attention spreads as the context grows"
    assert all(b > a for a, b in itertools.pairwise(plain))
    for method, line in lines.items():
        bad = wiggles([r["entropy_mean"] for r in line], [r["entropy_se"] for r in line])
        assert not bad, f"{method}: turns beyond the band at n = {[line[i]['n'] for i, _, _ in bad]}"
