"""Fact-check: verdicts are functions of the measured numbers, every claim quotes its note verbatim and
has its text in both languages, and each measurement's parts behave (tests/test_factcheck_live.py
measures every claim)."""

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core import experiments as ex
from core import factcheck as fc
from core.errors import InputError
from core.factcheck import measure_cost as mk
from core.factcheck import measure_maxima as mx
from core.factcheck import measure_weights as mw

SEEDS = [Path(__file__).resolve().parents[1] / "seeds", Path("/work/shared/seeds")]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _pt(measured, claimed=1.0, tol=0.1, relation="eq", part="main", lo=None, hi=None):
    return fc.Point("q", claimed, measured, 0.0, tol, relation=relation, part=part, lo=lo, hi=hi)


# ---------------------------------------------------------------- the verdict rules


@pytest.mark.parametrize(
    ("relation", "inside", "outside"),
    [("eq", 1.09, 1.11), ("eq", 0.91, 0.89), ("below", 0.89, 0.91), ("above", 1.11, 1.09)],
)
def test_a_point_flips_exactly_at_its_tolerance(relation, inside, outside):
    assert fc.point_agrees(relation, 1.0, inside, 0.1)
    assert not fc.point_agrees(relation, 1.0, outside, 0.1)


def test_within_checks_the_claimed_value_against_the_interval():
    assert fc.point_agrees("within", 0.5, 0.0, 0.0, lo=0.4, hi=0.6)
    assert not fc.point_agrees("within", 0.39, 0.0, 0.0, lo=0.4, hi=0.6)
    assert not fc.point_agrees("within", 0.5, 0.0, 0.0, lo=float("nan"), hi=0.6)


def test_nan_measurement_never_agrees_and_unknown_relation_raises():
    assert not fc.point_agrees("eq", 1.0, float("nan"), 1.0)
    with pytest.raises(InputError):
        fc.point_agrees("approx", 1.0, 1.0, 1.0)


def test_one_statement_verdict_uses_the_fraction_of_points():
    assert fc.verdict([_pt(1.0)] * 4) == "holds"
    assert fc.verdict([_pt(1.0)] * 2 + [_pt(2.0)] * 2) == "partly"  # exactly half
    assert fc.verdict([_pt(1.0)] + [_pt(2.0)] * 2) == "fails"
    with pytest.raises(InputError):
        fc.verdict([])


def test_several_statements_need_every_point_of_a_statement():
    a_ok, b_ok = _pt(1.0, part="a"), _pt(1.0, part="b")
    a_bad, b_bad = _pt(2.0, part="a"), _pt(2.0, part="b")
    assert fc.verdict([a_ok, b_ok]) == "holds"
    assert fc.verdict([a_ok, b_bad, b_ok]) == "partly"
    assert fc.verdict([a_bad, a_ok, b_bad]) == "fails"


def test_half_unit_of_the_printed_digits_including_powers_of_ten():
    assert fc.half_unit("2.1") == pytest.approx(0.05)
    assert fc.half_unit("0.342") == pytest.approx(0.0005)
    assert fc.half_unit("16") == pytest.approx(0.5)
    assert fc.half_unit("5.18e21") == pytest.approx(0.005e21)
    assert fc.half_unit("3.06e-7") == pytest.approx(0.005e-7)


def test_local_slopes_recover_a_power_law_and_its_error():
    xs = [16, 64, 256]
    (b1, se1), (b2, _) = fc.local_slopes(xs, [x**-1.0 for x in xs], [0.0, 0.0, 0.0])
    assert b1 == pytest.approx(-1.0) and b2 == pytest.approx(-1.0) and se1 == 0.0
    (_, se), _ = fc.local_slopes(xs, [1.0, 1.0, 1.0], [0.1, 0.1, 0.0])
    assert se == pytest.approx(math.hypot(0.1, 0.1) / math.log(4))


def test_a_fraction_measured_as_zero_still_has_an_error():
    from core.factcheck.rules import fraction_error

    assert fraction_error(0.0, 1000) == pytest.approx(1e-3)  # Z_TOL of them = the rule of three
    assert fraction_error(0.5, 100) == pytest.approx(0.05)


# ---------------------------------------------------------------- measurements flip at their tolerance


def _fake_variance(var_offset_se=0.0):
    """A stand-in for ex.variance: Var(q·k) = d_k + offset·se."""

    def fake(dks, scales, trials, seed=0, rho=0.0, progress=None, **_):
        rows = []
        for d in dks:
            se = 0.01 * d
            for s in scales:
                c = 1.0 if s == "none" else 1.0 / math.sqrt(d)
                rows.append(
                    {
                        "dk": d,
                        "scale": s,
                        "c": c,
                        "var_raw": d + var_offset_se * se,
                        "var_raw_se": se,
                        "mean_raw": 0.0,
                        "var_scaled": c * c * (d + var_offset_se * se),
                        "var_scaled_se": c * c * se,
                    }
                )
        return {"rows": rows}

    return fake


@pytest.mark.parametrize(("offset", "expected"), [(2.9, "holds"), (3.1, "fails")])
def test_var_dk_flips_at_three_standard_errors(monkeypatch, offset, expected):
    monkeypatch.setattr(ex, "variance", _fake_variance(offset))
    assert fc.check("var_dk")["verdict"] == expected


def _fake_saturation(entropy):
    def fake(dks, n, scales, trials, seed=0, progress=None, **_):
        return {
            "rows": [
                {
                    "dk": d,
                    "n": n,
                    "scale": s,
                    "entropy_mean": entropy(d, s),
                    "entropy_se": 1e-4,
                    "effective_keys_mean": math.exp(entropy(d, s)),
                    "saturated_fraction": 0.0,
                }
                for d in dks
                for s in scales
            ]
        }

    return fake


def test_entropy_table_flips_at_its_printed_precision(monkeypatch):
    claimed = fc.get_claim("entropy_table").claimed
    tol = fc.Z_TOL * 1e-4 + 0.05
    monkeypatch.setattr(ex, "saturation", _fake_saturation(lambda d, s: float(claimed[(d, s)]) + 0.99 * tol))
    assert fc.check("entropy_table")["verdict"] == "holds"
    monkeypatch.setattr(ex, "saturation", _fake_saturation(lambda d, s: float(claimed[(d, s)]) + 1.01 * tol))
    assert fc.check("entropy_table")["verdict"] == "fails"


def test_linear_log_flips_when_log_stops_under_scaling(monkeypatch):
    ln10 = math.log(10)
    good = {"linear": ln10, "sqrt": 1.9, "log": 1.5}
    monkeypatch.setattr(ex, "saturation", _fake_saturation(lambda d, s: good[s]))
    assert fc.check("linear_log")["verdict"] == "holds"
    monkeypatch.setattr(ex, "saturation", _fake_saturation(lambda d, s: {**good, "log": 1.9}[s]))
    assert fc.check("linear_log")["verdict"] == "partly"
    monkeypatch.setattr(
        ex, "saturation", _fake_saturation(lambda d, s: {**good, "log": 1.9, "linear": 0.9 * ln10}[s])
    )
    assert fc.check("linear_log")["verdict"] == "fails"


def test_max_weight_print_flips_when_the_printed_value_leaves_the_distribution(monkeypatch):
    claimed = fc.get_claim("max_weight_print").claimed

    def around(shift, width):
        def fake(dks, scales, n, draws, seed, progress=None):
            return {
                (d, s): float(claimed[(d, s)]) + shift + np.linspace(-width, width, 1001)
                for d in dks
                for s in scales
            }

        return fake

    monkeypatch.setattr(mw, "matrix_max_weights", around(0.0, 0.05))
    assert fc.check("max_weight_print")["verdict"] == "holds"
    monkeypatch.setattr(mw, "matrix_max_weights", around(0.035, 0.025))
    assert fc.check("max_weight_print")["verdict"] == "fails"


def _fake_gradients(unscaled_median):
    def fake(dks, n, scales, trials, seed=0, progress=None, **_):
        jitter = 1.0 + 1e-3 * (seed % 7)
        rows = []
        for d in dks:
            rows.append(
                {
                    "dk": d,
                    "scale": "none",
                    "grad_q_norm_median": unscaled_median(d) * jitter,
                    "grad_q_norm_mean": 1.0,
                    "jacobian_norm_median": 0.1 * jitter,
                }
            )
            rows.append(
                {
                    "dk": d,
                    "scale": "sqrt",
                    "grad_q_norm_median": 0.3 * jitter,
                    "grad_q_norm_mean": 0.32,
                    "jacobian_norm_median": 0.25 * jitter,
                }
            )
        return {"rows": rows}

    return fake


def test_grad_claim_holds_for_a_true_inverse_power_and_fails_for_exp_decay(monkeypatch):
    monkeypatch.setattr(ex, "gradients", _fake_gradients(lambda d: 10.0 / d))
    assert fc.check("grad_inverse_dk")["verdict"] == "holds"
    monkeypatch.setattr(ex, "gradients", _fake_gradients(lambda d: math.exp(-0.35 * math.sqrt(d))))
    assert fc.check("grad_inverse_dk")["verdict"] == "partly"


@pytest.mark.parametrize(
    ("ratio", "expected"), [(1.0 + fc.TIME_TOL + 0.01, "partly"), (1.0 + fc.TIME_TOL - 0.01, "fails")]
)
def test_additive_practical_part_flips_at_the_time_tolerance(monkeypatch, ratio, expected):
    def fake(be, series, n, d, d_h, seed=0, repeats=5, warmup=1):
        return {
            (impl, eng): {
                "seconds": 0.01 * (ratio if impl == "additive" else 1.0),
                "seconds_min": 0.01,
                "seconds_max": 0.01,
            }
            for impl, eng in series
        }

    monkeypatch.setattr(mk, "measure_points", fake)
    assert fc.check("additive_cost")["verdict"] == expected


@pytest.mark.parametrize(("offset", "expected"), [(0.0, "holds"), (0.003, "fails")])
def test_range_claim_flips_with_the_measured_fraction(monkeypatch, offset, expected):
    claimed = math.erf(3 / math.sqrt(2))

    def fake(dks, n, trials, k, seed, progress=None):
        return {d: {"fraction": claimed - offset, "se": 1e-4, "rows_inside": 0.97} for d in dks}

    monkeypatch.setattr(mx, "fraction_within", fake)
    assert fc.check("range_3")["verdict"] == expected


# ---------------------------------------------------------------- claims as data


def test_every_claim_has_a_note_quote_question_and_source():
    assert len(set(fc.CLAIM_IDS)) == len(fc.CLAIMS)
    for c in fc.CLAIMS:
        assert c.note in fc.NOTE_FILES
        assert c.quote_zh and c.quote_en and c.question_en and c.question_zh and CJK.search(c.question_zh)
        assert len(c.also_zh) == len(c.also_en)
        assert c.sources and all(
            s.arxiv is None or re.fullmatch(r"\d{4}\.\d{4,5}", s.arxiv) for s in c.sources
        )
        assert (c.run is None) == (c.literature_verdict is not None)
        assert c.literature_verdict in (None, *fc.VERDICTS)
        if c.answer:
            assert c.answer_en and CJK.search(c.answer_zh) and c.answer_tol > 0


def test_every_note_has_cards_and_counts_add_up():
    rows = {r["note"]: r for r in fc.note_summary()}
    assert set(rows) == set(fc.NOTE_FILES)
    for seed, r in rows.items():
        assert r["checked"] >= 1 and r["measured"] >= 1, seed
        assert r["found"] == r["checked"] + r["not_checkable"]
        assert r["checked"] == r["measured"] + r["literature"] == len(fc.claims_of(seed))
        assert r["pending"] == r["measured"]  # nothing measured yet
        assert r["holds"] + r["partly"] + r["fails"] == r["literature"]


def test_notes_are_found_by_file_name_or_number():
    assert fc.get_note("004").file == fc.get_note("004_92c48293b3cbb5a6.txt").file == fc.get_note("4").file
    for bad in ("9", "x", ""):
        with pytest.raises(InputError):
            fc.get_note(bad)
    with pytest.raises(InputError):
        fc.check("nope")
    with pytest.raises(InputError):
        fc.check("n3_exps", seed=-1)


def _seed_dir():
    return next((d for d in SEEDS if d.is_dir()), None)


@pytest.mark.skipif(_seed_dir() is None, reason="the seed notes are not available on this machine")
def test_every_quoted_line_is_verbatim_in_its_note():
    root = _seed_dir()
    quoted = [(c.note, q) for c in fc.CLAIMS for q in (c.quote_zh, *c.also_zh)]
    quoted += [(u.note, u.quote_zh) for u in fc.UNCHECKED]
    for seed, q in quoted:
        flat = re.sub(r"\s+", " ", (root / seed).read_text(encoding="utf-8"))
        for line in q.splitlines():
            assert re.sub(r"\s+", " ", line.strip()) in flat, (seed, line)


# ---------------------------------------------------------------- every card, live


def test_live_progress_runs_to_one():
    seen = []
    fc.check("n3_entropy_trend", seed=3, progress=seen.append)
    assert seen and seen[-1] == pytest.approx(1.0) and all(0 <= x <= 1 for x in seen)


def test_matrix_max_is_the_max_over_the_whole_matrix():
    stats = fc.matrix_max_weights([16], ["none", "sqrt"], 10, 200, seed=1)
    x = stats[(16, "sqrt")]
    assert x.shape == (200,) and np.all((x >= 0.1) & (x <= 1.0))  # ≥ 1/n: a row's max is at least 1/n
    assert np.median(stats[(16, "none")]) > np.median(x)


# ---------------------------------------------------------------- the CLI gives the same per-note counts


def test_cli_refuses_an_unknown_note():
    p = subprocess.run(
        [sys.executable, "-m", "core", "factcheck", "--note", "042"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert p.returncode == 2 and p.stderr.startswith("error: unknown note")
