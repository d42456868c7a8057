"""Every core/kernels/*.cu compiles with NVRTC, the compiler CuPy runs on the GPU machine, with no GPU.

nvcc (tests/test_kernels_compile.py) is not the run-time path: cupy.RawModule hands NVRTC the source
text (common.cuh pasted in, no include path, no host headers) with our options, `-ftz=true` and
`-arch=sm_XX`, and looks each templated kernel up by its name expression. Here libnvrtc (the
nvidia-cuda-nvrtc wheel in requirements-dev.txt) does exactly that, to a cubin, for sm_80 and sm_90.
"""

from __future__ import annotations

import pytest

from core.gpu import SOURCES, kernel_source
from tools.kernel_build import ARCHES, NvrtcError, nvcc_compile, nvcc_path, nvrtc_compile, nvrtc_library_path

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    nvrtc_library_path() is None,
    reason="LIBNVRTC NOT FOUND: the kernels are NOT checked with the run-time compiler on this machine "
           "(pip install -r requirements-dev.txt brings the nvidia-cuda-nvrtc wheel)")]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_nvrtc_compiles_each_source_and_resolves_every_kernel_name(source: str, arch: str) -> None:
    lowered = nvrtc_compile(source, arch)
    assert set(lowered) == set(SOURCES[source])
    for name, symbol in lowered.items():
        if "<" in name:  # a template instantiation: RawModule finds it through its name expression
            assert symbol.startswith("_Z") and symbol != name, (name, symbol)
        else:  # extern "C": RawModule.get_function(name) finds it by its own name
            assert symbol == name, (name, symbol)


def test_a_compile_error_is_reported_with_nvrtcs_log() -> None:
    code = kernel_source("softmax_backward.cu").replace("top = n;", "top = undefined_name;", 1)
    with pytest.raises(NvrtcError, match="undefined_name"):
        nvrtc_compile("softmax_backward.cu", "sm_90", code=code)


def test_a_name_the_source_does_not_define_is_refused() -> None:
    with pytest.raises(NvrtcError):
        nvrtc_compile("attention_forward.cu", "sm_90", names=("attention_forward_mma<double, 64, 1>",))


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not found: the nvcc half of this contrast cannot run")
def test_nvrtc_refuses_a_host_header_that_nvcc_accepts(tmp_path) -> None:
    """Why this check exists beside the nvcc one: the same text can pass nvcc and fail at run time."""
    code = "#include <vector>\n" + kernel_source("softmax_backward.cu")
    (tmp_path / "softmax_backward.cu").write_text(code)
    assert nvcc_compile("softmax_backward.cu", "sm_90", include_dir=tmp_path).returncode == 0
    with pytest.raises(NvrtcError, match="could not open source file"):
        nvrtc_compile("softmax_backward.cu", "sm_90", code=code)
