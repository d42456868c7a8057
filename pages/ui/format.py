"""How the app writes numbers and names scales, and the colours that tell scales apart.

- `fmt_num()` / `fmt_pct()`: the one format of numbers on screen (tests compare against it);
- `scale_label()`: a scale's translated name, as legends and metrics show it;
- Colour-blind-safe colours: Okabe–Ito for categories (one fixed colour per scale, `scale_colours`),
  darkened where a hue is too light for the white background, each with its own dash and shape;
  viridis for heatmaps.
"""

from __future__ import annotations

import math

import altair as alt

from core.scales import parse_scale
from pages.ui.i18n import t

# Okabe & Ito (2008), safe for the common colour-vision deficiencies, adjusted for the white chart
# background, where a line or a point needs 3:1 (WCAG 1.4.11). Orange #E69F00 (2.25:1), sky blue
# #56B4E9 (2.31:1) and yellow #F0E442 (1.32:1) are the same hue (HLS hue and saturation kept)
# darkened past 3:1: #C28600, #1D97DC, #9C920C. Darkened orange comes close to vermillion for a
# deuteranope (ΔE 4.7 in CIELAB against #D55E00), so vermillion is darkened too, to #C05500 (4.62:1,
# which also serves as text): ΔE 12.8. Every ratio and distance is in docs/accessibility.md and
# measured by tests/test_chart_colours.py.
CHART_BACKGROUND = "#FFFFFF"
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#C05500", "#009E73", "#C28600", "#CC79A7", "#1D97DC",
                              "#000000", "#9C920C")
SCALE_COLOURS: dict[str, str] = {"sqrt": "#0072B2", "none": "#C05500", "linear": "#009E73",
                                 "log": "#C28600", "double-sqrt": "#CC79A7", "power": "#1D97DC",
                                 "const": "#000000"}
REFERENCE_GREY = "#777777"  # reference lines and rules (4.48:1)
# Text drawn inside a chart in a series' colour needs 4.5:1: vermillion is the one that has it.
VERMILLION_TEXT = OKABE_ITO[1]

# Colour is never the only channel telling series apart (WCAG 1.4.1): each palette colour has its own
# stroke dash (lines) and point shape, so a category keeps its dash and shape wherever it keeps its
# colour (the scales' SCALE_COLOURS included). pages/ui/chart/channels.py adds them to every chart.
DASHES: tuple[tuple[int, ...], ...] = ((1, 0), (6, 3), (2, 2), (8, 3, 2, 3), (4, 4), (10, 4),
                                       (1, 3), (6, 2, 2, 2, 2, 2))
SHAPES: tuple[str, ...] = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down",
                           "triangle-right", "triangle-left")
COLOUR_STYLES: dict[str, tuple[tuple[int, ...], str]] = {
    colour.upper(): (DASHES[i], SHAPES[i]) for i, colour in enumerate(OKABE_ITO)}
SCALE_DASHES: dict[str, tuple[int, ...]] = {k: COLOUR_STYLES[c][0] for k, c in SCALE_COLOURS.items()}
SCALE_SHAPES: dict[str, str] = {k: COLOUR_STYLES[c][1] for k, c in SCALE_COLOURS.items()}
HEATMAP_SCHEME = "viridis"


def scale_label(name: str) -> str:
    """A canonical scale name ("sqrt", "power:0.75") as a translated legend label."""
    s = parse_scale(name)
    if s.kind == "power":
        return t("common.scale.power_a", a=f"{s.param:g}")
    if s.kind == "const":
        return t("common.scale.const", c=f"{s.param:g}")
    return t(f"common.scale.{s.kind}")


def scale_colours(names: list[str]) -> alt.Scale:
    """Colour scale over the translated labels of `names`, one fixed colour per scale kind."""
    domain = [scale_label(n) for n in names]
    colours = [SCALE_COLOURS.get(parse_scale(n).kind, OKABE_ITO[6]) for n in names]
    return alt.Scale(domain=domain, range=colours)


def fmt_num(x: float | None, digits: int = 4) -> str:
    """The one number format of metrics on screen (tests compare against it)."""
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def fmt_pct(x: float) -> str:
    """A fraction as a percentage with one decimal ("12.5 %")."""
    return f"{100.0 * float(x):.1f} %"
