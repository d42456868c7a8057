"""Softmax against Scalable-Softmax as n grows (core.stability.length), and the CLI's two subcommands."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from core import cli
from core.errors import InputError
from core.stability import length

PAPER = {10: "0.94", 100: "0.60", 1000: "0.13", 10000: "0.015"}  # Nakanishi 2025, the opening example


def test_toy_case_matches_the_papers_numbers():
    rows = {(r["n"], r["method"]): r for r in length.toy()["rows"]}
    for n, printed in PAPER.items():
        digits = len(printed.split(".")[1]) if n < 10000 else 3
        assert f"{rows[(n, 'none')]['max_weight']:.{digits}f}" == printed
        hand = math.exp(5) / (math.exp(5) + n - 1)
        assert rows[(n, "none")]["max_weight"] == pytest.approx(hand, rel=1e-12)
        assert rows[(n, "ssmax")]["max_weight"] > 0.97  # SSMax stays near 1
        assert rows[(n, "ssmax")]["max_weight"] == pytest.approx(rows[(n, "ssmax")]["closed_form"], rel=1e-12)


def test_measured_softmax_fades_and_ssmax_keeps_the_matching_key():
    rows = {(r["n"], r["method"]): r for r in length.measured(trials=12)["rows"]}
    plain = [rows[(n, "none")]["target_weight_mean"] for n in length.TOY_NS]
    ssmax = [rows[(n, "ssmax")]["target_weight_mean"] for n in length.TOY_NS]
    assert all(b < a for a, b in itertools.pairwise(plain))  # fades as n grows
    assert all(s > p for s, p in zip(ssmax, plain, strict=True))
    assert ssmax[-1] > 10 * plain[-1]
    for n in length.TOY_NS:  # entropy never above ln n
        assert rows[(n, "none")]["entropy_mean"] <= math.log(n) + 1e-9


def test_measured_is_reproducible_and_checks_its_input():
    assert length.measured(ns=[10, 100], trials=3, seed=2) == length.measured(ns=[10, 100], trials=3, seed=2)
    with pytest.raises(InputError):
        length.measured(ns=[1])
    with pytest.raises(InputError):
        length.toy(ns=[10**6])


def test_cli_ssmax_json(capsys):
    assert cli.main(["ssmax", "--n", "10", "100", "--trials", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["experiment"] == "ssmax"
    toy = [r for r in out["rows"] if r["source"] == "toy" and r["method"] == "none"]
    assert [round(r["max_weight"], 2) for r in toy] == [0.94, 0.60]


def test_cli_stability_json(capsys):
    args = ["stability", "--steps", "10", "--lr", "0.01", "0.3", "--variant", "baseline", "qk-norm", "--json"]
    assert cli.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["experiment"] == "stability" and len(out["rows"]) == 4
    assert {r["variant"] for r in out["rows"]} == {"baseline", "qk-norm"}
    q = out["params"]["question"]
    assert q["question"] == "diverges_first" and q["choices"][-1]["key"] == "none"
    assert [v["variant"] for v in out["params"]["variants_summary"]] == ["baseline", "qk-norm"]
    assert cli.main(["stability", "--variant", "sigma"]) == 2
