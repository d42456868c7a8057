"""How the lesson's choices and remedies read on screen (and in a class's summary): the numbers of a
bin edge or candidate, a choice's label, a remedy's name."""

from __future__ import annotations

from typing import Any

from core import lesson
from pages.ui.format import fmt_num, fmt_pct
from pages.ui.i18n import t


def method_label(method: str, formula: bool = False) -> str:
    """A remedy's short name (the control), or with its formula (the legend)."""
    key = f"lesson.series.{method}" if formula else f"lesson.method.{method}"
    return t(key, tau=f"{lesson.COSINE_TAU:g}", cap=f"{lesson.SOFTCAP:g}")


def number(v: float, kind: str) -> str:
    """A bin edge or candidate as a student reads it: 25 %, 0.99, 4096 (not 4.1e+03)."""
    if kind == "pct":
        return f"{100 * v:g} %"
    return f"{v:.0f}" if float(v).is_integer() else fmt_num(v, 3)


def choice_label(choice: dict[str, Any], kind: str) -> str:
    numbers = {k: number(v, kind) for k, v in choice.items() if k != "key"}
    return t(f"lesson.choice.{choice['key']}", **numbers)


def measured_text(value: float, kind: str) -> str:
    """The measured value as the page shows it after the reveal (a share as a percentage)."""
    return fmt_pct(value) if kind == "pct" else fmt_num(value)


def facts_text(facts: dict[str, Any]) -> dict[str, str]:
    """A step's facts as its take-away quotes them: a crossing d_k as an integer, logits to 3 digits."""
    out: dict[str, str] = {}
    for k, v in facts.items():
        if v is None:
            continue
        out[k] = f"{v:d}" if isinstance(v, int) else fmt_num(v, 4 if k == "ln_max" else 3)
    return out
