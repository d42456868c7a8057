"""Fact-check: verdicts are functions of the measured numbers and flip with them, every card of every note
is measured and explained, the CLI reports the same per-note counts, and the live measurements reproduce
the science (SCIENCE.md §3)."""

import dataclasses
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from factcheck_live import live_results

from core import experiments as ex
from core import factcheck as fc
from core.errors import InputError
from core.factcheck import measure_cost as mk
from core.factcheck import measure_maxima as mx
from core.factcheck import measure_weights as mw
from pages.ui.i18n import TABLE

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
        assert c.seed in fc.NOTE_SEEDS
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
    assert set(rows) == set(fc.NOTE_SEEDS)
    for seed, r in rows.items():
        assert r["checked"] >= 1 and r["measured"] >= 1, seed
        assert r["found"] == r["checked"] + r["not_checkable"]
        assert r["checked"] == r["measured"] + r["literature"] == len(fc.claims_of(seed))
        assert r["pending"] == r["measured"]  # nothing measured yet
        assert r["holds"] + r["partly"] + r["fails"] == r["literature"]


def test_notes_are_found_by_file_name_or_number():
    assert fc.get_note("004").seed == fc.get_note("004_92c48293b3cbb5a6.txt").seed == fc.get_note("4").seed
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
    quoted = [(c.seed, q) for c in fc.CLAIMS for q in (c.quote_zh, *c.also_zh)]
    quoted += [(u.seed, u.quote_zh) for u in fc.UNCHECKED]
    for seed, q in quoted:
        flat = re.sub(r"\s+", " ", (root / seed).read_text(encoding="utf-8"))
        for line in q.splitlines():
            assert re.sub(r"\s+", " ", line.strip()) in flat, (seed, line)


# ---------------------------------------------------------------- every card, live


@pytest.fixture(scope="module")
def live():
    return live_results(0)


def _made(p: dict, true: bool) -> fc.Point:
    """The point with its claimed value moved so that it surely agrees (true) or surely does not."""
    m, tol, rel = p["measured"], p["tolerance"], p["relation"]
    far = tol + 1.0 + abs(m)
    if rel == "within":
        c = m if true else p["hi"] + 1.0 + abs(p["hi"])
        lo, hi = (min(p["lo"], m), max(p["hi"], m)) if true else (p["lo"], p["hi"])
        return fc.Point(p["quantity"], c, m, p["error"], tol, rel, p["part"], lo=lo, hi=hi)
    c = {"eq": (m, m + far), "below": (m + far, m - far), "above": (m - far, m + far)}[rel][0 if true else 1]
    return fc.Point(p["quantity"], c, m, p["error"], tol, rel, p["part"])


def test_every_card_is_judged_from_its_points_and_flips_with_them(live):
    verdicts = set()
    for c in fc.CLAIMS:
        r = live[c.id]
        if r["kind"] == "literature":
            assert r["verdict"] == c.literature_verdict and not r["points"]
            continue
        pts = [fc.Point(**{k: v for k, v in p.items() if k != "agrees"}) for p in r["points"]]
        assert pts and r["verdict"] == fc.verdict(pts), c.id
        assert all(p.agrees == q["agrees"] for p, q in zip(pts, r["points"], strict=True))
        # replace the claimed value by the measured one: an equality or plausibility point then agrees
        for p in pts:
            if p.relation in ("eq", "within") and not math.isnan(p.measured):
                assert dataclasses.replace(p, claimed=p.measured).agrees, (c.id, p)
        assert fc.verdict([_made(p, True) for p in r["points"]]) == "holds", c.id
        assert fc.verdict([_made(p, False) for p in r["points"]]) == "fails", c.id
        verdicts.add(r["verdict"])
    assert verdicts == set(fc.VERDICTS)  # the notes are right, half right and wrong: no constant verdict


def test_every_card_can_be_explained_and_drilled(live):
    for c in fc.CLAIMS:
        r = live[c.id]
        text = {k: str(v) for k, v in r["facts"].items()}
        for lang in ("en", "zh"):
            TABLE[f"factcheck.{c.id}.explain"][lang].format(**text)  # every placeholder is a measured fact
        for p in r["points"]:
            assert f"factcheck.qty.{p['quantity']}" in TABLE and f"factcheck.part.{p['part']}" in TABLE
        if c.answer:
            truth = fc.grade(c.id, r["facts"], 1.0)["truth"]
            assert fc.grade(c.id, r["facts"], truth)["correct"], c.id
            assert not fc.grade(c.id, r["facts"], truth * 10 + 1)["correct"], c.id
            assert not fc.grade(c.id, r["facts"], float("nan"))["correct"]
    json.dumps(list(live.values()))  # results are plain data (cacheable, CLI-printable)


def test_live_verdicts_match_the_science(live):
    v = {k: r["verdict"] for k, r in live.items()}
    # SCIENCE.md §3: (a) holds; (b) variance-preserving at init only; (c) not ∝ 1/d_k, scaled flat;
    # (d) the printed tables are not reproducible; (h) softmax print, p(1 − p), normality, ±3 for the largest.
    assert v["var_dk"] == v["n0_var"] == v["n1_var"] == "holds"
    assert v["sqrt_optimal"] == "partly" and v["grad_inverse_dk"] == "partly"
    assert v["entropy_table"] == v["max_weight_print"] == v["n3_print_3"] == v["n3_pq"] == "fails"
    assert v["n0_normal"] == v["n4_range_3"] == v["n4_first_last"] == v["n4_init"] == "partly"
    assert v["n2_grad_wq"] == v["n4_cosine"] == "fails"


def test_live_measurements_agree_with_theory(live):
    f = {k: r["facts"] for k, r in live.items()}
    for d in (16, 64, 256, 1024):  # excess kurtosis of q·k/√d_k is 6/d_k
        assert f["n0_normal"][f"kurtosis_{d}"] == pytest.approx(6 / d, abs=0.02)
    softmax = np.exp([-3.0, -1, 0, 1, 3]) / np.exp([-3.0, -1, 0, 1, 3]).sum()
    assert f["n3_print_3"]["softmax"] == pytest.approx(list(softmax), rel=1e-12)
    assert f["n3_print_3"]["printed_sum"] == pytest.approx(2.0)
    largest = [f["n4_range_3"][f"largest_{n}"] for n in (3, 10, 128, 512)]
    assert largest == sorted(largest) and largest[1] == pytest.approx(3, abs=0.5) and largest[-1] > 4.5
    assert f["n4_first_last"]["edge_10_pct"] == pytest.approx(0.2, abs=0.01)
    assert f["n4_init"]["var_std"] == pytest.approx(1 / 512, rel=0.05)
    assert f["n2_xavier"]["q_var_768_64"] == pytest.approx(2 * 768 / (768 + 64), rel=0.02)
    assert f["n2_qk_amplified"]["rel_init"] == pytest.approx(math.sqrt(2), abs=0.1)
    assert f["n2_grad_wq"]["chain_error"] < 1e-9
    assert f["n2_grad_wq"]["notes_error"] > 0.5
    assert f["n0_overflow"]["naive_float16_pct"] > 0.3 and f["n0_overflow"]["naive_float32_pct"] == 0.0
    assert f["n4_cosine"]["ratio_512"] == pytest.approx(math.sqrt(512), rel=0.02)


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


def test_cli_note_json_reports_the_same_counts_and_verdicts(live):
    note = "004_92c48293b3cbb5a6.txt"
    p = subprocess.run(
        [sys.executable, "-m", "core", "factcheck", "--note", note, "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    mine = [live[c.id] for c in fc.claims_of(note)]
    assert [r["id"] for r in out["rows"]] == [r["id"] for r in mine]
    assert [r["verdict"] for r in out["rows"]] == [r["verdict"] for r in mine]
    (summary,) = out["params"]["notes"]
    assert summary == next(s for s in fc.note_summary(mine) if s["note"] == note)
    assert summary["pending"] == 0 and summary["found"] == summary["checked"] + summary["not_checkable"]
    assert len(out["params"]["not_checkable"]) == summary["not_checkable"]


def test_cli_refuses_an_unknown_note():
    p = subprocess.run(
        [sys.executable, "-m", "core", "factcheck", "--note", "042"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert p.returncode == 2 and p.stderr.startswith("error: unknown note")
