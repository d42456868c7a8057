"""CUDA C sources of our kernels (one `.cu` per operation) and an offline `nvcc` build of them.

At run time CuPy compiles the sources with NVRTC (core/gpu.py). Here `nvcc_compile` builds the
same code ahead of time, for CI without a GPU: templates are instantiated by taking the address
of every kernel the launcher uses (core.gpu.SOURCES), so nothing escapes compilation, and
`-Xptxas -v` reports registers, spills and shared memory per kernel.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from core.gpu import KERNEL_DIR, SOURCES

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
