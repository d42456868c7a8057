"""Every core/kernels/*.cu compiles with nvcc for sm_80 and sm_90, on a machine without a GPU.

All template instantiations the launcher uses are compiled (tools.kernel_build.instantiation_unit), and
ptxas' report is checked: every kernel present, no local-memory spills beyond a few bytes.
"""

from __future__ import annotations

import shutil

import pytest

from core.gpu import KERNEL_DIR, SOURCES
from tools.kernel_build import ARCHES, nvcc_compile, nvcc_path, ptxas_usage

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    nvcc_path() is None,
    reason="NVCC NOT FOUND: the CUDA kernels are NOT compile-checked on this machine "
           "(install the CUDA toolkit so that a syntax error in core/kernels/*.cu fails CI)")]

# The SIMT attention kernel at DMAX ≥ 128 keeps 4 bytes on the stack (ptxas' choice at 64 registers).
MAX_SPILL_BYTES = 8


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_kernel_source_compiles_and_does_not_spill(source: str, arch: str) -> None:
    result = nvcc_compile(source, arch)
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"nvcc -arch={arch} failed on {source}:\n{log[-4000:]}"
    assert "warning" not in log.lower(), log[-4000:]
    usage = ptxas_usage(log)
    expected = len(SOURCES[source])
    assert len(usage) == expected, f"expected {expected} kernels, ptxas saw {list(usage)}"
    for name, u in usage.items():
        assert u["spill_stores"] <= MAX_SPILL_BYTES, f"{name} spills {u['spill_stores']} bytes on {arch}"
        assert u["registers"] <= 255


def test_a_broken_kernel_fails_the_compile_check(tmp_path) -> None:
    shutil.copy(KERNEL_DIR / "common.cuh", tmp_path / "common.cuh")
    (tmp_path / "broken.cu").write_text(
        '#include "common.cuh"\nextern "C" __global__ void broken(float* x) { x[0] = undefined_name; }\n')
    result = nvcc_compile("broken.cu", "sm_90", names=("broken",), include_dir=tmp_path)
    assert result.returncode != 0
    assert "undefined_name" in result.stderr + result.stdout


def test_ptxas_report_is_parsed() -> None:
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
           "ptxas info    : Function properties for k\n"
           "    8 bytes stack frame, 4 bytes spill stores, 20 bytes spill loads\n"
           "ptxas info    : Used 64 registers, used 1 barriers, 144 bytes smem\n")
    assert ptxas_usage(log) == {"k": {"registers": 64, "spill_stores": 4, "spill_loads": 20, "stack": 8,
                                      "static_smem": 144}}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_text_nvrtc_receives_compiles_on_its_own(source: str, tmp_path) -> None:
    """core.gpu.kernel_source pastes common.cuh in; the result needs no include path."""
    from core.gpu import kernel_source

    (tmp_path / source).write_text(kernel_source(source))
    result = nvcc_compile(source, "sm_90", include_dir=tmp_path)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
