"""core.cost and the cost experiment: the FLOP/byte model, factored == naive, torch lines, peaks, sweeps."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import attention as A
from core import cost as C
from core import experiments as ex
from core.backend import cupy_available, get_backend
from core.errors import BudgetError, InputError

# ---------------------------------------------------------------- the model, by hand


def test_cost_model_hand_computed_n2_d3_dh4():
    # n = 2, d = 3, d_h = 4. Shared tail: softmax 5n² = 20, P V 2n²d = 24 → 44.
    dot = ex.cost_model("dot", 2, 3, 4)
    assert dot["flops"] == 2 * 4 * 3 + 44 == 68
    assert dot["special"] == 4  # n² exp
    assert dot["intermediate_bytes"] == 4 * 4  # n² float32 scores
    assert dot["bytes"] == 4 * (3 * 2 * 3 + 2 * 3 + 4) == 112
    add = ex.cost_model("additive", 2, 3, 4)
    assert add["flops"] == 4 * 2 * 3 * 4 + 3 * 4 * 4 + 44 == 188  # 4·n·d·d_h + 3·n²·d_h + tail
    assert add["special"] == 4 * 4 + 4 == 20  # n²·d_h tanh + n² exp
    assert add["intermediate_bytes"] == 4 * 16  # n²·d_h
    assert add["bytes"] == 4 * (24 + 16) == 160
    naive = ex.cost_model("additive-naive", 2, 3, 4)
    assert naive["flops"] == 4 * 4 * 3 * 4 + 3 * 4 * 4 + 44 == 284  # 4·n²·d·d_h + …
    assert naive["special"] == add["special"]


@given(st.integers(1, 512), st.integers(1, 256), st.integers(1, 256))
def test_naive_minus_factored_is_the_repeated_projections(n, d, d_h):
    gap = ex.cost_model("additive-naive", n, d, d_h)["flops"] - ex.cost_model("additive", n, d, d_h)["flops"]
    assert gap == pytest.approx(4.0 * d * d_h * (n * n - n))


def test_intermediate_memory_is_n2_dh_against_n2():
    for n, d_h in [(128, 64), (1024, 128)]:
        a = ex.cost_model("additive", n, 64, d_h, itemsize=8)
        b = ex.cost_model("dot", n, 64, d_h, itemsize=8)
        assert a["intermediate_bytes"] / b["intermediate_bytes"] == d_h


# ---------------------------------------------------------------- factored == naive


@pytest.mark.parametrize(("n", "m", "d", "d_h"), [(1, 1, 1, 1), (7, 5, 3, 4), (33, 40, 16, 9)])
def test_factored_additive_scores_equal_naive_and_the_definition(n, m, d, d_h):
    rng = np.random.default_rng(3)
    Q, K = rng.standard_normal((n, d)), rng.standard_normal((m, d))
    W1, W2, v = rng.standard_normal((d_h, d)), rng.standard_normal((d_h, d)), rng.standard_normal(d_h)
    # s_ij = vᵀ tanh(W₁ q_i + W₂ k_j), straight from the definition with einsum
    definition = np.einsum("h,ijh->ij", v, np.tanh(np.einsum("hd,id->ih", W1, Q)[:, None, :]
                                                    + np.einsum("hd,jd->jh", W2, K)[None, :, :]))
    np.testing.assert_allclose(A.additive_attention_scores(Q, K, W1, W2, v), definition, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(A.additive_attention_scores_naive(Q, K, W1, W2, v), definition,
                               rtol=1e-12, atol=1e-12)


def test_factored_and_naive_outputs_agree_in_the_sweep():
    rows = ex.measure_points(get_backend("numpy", "float64"), [("additive", "numpy"),
                                                              ("additive-naive", "numpy")],
                             n=48, d=8, d_h=6, repeats=1)
    a, b = rows[("additive", "numpy")]["output"], rows[("additive-naive", "numpy")]["output"]
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


# ---------------------------------------------------------------- peaks


def test_datasheet_peak_reproduces_the_h100_fp32_rate():
    # H100 SXM: 132 SMs at 1.98 GHz, 128 FP32 lanes → ~67 TFLOP/s (docs/science.md §5); 16 SFU lanes.
    p = C.datasheet_peak(132, 1.98e9, 9, 0)
    assert p["fp32_flops_per_s"] == pytest.approx(67e12, rel=0.01)
    assert p["fp32_flops_per_s"] / p["sfu_per_s"] == 16.0  # 2·128 FLOPs per 16 tanh


def test_roofline_takes_the_slower_of_flops_and_special_functions():
    peak = {"gemm_flops_per_s": 100.0, "tanh_per_s": 10.0}
    assert C.roofline_seconds(1000.0, 5.0, peak) == 10.0  # FLOP-bound
    assert C.roofline_seconds(1000.0, 500.0, peak) == 50.0  # tanh-bound
    assert C.roofline_seconds(1.0, 1.0, {**peak, "fp32_flops_per_s": 1.0, "sfu_per_s": 0.5}) == 2.0


def test_machine_peak_is_measured_and_plausible():
    p = C.machine_peak("numpy", "float32")
    assert 1e8 < p["gemm_flops_per_s"] < 1e14
    assert 1e6 < p["tanh_per_s"] < 1e12
    assert p["fp32_flops_per_s"] is None  # no datasheet line on the CPU


def test_best_peak_keeps_the_higher_rate_of_two_measurements():
    a = {"gemm_flops_per_s": 5.0, "tanh_per_s": 9.0, "gemm_size": 1024}
    b = {"gemm_flops_per_s": 7.0, "tanh_per_s": 3.0, "gemm_size": 1024}
    assert C.best_peak(a, b) == {"gemm_flops_per_s": 7.0, "tanh_per_s": 9.0, "gemm_size": 1024}


def test_geometric_sizes():
    assert C.geometric_sizes(128, 1024) == [128, 256, 512, 1024]
    assert C.geometric_sizes(100, 100) == [128]
    with pytest.raises(InputError):
        C.geometric_sizes(64, 32)


# ---------------------------------------------------------------- torch reference


@pytest.mark.parametrize("impl", ["dot", "additive"])
def test_torch_reference_matches_ours(impl):
    rows = ex.measure_points(get_backend("numpy", "float64"), [(impl, "numpy"), (impl, "torch")],
                             n=40, d=8, d_h=5, repeats=1)
    ours, ref = rows[(impl, "numpy")], rows[(impl, "torch")]
    np.testing.assert_allclose(ours["output"], ref["output"], rtol=1e-10, atol=1e-12)
    assert ref["engine"] == "torch" and ours["flops"] == ref["flops"]


def test_torch_has_no_naive_reference():
    with pytest.raises(InputError):
        ex.torch_impl("additive-naive", {}, 4)


# ---------------------------------------------------------------- the sweep


def _small(**kw):
    args = {"ns": [16, 32, 64], "ds": [4, 8, 16], "repeats": 2, "seed": 0}
    args.update(kw)
    return C.explore(**args)


def test_explore_structure_fits_and_checks():
    r = _small()
    assert r["experiment"] == "cost-sweep" and r["params"]["n_at"] == 32 and r["params"]["d_at"] == 8
    series = {row["series"] for row in r["rows"]}
    assert series == {"dot", "additive", "additive-naive", "dot (torch)", "additive (torch)"}
    assert len(r["rows"]) == 5 * (3 + 3)
    for row in r["rows"]:
        assert {"impl", "n", "d", "d_h", "seconds", "flops", "bytes"} <= row.keys()
        assert row["seconds_lo"] <= row["seconds"] <= row["seconds_hi"]
        assert row["d_h"] == row["d"]  # d_h = None ties d_h to d
        if row["max_abs_diff"] is not None:
            assert row["max_abs_diff"] < 1e-4  # naive and torch agree with our references
    assert {(f["axis"], f["series"]) for f in r["fits"]} == {(a, s) for a in "nd" for s in series}
    for f in r["fits"]:
        assert f["ci_low"] <= f["exponent"] <= f["ci_high"] and f["points"] == 3
    naive_d = next(f for f in r["fits"] if f["axis"] == "d" and f["impl"] == "additive-naive")
    assert naive_d["model_exponent"] > 1.5  # n²·d·d_h with d_h = d: the notes' n²d²
    assert {q["series"] for q in r["ratios"]} == series - {"dot", "dot (torch)"}
    assert [t["series"] for t in r["table"]] == ["dot", "additive", "additive-naive", "dot (torch)",
                                                 "additive (torch)"]
    json.dumps(r)  # the whole result is plain data


def test_naive_beyond_the_safe_time_is_extrapolated_not_run():
    r = _small(torch_ref=False, naive_max_seconds=1e-9)
    naive = [row for row in r["rows"] if row["impl"] == "additive-naive" and row["axis"] == "n"]
    assert [row["measured"] for row in naive] == [True, False, False]
    first = naive[0]
    for row in naive[1:]:  # one measured point: scaled by the model's FLOPs
        assert row["seconds"] == pytest.approx(first["seconds"] * row["flops"] / first["flops"])
        assert row["repeats"] == 0 and row["timer"] == "extrapolated"
    assert not any(f["impl"] == "additive-naive" for f in r["fits"])  # no fit from one point
    dot = [row for row in r["rows"] if row["impl"] == "dot"]
    assert all(row["measured"] for row in dot)


def test_extrapolation_follows_the_fit_of_measured_points():
    rows = [{"n": n, "seconds": 1e-9 * n**2.0, "flops": 1.0} for n in (100, 200, 400)]
    s, lo, hi = C._predict(rows, "n", 1600, 8, 8, "additive-naive", get_backend("numpy"), 0.95)
    assert s == pytest.approx(1e-9 * 1600**2) and lo == pytest.approx(s) and hi == pytest.approx(s)


def test_fixed_d_h_and_explicit_sizes():
    r = _small(d_h=3, n_at=16, d_at=4, torch_ref=False, impls=["additive"])
    assert r["params"]["impl"] == ["dot", "additive"]  # dot is always there: ratios need it
    assert {row["d_h"] for row in r["rows"]} == {3}
    assert {row["n"] for row in r["rows"] if row["axis"] == "d"} == {16}


def test_explore_refuses_work_over_budget_and_bad_input():
    with pytest.raises(BudgetError):
        C.explore([4096, 8192], [512], repeats=5, time_budget=1.0)
    with pytest.raises(InputError):
        C.explore([16], [8], impls=["quadratic"])
    with pytest.raises(InputError):
        C.explore([16], [8], naive_max_seconds=0)


def test_progress_reaches_one_and_is_reported_after_every_timed_call():
    seen: list[float] = []
    _small(torch_ref=False, progress=seen.append)
    assert seen == sorted(seen) and seen[0] > 0 and seen[-1] == 1.0
    # every point of the 6 (3 n, 3 d) is reported done, and between two points the report comes
    # after each call: a shared server lets other work go first there (pages/ui/compute.py)
    assert {k / 6 for k in range(1, 7)} <= set(seen)
    assert any(k / 6 < f < (k + 1) / 6 for f in seen for k in range(6))
    assert len(seen) > 6 * 3 * 3  # 3 implementations × (1 warm-up + 2 repeats) at least, per point


def test_measure_points_reports_the_fraction_of_its_calls():
    be = get_backend("numpy", "float64")
    seen: list[float] = []
    rows = ex.measure_points(be, [("dot", "numpy"), ("dot", "torch")], 16, 4, 4, repeats=2,
                             between=seen.append)
    assert set(rows) == {("dot", "numpy"), ("dot", "torch")}
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert seen[:3] == [1 / 6, 2 / 6, 3 / 6]  # 2 series × (1 warm-up + 2 repeats) planned


# ---------------------------------------------------------------- the CLI drives the same code


def test_cli_cost_fit_json():
    out = subprocess.run([sys.executable, "-m", "core", "cost", "--fit", "--n", "16", "32", "64",
                          "--d", "4", "8", "--d-at", "4", "--repeats", "2", "--no-torch", "--json"],
                         capture_output=True, text=True, check=True, timeout=120)
    r = json.loads(out.stdout)
    assert r["experiment"] == "cost-sweep" and r["fits"] and r["ratios"]
    assert r["params"]["d_at"] == 4 and r["params"]["n_at"] == 32
    for row in r["rows"]:
        assert {"impl", "n", "d", "d_h", "seconds", "flops", "bytes"} <= row.keys()


def test_cli_cost_fit_table_lists_exponents():
    out = subprocess.run([sys.executable, "-m", "core", "cost", "--fit", "--n", "16", "32", "64",
                          "--d", "8", "--repeats", "2", "--no-torch"],
                         capture_output=True, text=True, check=True, timeout=120)
    assert "exponent" in out.stdout and "additive-naive" in out.stdout


# ---------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.skipif(not cupy_available(), reason="needs CuPy and an NVIDIA GPU")
def test_gpu_sweep_uses_cuda_events_and_datasheet_peak():
    r = C.explore([64, 128, 256], [16, 32], backend="cupy", repeats=3)
    assert {row["timer"] for row in r["rows"] if row["measured"]} == {"cuda-events"}
    assert r["peak"]["fp32_flops_per_s"] > 1e12 and r["peak"]["sfu_per_s"] > 1e11
    for row in r["rows"]:
        if row["max_abs_diff"] is not None:
            assert row["max_abs_diff"] < 1e-3


def test_the_threads_reported_are_numpys_blas_whatever_scipys_runs():
    import scipy.linalg  # noqa: F401 (SciPy's own OpenBLAS, as the fits load it)
    from threadpoolctl import OpenBLASController, threadpool_info, threadpool_limits

    from core.cost import cpu_threads

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    (numpy_blas,) = [i["filepath"] for i in blas if "numpy" in i["filepath"]]
    others = {i["filepath"]: 2 for i in blas if i["filepath"] != numpy_blas}
    assert others  # SciPy's
    OpenBLASController.clear_controlling_thread(force=True)
    with threadpool_limits(limits={numpy_blas: 1, **others}):
        assert cpu_threads(torch_ref=False) == {"blas": 1, "torch": None}
    OpenBLASController.clear_controlling_thread(force=True)
