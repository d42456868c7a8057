"""The sentences and labels the pages build from computed values, in this run's language (the words
themselves are the translation table's, pages/ui/text/): one concern, one section a page.

- The lesson's (and a class's): a choice's label and its bin edges or candidate as a student reads
  them, a remedy's name, the measured value after the reveal, a step's facts as its take-away quotes
  them, a share correct as a percentage.
- The beyond page's: whether curves drawn on top of one another coincide. The correlated-keys section
  draws the entropy against d_k, one line per ρ; where those lines coincide (core.curve_overlap) a
  reader sees one line where the legend names several, so the page says so, and why, under the
  charts and in each chart's text alternative.
- The fact-check page's: a measurement's facts as display text, each measured point as a sentence
  (which wraps on a phone, unlike a wide table), and one line of counts per note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core import factcheck as fc
from core import lesson
from core.curve_overlap import COINCIDE, overlap
from pages.ui.format import fmt_num, fmt_pct, scale_label
from pages.ui.i18n import current_lang, t

if TYPE_CHECKING:
    from server.room_state import Question

# ---------------------------------------------------------------- the lesson and a class


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


def labels_of(q: Question) -> list[str]:
    """A room's question's choices as its students read them."""
    return [choice_label(c, q.format) for c in q.choices]


def pct_text(share: float) -> str:
    """A share correct as a whole percentage ("67 %")."""
    return f"{round(100 * share)} %"


# ---------------------------------------------------------------- the beyond page


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


# ---------------------------------------------------------------- the fact-check page


def fact_text(facts: dict[str, Any]) -> dict[str, str]:
    """Every fact as display text: *_pct as a percentage, floats to 3 significant digits, lists joined."""
    out = {}
    for k, v in facts.items():
        if isinstance(v, bool):
            out[k] = t("factcheck.yes") if v else t("factcheck.no")
        elif isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
            out[k] = ", ".join(fmt_num(x, 3) for x in v)
        elif isinstance(v, float):
            out[k] = fmt_pct(v) if k.endswith("_pct") else fmt_num(v, 3)
        elif v is None:
            out[k] = "—"
        elif not isinstance(v, dict):
            out[k] = str(v)
    return out


def where(p: dict[str, Any]) -> str:
    """The condition a point was measured under, in words."""
    bits = []
    if p["dk"] is not None:
        bits.append(f"d_k = {p['dk']}")
    if p["n"] is not None:
        bits.append(f"n = {p['n']}")
    if p["scale"] is not None:
        bits.append(scale_label(p["scale"]))
    if p["where"]:
        bits.append(p["where"])
    return ", ".join(bits)


def point_line(p: dict[str, Any]) -> str:
    """One point as a sentence (wraps on a phone, unlike a wide table)."""
    c, tol = fmt_num(p["claimed"]), fmt_num(p["tolerance"], 2)
    rule = {
        "eq": t("factcheck.rule.eq", c=c, tol=tol),
        "below": t("factcheck.rule.below", c=c, tol=tol),
        "above": t("factcheck.rule.above", c=c, tol=tol),
        "within": t("factcheck.rule.within", c=c, lo=fmt_num(p["lo"]), hi=fmt_num(p["hi"])),
    }[p["relation"]]
    err = t("factcheck.exact") if p["error"] == 0 else f"± {fmt_num(p['error'], 2)}"
    mark = "✓" if p["agrees"] else "✗"
    place = where(p)
    return t(
        "factcheck.point" if place else "factcheck.point.nowhere",
        mark=mark,
        quantity=t(f"factcheck.qty.{p['quantity']}"),
        where=place,
        m=fmt_num(p["measured"]),
        err=err,
        rule=rule,
    )


def summary_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A note's row of counts (core.factcheck.summary) as the placeholders of "factcheck.summary.line"."""
    return {"note": row["note"][:3], "found": row["found"], "checked": row["checked"],
            "measured": row["measured"], "literature": row["literature"], "unchecked": row["not_checkable"],
            "holds": row["holds"], "partly": row["partly"], "fails": row["fails"], "pending": row["pending"]}


def summary_line(row: dict[str, Any]) -> str:
    """A note's counts as one line, in this run's language."""
    return t("factcheck.summary.line", **summary_fields(row))


def unchecked_format(note: str) -> str:
    """How a note's unchecked statements are shown: as its cards' quotes are ("plain" for a note whose
    quotes are all plain text, else "markdown"; printed output never stands among them)."""
    return "plain" if all(c.quote_format == "plain" for c in fc.claims_of(note)) else "markdown"
