"""Run our CUDA kernels on the CPU: the `.cu` sources compiled with g++ against emulator.h (test tooling).

For machines without a GPU (CI, laptops): `with tools.emulator.emulated(): ...` plugs a CpuEmulator
into core.gpu as a stand-in device (core.gpu.device.stand_in), so the launchers of core/gpu/launch.py
(row_stats, attention_forward, additive_scores, grad_norms) run the very same kernel source — the
launcher's grid, block, shared-memory size and argument list included — on fibers, one thread
block at a time. `python -m tools.emulator` runs the GPU's checks this way. What it checks and how
is in emulator.h; in short:

* every kernel's result against its NumPy twin (the same checks the GPU runs, core.gpu.checks);
* barriers and warp-collective operations: a deadlock, a lane missing from a shuffle or an mma,
  lanes at different collectives, an ldmatrix address that is misaligned or outside shared memory;
* the launch: the argument list against the kernel's signature (count and type of each), block
  size, grid limits, and dynamic shared memory above 48 KB without the opt-in;
* memory: output and shared memory start as NaN bytes, and every array handed to a kernel sits
  between guard bytes that must be untouched after the launch (an out-of-bounds write).

It does not measure speed. Data races show up through the schedule option (emulator.h): 0 and 1
resume threads round robin forwards and backwards, 2 and 3 run one warp at a time as far as the
barriers allow (a missing __syncthreads then lets one warp overwrite a tile another still reads),
≥ 4 shuffle the order; code that depends on an order between barriers gives a different answer.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from core.gpu import KernelError, first_use_checks, stand_in

HERE = Path(__file__).parent
HEADER = HERE / "emulator.h"
# -fvisibility=hidden and -fno-gnu-unique: each kernel library keeps its own emulator state (the
# dynamic linker would otherwise merge the libraries' inline globals into one).
FLAGS: tuple[str, ...] = ("-std=c++20", "-O2", "-fPIC", "-shared", "-ffp-contract=off",
                          "-fno-strict-aliasing", "-Wno-unknown-pragmas", "-fvisibility=hidden",
                          "-fno-gnu-unique", "-DASE_EMULATE")
GUARD = 256  # alignment of the arrays the emulator allocates (as cudaMalloc's)
DEFAULT_SMEM = 48 * 1024
MAX_SMEM = 227 * 1024  # H100: the most dynamic shared memory one block may opt in to
_INT32, _INT64, _F32, _F64, _U64 = np.int32, np.int64, np.float32, np.float64, np.uint64


class EmulatorError(RuntimeError):
    """The emulator could not build a kernel, or a launch broke one of the rules it checks."""


def compiler() -> str | None:
    """The C++ compiler the emulator uses (g++ or c++ on PATH), or None."""
    return shutil.which("g++") or shutil.which("c++")


def unavailable_reason() -> str | None:
    """Why the emulator cannot run here, or None when it can."""
    if compiler() is None:
        return "no C++ compiler (g++) on PATH"
    if os.uname().machine not in ("x86_64", "aarch64"):
        return f"the emulator's fibers support x86_64 and aarch64, not {os.uname().machine}"
    return None


def translation_unit(code: str, names: Sequence[str]) -> str:
    """emulator.h, the kernel source, and a registry of the kernels `names` with a C entry point."""
    entries = ",\n".join(f'    ase_emu::entry("{name}", &{name})' for name in names)
    return (f'#include "emulator.h"\n{code}\n\n'
            f"static const ase_emu::Entry ase_registry[] = {{\n{entries}\n}};\n\n"
            'extern "C" __attribute__((visibility("default")))\n'
            "int ase_launch(const char* name, const unsigned int* grid,\n"
            "                          const unsigned int* block, unsigned long long smem, void** args,\n"
            "                          const char* kinds, int nargs, int schedule, char* err,\n"
            "                          unsigned long long errlen) {\n"
            "    const int count = sizeof ase_registry / sizeof ase_registry[0];\n"
            "    return ase_emu::launch(ase_registry, count, name, grid, block, smem, args, kinds, nargs,\n"
            "                           schedule, err, errlen);\n"
            "}\n")


def _cache_dir() -> Path:
    default = Path(tempfile.gettempdir()) / f"ase-emulator-{os.getuid()}"
    path = Path(os.environ.get("ASE_EMULATOR_CACHE") or default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def build(code: str, names: Sequence[str], timeout: float = 600.0, ucontext: bool = False) -> Path:
    """Compile one kernel source for the emulator (cached by the text of everything that goes in).
    ucontext: switch fibers with POSIX ucontext instead of the x86-64 assembly (the portable path)."""
    cxx = compiler()
    if cxx is None:
        raise EmulatorError("the CPU emulator needs a C++ compiler (g++) on PATH")
    unit = translation_unit(code, names)
    flags = (*FLAGS, "-DASE_EMU_UCONTEXT") if ucontext else FLAGS
    key = hashlib.sha256("\0".join([unit, HEADER.read_text(), " ".join(flags), cxx]).encode())
    out = _cache_dir() / f"ase-{key.hexdigest()[:24]}.so"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "unit.cpp"
        src.write_text(unit)
        lib = Path(tmp) / "unit.so"
        cmd = [cxx, *flags, f"-I{HERE}", "-o", str(lib), str(src)]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        if result.returncode != 0:
            log = (result.stderr or result.stdout)[-4000:]
            raise EmulatorError(f"g++ could not build the emulated kernels:\n{log}")
        partial = out.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(lib, partial)
        os.replace(partial, out)
    return out


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _library_lock(path: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


class EmulatedKernel:
    """Called like cupy.RawKernel: kernel(grid, block, args, shared_mem=bytes)."""

    def __init__(self, name: str, module: EmulatedModule) -> None:
        self.name = name
        self._module = module
        self._max_smem = DEFAULT_SMEM

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._max_smem

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        if not 0 <= int(value) <= MAX_SMEM:
            raise EmulatorError(f"{self.name}: at most {MAX_SMEM} bytes of dynamic shared memory, "
                                f"asked {value}")
        self._max_smem = int(value)

    def __call__(self, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
                 shared_mem: int = 0) -> None:
        self._module.launch(self, grid, block, args, shared_mem)


class EmulatedModule:
    """The kernels of one source, compiled for the emulator and loaded."""

    def __init__(self, emulator: CpuEmulator, code: str, names: Sequence[str]) -> None:
        self._emulator = emulator
        self._lib = ctypes.CDLL(str(build(code, names, ucontext=emulator.ucontext)))
        fn = self._lib.ase_launch
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                       ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_int,
                       ctypes.c_int, ctypes.c_char_p, ctypes.c_ulonglong]
        self._fn = fn
        self._lock = _library_lock(self._lib._name)  # the emulator's machine state is one per library
        self.kernels = {name: EmulatedKernel(name, self) for name in names}

    def get_function(self, name: str) -> EmulatedKernel:
        return self.kernels[name]

    def launch(self, kern: EmulatedKernel, grid: tuple[int, ...], block: tuple[int, ...], args: tuple,
               shared_mem: int) -> None:
        g = tuple(int(x) for x in grid) + (1,) * (3 - len(grid))
        b = tuple(int(x) for x in block) + (1,) * (3 - len(block))
        if len(g) != 3 or len(b) != 3 or min(g) < 1 or min(b) < 1:
            raise EmulatorError(f"{kern.name}: grid {grid} and block {block} need 1 to 3 positive sizes")
        if g[0] > 2**31 - 1 or g[1] > 65535 or g[2] > 65535:
            raise EmulatorError(f"{kern.name}: grid {grid} exceeds CUDA's limits (2^31−1, 65535, 65535)")
        if b[0] * b[1] * b[2] > 1024 or b[2] > 64:
            raise EmulatorError(f"{kern.name}: block {block} exceeds 1024 threads (or 64 in z)")
        if shared_mem > kern.max_dynamic_shared_size_bytes:
            limit = kern.max_dynamic_shared_size_bytes
            raise EmulatorError(f"{kern.name}: {shared_mem} bytes of dynamic shared memory without the "
                                f"opt-in (max_dynamic_shared_size_bytes = {limit})")
        kinds, holders, arrays = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                kinds.append("p")
                holders.append(ctypes.c_void_p(a.ctypes.data))
                arrays.append((i, a))
            elif isinstance(a, _U64):
                if int(a) != 0:
                    raise EmulatorError(f"{kern.name}: argument {i} is a raw 64-bit integer other than a "
                                        "null pointer")
                kinds.append("u")
                holders.append(ctypes.c_uint64(0))
            elif isinstance(a, _INT32):
                kinds.append("i")
                holders.append(ctypes.c_int32(int(a)))
            elif isinstance(a, _INT64):
                kinds.append("l")
                holders.append(ctypes.c_int64(int(a)))
            elif isinstance(a, _F32):
                kinds.append("f")
                holders.append(ctypes.c_float(float(a)))
            elif isinstance(a, _F64):
                kinds.append("d")
                holders.append(ctypes.c_double(float(a)))
            else:
                raise EmulatorError(f"{kern.name}: argument {i} of type {type(a).__name__} is not an array "
                                    "or a NumPy scalar (CuPy would guess its C type)")
        ptrs = (ctypes.c_void_p * max(1, len(holders)))(*[ctypes.addressof(h) for h in holders])
        err = ctypes.create_string_buffer(1024)
        with self._lock:
            rc = self._fn(kern.name.encode(), (ctypes.c_uint * 3)(*g), (ctypes.c_uint * 3)(*b), shared_mem,
                          ptrs, "".join(kinds).encode(), len(kinds), self._emulator.schedule, err, len(err))
        if rc != 0:
            raise EmulatorError(f"{kern.name}: {err.value.decode(errors='replace')}")
        for i, a in arrays:
            where = self._emulator.xp.guard_damage(a)
            if where:
                raise EmulatorError(f"{kern.name}: out-of-bounds write {where} argument {i}")


class GuardedNumPy:
    """The slice of CuPy's namespace the launchers use, allocating arrays between guard bytes.

    Anything else is NumPy's (dtypes, functions), so `xp.float32` and friends work as on CuPy.
    """

    # one registry for every instance: kernels compiled under one emulated() block check arrays
    # allocated under a later one
    _guards: ClassVar[dict[int, tuple[weakref.ref, int, int]]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)

    def empty(self, shape: Any, dtype: Any = np.float64) -> np.ndarray:
        dt = np.dtype(dtype)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        # guard bytes on each side: at least 256, and as many as the array holds, so a write up to
        # one array length out of bounds lands in a guard instead of the heap
        guard = -(-max(nbytes, GUARD) // GUARD) * GUARD
        raw = np.full(nbytes + 2 * guard + GUARD, 0xFF, dtype=np.uint8)
        start = (-raw.ctypes.data) % GUARD + guard
        arr = raw[start:start + nbytes].view(dt).reshape(shape)
        self._guards[id(raw)] = (weakref.ref(raw), start, start + nbytes)
        weakref.finalize(raw, self._guards.pop, id(raw), None)
        return arr

    def empty_like(self, a: Any) -> np.ndarray:
        return self.empty(np.shape(a), np.asarray(a).dtype)

    def asarray(self, a: Any, dtype: Any = None) -> np.ndarray:
        src = np.asarray(a, dtype=dtype)
        if self._root(src) is not None and src.flags.c_contiguous:
            return src
        out = self.empty(src.shape, src.dtype)
        out[...] = src
        return out

    def ascontiguousarray(self, a: Any, dtype: Any = None) -> np.ndarray:
        return self.asarray(a, dtype)

    def _root(self, a: np.ndarray) -> tuple[np.ndarray, int, int] | None:
        base = a
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        entry = self._guards.get(id(base))
        if entry is None or entry[0]() is not base:
            return None
        return base, entry[1], entry[2]

    def guard_damage(self, a: np.ndarray) -> str:
        """'' when the guard bytes around a's allocation are intact, else 'before' or 'after'."""
        root = self._root(a)
        if root is None:
            return ""
        raw, start, end = root
        if (raw[:start] != 0xFF).any():
            return "before"
        if (raw[end:] != 0xFF).any():
            return "after"
        return ""


class CpuEmulator:
    """What core.gpu needs of a stand-in device: an array namespace, a cache key and a way to compile
    kernel sources."""

    name = "CPU emulator of our CUDA kernels (g++)"

    def __init__(self, schedule: int = 0, ucontext: bool = False) -> None:
        reason = unavailable_reason()
        if reason:
            raise EmulatorError(f"the CPU emulator cannot run here: {reason}")
        self.schedule = int(schedule)
        self.ucontext = bool(ucontext) or os.uname().machine != "x86_64"
        self.xp = GuardedNumPy()

    @property
    def key(self) -> tuple[str, int, bool]:
        """The compile cache's name for this device: one build per schedule and fiber switch."""
        return ("emulator", self.schedule, self.ucontext)

    def compile(self, code: str, names: Sequence[str]) -> dict[str, EmulatedKernel]:
        return EmulatedModule(self, code, names).kernels


@contextmanager
def emulated(schedule: int = 0, ucontext: bool = False, first_use: bool = False) -> Iterator[CpuEmulator]:
    """Within this block the launchers run our kernel sources on the CPU emulator instead of CuPy,
    and allocate with its guarded NumPy namespace; the experiments send their NumPy arrays through
    the kernels. schedule: 0 and 1 round robin forwards / backwards, 2 and 3 one warp at a time,
    ≥ 4 shuffled (emulator.h). ucontext: the portable fiber switch instead of x86-64 assembly.
    first_use: run the first-use check on each source as on a GPU (off: the emulator's callers
    check every kernel themselves). Process-wide; KernelError where the emulator cannot run (no g++)."""
    try:
        emu = CpuEmulator(schedule, ucontext)
    except EmulatorError as exc:
        raise KernelError(str(exc)) from exc
    with stand_in(emu), first_use_checks(first_use):
        yield emu
