"""Our CUDA kernels (core/kernels/*.cu) through CuPy: launchers, NumPy twins, first-use checks, the guard.

Floors, each importing only the ones above it in this list:

    device   compile cache, the current device (CuPy, or a stand-in plugged in for tests), launch,
             fallback notices
    launch   one launcher per kernel (grid, block, arguments); twins: the NumPy reference of each
    checks   each kernel against its twin on odd sizes; the first-use subset of them
    guard    the first-use gate and the `*_or_none` entry points the experiments call (None, with a
             notice, sends them to their reference path); kernel_report / gpu_status for the UI;
             bench: the GPU benchmark rows

This face re-exports the public names, so `from core import gpu; gpu.kernel_report()` works.
"""

from core.gpu.bench import FP32_PEAK_TFLOPS, bench_rows, bench_rows_or_none, cublas_attention
from core.gpu.checks import Check
from core.gpu.device import (
    COMPILE_OPTIONS,
    KERNEL_DIR,
    SOURCES,
    KernelError,
    compiled,
    kernel_source,
    kernel_source_text,
    notice,
    notices,
    stand_in,
    stand_in_active,
    to_host,
    xp,
)
from core.gpu.guard import (
    compile_all,
    first_use_check,
    first_use_checks,
    gpu_status,
    grad_norm_or_none,
    kernel_report,
    kernels,
    kernels_run,
    or_none,
    reference_only,
    row_stats_or_none,
    warm_up_in_background,
)
from core.gpu.launch import (
    ATTENTION_DTYPES,
    MAX_D,
    LaunchPlan,
    additive_scores,
    attention_forward,
    attention_plan,
    grad_norms,
    row_stats,
)
from core.gpu.twins import (
    additive_scores_twin,
    attention_twin,
    from_bfloat16_bits,
    grad_norms_twin,
    row_stats_twin,
    to_bfloat16_bits,
)

__all__ = [
    "ATTENTION_DTYPES", "COMPILE_OPTIONS", "FP32_PEAK_TFLOPS", "KERNEL_DIR", "MAX_D", "SOURCES", "Check",
    "KernelError", "LaunchPlan", "additive_scores", "additive_scores_twin", "attention_forward",
    "attention_plan", "attention_twin", "bench_rows", "bench_rows_or_none", "compile_all", "compiled",
    "cublas_attention", "first_use_check", "first_use_checks", "from_bfloat16_bits", "gpu_status",
    "grad_norm_or_none", "grad_norms", "grad_norms_twin", "kernel_report", "kernel_source",
    "kernel_source_text", "kernels", "kernels_run", "notice", "notices", "or_none", "reference_only",
    "row_stats", "row_stats_or_none", "row_stats_twin", "stand_in", "stand_in_active", "to_bfloat16_bits",
    "to_host", "warm_up_in_background", "xp",
]
