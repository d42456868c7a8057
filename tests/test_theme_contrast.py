"""The theme's colours meet WCAG 2.2 AA contrast (docs/accessibility.md): text and captions 4.5:1,
control borders, the focus outline and the primary colour's marks 3:1, on both backgrounds.

Streamlit derives some colours from the theme: a caption is the text at 60 % opacity, a selected
segmented control or pill writes the primary colour on a 15 % tint of itself, code inside a caption
is faded like the caption. Those derived colours are computed here the same way."""

from __future__ import annotations

import tomllib

import pytest
from conftest import ROOT
from test_chart_colours import contrast

from pages.ui.a11y import FOCUS_COLOUR
from pages.ui.chart.vega import CHART_TEXT, TEXT_COLOURS, view

THEME = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
BACKGROUNDS = (THEME["backgroundColor"], THEME["secondaryBackgroundColor"])
CODE_BACKGROUND = "#FBFCFD"  # Streamlit's inline code box in the light theme (measured in Chromium)


def over(colour: str, background: str, alpha: float) -> str:
    """`colour` at opacity `alpha` over `background`, as the screen shows it (hex digits, uppercase)."""
    c, b = colour.lstrip("#"), background.lstrip("#")
    return "#" + "".join(f"{round(alpha * int(c[i:i + 2], 16) + (1 - alpha) * int(b[i:i + 2], 16)):02X}"
                         for i in (0, 2, 4))


def test_derived_colours_match_what_the_browser_drew():
    assert contrast("#797C83", "#FFFFFF") == pytest.approx(4.18, abs=0.01)  # axe's figure, former captions
    assert over("#1F2430", "#FFFFFF", 0.6) == "#797C83"  # the former caption colour, as drawn
    # the former selected choice: axe measured 4.14:1 (#0072B2 on #DAE8F2); the 15 % tint model is close
    assert contrast("#0072B2", over("#0072B2", "#FFFFFF", 0.15)) == pytest.approx(4.14, abs=0.15)


def test_chart_text_reaches_4_5_on_every_view():
    import altair as alt
    import pandas as pd

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4], "s": ["a", "b"]})).mark_line().encode(
        x="x:Q", y="y:Q", color="s:N").properties(title="t")
    spec, _ = view(chart)
    for part, props in TEXT_COLOURS.items():
        for prop in props:
            assert contrast(spec["config"][part][prop], THEME["backgroundColor"]) >= 4.5, (part, prop)
    assert contrast(CHART_TEXT, THEME["backgroundColor"]) >= 4.5
    own = alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x:Q")
    own = own.configure_axis(labelColor="#000000")
    assert view(own)[0]["config"]["axis"]["labelColor"] == "#000000", "a chart's own colour is kept"


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_text_and_captions_reach_4_5(background):
    assert contrast(THEME["textColor"], background) >= 4.5
    assert contrast(over(THEME["textColor"], background, 0.6), background) >= 4.5


def test_code_in_a_caption_reaches_4_5():
    faded = over(THEME["codeTextColor"], CODE_BACKGROUND, 0.6)
    assert contrast(faded, CODE_BACKGROUND) >= 4.5


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_selected_choice_reaches_4_5(background):
    for alpha in (0.15, 0.2):  # the model's tint, and a darker one for margin
        tint = over(THEME["primaryColor"], background, alpha)
        assert contrast(THEME["primaryColor"], tint) >= 4.5, alpha


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_borders_focus_and_marks_reach_3(background):
    assert contrast(THEME["borderColor"], background) >= 3
    assert contrast(THEME["primaryColor"], background) >= 3
    assert contrast(FOCUS_COLOUR, background) >= 3
    assert THEME["showWidgetBorder"] is True


def test_focus_colour_is_the_primary_colour():
    assert FOCUS_COLOUR.upper() == THEME["primaryColor"].upper()
