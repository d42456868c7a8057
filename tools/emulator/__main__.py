"""`python -m tools.emulator`: the GPU's kernel checks on the CPU emulator, no GPU needed.

Every kernel check of core.gpu.checks at the emulated sizes (n in EMULATED_SIZES_N), then the
experiments' same-draw checks of core.gpu_check on NumPy arrays sent through the kernels. No
benchmark: the emulator says nothing about speed. Exit code 1 when a check fails, 2 when the
emulator cannot run here (no g++).
"""

from __future__ import annotations

import argparse
import sys

from core.gpu import KernelError
from core.gpu.checks import EMULATED_SIZES_N, kernel_checks, run_checks
from core.gpu_check import same_draw_checks
from tools.emulator import emulated


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.emulator", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="kernel checks on n ≤ 33 only")
    p.add_argument("--schedule", type=int, default=0,
                   help="0 threads in order, 1 reversed, 2 and 3 warp by warp, >= 4 shuffled with that seed")
    args = p.parse_args(argv)
    try:
        with emulated(args.schedule):
            checks = run_checks(kernel_checks(args.quick, EMULATED_SIZES_N))
            checks += run_checks(same_draw_checks("numpy", trials=16, grad_trials=200))
    except KernelError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)}/{len(checks)} checks passed on the CPU emulator")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
