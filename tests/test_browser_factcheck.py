"""The fact-check page in a real browser: it opens without measuring, fits a 390-px phone without a sideways
scroll, and a drill answer reveals the measured verdict — in English and Chinese. Screenshots land in
tests/artifacts/ (factcheck-<lang>-<width>.png)."""

from __future__ import annotations

import pytest
from conftest import ARTIFACTS, require_browser
from test_browser import assert_healthy

from core import factcheck as fc
from pages.ui.i18n import text_for
from tools.app_driver import MAIN_CHARTS, launch_chromium, serve, wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with serve(ARTIFACTS / "streamlit-factcheck.log") as url, sync_playwright() as p:
        b = launch_chromium(p)
        yield b, url
        b.close()


def _sideways(page) -> int:
    """How far the main area scrolls sideways (0 when everything fits)."""
    return page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
                                    return m.scrollWidth - m.clientWidth; }""")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_drill_answer_reveals_the_verdict_and_the_page_fits(browser, lang, width):
    b, url = browser
    context = b.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{url}/fact-check?lang={lang}&fc_note=003")
    wait_idle(page, timeout_ms=120_000, charts=False)
    assert_healthy(page, charts=False)
    assert page.locator(MAIN_CHARTS).count() == 0  # nothing measured on load
    assert _sideways(page) <= 1
    question = text_for("factcheck.n3_print_3.question", lang)
    page.get_by_text(question, exact=False).first.click()
    wait_idle(page, timeout_ms=120_000, charts=False)
    form = page.locator('[data-testid="stForm"]')
    form.get_by_text(text_for("factcheck.verdict.fails", lang), exact=True).first.click()
    form.get_by_role("button", name=text_for("factcheck.drill.submit", lang)).click()
    wait_idle(page, timeout_ms=120_000, charts=False)
    verdict = text_for("factcheck.verdict.fails", lang)
    expected = text_for("factcheck.verdict.measured", lang).format(verdict=verdict).replace("**", "")
    # The rerun the submit starts may not have begun when wait_idle looks (a slow machine): wait
    # for what it draws, up to a minute, rather than counting at once.
    page.get_by_text(expected).first.wait_for(state="visible", timeout=60_000)
    score = text_for("factcheck.drill.score", lang).format(right=1, asked=1, cards=1).split("**")[1]
    page.get_by_text(score).first.wait_for(state="visible", timeout=60_000)
    wait_idle(page, timeout_ms=120_000, charts=False)
    assert fc.get_claim("n3_print_3").quote_zh.splitlines()[1].split("  ")[0] in page.content()
    assert _sideways(page) <= 1
    page.screenshot(path=str(ARTIFACTS / f"factcheck-{lang}-{width}.png"), full_page=True)
    context.close()
