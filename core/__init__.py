"""Attention Scale Explorer core: a pure library (NumPy, optional CuPy, torch) — never Streamlit."""

import os

# NumPy's OpenBLAS and torch's OpenMP each keep a thread pool; on a small machine an idle pool
# that spin-waits steals the cores the other one needs (measured here: NumPy attention 10× slower
# right after a torch call). Idle threads sleep instead. Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from core.backend import Backend, device_info, get_backend
from core.errors import BackendError, BudgetError, InputError
from core.scales import Scale, parse_scale, scale_factor

__all__ = ["Backend", "BackendError", "BudgetError", "InputError", "Scale", "device_info",
           "get_backend", "parse_scale", "scale_factor"]
