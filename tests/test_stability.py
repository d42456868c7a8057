"""The miniature transformer of core.stability: its logged quantities against hand computations on tiny
cases, the run-stacking against runs trained alone, and reproducibility (same seed, same numbers)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from core.errors import InputError
from core.stability import model as mdl
from core.stability import sweep as sw
from core.stability import train as tr

TINY = mdl.ModelConfig(d_model=8, heads=2, layers=2, keys=6, values=4, pairs=3)


def test_entropy_matches_hand_values():
    p = torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5]])
    expected = [math.log(2), 0.0, -(2 * 0.25 * math.log(0.25) + 0.5 * math.log(0.5))]
    assert mdl.entropy(p).tolist() == pytest.approx(expected, abs=1e-6)


def test_head_entropies_average_rows_per_head_and_layer():
    # R=1, B=1, H=2, T=2: head 0 uniform rows (ln 2), head 1 one-hot rows (0); two layers the same
    p = torch.tensor([[[[[0.5, 0.5], [0.5, 0.5]], [[1.0, 0.0], [0.0, 1.0]]]]])
    h = mdl.head_entropies([p, p])
    assert h.shape == (1, 4)
    assert h[0].tolist() == pytest.approx([math.log(2), 0.0, math.log(2), 0.0], abs=1e-6)
    assert float(h.amin()) == pytest.approx(0.0) and float(h.mean()) == pytest.approx(math.log(2) / 2)


def test_max_logit_is_the_largest_over_layers_and_runs_apart():
    s1 = torch.zeros(2, 1, 1, 2, 2)
    s2 = torch.zeros(2, 1, 1, 2, 2)
    s1[0, 0, 0, 1, 0] = 7.0
    s2[1, 0, 0, 0, 1] = -1.0
    s2[1, 0, 0, 1, 1] = 3.0
    assert mdl.max_logit([s1, s2]).tolist() == [7.0, 3.0]


def test_output_logit_norm_and_log_partition():
    z = torch.tensor([[[3.0, 4.0], [0.0, 0.0]]])  # R=1, B=2, V=2
    assert mdl.logit_norm(z).tolist() == pytest.approx([2.5])  # (5 + 0) / 2
    expected = (math.log(math.exp(3) + math.exp(4)) + math.log(2)) / 2
    assert mdl.log_partition(z).tolist() == pytest.approx([expected], rel=1e-6)


def test_losses_cross_entropy_and_z_loss_by_hand():
    z = torch.tensor([[[1.0, 2.0, 0.0]]])
    target = torch.tensor([1])
    lnz = math.log(math.e + math.e ** 2 + 1)
    base = mdl.losses(z, target, "baseline")
    assert base["ce"].tolist() == pytest.approx([lnz - 2.0], rel=1e-6)
    assert base["z_loss"].tolist() == [0.0]
    zl = mdl.losses(z, target, "z-loss")
    assert zl["z_loss"].tolist() == pytest.approx([1e-4 * lnz ** 2], rel=1e-5)
    assert zl["total"].tolist() == pytest.approx([lnz - 2.0 + 1e-4 * lnz ** 2], rel=1e-6)


def test_grad_norm_sums_every_parameter_per_run():
    a = torch.zeros(2, 2, requires_grad=True)
    b = torch.zeros(2, 3, requires_grad=True)
    a.grad = torch.tensor([[3.0, 0.0], [1.0, 1.0]])
    b.grad = torch.tensor([[0.0, 4.0, 0.0], [1.0, 1.0, 0.0]])
    assert mdl.grad_norm({"a": a, "b": b}).tolist() == pytest.approx([5.0, 2.0])


def _first_layer_scores_by_hand(params: dict, batch: dict, variant: str) -> torch.Tensor:
    """Layer 1's attention logits of run 0, written out token by token."""
    d, H = TINY.d_model, TINY.heads
    dk = d // H
    x = [params["e_key"][0, k] + params["e_val"][0, v] for k, v in zip(batch["keys"][0], batch["vals"][0],
                                                                          strict=True)]
    x.append(params["e_key"][0, batch["query"][0]] + params["e_query"][0])
    X = torch.stack(x)
    h = (X - X.mean(-1, keepdim=True)) / (X.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
    q, k, _ = (h @ params["l0.w_qkv"][0]).split(d, dim=-1)
    out = torch.empty(H, len(x), len(x))
    for head in range(H):
        qh, kh = q[:, head * dk:(head + 1) * dk], k[:, head * dk:(head + 1) * dk]
        if variant == "qk-norm":
            qh = (qh - qh.mean(-1, keepdim=True)) / (qh.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
            kh = (kh - kh.mean(-1, keepdim=True)) / (kh.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
        for i in range(len(x)):
            for j in range(len(x)):
                out[head, i, j] = qh[i] @ kh[j] / math.sqrt(dk)
    return out


@pytest.mark.parametrize("variant", ["baseline", "qk-norm"])
def test_attention_logits_are_q_dot_k_over_sqrt_dk(variant):
    g = torch.Generator().manual_seed(3)
    params = mdl.init_params(TINY, variant, 2, g)
    batch = mdl.make_batch(TINY, 2, g)
    with torch.no_grad():
        out = mdl.forward(params, variant, TINY, batch)
        hand = _first_layer_scores_by_hand(params, batch, variant)
    assert out["scores"][0][0, 0].numpy() == pytest.approx(hand.numpy(), abs=1e-5)
    if variant == "qk-norm":  # unit gains: |LN(q)·LN(k)| ≤ d_k, so |s| ≤ √d_k
        assert float(out["scores"][0].abs().max()) <= math.sqrt(TINY.d_k) + 1e-4


def test_soft_cap_bounds_every_logit():
    g = torch.Generator().manual_seed(0)
    params = mdl.init_params(TINY, "soft-cap", 1, g)
    with torch.no_grad():
        params["l0.w_qkv"] *= 40.0  # logits in the thousands without the cap
        out = mdl.forward(params, "soft-cap", TINY, mdl.make_batch(TINY, 4, g))
    top = float(max(s.abs().max() for s in out["scores"]))
    assert 40.0 < top <= mdl.SOFT_CAP


def test_the_task_answer_is_the_value_of_the_repeated_key():
    b = mdl.make_batch(TINY, 16, torch.Generator().manual_seed(1))
    for keys, vals, q, y in zip(b["keys"], b["vals"], b["query"], b["target"], strict=True):
        assert len(set(keys.tolist())) == TINY.pairs
        assert y == vals[keys.tolist().index(int(q))]


def test_schedule_warms_up_then_decays_to_zero():
    steps = 100
    values = [tr.schedule(t, steps) for t in range(steps)]
    assert values[0] == pytest.approx(0.1) and values[9] == pytest.approx(1.0)
    assert all(b <= a for a, b in itertools.pairwise(values[9:]))
    assert values[-1] < 0.001


def test_stacked_runs_follow_the_path_each_follows_alone():
    cfg = tr.TrainConfig(steps=12, batch=4, seed=5)
    both = tr.train_runs("qk-norm", [0.01, 0.2], TINY, cfg)
    alone = [tr.train_runs("qk-norm", [lr], TINY, cfg)[0] for lr in (0.01, 0.2)]
    for stacked, single in zip(both, alone, strict=True):
        for m in ("loss", "max_logit", "entropy_min", "grad_norm"):
            assert stacked[m] == pytest.approx(single[m], rel=1e-4, abs=1e-5), m


def test_every_run_of_a_call_starts_from_the_same_loss_and_logs_every_metric():
    logs = tr.train_runs("baseline", [0.001, 0.1, 1.0], TINY, tr.TrainConfig(steps=15, batch=8))
    assert {log["loss"][0] for log in logs} == {logs[0]["loss"][0]}
    for log in logs:
        assert set(log) == set(tr.METRICS) and all(len(v) == 15 for v in log.values())
        assert log["diverged"][0] == 0.0  # step 0 is the start itself
        assert all((d == 1.0) == (not math.isfinite(x) or x > log["loss"][0])
                   for x, d in zip(log["loss"], log["diverged"], strict=True))


def test_lr_sensitivity_by_hand():
    # capped at ℓ₀ = 3: (1, 2, 3 [NaN], 3 [5 > ℓ₀]); best 1 → mean(0, 1, 2, 2) = 1.25
    assert sw.lr_sensitivity([1.0, 2.0, math.nan, 5.0], 3.0) == pytest.approx(1.25)
    assert sw.lr_sensitivity([0.5, 0.5], 3.0) == 0.0
    with pytest.raises(InputError):
        sw.lr_sensitivity([], 1.0)


def test_summary_flags_divergence_and_collapse():
    steps = 20
    log = {m: [1.0] * steps for m in tr.METRICS}
    log["loss"] = [2.0] + [1.0] * 10 + [3.0] * 9
    log["diverged"] = [0.0] + [0.0] * 10 + [1.0] * 9
    log["entropy_min"] = [1.0] * 5 + [0.05] * 15
    s = sw.summarise(log, steps)
    assert s["diverged"] and s["loss_final"] == 3.0 and s["steps_above_start"] == 9
    assert s["collapsed"] and s["collapse_step"] == 5
    log["loss"][-1] = math.nan
    s = sw.summarise(log, steps)
    assert s["diverged"] and s["nan_step"] == steps - 1 and math.isnan(s["loss_final"])


def test_sweep_is_reproducible_and_reports_every_run():
    kwargs = {"variants": ["baseline", "qk-norm"], "lrs": [0.01, 0.3], "steps": 12, "batch": 8, "seed": 4}
    a, b = sw.sweep(**kwargs), sw.sweep(**kwargs)
    assert [r | {} for r in a["rows"]] == b["rows"] and a["curves"] == b["curves"]
    assert len(a["rows"]) == 4 and [v["variant"] for v in a["variants"]] == ["baseline", "qk-norm"]
    c = sw.sweep(**{**kwargs, "seed": 5})
    assert c["rows"][0]["loss_final"] != a["rows"][0]["loss_final"]
    steps = {c["step"] for c in a["curves"]}
    assert 0 in steps and 11 in steps


def test_question_answers_the_run_that_collapses_first():
    rows = [{"variant": "baseline", "lr": 0.1, "nan_step": None, "diverged": False, "collapsed": True,
             "collapse_step": 9},
            {"variant": "qk-norm", "lr": 0.1, "nan_step": None, "diverged": False, "collapsed": False,
             "collapse_step": None},
            {"variant": "z-loss", "lr": 0.1, "nan_step": None, "diverged": False, "collapsed": True,
             "collapse_step": 4}]
    out = {"rows": rows, "params": {"lrs": [0.1], "steps": 50, "variants": ["baseline", "qk-norm", "z-loss"]}}
    q = sw.diverges_first_question(out)
    assert q["measure"] == "collapse_step" and q["lr"] == 0.1
    assert [c["key"] for c in q["choices"]] == ["baseline", "qk-norm", "z-loss", "none"]
    assert q["correct"] == [2]
    rows[1]["nan_step"] = 30  # a NaN loss is a divergence, which outranks a collapse
    q = sw.diverges_first_question(out)
    assert q["measure"] == "diverged" and q["correct"] == [1]
    for r in rows:
        r.update(nan_step=None, collapse_step=None)
    assert sw.diverges_first_question(out)["correct"] == [3]  # "none of them"


def test_bad_inputs_are_refused():
    with pytest.raises(InputError):
        sw.sweep(variants=["sigma"], steps=12)
    with pytest.raises(InputError):
        sw.sweep(lrs=[0.0], steps=12)
    with pytest.raises(InputError):
        sw.sweep(steps=3)


def test_findings_and_the_collapse_view_read_the_rows():
    def row(variant, lr, collapsed, peak, norm=5.0):
        return {"variant": variant, "lr": lr, "collapsed": collapsed, "max_logit_peak": peak,
                "logit_norm_final": norm, "diverged": False}

    rows = [row("baseline", 0.01, False, 9.0), row("baseline", 0.1, True, 900.0, norm=7.0),
            row("qk-norm", 0.01, False, 4.0), row("qk-norm", 0.1, False, 12.0)]
    out = {"rows": rows, "variants": [{"variant": "baseline", "sensitivity": 1.0},
                                      {"variant": "qk-norm", "sensitivity": 0.5}],
           "params": {"lrs": [0.01, 0.1], "variants": ["baseline", "qk-norm"]},
           "curves": [{"variant": v, "lr": lr, "step": 0}
                      for v in ("baseline", "qk-norm") for lr in (0.01, 0.1)]}
    f = sw.findings(out)
    assert f["collapse_only_baseline"] == [0.1] and f["twins"] == 2 and f["diverged"] == 0
    assert f["peak_logit"] == {"baseline": 900.0, "qk-norm": 12.0} and f["logit_norm"]["baseline"] == 7.0
    view = sw.collapse_view(out)
    assert view["lr"] == 0.1 and {c["lr"] for c in view["curves"]} == {0.1} and len(view["runs"]) == 2
    rows[1]["collapsed"] = False  # nothing collapses: the view falls back to the largest rate
    assert sw.collapse_lr(out) == 0.1 and sw.findings(out)["collapse_only_baseline"] == []
