"""Fact-check, measured: every card of every note is measured (once per test process, seed 0:
tests/factcheck_live.py, about 45 s), judged from its points and flipped with them, explained and
drilled; the CLI reports the same per-note counts, and the live measurements reproduce the science
(docs/science.md §3)."""

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from factcheck_live import live_results

from core import factcheck as fc
from pages.ui.i18n import TABLE

pytestmark = pytest.mark.slow


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
    # docs/science.md §3: (a) holds; (b) variance-preserving at init only; (c) not ∝ 1/d_k, scaled flat;
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
