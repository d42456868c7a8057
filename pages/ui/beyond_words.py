"""How the beyond page words what its charts cannot show: curves drawn on top of one another.

The correlated-keys section draws the entropy against d_k, one line per ρ; where those lines coincide
(core.curve_overlap) a reader sees one line where the legend names several, so the page says so, and
why, under the charts and in each chart's text alternative.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.curve_overlap import COINCIDE, overlap
from pages.ui.format import fmt_num
from pages.ui.i18n import current_lang, t


def rho_overlap(rows: Sequence[Mapping[str, Any]], scale: str) -> dict[str, Any]:
    """core.curve_overlap.overlap of one scale's entropy lines (one per ρ), against the span ln n."""
    part = [r for r in rows if r["scale"] == scale]
    return overlap(part, x="dk", y="entropy_mean", series="rho", span=part[0]["ln_n"])


def rho_overlap_words(rows: Sequence[Mapping[str, Any]], scale: str) -> str:
    """Whether one scale's ρ lines coincide, over which d_k, and why — in this run's language."""
    ov = rho_overlap(rows, scale)
    case = "all" if ov["all"] else ("up_to" if ov["up_to"] is not None else "none")
    ln_n = next(r["ln_n"] for r in rows if r["scale"] == scale)
    said = t(f"beyond.corr.overlap.{scale}.{case}", curves=ov["curves"], spread=fmt_num(ov["spread_max"], 2),
             pct=f"{100 * COINCIDE:g}", ln_n=fmt_num(ln_n, 3), dk=ov["up_to"], apart=ov["apart_from"])
    return sentences(said, t(f"beyond.corr.overlap.{scale}.why"))


def sentences(*parts: str) -> str:
    """Sentences run on as this run's language writes them: a space between them in English, none in
    Chinese (its full stop carries the gap)."""
    return ("" if current_lang() == "zh" else " ").join(parts)
