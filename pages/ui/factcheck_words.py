"""How the fact-check page words a measurement: its facts as display text, each measured point as a
sentence (which wraps on a phone, unlike a wide table), and one line of counts per note."""

from __future__ import annotations

from typing import Any

from core import factcheck as fc
from pages.ui.format import fmt_num, fmt_pct, scale_label
from pages.ui.i18n import t


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
