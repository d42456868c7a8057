"""The real model (core.real_model): our q, k reproduce the library's attention; statistics are sane.

Needs the optional package from requirements-model.txt; without it the model tests skip with
the reason (CI installs it, so they run there). Input checks and the statistics run without it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import real_model as rm
from core.errors import InputError

MISSING = rm.availability()
needs_model = pytest.mark.skipif(MISSING is not None, reason=f"optional model package: {MISSING}")

EN = "The quick brown fox jumps over the lazy dog because attention needs a scale."
ZH = "我们在学习中文和数学。"


# ---------------------------------------------------------------- without the model


@pytest.mark.parametrize("bad", ["", "   ", None, 42, "x" * (rm.MAX_CHARS + 1)])
def test_bad_sentences_are_refused(bad):
    with pytest.raises(InputError):
        rm.check_sentence(bad)


def test_sentence_is_stripped_and_kept_as_is():
    assert rm.check_sentence("  <b>hi</b>\n") == "<b>hi</b>"


def test_head_stats_match_the_iid_prediction_for_iid_inputs():
    """For independent iid N(0, σ²) q and k the raw spread is √d_k·σ_q·σ_k (ratio ≈ 1)."""
    rng = np.random.default_rng(0)
    n, d_k = 200, 64
    q = 1.5 * rng.standard_normal((n, d_k))
    k = 0.5 * rng.standard_normal((n, d_k))
    P = rm.recompute_probabilities(q, k, d_k)
    s = rm.head_stats(q, k, P, d_k)
    assert s["raw_over_pred"] == pytest.approx(1.0, abs=0.05)
    assert s["logit_std"] == pytest.approx(0.75, rel=0.05)  # σ_q·σ_k = 0.75
    assert s["ln_n"] == pytest.approx(math.log(n))
    assert 0 < s["entropy_mean"] < s["ln_n"]


def test_head_stats_see_saturation_and_uniformity():
    n, d_k = 8, 4
    k = np.eye(n)[:, :d_k] * 0.0
    q = np.ones((n, d_k))
    P = rm.recompute_probabilities(q, k, d_k)  # all logits 0: uniform rows
    s = rm.head_stats(q, k, P, d_k)
    assert s["entropy_mean"] == pytest.approx(math.log(n))
    assert s["saturated_fraction"] == 0.0
    q = 100.0 * np.eye(n)[:, :d_k]
    k = np.eye(n)[:, :d_k]
    P = rm.recompute_probabilities(q, k, d_k)
    s = rm.head_stats(q, k, P, d_k)
    assert s["saturated_fraction"] == pytest.approx(0.5)  # rows 0..3 pick their own key


def test_recomputed_rows_sum_to_one():
    rng = np.random.default_rng(1)
    P = rm.recompute_probabilities(rng.standard_normal((3, 5, 8)), rng.standard_normal((3, 5, 8)), 8)
    assert np.allclose(P.sum(-1), 1.0)


def test_availability_names_what_is_missing(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == rm.MODEL_PACKAGE else real(name, *a))
    reason = rm.availability()
    assert reason is not None and rm.MODEL_PACKAGE in reason
    with pytest.raises(rm.ModelUnavailableError):
        rm.load_model()


# ---------------------------------------------------------------- with the model


@needs_model
@pytest.mark.parametrize("text", [EN, ZH])
def test_our_q_k_reproduce_the_library_attention(text):
    x = rm.extract(text)
    L, H, n, d_k = x["Q"].shape
    assert (L, H, d_k) == (6, 12, 32)
    assert x["P_library"].shape == (L, H, n, n)
    P = rm.recompute_probabilities(x["Q"], x["K"], x["d_k"])
    assert np.abs(P - x["P_library"]).max() < 1e-5
    res = rm.analyse(text)
    assert res["params"]["library_max_abs_diff"] < 1e-5


@needs_model
def test_a_wrong_scale_would_not_reproduce_it():
    """The check has teeth: the same q, k with c = 1 instead of 1/√d_k miss by far more than 1e-5."""
    x = rm.extract(EN)
    P_wrong = rm.recompute_probabilities(x["Q"] * math.sqrt(x["d_k"]), x["K"], x["d_k"])
    assert np.abs(P_wrong - x["P_library"]).max() > 1e-2


@needs_model
def test_analysis_covers_every_layer_and_head():
    res = rm.analyse(EN)
    p = res["params"]
    assert len(res["rows"]) == p["layers"] * p["heads"] == 72
    assert res["tokens"][0] == "[CLS]" and res["tokens"][-1] == "[SEP]"
    assert res["attention"].shape == (6, 12, p["n"], p["n"])
    for r in res["rows"]:
        assert 0 <= r["entropy_mean"] <= r["ln_n"] + 1e-9
        assert 0 <= r["saturated_fraction"] <= 1
        assert r["raw_std"] > 0 and r["iid_pred"] > 0
        assert r["logit_std"] == pytest.approx(r["raw_std"] / math.sqrt(p["d_k"]))


@needs_model
def test_chinese_tokens_are_counted_and_long_input_truncated():
    res = rm.analyse(ZH)
    assert res["params"]["unk_tokens"] >= 1  # the vocabulary is English; CJK is mostly [UNK]
    long = "a," * (rm.MAX_CHARS // 2)  # one token per character: over MAX_TOKENS
    res = rm.analyse(long)
    p = res["params"]
    assert p["n"] == rm.MAX_TOKENS and p["truncated"] and p["tokens_total"] == rm.MAX_CHARS + 2
    assert not rm.analyse(EN)["params"]["truncated"]


@needs_model
def test_same_sentence_same_numbers():
    a, b = rm.analyse(EN), rm.analyse(EN)
    assert a["rows"] == b["rows"]
