"""Offline builds of our CUDA kernels (core/kernels/*.cu) for CI without a GPU: nvcc and NVRTC.

At run time CuPy compiles the sources with NVRTC (core/gpu/device.py). Without a GPU:
- `nvcc_compile` builds the same code ahead of time: templates are instantiated by taking the
  address of every kernel the launcher uses (core.gpu.SOURCES), so nothing escapes compilation,
  and `-Xptxas -v` reports registers, spills and shared memory per kernel;
- `nvrtc_compile` runs the run-time path itself: NVRTC (libnvrtc, through ctypes) on the very text
  and options cupy.RawModule gets, to a cubin, resolving every name expression the launchers
  use. NVRTC has no host headers and its own front end, so it can reject what nvcc accepts.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from core.gpu import COMPILE_OPTIONS, KERNEL_DIR, SOURCES, kernel_source

ARCHES: tuple[str, ...] = ("sm_80", "sm_90")


def nvcc_path() -> str | None:
    """The nvcc on PATH (or /usr/local/cuda/bin/nvcc), or None."""
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.exists() else None


def instantiation_unit(source: str, names: tuple[str, ...] | None = None) -> str:
    """A translation unit that includes `source` and instantiates every kernel the launcher names."""
    names = SOURCES[source] if names is None else names
    refs = ",\n    ".join(f"(void*)&{name}" for name in names)
    return f'#include "{source}"\n\nvoid* ase_kernels[] = {{\n    {refs}\n}};\n'


def nvcc_compile(source: str, arch: str, names: tuple[str, ...] | None = None,
                 include_dir: Path = KERNEL_DIR, timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    """`nvcc -arch=<arch> -std=c++17 -cubin -Xptxas -v` on every kernel of `source` (looked up in
    include_dir; names default to the launcher's list); stdout and stderr are kept."""
    nvcc = nvcc_path()
    if nvcc is None:
        raise FileNotFoundError("nvcc not found")
    with tempfile.TemporaryDirectory() as tmp:
        unit = Path(tmp) / f"{Path(source).stem}_all.cu"
        unit.write_text(instantiation_unit(source, names))
        cmd = [nvcc, f"-arch={arch}", "-std=c++17", "-cubin", "-Xptxas", "-v", f"-I{include_dir}",
               "-o", str(Path(tmp) / "out.cubin"), str(unit)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+a?)'")
_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def ptxas_usage(log: str) -> dict[str, dict[str, int]]:
    """{mangled kernel name: {registers, spill_stores, spill_loads, stack, static_smem}} from a -v log."""
    out: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
            out[current] = {"registers": 0, "spill_stores": 0, "spill_loads": 0, "stack": 0, "static_smem": 0}
        elif current and (m := _SPILL.search(line)):
            out[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                                spill_loads=int(m.group(3)))
        elif current and (m := _USED.search(line)):
            out[current].update(registers=int(m.group(1)), static_smem=int(m.group(2) or 0))
    return out


# ---------------------------------------------------------------- NVRTC, as at run time


def nvrtc_library_path() -> str | None:
    """libnvrtc: from the nvidia-cuda-nvrtc wheel (requirements-dev.txt), the CUDA toolkit, or the
    loader's path; None where there is none."""
    found: list[str] = []
    for root in sys.path:
        found += sorted(glob.glob(os.path.join(root, "nvidia", "cu*", "lib", "libnvrtc.so*")))
        found += sorted(glob.glob(os.path.join(root, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so*")))
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    found += sorted(glob.glob(os.path.join(cuda, "lib64", "libnvrtc.so*")))
    found = [f for f in found if "builtins" not in f]
    if found:
        return found[0]
    import ctypes.util

    return ctypes.util.find_library("nvrtc")


class NvrtcError(RuntimeError):
    """NVRTC refused a source (the message carries its log)."""


@functools.lru_cache(maxsize=1)
def _nvrtc() -> ctypes.CDLL:
    """libnvrtc, loaded once (with its builtins library, which NVRTC opens by name)."""
    path = nvrtc_library_path()
    if path is None:
        raise FileNotFoundError("libnvrtc not found")
    for builtins in glob.glob(os.path.join(os.path.dirname(path), "libnvrtc-builtins.so*")):
        ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)  # a wheel's copy is off the loader's path
    lib = ctypes.CDLL(path)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def nvrtc_compile(source: str, arch: str, names: tuple[str, ...] | None = None,
                  code: str | None = None) -> dict[str, str]:
    """Compile one `.cu` as cupy.RawModule does at run time: NVRTC on kernel_source(source) (or
    `code`) with COMPILE_OPTIONS plus CuPy's `-ftz=true` and `-arch=<arch>`, to a cubin, with every
    kernel name as a name expression. Returns {name: lowered (mangled) name}; NvrtcError otherwise."""
    lib = _nvrtc()
    names = SOURCES[source] if names is None else names
    text = kernel_source(source) if code is None else code
    prog = ctypes.c_void_p()

    def call(fn: str, *args: object) -> None:
        status = getattr(lib, fn)(*args)
        if status != 0:
            raise NvrtcError(f"{fn}: {lib.nvrtcGetErrorString(status).decode()}")

    call("nvrtcCreateProgram", ctypes.byref(prog), text.encode(), source.encode(), 0, None, None)
    try:
        for name in names:
            call("nvrtcAddNameExpression", prog, name.encode())
        opts = [o.encode() for o in (*COMPILE_OPTIONS, "-ftz=true", f"-arch={arch}")]
        status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        call("nvrtcGetProgramLogSize", prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        call("nvrtcGetProgramLog", prog, log)
        if status != 0:
            raise NvrtcError(f"NVRTC {arch} refused {source}: {lib.nvrtcGetErrorString(status).decode()}\n"
                             f"{log.value.decode(errors='replace')[-4000:]}")
        call("nvrtcGetCUBINSize", prog, ctypes.byref(size))
        if size.value == 0:
            raise NvrtcError(f"NVRTC produced no cubin for {source} at {arch}")
        lowered = {}
        for name in names:
            out = ctypes.c_char_p()
            call("nvrtcGetLoweredName", prog, name.encode(), ctypes.byref(out))
            lowered[name] = out.value.decode()
        return lowered
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
