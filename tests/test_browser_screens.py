"""Every page in a real browser, in both languages, at 1280×720 and on a 390×844 phone (and every page
and lesson step at 360 px): no error, every chart drawn, nothing wider than the screen, no text cut off
by its box or crossed by a chart's line, no English scale code inside Chinese text, axe-core clean.
Screenshots land in tests/artifacts/screens/. Nothing here is timed, so the module runs in the
browser-views lane beside the timed tests (tests/conftest.py); the helpers are tests/test_browser.py's.
"""

from __future__ import annotations

import re

import pytest
from axe_check import axe_problems
from conftest import ARTIFACTS, ROOT, served_app
from test_browser import SHOTS, assert_healthy, model_installed, open_app

from tools.app_driver import (
    PAGES,
    VIEWPORTS,
    clipped_text,
    overflow,
    screenshot_full,
    serve,
    url_path,
    wait_first_render,
    wait_idle,
)
from tools.loadtest.driver import ASKED, charted

pytestmark = pytest.mark.browser


server = served_app("streamlit-screens.log")  # and conftest's `browser`


CASES = [(name, lang, device) for name in PAGES for lang in ("en", "zh") for device in ("desktop", "phone")]


@pytest.mark.parametrize(("name", "lang", "device"), CASES)
def test_page_fits_the_screen_without_errors(browser, server, name, lang, device):
    """Every page, in both languages, at 1280×720 and on a 390×844 phone: no error, every chart
    drawn, nothing wider than the screen, no text cut off or crossed (clipped_text), and in Chinese
    no scale named by its URL code. Screenshots: the first screen and the whole page."""
    link = f"{url_path(name)}?lang={lang}" + (f"&{ASKED[name]}" if name in ASKED else "")  # work asked for
    charts = charted(link) and (name != "real-model" or model_installed())
    context, page = open_app(browser, f"{server}/{link}", VIEWPORTS[device], charts)
    if name == "real-model" and not charts:  # the optional model package is absent: the page says so
        assert page.locator('[data-testid="stAlert"]').count() >= 1
    else:
        assert_healthy(page, charts=charts)
    if lang == "zh":
        title = page.locator("h1").first.inner_text()
        assert re.search(r"[\u4e00-\u9fff]", title), f"title not in Chinese: {title!r}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{lang}-{device}.png"))
    too_wide = overflow(page)
    cut = clipped_text(page)
    text = page.locator('[data-testid="stMain"]').inner_text()
    codes = SCALE_CODE_IN_ZH.findall(text) if lang == "zh" else []
    screenshot_full(page, SHOTS / f"{name}-{lang}-{device}-full.png")
    inaccessible = axe_problems(page, f"{link} {device}")  # WCAG 2.2 A/AA (tests/axe_check.py)
    context.close()
    size = VIEWPORTS[device]["viewport"]
    where = f"{name} ({lang}) at {size['width']}×{size['height']}"
    assert not too_wide, f"{where}: {too_wide}"
    assert not cut, f"{where}: {cut}"
    assert not codes, f"{where}: scale codes in Chinese text: {codes}"
    assert not inaccessible, inaccessible


# A scale's URL code in brackets inside Chinese text ("不缩放（none）"): the label alone says it.
SCALE_CODE_IN_ZH = re.compile(r"[（(](?:none|sqrt|linear|log|double-sqrt|power|const)[）)]")


@pytest.fixture(scope="module")
def clip_server(browser):
    app = ROOT / "tests" / "apps" / "clipped_text.py"
    with serve(ARTIFACTS / "streamlit-clipped-text.log", script=app) as url:
        yield url


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_clipped_text_check_reports_each_fault_and_passes_the_fixed_page(browser, clip_server, device):
    """The check is not blind: a chart label crossed by a line, a legend label Vega shortened, pills
    whose row runs past a fading edge (in a column on a desktop; a phone stacks the columns) and a
    line cut off with an ellipsis are each reported, naming the chart or element; the same content
    drawn as the app draws it is not reported."""
    found = {}
    for mode in ("faulty", "fixed"):
        context = browser.new_context(**VIEWPORTS[device])
        page = context.new_page()
        page.goto(f"{clip_server}/?mode={mode}")
        wait_first_render(page, timeout_ms=60_000)
        wait_idle(page, timeout_ms=60_000)
        found[mode] = clipped_text(page)
        context.close()
    report = " | ".join(found["faulty"])
    assert "chart 1 of 1: label \"ln 65504 ≈ 11.09: exp overflows\" crossed by a line" in report, report
    assert "chart 1 of 1: label shortened to fit" in report, report
    if device == "desktop":
        assert "options hidden past a fading edge in stButtonGroup" in report and "64-512" in report, report
    assert "text cut off in stHtml: \"a sentence too long" in report, report
    assert found["fixed"] == [], found["fixed"]


NARROWEST = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True,
             "has_touch": True}  # the narrowest phone the app promises to fit


def test_every_page_and_lesson_step_fits_a_360_px_phone(browser, server):
    """The width check of the test above, at 360 px (390 above), for every page in English (its
    work asked for) and every lesson step in Chinese, in one tab that moves from link to link."""
    from core import lesson

    links = [f"{url_path(name)}?lang=en" + (f"&{ASKED[name]}" if name in ASKED else "") for name in PAGES]
    links += [f"lesson?lang=zh&step={k}" for k in range(1, len(lesson.STEPS) + 1)]
    context = browser.new_context(locale="en-US", **NARROWEST)
    page = context.new_page()
    too_wide = {}
    for link in links:
        page.goto(f"{server}/{link}")
        page.wait_for_selector("h1", timeout=120_000)
        charts = charted(link) and (not link.startswith("real-model") or model_installed())
        wait_idle(page, timeout_ms=300_000, charts=charts)
        assert page.locator('[data-testid="stException"]').count() == 0, link
        if wide := overflow(page):
            too_wide[link] = wide
    context.close()
    assert not too_wide, too_wide
