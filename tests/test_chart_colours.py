"""The charts' colours, measured: WCAG 2.2 contrast (1.4.11: marks ≥ 3:1 on the chart background;
1.4.3: text ≥ 4.5:1) and the categories' colours still apart for protanopes and deuteranopes."""

from __future__ import annotations

import itertools
import math

from pages.ui.format import (
    CHART_BACKGROUND,
    COLOUR_STYLES,
    OKABE_ITO,
    REFERENCE_GREY,
    SCALE_COLOURS,
    SCALE_DASHES,
    SCALE_SHAPES,
    VERMILLION_TEXT,
)

MARK_MIN, TEXT_MIN = 3.0, 4.5
CVD_MIN_DELTA_E = 12.0  # CIELAB ΔE76 between two categories' colours as a colour-blind reader sees them
# Viénot, Brettel & Mollon (1999), in linear RGB
CVD = {"protanopia": ((0.11238, 0.88762, 0.0), (0.11238, 0.88762, 0.0), (0.00401, -0.00401, 1.0)),
       "deuteranopia": ((0.29275, 0.70725, 0.0), (0.29275, 0.70725, 0.0), (-0.02234, 0.02234, 1.0))}


def linear_rgb(hex_colour: str) -> tuple[float, float, float]:
    """sRGB "#RRGGBB" → linear RGB, as WCAG's relative luminance defines it."""
    h = hex_colour.lstrip("#")
    c = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c)
    return r, g, b


def luminance(hex_colour: str) -> float:
    r, g, b = linear_rgb(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str = CHART_BACKGROUND) -> float:
    """WCAG contrast ratio of two colours, (L1 + 0.05) / (L2 + 0.05), L1 the lighter."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(hex_colour: str, opacity: float, background: str = CHART_BACKGROUND) -> str:
    """The colour a mark of `opacity` shows over the background (blended in sRGB, as browsers do)."""
    fg = [int(hex_colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
    bg = [int(background.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
    return "#" + "".join(f"{round(opacity * f + (1 - opacity) * b):02X}" for f, b in zip(fg, bg, strict=True))


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen_with(kind: str, hex_colour: str) -> tuple[float, float, float]:
    c = linear_rgb(hex_colour)
    return tuple(min(1.0, max(0.0, sum(m * v for m, v in zip(row, c, strict=True)))) for row in CVD[kind])


def test_wcag_contrast_formula_matches_known_ratios():
    assert round(contrast("#000000", "#FFFFFF"), 1) == 21.0
    assert round(contrast("#777777"), 2) == 4.48 and round(contrast("#767676"), 2) == 4.54
    assert contrast("#FFFFFF") == 1.0


def test_every_category_colour_has_3_to_1_against_the_chart_background():
    for colour in (*OKABE_ITO, *SCALE_COLOURS.values(), REFERENCE_GREY):
        assert contrast(colour) >= MARK_MIN, (colour, round(contrast(colour), 2))
    assert contrast(VERMILLION_TEXT) >= TEXT_MIN


def test_the_categories_stay_apart_for_protanopes_and_deuteranopes():
    """Any two of the colours a chart uses together (at most seven categories: the eighth, darkened
    yellow, meets darkened orange for a colour-blind reader and is told apart by its dash and shape)."""
    for kind in CVD:
        for a, b in itertools.combinations(OKABE_ITO[:7], 2):
            delta = math.dist(lab(seen_with(kind, a)), lab(seen_with(kind, b)))
            assert delta >= CVD_MIN_DELTA_E, (kind, a, b, round(delta, 1))


def test_every_palette_colour_has_its_own_dash_and_shape():
    assert len({d for d, _ in COLOUR_STYLES.values()}) == len(COLOUR_STYLES)
    assert len({s for _, s in COLOUR_STYLES.values()}) == len(COLOUR_STYLES)
    assert SCALE_DASHES["sqrt"] == (1, 0) and SCALE_SHAPES["none"] != SCALE_SHAPES["sqrt"]


def chart_colours(spec: dict) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(marks, texts): every fixed colour a chart's marks and text are drawn in, as (where, colour),
    each at its opacity over the background. Areas (confidence bands, drawn faint by design, their
    bounds in the table) and continuous colour schemes (heat maps, read in their table) are not
    marks held to 3:1 here."""
    from pages.ui.chart.channels import units

    marks, texts = [], []
    for unit in units(spec):
        mark = unit["mark"] if isinstance(unit["mark"], dict) else {"type": unit["mark"]}
        kind = mark["type"]
        if kind == "area":
            continue
        # Vega-Lite's own default: points, circles, squares and ticks at 0.7
        opacity = float(mark.get("opacity", 0.7 if kind in ("point", "circle", "square", "tick") else 1.0))
        for key in ("color", "fill", "stroke"):
            value = mark.get(key)
            if isinstance(value, str) and value.startswith("#"):
                (texts if kind == "text" else marks).append((f"{kind}.{key}", over(value, opacity)))
        colour = (unit.get("encoding") or {}).get("color") or {}
        rng = (colour.get("scale") or {}).get("range")
        if colour.get("type") in ("nominal", "ordinal"):
            assert isinstance(rng, list), f"a categorical colour without the app's palette: {colour}"
            marks += [(f"{kind} series", over(c, opacity)) for c in rng]
    for key, value in (spec.get("config") or {}).get("axis", {}).items():
        if key.endswith("Color") and isinstance(value, str):
            texts.append((f"axis.{key}", value))
    return marks, texts
