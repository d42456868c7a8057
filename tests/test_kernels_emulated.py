"""Our CUDA kernels run on the CPU emulator (tools/emulator), no GPU needed.

1. Every kernel check the GPU runs (core.gpu.checks.kernel_checks) passes on the emulator at
   the emulated sizes, with the launchers' own grid, block, shared memory and arguments, in two
   schedules: round robin, and warp by warp (which exposes a missing __syncthreads); and the
   experiments give the same figures through the kernels as through the reference path.
2. The emulator's PTX instructions follow the PTX ISA's fragment tables: small test kernels place
   matrices in registers by the tables' formulas and compare one mma / ldmatrix with NumPy.
3. The emulator catches what it claims to: each test breaks a kernel source in one way and expects
   a failed check or a named error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tools.emulator as emu
from core import gpu
from core.gpu import checks as gc
from core.gpu import device, guard, launch
from core.gpu_check import same_draw_checks
from tools.emulator import emulated

REASON = emu.unavailable_reason()
pytestmark = [pytest.mark.emulator, pytest.mark.skipif(
    REASON is not None,
    reason=f"CPU EMULATOR UNAVAILABLE ({REASON}): the CUDA kernels are NOT run on this machine")]

CHECKS = list(gc.kernel_checks(sizes_n=gc.EMULATED_SIZES_N))


@pytest.fixture(autouse=True)
def _fresh_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees its own compile cache and first-use verdicts (mutated sources must not leak
    into other tests)."""
    monkeypatch.setattr(device, "_compiled", {})
    monkeypatch.setattr(guard, "_verified", set())
    monkeypatch.setattr(guard, "_rejected", {})


def _run(check) -> gc.Check | None:
    result = check()
    if result is not None:
        assert result.ok, f"{result.name}: error {result.err:.3g} × tolerance {result.detail}"
    return result


@pytest.mark.parametrize("index", range(len(CHECKS)))
def test_every_kernel_check_passes_on_the_emulator(index: int) -> None:
    with emulated(schedule=0):
        _run(CHECKS[index])


@pytest.mark.parametrize("dtype", gpu.ATTENTION_DTYPES)
@pytest.mark.parametrize("version", ["mma", "simt"])
@pytest.mark.parametrize("schedule", [2, 3])
def test_attention_is_right_when_warps_drift_apart(schedule: int, version: str, dtype: str) -> None:
    with emulated(schedule=schedule):
        for n, d in ((130, 64), (97, 128), (65, 3)):
            _run(lambda n=n, d=d: gc.check_attention(2, n, d, dtype, version=version))


@pytest.mark.parametrize("schedule", [1, 2, 5])
def test_reductions_are_right_in_every_schedule(schedule: int) -> None:
    with emulated(schedule=schedule):
        for n in (33, 130):
            _run(lambda n=n: gc.check_row_stats(n, 2))
            _run(lambda n=n: gc.check_grad_norms(4, n, 64, 1.0))
            _run(lambda n=n: gc.check_additive(n, 70, 40, False, True))


def test_the_portable_ucontext_fibers_give_the_same_results() -> None:
    with emulated(schedule=2, ucontext=True):
        _run(lambda: gc.check_attention(2, 130, 64, "float16"))
        _run(lambda: gc.check_grad_norms(4, 33, 64, 1.0))
        _run(lambda: gc.check_additive(33, 70, 40, True, True))


@pytest.mark.parametrize("index", range(3))
def test_experiments_give_the_same_figures_through_the_kernels(index: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """saturation, gradients and the cost page's dot/additive forward: kernels vs reference path on
    the same draws (backend numpy; inside emulated() the experiments call our kernels)."""
    fallbacks: list[str] = []
    monkeypatch.setattr(device, "notice", fallbacks.append)
    with emulated():
        check = same_draw_checks("numpy", trials=16, grad_trials=200)[index]
        _run(check)
    assert fallbacks == [], "a kernel fell back to the reference path, so nothing was compared"


def test_attention_on_an_unaligned_view_takes_the_scalar_load_path() -> None:
    Q, K, V = gc.attention_inputs(1, 40, 64, "float32")
    with emulated():
        xp = gpu.xp()
        views = []
        for x in (Q, K, V):
            buf = xp.empty((x.size + 1,), np.float32)
            buf[1:] = x.ravel()
            views.append(buf[1:].reshape(x.shape))  # 4 bytes past a 256-byte boundary
        assert not launch.aligned(*views)
        O = gpu.to_host(gpu.attention_forward(*views))
    assert gc.scaled_error(O, gpu.attention_twin(Q, K, V), *gc.ATTENTION_TOL["float32"]) <= 1


# ---------------------------------------------------------------- the PTX fragment tables

_PTX_TEST = r"""
#include "common.cuh"
// A 16×8 (row-major), B 8×8 (row-major, K × N), D 16×8: one mma.m16n8k8.tf32 with the fragments
// placed by the PTX ISA table ("Matrix Fragments for mma.m16n8k8", .tf32).
extern "C" __global__ void mma_tf32_test(const float* A, const float* B, float* D) {
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const unsigned int a[4] = {ptx_cvt_rna_tf32_f32(A[g * 8 + t]),
                               ptx_cvt_rna_tf32_f32(A[(g + 8) * 8 + t]),
                               ptx_cvt_rna_tf32_f32(A[g * 8 + t + 4]),
                               ptx_cvt_rna_tf32_f32(A[(g + 8) * 8 + t + 4])};
    const unsigned int b0 = ptx_cvt_rna_tf32_f32(B[t * 8 + g]), b1 = ptx_cvt_rna_tf32_f32(B[(t + 4) * 8 + g]);
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    ptx_mma_m16n8k8_tf32(d, a, b0, b1);
    for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
// A 16×16, B 16×8 as fp16 bits: "Matrix Fragments for mma.m16n8k16 with floating point type".
extern "C" __global__ void mma_f16_test(const unsigned short* A, const unsigned short* B, float* D) {
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned int a[4];
    for (int i = 0; i < 4; i++) {
        const int row = g + 8 * (i & 1), col = 2 * t + 8 * (i >> 1);
        a[i] = A[row * 16 + col] | ((unsigned int)A[row * 16 + col + 1] << 16);
    }
    const unsigned int b0 = B[(2 * t) * 8 + g] | ((unsigned int)B[(2 * t + 1) * 8 + g] << 16);
    const unsigned int b1 = B[(2 * t + 8) * 8 + g] | ((unsigned int)B[(2 * t + 9) * 8 + g] << 16);
    float d[4] = {1.0f, 1.0f, 1.0f, 1.0f};  // C = 1: the accumulator is added
    ptx_mma_m16n8k16_f16(d, a, b0, b1);
    for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
// ldmatrix.x4.trans of a 16×16 tile of 16-bit values in shared memory (row stride 24 elements);
// lane l gives row l % 8 of matrix l / 8 = (rows +8·(l/8 % 2), cols +8·(l/16)). R[l][i] = register i.
extern "C" __global__ void ldmatrix_test(const unsigned short* X, unsigned int* R) {
    ASE_DYNAMIC_SMEM(unsigned short, tile);
    for (int e = threadIdx.x; e < 16 * 24; e += 32) tile[e] = e % 24 < 16 ? X[(e / 24) * 16 + e % 24] : 0;
    __syncthreads();
    const int lane = threadIdx.x;
    unsigned int r[4];
    ptx_ldmatrix_x4_trans(r, tile + ((lane & 7) + 8 * ((lane >> 3) & 1)) * 24 + 8 * (lane >> 4));
    for (int i = 0; i < 4; i++) R[lane * 4 + i] = r[i];
}
"""


def _module(code: str, names: tuple[str, ...]) -> dict[str, emu.EmulatedKernel]:
    return emu.CpuEmulator().compile(gpu.kernel_source_text(code), names)


def _tf32(x: np.ndarray) -> np.ndarray:
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def test_mma_tf32_follows_the_ptx_fragment_table() -> None:
    k = _module(_PTX_TEST, ("mma_tf32_test", "mma_f16_test", "ldmatrix_test"))
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
    D = np.zeros((16, 8), np.float32)
    k["mma_tf32_test"]((1,), (32,), (A, B, D))
    want = _tf32(A).astype(np.float64) @ _tf32(B).astype(np.float64)
    np.testing.assert_allclose(D, want, rtol=1e-6, atol=1e-6)
    assert np.abs(D - A.astype(np.float64) @ B).max() > 1e-6  # TF32 rounding is visible


def test_mma_f16_adds_the_accumulator_and_follows_the_table() -> None:
    k = _module(_PTX_TEST, ("mma_tf32_test", "mma_f16_test", "ldmatrix_test"))
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((16, 16)).astype(np.float16), rng.standard_normal((16, 8)).astype(np.float16)
    D = np.zeros((16, 8), np.float32)
    k["mma_f16_test"]((1,), (32,), (A.view(np.uint16), B.view(np.uint16), D))
    np.testing.assert_allclose(D, 1.0 + A.astype(np.float64) @ B.astype(np.float64), rtol=1e-6, atol=1e-6)


def test_ldmatrix_trans_hands_each_lane_a_column_pair() -> None:
    k = _module(_PTX_TEST, ("mma_tf32_test", "mma_f16_test", "ldmatrix_test"))
    X = np.arange(256, dtype=np.uint16).reshape(16, 16)
    R = np.zeros((32, 4), np.uint32)
    k["ldmatrix_test"]((1,), (32,), (X, R), shared_mem=16 * 24 * 2)
    for lane in range(32):
        for i in range(4):  # matrix i: rows 8·(i % 2)…, columns 8·(i // 2)…
            r0, c0 = 8 * (i % 2), 8 * (i // 2)
            lo = X[r0 + 2 * (lane % 4), c0 + lane // 4]
            hi = X[r0 + 2 * (lane % 4) + 1, c0 + lane // 4]
            assert R[lane, i] == int(lo) | (int(hi) << 16), (lane, i)


# ---------------------------------------------------------------- what the emulator catches


def _mutate(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    original = device.kernel_source

    def mutated(source: str) -> str:
        return original(source).replace(old, new)

    assert any(old in original(s) for s in gpu.SOURCES), f"mutation target not found: {old!r}"
    monkeypatch.setattr(device, "kernel_source", mutated)


def _fails(check, schedule: int = 0) -> str:
    """'' if the check passes; otherwise how it failed (a too-large error or the emulator's message)."""
    with emulated(schedule=schedule):
        try:
            result = check()
        except gpu.KernelError as exc:
            return str(exc)
    return "" if result.ok else f"error {result.err:.3g}"


def test_a_missing_barrier_is_caught_when_warps_drift(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "__syncthreads();  // Q loaded / every warp done with the previous K, V tile", "")
    check = lambda: gc.check_attention(2, 130, 64, "float32", version="mma")  # noqa: E731
    assert _fails(check, schedule=2) and _fails(check, schedule=3)


def test_a_barrier_only_some_threads_reach_is_a_deadlock(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "if (threadIdx.x == 0) top = n;",
            "if (threadIdx.x == 0) { top = n; __syncthreads(); }")
    assert "deadlock" in _fails(lambda: gc.check_grad_norms(4, 33, 64, 1.0))


def test_an_out_of_bounds_store_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "if (row < n && col < d) O[", "if (row < n + 64 && col < d) O[")
    assert "out-of-bounds write after argument 3" in _fails(lambda: gc.check_attention(2, 33, 64, "float16"))


WRONG_RESULTS = [
    # the k permutation of Q·Kᵀ
    ("split_tf32(qa.x, ah[0], al[0]);", "split_tf32(qa.y, ah[0], al[0]);", "float32"),
    # the score accumulators reused as the A fragment of P·V
    ("split_tf32(p[kb][2], ah[1], al[1]);", "split_tf32(p[kb][1], ah[1], al[1]);", "float32"),
    # the packing order of two fp16 values
    ("return ptx_cvt_rn_f16x2_f32(hi, lo);", "return ptx_cvt_rn_f16x2_f32(lo, hi);", "float16"),
    # ldmatrix's second and third matrices swapped
    ("((lane >> 3) & 1) * 8, col = (lane >> 4) * 8;", "((lane >> 4) & 1) * 8, col = ((lane >> 3) & 1) * 8;",
     "bfloat16"),
    # padded keys no longer masked
    ("const float x = key < n ? s[nt][e] * sl2 : -ASE_INF;", "const float x = s[nt][e] * sl2;", "float16"),
]


@pytest.mark.parametrize(("old", "new", "dtype"), WRONG_RESULTS)
def test_a_wrong_fragment_or_mask_fails_the_check(monkeypatch: pytest.MonkeyPatch, old: str, new: str,
                                                  dtype: str) -> None:
    _mutate(monkeypatch, old, new)
    assert _fails(lambda: gc.check_attention(2, 33, 64, dtype, version="mma")).startswith("error")


def test_a_misaligned_ldmatrix_address_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "ptx_ldmatrix_x4_trans(b, Vs + key * LD + dt2 * 16 + col);",
            "ptx_ldmatrix_x4_trans(b, Vs + key * LD + dt2 * 16 + col + 1);")
    assert "not 16-byte aligned" in _fails(lambda: gc.check_attention(1, 33, 64, "float16"))


def test_launch_arguments_are_checked_against_the_kernel_signature() -> None:
    with emulated():
        xp = gpu.xp()
        raw = xp.asarray(np.ones((2, 8), np.float32))
        out = [xp.empty((1, 2), np.float32) for _ in range(2)]
        scales = xp.asarray(np.ones(1, np.float32))
        good = (raw, scales, np.int32(2), np.int32(8), np.int32(0), *out, np.uint64(0))
        device.launch("softmax_stats.cu", "row_stats_v2", (1, 1), (256,), good)
        bad = list(good)
        bad[2] = np.float32(2)  # rows given as a float
        with pytest.raises(gpu.KernelError, match="argument 2 must be a 32-bit integer"):
            device.launch("softmax_stats.cu", "row_stats_v2", (1, 1), (256,), tuple(bad))
        with pytest.raises(gpu.KernelError, match="takes 8 arguments, got 7"):
            device.launch("softmax_stats.cu", "row_stats_v2", (1, 1), (256,), good[:-1])
        with pytest.raises(gpu.KernelError, match="not an array or a NumPy scalar"):
            device.launch("softmax_stats.cu", "row_stats_v2", (1, 1), (256,), (*good[:2], 2, *good[3:]))
        with pytest.raises(gpu.KernelError, match="1024 threads"):
            device.launch("softmax_stats.cu", "row_stats_v2", (1, 1), (2048,), good)


def test_large_shared_memory_needs_the_opt_in_the_launcher_makes() -> None:
    plan = gpu.attention_plan(1, 64, 128, "float32", "mma")
    assert plan.smem > emu.DEFAULT_SMEM  # this launch needs the opt-in
    with emulated():
        kern = gpu.kernels("attention_forward.cu")[plan.name]
        xp = gpu.xp()
        arrays = [xp.asarray(np.zeros((64, 128), np.float32)) for _ in range(4)]
        args = (*arrays, np.int32(64), np.int32(128), np.float32(1.0), np.int32(1))
        with pytest.raises(emu.EmulatorError, match="without the opt-in"):
            kern(plan.grid, plan.block, args, shared_mem=plan.smem)
        device.launch("attention_forward.cu", plan.name, plan.grid, plan.block, args, plan.smem)  # opts in
        assert kern.max_dynamic_shared_size_bytes >= plan.smem


def test_output_memory_starts_as_nan_so_an_unwritten_element_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "if (lane == 0) stats_write(out, Z, W, pmax, entropy);",
            "if (lane == 0 && row != 3) stats_write(out, Z, W, pmax, entropy);")
    assert _fails(lambda: gc.check_row_stats(31, 2)) == f"error {math.inf:.3g}"


# ---------------------------------------------------------------- the first-use check


@pytest.mark.parametrize("source", sorted(gpu.SOURCES))
def test_every_source_passes_its_first_use_check(source: str) -> None:
    with emulated(first_use=True):
        checks = gpu.first_use_check(source)
        assert checks and all(c.ok for c in checks), [(c.name, c.err, c.detail) for c in checks if not c.ok]
        assert set(gpu.kernels(source)) == set(gpu.SOURCES[source])
    assert (source, ("emulator", 0, False)) in guard._verified


def test_a_kernel_wrong_on_the_device_is_rejected_and_the_experiment_falls_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel that compiles but computes wrongly (here: one row's statistics never written) is
    caught before the experiment uses it: the saturation figures come from the reference path,
    identical to it, and the report the app shows names the file and why."""
    from collections import deque

    from core import experiments as ex

    _mutate(monkeypatch, "if (lane == 0) stats_write(out, Z, W, pmax, entropy);",
            "if (lane == 0 && row != 3) stats_write(out, Z, W, pmax, entropy);")
    monkeypatch.setattr(device, "_notices", deque(maxlen=20))
    monkeypatch.setattr(device, "device_key", lambda: 0)  # as if on CUDA device 0, for kernel_report
    runs = []
    real_check = guard.first_use_check
    monkeypatch.setattr(guard, "first_use_check", lambda source: runs.append(source) or real_check(source))
    kw = {"dks": [16, 64], "n": 16, "trials": 8, "scales": ("none", "sqrt")}
    with emulated(first_use=True):
        got = ex.saturation(**kw)["rows"]
        again = ex.saturation(**kw)["rows"]
        with gpu.reference_only():
            want = ex.saturation(**kw)["rows"]
    assert got == want == again
    assert runs == ["softmax_stats.cu"]  # checked once; the verdict is kept
    failed = gpu.kernel_report()["failed"]
    assert list(failed) == ["softmax_stats.cu"]
    assert "first-use check" in failed["softmax_stats.cu"] and "× tolerance" in failed["softmax_stats.cu"]
    assert any("fell back to the reference path" in m for m in gpu.notices())


@pytest.mark.parametrize(("old", "new", "schedule"), [
    *[(old, new, 0) for old, new, _ in WRONG_RESULTS],
    ("__syncthreads();  // Q loaded / every warp done with the previous K, V tile", "", 2),
])
def test_the_first_use_check_rejects_each_planted_attention_fault(monkeypatch: pytest.MonkeyPatch, old: str,
                                                                  new: str, schedule: int) -> None:
    _mutate(monkeypatch, old, new)
    with emulated(schedule=schedule, first_use=True), pytest.raises(gpu.KernelError, match="first-use"):
        gpu.kernels("attention_forward.cu")


def test_with_the_first_use_check_off_a_rejected_kernel_still_runs_for_diagnosis(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "if (lane == 0) stats_write(out, Z, W, pmax, entropy);",
            "if (lane == 0 && row != 3) stats_write(out, Z, W, pmax, entropy);")
    with emulated(first_use=True):
        with pytest.raises(gpu.KernelError, match=r"softmax_stats.cu failed its first-use check .*"
                                                  r"2 of 3 comparisons.*row_stats v2 trials=3 n=33"):
            gpu.kernels("softmax_stats.cu")
        with gpu.first_use_checks(False):
            assert gc.check_row_stats(31, 2).err == math.inf  # gpu_check's own comparison runs and reports
        with pytest.raises(gpu.KernelError, match="first-use check"):
            gpu.kernels("softmax_stats.cu")


def test_a_crash_in_the_first_use_check_is_a_failure_that_names_the_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _mutate(monkeypatch, "if (threadIdx.x == 0) top = n;",
            "if (threadIdx.x == 0) { top = n; __syncthreads(); }")
    with emulated(first_use=True), pytest.raises(gpu.KernelError) as info:
        gpu.kernels("softmax_backward.cu")
    assert "check_grad_norms(4, 33, 64, 0.125)" in str(info.value) and "deadlock" in str(info.value)


def test_concurrent_first_uses_check_once_and_wait_for_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from conftest import call_in_threads

    runs = []
    real_check = guard.first_use_check

    def slow_check(source: str) -> list:
        runs.append(source)
        time.sleep(0.3)  # the other threads arrive while this one checks
        return real_check(source)

    monkeypatch.setattr(guard, "first_use_check", slow_check)
    with emulated(first_use=True):
        results = call_in_threads(lambda: gpu.kernels("softmax_backward.cu"), 6)
    assert runs == ["softmax_backward.cu"]
    assert len(results) == 6 and all(r is results[0] for r in results)
