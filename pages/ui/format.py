"""How the app writes numbers and names scales, and the colours that tell scales apart.

- `fmt_num()` / `fmt_pct()`: the one format of numbers on screen (tests compare against it);
- `scale_label()`: a scale's translated name, as legends and metrics show it;
- Colour-blind-safe colours: Okabe–Ito for categories (one fixed colour per scale, `scale_colours`),
  viridis for heatmaps.
"""

from __future__ import annotations

import math

import altair as alt

from core.scales import parse_scale
from pages.ui.i18n import t

# Okabe & Ito (2008), safe for the common colour-vision deficiencies.
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9",
                              "#000000", "#F0E442")
SCALE_COLOURS: dict[str, str] = {"sqrt": "#0072B2", "none": "#D55E00", "linear": "#009E73",
                                 "log": "#E69F00", "double-sqrt": "#CC79A7", "power": "#56B4E9",
                                 "const": "#000000"}
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
    colours = [SCALE_COLOURS.get(parse_scale(n).kind, "#000000") for n in names]
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
