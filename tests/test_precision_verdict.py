"""The precision page's verdict (core.page_claims.precision): is float16 a reason for √d_k? Checked
against the page's own measured rows over a grid of d_k and n (docs/science.md §4, "Low precision")."""

from __future__ import annotations

import copy

import pytest

from core import figure_budget, views
from core.page_claims import precision as claims

GRID_DK = (2, 4, 8, 16, 64, 256, 1024, 4096)
GRID_N = (2, 32, 1024)


def _view(dk: int, n: int, trials: int = 2):
    return views.precision_view(figure_budget.sweep_dks(dk), n=n, scales=["none", "sqrt"], trials=trials,
                                seed=0)


@pytest.fixture(scope="module")
def sweeps():
    """One sweep per n (the grid of d_k is the sweep's own, 2 … 4096), small trials."""
    return {n: _view(64, n) for n in GRID_N}


@pytest.mark.parametrize("n", GRID_N)
@pytest.mark.parametrize("dk", GRID_DK)
def test_the_verdict_holds_for_the_measured_rows_at_every_dk_and_n(sweeps, dk, n):
    """The verdict the page shows is true of its own rows, and it is the science's: the stable
    softmax never fails in float16 (so precision is no reason for √d_k with it), scaled naive rows
    never fail, and unscaled naive rows fail somewhere in the sweep (so for a naive kernel it is)."""
    rows = sweeps[n]["rows"]
    v = claims.precision_verdict(rows, dk)
    assert claims.verdict_holds(v, rows), v
    assert v.kind in (claims.NAIVE_HERE, claims.NAIVE_LATER), v
    assert v.stable_everywhere and v.stable_none == v.stable_sqrt == v.naive_sqrt == 0
    assert v.naive_fail_dk is not None, v  # fp16 breaks unscaled somewhere in 2 … 4096
    assert (v.kind == claims.NAIVE_HERE) == (v.naive_none > 0)
    if v.kind == claims.NAIVE_HERE:
        assert v.naive_fail_dk == dk


def test_an_off_grid_dk_gets_its_own_verdict():
    """The reader's d_k off the grid (d_k = 48) is in the sweep, and the verdict is about it."""
    view = _view(48, 32)
    v = claims.precision_verdict(view["rows"], 48)
    assert v.dk == 48 and claims.verdict_holds(v, view["rows"])


def _set(rows, dk, scale, field, value):
    out = copy.deepcopy(rows)
    for r in out:
        if r["dk"] == dk and r["scale"] == scale and r["dtype"] == "float16":
            r[field] = value
    return out


def test_the_check_fails_when_the_rows_contradict_the_verdict(sweeps):
    """verdict_holds can fail: a stable row turned NaN, a quoted fraction changed, a scaled naive row
    failing, or an earlier failing d_k each make the verdict false for those rows."""
    rows = sweeps[32]["rows"]
    v = claims.precision_verdict(rows, 64)
    assert v.kind == claims.NAIVE_HERE and claims.verdict_holds(v, rows)
    assert not claims.verdict_holds(v, _set(rows, 64, "none", "stable_nonfinite_fraction", 0.5))
    assert not claims.verdict_holds(v, _set(rows, 64, "none", "naive_nonfinite_fraction", 0.25))
    assert not claims.verdict_holds(v, _set(rows, 64, "sqrt", "naive_nonfinite_fraction", 0.1))
    assert not claims.verdict_holds(v, _set(rows, 4096, "sqrt", "stable_nonfinite_fraction", 0.1))
    later = claims.precision_verdict(rows, 2)
    assert later.kind == claims.NAIVE_LATER, later
    assert later.naive_fail_dk > 2
    nearer = later.naive_fail_dk // 2
    if nearer > 2:  # a failing d_k nearer to the reader's than the one named
        assert not claims.verdict_holds(later, _set(rows, nearer, "none", "naive_nonfinite_fraction", 0.1))
    unfailed = _set(rows, later.naive_fail_dk, "none", "naive_nonfinite_fraction", 0)
    assert not claims.verdict_holds(later, unfailed)


def test_the_verdict_follows_the_rows_kind_by_kind(sweeps):
    """Each kind comes from the rows that make it: stable failures first, then scaled naive ones, then
    unscaled naive ones; without c = 1 or c = 1/√d_k the verdict is incomplete."""
    rows = sweeps[32]["rows"]
    stable = _set(rows, 64, "none", "stable_nonfinite_fraction", 0.5)
    assert claims.precision_verdict(stable, 64).kind == claims.STABLE_FAILS
    scaled = _set(rows, 64, "sqrt", "naive_nonfinite_fraction", 0.5)
    assert claims.precision_verdict(scaled, 64).kind == claims.SCALED_FAILS
    calm = [dict(r, naive_nonfinite_fraction=0.0) for r in rows]
    v = claims.precision_verdict(calm, 64)
    assert v.kind == claims.NAIVE_NEVER and claims.verdict_holds(v, calm)
    only_sqrt = [r for r in rows if r["scale"] == "sqrt"]
    v = claims.precision_verdict(only_sqrt, 64)
    assert v.kind == claims.INCOMPLETE and claims.verdict_holds(v, only_sqrt)
    for kind_rows in (stable, scaled):
        v = claims.precision_verdict(kind_rows, 64)
        assert claims.verdict_holds(v, kind_rows)


def test_a_failure_only_below_the_readers_dk_is_named_from_below(sweeps):
    """When unscaled naive rows fail only at smaller d_k (a small draw can miss a rare overflow), the
    verdict names the nearest smaller failing d_k, and the check accepts nothing else."""
    rows = sweeps[2]["rows"]
    dks = sorted({r["dk"] for r in rows})
    quiet = [dict(r, naive_nonfinite_fraction=0.0) if r["dk"] >= 256 else r for r in rows]
    v = claims.precision_verdict(quiet, 1024)
    assert v.kind == claims.NAIVE_LATER and v.naive_fail_dk < 256 and claims.verdict_holds(v, quiet), v
    failing = [d for d in dks if d < 256 and any(
        r["dk"] == d and r["scale"] == "none" and r["dtype"] == "float16"
        and r["naive_nonfinite_fraction"] > 0
        for r in quiet)]
    assert v.naive_fail_dk == failing[-1]


def test_coinciding_series_are_those_equal_at_every_dk(sweeps):
    """In float16 the stable curves of both scales and the scaled naive curve all lie on 0 %, the
    unscaled naive one does not; a changed point takes a curve out of its group."""
    rows = sweeps[32]["rows"]
    groups = claims.coinciding_series(rows, "float16")
    assert groups == [[("sqrt", "naive"), ("none", "stable"), ("sqrt", "stable")]]
    moved = _set(rows, 8, "sqrt", "stable_nonfinite_fraction", 0.5)
    assert claims.coinciding_series(moved, "float16") == [[("sqrt", "naive"), ("none", "stable")]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_the_verdict_of_its_own_rows_and_no_label_inside_a_plot(lang):
    """At the defaults the page's verdict line is precision_verdict of the rows it measured (the same
    fractions), its max-logit chart names the fp16 limits in its subtitle rather than with a text mark
    the lines could cross, and a caption names the curves that coincide."""
    import json

    from conftest import run_page

    from pages.ui.format import fmt_pct
    from pages.ui.i18n import text_for
    from pages.ui.sidebar import DEFAULTS

    at = run_page("precision", {"lang": lang})
    # the page's own sweep at the sidebar's defaults (computed once: the same seeded rows)
    view = views.precision_view(figure_budget.sweep_dks(DEFAULTS["dk"]), n=DEFAULTS["n"],
                                scales=list(DEFAULTS["scales"]), trials=DEFAULTS["trials"],
                                seed=DEFAULTS["seed"])
    assert not at.exception
    label = text_for("precision.verdict.label", lang)
    (line,) = [m.value for m in at.markdown if m.value.startswith(f"**{label}**")]
    v = claims.precision_verdict(view["rows"], DEFAULTS["dk"])
    assert claims.verdict_holds(v, view["rows"]) and v.kind == claims.NAIVE_HERE
    assert fmt_pct(v.naive_none) in line and fmt_pct(v.naive_sqrt) in line
    specs = [json.loads(c.proto.spec) for c in at.main.get("vega_lite_chart")]
    logit = specs[0]
    marks = [layer.get("mark") for layer in logit["layer"]]
    assert all((m if isinstance(m, str) else m.get("type")) != "text" for m in marks), marks
    assert text_for("precision.logit.key_exp", lang) in json.dumps(logit["title"], ensure_ascii=False)
    coincide = text_for("precision.nan.coincide", lang).split("{")[0]
    assert any(c.value.startswith(coincide) for c in at.caption)
