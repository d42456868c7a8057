"""The theme's colours meet WCAG 2.2 AA contrast (docs/accessibility.md): text and captions 4.5:1,
control borders, the focus outline and the primary colour's marks 3:1, on both backgrounds.

Streamlit derives some colours from the theme: a caption is the text at 60 % opacity, a selected
segmented control or pill writes the primary colour on a 15 % tint of itself, code inside a caption
is faded like the caption. Those derived colours are computed here the same way."""

from __future__ import annotations

import tomllib

import pytest
from conftest import ROOT

from pages.ui.a11y import FOCUS_COLOUR

THEME = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
BACKGROUNDS = (THEME["backgroundColor"], THEME["secondaryBackgroundColor"])
CODE_BACKGROUND = "#FBFCFD"  # Streamlit's inline code box in the light theme (measured in Chromium)


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of an sRGB colour '#RRGGBB'."""
    h = hex_colour.lstrip("#")
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio (L1 + 0.05) / (L2 + 0.05), from 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(colour: str, background: str, alpha: float) -> str:
    """`colour` at opacity `alpha` over `background`, as the screen shows it."""
    c, b = colour.lstrip("#"), background.lstrip("#")
    return "#" + "".join(f"{round(alpha * int(c[i:i + 2], 16) + (1 - alpha) * int(b[i:i + 2], 16)):02X}"
                         for i in (0, 2, 4))


def test_the_ratio_matches_known_pairs():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast("#797C83", "#FFFFFF") == pytest.approx(4.18, abs=0.01)  # axe's figure, former captions
    assert over("#1F2430", "#FFFFFF", 0.6) == "#797C83"  # the former caption colour, as drawn


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_text_and_captions_reach_4_5(background):
    assert contrast(THEME["textColor"], background) >= 4.5
    assert contrast(over(THEME["textColor"], background, 0.6), background) >= 4.5


def test_code_in_a_caption_reaches_4_5():
    faded = over(THEME["codeTextColor"], CODE_BACKGROUND, 0.6)
    assert contrast(faded, CODE_BACKGROUND) >= 4.5


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_selected_choice_reaches_4_5(background):
    tint = over(THEME["primaryColor"], background, 0.15)
    assert contrast(THEME["primaryColor"], tint) >= 4.5


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_borders_focus_and_marks_reach_3(background):
    assert contrast(THEME["borderColor"], background) >= 3
    assert contrast(THEME["primaryColor"], background) >= 3
    assert contrast(FOCUS_COLOUR, background) >= 3
    assert THEME["showWidgetBorder"] is True


def test_focus_colour_is_the_primary_colour():
    assert FOCUS_COLOUR.upper() == THEME["primaryColor"].upper()
