"""Our CUDA kernels on a GPU: each against its NumPy twin on odd sizes, against torch SDPA, and the
experiments on CuPy against the reference path and NumPy. Skipped where there is no GPU.

The checks themselves live in core/gpu/checks.py and core/gpu_check.py (the same ones `python -m
core.gpu_check` runs before its benchmark); tolerances per dtype are listed there.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import call_in_threads

from core import gpu, gpu_check
from core.backend import cupy_available
from core.gpu import checks as gc
from core.gpu import device

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not cupy_available(), reason="no CUDA GPU / CuPy not installed")]

NS, DS = gc.SIZES_N, gc.SIZES_D


@pytest.fixture(autouse=True)
def _compare_every_kernel_ourselves():
    """The checks below compare each kernel with its twin and report each difference, so the
    first-use check (a subset of them, run once per file) is off, except where a test turns it on."""
    with gpu.first_use_checks(False):
        yield


@pytest.mark.parametrize("source", sorted(gpu.SOURCES))
def test_every_kernel_source_passes_its_first_use_check_on_this_gpu(source: str) -> None:
    checks = gpu.first_use_check(source)
    assert checks and all(c.ok for c in checks), [(c.name, c.err, c.detail) for c in checks if not c.ok]
    with gpu.first_use_checks(True):
        assert set(gpu.kernels(source)) == set(gpu.SOURCES[source])
        assert source in gpu.kernel_report()["checked"]


def _ok(check: gc.Check | None) -> None:
    if check is None:
        pytest.skip("torch has no CUDA in this environment")
    assert check.ok, f"{check.name}: error {check.err:.3g} × tolerance {check.detail}"


@pytest.mark.parametrize("source", sorted(gpu.SOURCES))
def test_every_kernel_source_compiles_with_nvrtc(source: str) -> None:
    assert set(gpu.kernels(source)) == set(gpu.SOURCES[source])


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("n", NS)
def test_row_stats_matches_twin(n: int, version: int) -> None:
    _ok(gc.check_row_stats(n, version))


@pytest.mark.parametrize("dtype", gpu.ATTENTION_DTYPES)
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_attention_matches_twin(n: int, d: int, dtype: str) -> None:
    _ok(gc.check_attention(2, n, d, dtype))


@pytest.mark.parametrize("dtype", gpu.ATTENTION_DTYPES)
@pytest.mark.parametrize("d", [1, 3, 64, 128])
@pytest.mark.parametrize("n", NS)
def test_simt_attention_matches_twin(n: int, d: int, dtype: str) -> None:
    _ok(gc.check_attention(2, n, d, dtype, version="simt"))


@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n", NS)
def test_tf32_attention_matches_twin_at_tf32_tolerance(n: int, d: int) -> None:
    _ok(gc.check_attention(1, n, d, "float32", split=1))


@pytest.mark.parametrize("dtype", gpu.ATTENTION_DTYPES)
@pytest.mark.parametrize(("n", "d"), [(1, 64), (33, 3), (1000, 64), (1000, 128), (4097, 256)])
def test_attention_matches_torch_sdpa(n: int, d: int, dtype: str) -> None:
    _ok(gc.check_attention_torch(2, n, d, dtype))


@pytest.mark.parametrize("softmax", [False, True])
@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize(("n", "m", "dh"), [(1, 1, 1), (2, 2, 3), (31, 31, 64), (33, 33, 256),
                                            (1000, 1000, 128), (33, 4097, 64), (4097, 33, 256),
                                            (4097, 4097, 1)])
def test_additive_matches_twin(n: int, m: int, dh: int, fast: bool, softmax: bool) -> None:
    _ok(gc.check_additive(n, m, dh, fast, softmax))


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_grad_norms_match_twin(n: int, d: int, scaled: bool) -> None:
    _ok(gc.check_grad_norms(16, n, d, 1.0 / math.sqrt(d) if scaled else 1.0))


@pytest.mark.parametrize("check", gpu_check.experiment_checks(), ids=lambda f: f.__name__)
def test_experiments_agree_on_cupy_and_numpy(check) -> None:
    with gpu.first_use_checks(True):  # as the app runs them
        _ok(check())
    assert not gpu.kernel_report()["failed"], gpu.kernel_report()["failed"]


def test_bench_rows_keep_the_cli_contract() -> None:
    from core import experiments as ex

    rows = ex.bench([64], [64], bh=2, backend="cupy", repeats=2)["rows"]
    assert {r["dtype"] for r in rows} == {"float32", "float16"}
    for r in rows:
        assert {"n", "d", "ours_seconds", "torch_seconds", "ratio", "max_abs_diff", "bh", "tflops",
                "cublas_seconds", "peak_fraction"} <= set(r)
        assert r["ours_seconds"] > 0 and math.isfinite(r["max_abs_diff"])


def test_concurrent_first_use_compiles_once() -> None:
    results = call_in_threads(lambda: gpu.kernels("softmax_backward.cu"), 8)
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_a_launch_failure_falls_back_with_a_visible_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    from core import experiments as ex

    def broken(*args: object, **kwargs: object) -> None:
        raise gpu.KernelError("simulated launch failure")

    monkeypatch.setattr(device, "launch", broken)
    result = ex.saturation([16], n=8, trials=4, backend="cupy")
    assert result["rows"] and np.isfinite(result["rows"][0]["entropy_mean"])
    assert any("simulated launch failure" in m for m in gpu.notices())
    assert "simulated launch failure" in gpu.gpu_status()
