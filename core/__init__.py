"""Attention Scale Explorer core: a pure library (NumPy, optional CuPy, torch) — never Streamlit."""

from core.backend import Backend, device_info, get_backend
from core.errors import BackendError, BudgetError, InputError
from core.scales import Scale, parse_scale, scale_factor

__all__ = ["Backend", "BackendError", "BudgetError", "InputError", "Scale", "device_info",
           "get_backend", "parse_scale", "scale_factor"]
