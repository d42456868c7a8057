"""The lesson: why attention divides by √d_k, one question per step, asked before it is answered.

Pure (no Streamlit). Each step function takes the current settings and returns plain data
(core.lesson.questions): a `chart` whose rows are "context" (drawn before the reveal: reference lines,
other settings) or "answer" (drawn after), a `question` (the measured value, the choices, the correct
ones) and `facts` the take-away quotes. Each step has a statement (`Step.holds`) its take-away rests
on, true over the step's `ranges` (docs/science.md, "The lesson's statements"); every wrong choice
names one misconception, most of them from the notes (`Step.wrong`).

    variance   Var(q·k) = d_k, so c = 1/√d_k gives c²·d_k = 1
    double     1/(2√d_k) gives 1/4 at every d_k, not "just as bad" as 1/d_k (note 000)
    scales     1/d_k flattens attention, 1/ln d_k lets it saturate
    gradients  unscaled ‖∂L/∂q‖ is larger until the softmax saturates, then collapses (note 003: 1/d_k)
    overflow   the stable softmax never overflows in fp16, even unscaled (note 000: "overflow")
    absorb     a constant in c is a constant in W_Q: √d_k is not "the optimum" (note 001)
    trained    q correlated with its matching key: its scaled score has mean ρ√d_k, not N(0, 1) (003)
    length     √d_k fixes the dimension, not the length: the top weight fades, slower than 1/n
    modern     QK-norm and cosine attention bound the scores when ‖q‖, ‖k‖ grow; a cap of 50 does not
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import InputError
from core.lesson.questions import bin_choices, nearest_choices
from core.lesson.steps_beyond import (
    ALPHA_ASKED,
    ALPHAS,
    COSINE_TAU,
    FACTORS,
    LENGTH_TRIALS,
    N_GRID,
    NORM_REMEDIES,
    RHO_RANGE,
    SOFTCAP,
    absorb_holds,
    absorb_step,
    length_holds,
    length_step,
    modern_holds,
    modern_step,
    trained_holds,
    trained_step,
)
from core.lesson.steps_scale import (
    OTHER_SCALES,
    double_holds,
    double_step,
    gradients_holds,
    gradients_step,
    overflow_holds,
    overflow_step,
    scales_holds,
    scales_step,
    variance_holds,
    variance_step,
)

# A peer-instruction cycle, minutes per phase (docs/live-class.md, "A 50-minute plan").
PHASES: tuple[tuple[str, float], ...] = (("setup", 1.0), ("vote", 1.5), ("discuss", 2.0), ("revote", 1.0),
                                         ("reveal", 1.5))
PLAN_50: tuple[str, ...] = ("variance", "double", "gradients", "overflow", "trained", "modern")
FRAME_MINUTES = 5.0  # opening and closing of the 50-minute plan, around its cycles


@dataclass(frozen=True)
class Step:
    """One step: its name (translation keys "lesson.<name>.*"), the one setting the student may move
    ("dk", "n", "scale", "rho", "factor" or "method"), the function measuring it, the statement its
    take-away rests on, the range of each setting where that statement holds, and for each wrong
    choice's key the note its misconception comes from ("" when none of the notes states it)."""

    name: str
    control: str
    compute: Callable[..., dict[str, Any]]
    holds: Callable[[dict[str, Any]], bool]
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    wrong: Mapping[str, str] = field(default_factory=dict)
    expected: str = ""   # the wrong choice the notes lead a room to at the defaults


STEPS: tuple[Step, ...] = (
    Step("variance", "dk", variance_step, variance_holds, {"dk": (4, 4096)},
         {"one": "", "sqrt_dk": "000", "dk2": ""}, "sqrt_dk"),
    Step("double", "dk", double_step, double_holds, {"dk": (16, 4096)},
         {"inv_dk": "000", "half": "", "one": "001"}, "inv_dk"),
    Step("scales", "scale", scales_step, scales_holds, {"dk": (2, 4096)},
         {"eff_one": "", "eff_many": "", "eff_all": "000"}, "eff_one"),
    Step("gradients", "dk", gradients_step, gradients_holds, {"n": (2, 256)},
         {"grad_smaller": "003", "grad_same": ""}, "grad_smaller"),
    Step("overflow", "dk", overflow_step, overflow_holds, {"dk": (16, 4096)},
         {"rows_some": "000", "rows_most": "002"}, "rows_most"),
    Step("absorb", "factor", absorb_step, absorb_holds, {},
         {"same_little": "", "same_lot": "001"}, "same_lot"),
    Step("trained", "rho", trained_step, trained_holds, {"dk": (4, 4096)},
         {"zero": "003", "rho": "", "rho_dk": ""}, "zero"),
    Step("length", "n", length_step, length_holds, {"n": (2, 256)},
         {"fall_none": "", "fall_like_n": ""}, "fall_like_n"),
    Step("modern", "method", modern_step, modern_holds, {"dk": (16, 4096)},
         {"grow_less": "", "grow_same": ""}, "grow_less"),
)
NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)


def step_named(name: str) -> Step:
    """The step called `name`."""
    try:
        return STEPS[NAMES.index(name)]
    except ValueError:
        raise InputError(f"no lesson step is called {name!r}; the steps are {', '.join(NAMES)}") from None


def step_inputs(step: Step, values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings among `values` that `step` measures with (so a cache keyed by them is not
    invalidated by settings the step does not use), each clamped into the step's range."""
    wanted = inspect.signature(step.compute).parameters
    out = {k: v for k, v in values.items() if k in wanted}
    for k, (lo, hi) in step.ranges.items():
        if k in out:
            out[k] = type(out[k])(min(hi, max(lo, out[k])))
    return out


def parse_plan(raw: str | None) -> tuple[tuple[int, ...], str | None]:
    """`?steps=` → the chosen steps' indices into STEPS, in order: names or numbers 1–9, separated by
    commas ("variance,gradients,7"); a repeat is dropped. Empty or missing: every step. Returns the
    plan and a problem ("malformed") when a part is unknown (the known parts are kept)."""
    if raw is None or not raw.strip():
        return tuple(range(len(STEPS))), None
    plan: list[int] = []
    problem = None
    for part in (p.strip() for p in raw.split(",")):
        if part.isdigit() and 1 <= int(part) <= len(STEPS):
            i = int(part) - 1
        elif part in NAMES:
            i = NAMES.index(part)
        else:
            problem = "malformed"
            continue
        if i not in plan:
            plan.append(i)
    if not plan:
        return tuple(range(len(STEPS))), "malformed"
    return tuple(plan), problem


def plan_text(plan: tuple[int, ...]) -> str:
    """The `?steps=` value of a plan: its steps' names, comma-separated."""
    return ",".join(NAMES[i] for i in plan)


def plan_minutes(plan: tuple[int, ...]) -> float:
    """The plan's length in minutes: one peer-instruction cycle (PHASES) per step plus the frame."""
    return FRAME_MINUTES + len(plan) * sum(m for _, m in PHASES)


__all__ = [
    "ALPHAS", "ALPHA_ASKED", "COSINE_TAU", "FACTORS", "FRAME_MINUTES", "LENGTH_TRIALS", "NAMES",
    "NORM_REMEDIES",
    "N_GRID", "OTHER_SCALES", "PHASES", "PLAN_50", "RHO_RANGE", "SOFTCAP", "STEPS", "Step", "bin_choices",
    "nearest_choices", "parse_plan", "plan_minutes", "plan_text", "step_inputs", "step_named",
]
