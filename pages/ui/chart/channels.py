"""Colour is never the only channel (WCAG 1.4.1): every series a chart tells apart by colour also gets
a stroke dash (its lines) and a marker shape (its points), fixed per colour (pages/ui/format.py:
COLOUR_STYLES), so a scale keeps its dash and shape on every page as it keeps its colour.

It works on the Vega-Lite dict of a chart, for the view the browser draws (pages/ui/chart/vega.py) and for
the PNG / SVG downloads alike (pages/ui/chart/export.py), so every chart gets it without its builder
repeating it. The new channel shares the colour's field, domain, title and legend, so Vega-Lite
draws one legend whose symbols carry both colour and dash or shape. A layer that already uses the
channel for something else (a dashed reference line, a dash per statistic, a shape per kind) is
left as it is: its points, or the builder, carry the second channel instead (tests check that every
chart has one).
"""

from __future__ import annotations

import copy
from typing import Any

from pages.ui.format import COLOUR_STYLES, DASHES, SHAPES

CATEGORICAL = ("nominal", "ordinal")
LINE_MARKS = ("line", "trail")
POINT_MARKS = ("point", "circle")
NON_COLOUR_CHANNELS = ("strokeDash", "shape", "fillOpacity", "opacity", "strokeWidth", "size")


def mark_type(unit: dict[str, Any]) -> str | None:
    """A unit spec's mark type ("line", "point", …), or None for a view without a mark."""
    mark = unit.get("mark")
    return mark.get("type") if isinstance(mark, dict) else mark


def units(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every unit (single-mark) spec inside `spec`, layers and panels included, in order."""
    found: list[dict[str, Any]] = []
    if "mark" in spec:
        found.append(spec)
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for sub in spec.get(key) or []:
            if isinstance(sub, dict):
                found += units(sub)
    if isinstance(spec.get("spec"), dict):
        found += units(spec["spec"])
    return found


def categorical_colour(unit: dict[str, Any]) -> dict[str, Any] | None:
    """The unit's colour encoding when it tells categories apart by a field, else None."""
    colour = (unit.get("encoding") or {}).get("color")
    if isinstance(colour, dict) and colour.get("field") and colour.get("type") in CATEGORICAL:
        return colour
    return None


def _styles(colour: dict[str, Any], which: int, fallback: tuple[Any, ...]) -> list[Any] | None:
    """The dash (which=0) or shape (1) of each colour in the colour scale's explicit range, in order;
    None when the scale names no range of colours (Vega-Lite's own fixed order is used then)."""
    scale = colour.get("scale") or {}
    domain, rng = scale.get("domain"), scale.get("range")
    if not isinstance(domain, list):
        return None
    if isinstance(rng, list) and all(isinstance(c, str) for c in rng):
        out = []
        for i, c in enumerate(rng[:len(domain)]):
            style = COLOUR_STYLES.get(c.upper())
            out.append(style[which] if style else fallback[i % len(fallback)])
        return [list(v) if isinstance(v, tuple) else v for v in out]
    return [list(v) if isinstance(v, tuple) else v for v in (fallback[i % len(fallback)]
                                                               for i in range(len(domain)))]


def _twin(colour: dict[str, Any], styles: list[Any] | None) -> dict[str, Any]:
    """A channel on the colour's field with the colour's domain, title and legend."""
    twin: dict[str, Any] = {"field": colour["field"], "type": colour["type"]}
    for key in ("title", "legend", "sort"):
        if key in colour:
            twin[key] = copy.deepcopy(colour[key])
    scale = colour.get("scale") or {}
    if styles is not None:
        twin["scale"] = {"domain": copy.deepcopy(scale["domain"]), "range": styles}
    return twin


def add_second_channels(spec: dict[str, Any]) -> dict[str, Any]:
    """Give every line coloured by category a dash per category and every point a shape per category
    (see the module's docstring), in place; returns `spec`. Where a line of the same field is drawn
    dashed on purpose (the cost page's extrapolations, a theory line in a scale's colour), dashes
    already mean something else: that field's points carry the shapes alone."""
    dashed = {colour["field"] for unit in units(spec)
              if (colour := categorical_colour(unit)) is not None and mark_type(unit) in LINE_MARKS
              and isinstance(unit["mark"], dict) and "strokeDash" in unit["mark"]}
    for unit in units(spec):
        colour = categorical_colour(unit)
        kind = mark_type(unit)
        if colour is None or kind is None:
            continue
        enc = unit["encoding"]
        mark = unit["mark"] if isinstance(unit["mark"], dict) else {"type": kind}
        if (kind in LINE_MARKS and "strokeDash" not in enc and "strokeDash" not in mark
                and colour["field"] not in dashed):
            enc["strokeDash"] = _twin(colour, _styles(colour, 0, DASHES))
        elif kind in POINT_MARKS:
            if "shape" not in enc and "shape" not in mark:
                if kind == "circle":  # a circle mark cannot change shape; a filled point looks the same
                    mark = {**mark, "type": "point", "filled": mark.get("filled", True)}
                enc["shape"] = _twin(colour, _styles(colour, 1, SHAPES))
            # Vega-Lite draws points at opacity 0.7 unless told: a lighter hue would fall under 3:1
            unit["mark"] = {**mark, "opacity": mark.get("opacity", 1)}
    return spec


def colour_only_fields(spec: dict[str, Any]) -> set[str]:
    """The fields a chart tells apart by colour and by no other channel in any of its layers (should
    be empty: tests check every page's charts)."""
    coloured, other = set(), set()
    for unit in units(spec):
        colour = categorical_colour(unit)
        domain = ((colour or {}).get("scale") or {}).get("domain")
        if colour is not None and not (isinstance(domain, list) and len(domain) < 2):
            coloured.add(colour["field"])
        for channel in NON_COLOUR_CHANNELS:
            value = (unit.get("encoding") or {}).get(channel)
            if isinstance(value, dict) and value.get("field"):
                other.add(value["field"])
    return coloured - other
