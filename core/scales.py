"""The scale family c(d_k) applied to the scores s_ij = c · (q_i · k_j).

One definition, used by the CLI, the app and the tests (docs/science.md §1):

    none         c = 1
    sqrt         c = 1/√d_k
    linear       c = 1/d_k
    log          c = 1/ln(d_k)        (needs d_k ≥ 2)
    double-sqrt  c = 1/(2·√d_k)
    power:a      c = d_k^(−a)         (a in [0, 2])
    const:c      c = c                (c > 0)

Names are parsed by `parse_scale`, a small parser (no eval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.errors import InputError

NAMED_SCALES: tuple[str, ...] = ("none", "sqrt", "linear", "log", "double-sqrt")
PARAM_SCALES: tuple[str, ...] = ("power", "const")
POWER_RANGE: tuple[float, float] = (0.0, 2.0)


@dataclass(frozen=True)
class Scale:
    """A member of the scale family: `kind` is a family name, `param` the exponent a or constant c."""

    kind: str
    param: float | None = None

    @property
    def name(self) -> str:
        """Canonical text form, the one `parse_scale` reads back ("sqrt", "power:0.75")."""
        if self.param is None:
            return self.kind
        return f"{self.kind}:{_fmt(self.param)}"

    def factor(self, d_k: int) -> float:
        """The factor c for a key dimension d_k."""
        return scale_factor(self, d_k)

    def latex(self) -> str:
        """c(d_k) as LaTeX, for labels on screen."""
        if self.kind == "none":
            return "1"
        if self.kind == "sqrt":
            return r"1/\sqrt{d_k}"
        if self.kind == "linear":
            return r"1/d_k"
        if self.kind == "log":
            return r"1/\ln d_k"
        if self.kind == "double-sqrt":
            return r"1/(2\sqrt{d_k})"
        if self.kind == "power":
            return rf"d_k^{{-{_fmt(self.param)}}}"
        return _fmt(self.param)

    def __str__(self) -> str:
        return self.name


def _fmt(x: float | None) -> str:
    return f"{x:g}"


def parse_scale(text: str) -> Scale:
    """Parse a scale name: one of NAMED_SCALES, `power:a` with 0 ≤ a ≤ 2, or `const:c` with c > 0."""
    if not isinstance(text, str):
        raise InputError(f"scale must be text, got {type(text).__name__}")
    raw = text.strip().lower()
    if raw in NAMED_SCALES:
        return Scale(raw)
    kind, sep, value = raw.partition(":")
    if not sep or kind not in PARAM_SCALES:
        allowed = ", ".join(NAMED_SCALES) + ", power:a, const:c"
        raise InputError(f"unknown scale {text!r}; choose one of {allowed}")
    try:
        param = float(value)
    except ValueError:
        raise InputError(f"scale {text!r}: {value!r} is not a number") from None
    if not math.isfinite(param):
        raise InputError(f"scale {text!r}: the parameter must be finite")
    if kind == "power" and not POWER_RANGE[0] <= param <= POWER_RANGE[1]:
        raise InputError(f"scale {text!r}: the exponent a must lie in [0, 2]")
    if kind == "const" and param <= 0:
        raise InputError(f"scale {text!r}: the constant c must be > 0")
    return Scale(kind, param)


def scale_factor(scale: Scale | str, d_k: int) -> float:
    """c(d_k) for a scale (or its name); raises InputError where it is undefined (log at d_k = 1)."""
    s = parse_scale(scale) if isinstance(scale, str) else scale
    if d_k < 1:
        raise InputError(f"d_k must be ≥ 1, got {d_k}")
    if s.kind == "none":
        return 1.0
    if s.kind == "sqrt":
        return 1.0 / math.sqrt(d_k)
    if s.kind == "linear":
        return 1.0 / d_k
    if s.kind == "log":
        if d_k < 2:
            raise InputError("scale 'log' needs d_k ≥ 2 (ln 1 = 0)")
        return 1.0 / math.log(d_k)
    if s.kind == "double-sqrt":
        return 1.0 / (2.0 * math.sqrt(d_k))
    if s.kind == "power":
        return float(d_k) ** (-s.param)
    return float(s.param)
