"""Accessibility in a real browser (docs/accessibility.md): axe-core's WCAG 2.0–2.2 A and AA rules on
the views the page tests do not open (the projector mode, a phone's open sidebar; every page and
lesson step is scanned where those tests open it, tests/axe_check.py); the lesson walked by
keyboard alone; nothing animating under reduced motion; screenshots through colour-vision filters.

axe-core runs inside the page (the `axe-playwright-python` package ships it); a view is scanned once
its script has finished and its charts have drawn. Every serious or critical finding fails, unless
it stands in tests/axe_check.py's KNOWN with its upstream reason (none today), and every excuse
must be documented. The per-view counts land in tests/artifacts/axe-report.jsonl.
"""

from __future__ import annotations

import re

import pytest
from axe_check import BLOCKING, KNOWN, axe_findings, axe_problems
from conftest import ARTIFACTS, require_browser
from waiting import next_frame, wait_settled

from pages.ui.i18n import text_for
from tools.app_driver import (
    VIEWPORTS,
    full_height,
    open_sidebar,
    serve,
    wait_idle,
)

pytestmark = pytest.mark.browser

NO_CHART_AT_OPEN = ("cost", "training", "real-model", "fact-check")  # they draw on being asked
# Every page and lesson step is scanned by the tests that open them (tests/test_browser_screens.py,
# tests/test_browser_lesson.py: tests/axe_check.py); here, the views only this module opens.
EXTRA_VIEWS = [("lesson?step=3&lesson_projector=1", "desktop"),
               ("lesson?step=5&lock=1&lesson_projector=1", "phone"), ("#sidebar", "phone")]


@pytest.fixture(scope="module")
def server():
    require_browser()
    with serve(ARTIFACTS / "streamlit-a11y.log") as url:
        yield url


def open_view(page, server: str, view: str, lang: str) -> None:
    sep = "&" if "?" in view else "?"
    page.goto(f"{server}/{view}{sep}lang={lang}")
    wait_idle(page, charts=view.split("?", maxsplit=1)[0] not in NO_CHART_AT_OPEN)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_projector_mode_and_the_open_sidebar_are_axe_clean(browser, server, lang):
    problems: list[str] = []
    for view, viewport in EXTRA_VIEWS:
        context = browser.new_context(**VIEWPORTS[viewport])
        page = context.new_page()
        if view == "#sidebar":  # a phone's sidebar starts closed: the page tests scan it closed
            open_view(page, server, "", lang)
            open_sidebar(page)
            wait_settled(page)  # the sidebar has slid in
        else:
            open_view(page, server, view, lang)
        problems += axe_problems(page, f"{view}&lang={lang} {viewport}")
        context.close()
    assert not problems, "\n".join(problems)


def test_the_axe_check_catches_a_violation(browser, server):
    """The scan is live: an image without a text alternative and grey-on-grey text are caught."""
    page = browser.new_page(**VIEWPORTS["desktop"])
    open_view(page, server, "variance", "en")
    page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
        const p = document.createElement('p'); p.textContent = 'faint'; p.style.color = '#bbbbbb';
        const i = document.createElement('img'); i.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
        m.prepend(p, i); }""")
    ids = {f["id"] for f in axe_findings(page) if f["impact"] in BLOCKING}
    assert {"color-contrast", "image-alt"} <= ids, ids
    page.close()


def test_known_exceptions_are_documented():
    text = (ARTIFACTS.parent.parent / "docs" / "accessibility.md").read_text()
    for (rule, view), why in KNOWN.items():
        assert rule in text and why, f"{rule} on {view} is excused but not documented"


# ---------------------------------------------------------------- keyboard and focus

FOCUSED = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return {text: (e.innerText || e.getAttribute('aria-label') || '').trim(), tag: e.tagName,
            top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height,
            outline: parseFloat(s.outlineWidth) || 0, outlineStyle: s.outlineStyle,
            inDialog: !!e.closest('[role="dialog"]'), inSidebar: !!e.closest('[data-testid="stSidebar"]'),
            inMain: !!e.closest('[data-testid="stMain"]')}; }"""
HEADER_PX = 60  # Streamlit's header, drawn over the top of the page


def tab_to(page, want, limit: int = 80) -> dict:
    """Press Tab until the focused element satisfies `want(info)`; every stop on the way must show
    its focus and lie inside the viewport, under the header."""
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    for _ in range(limit):
        page.keyboard.press("Tab")
        next_frame(page)  # the focus has moved (no transition runs on it): drawn with its outline
        info = page.evaluate(FOCUSED)
        if info is None:
            continue
        visible_part = info["width"] > 0 and info["height"] > 0
        if visible_part:
            assert info["outline"] >= 2 and info["outlineStyle"] != "none", f"no visible focus: {info}"
        control = info["tag"] != "MAIN" and info["height"] < vh  # not the scrolling area itself
        # the header covers the main area, not the sidebar or a dialog
        if visible_part and control and info["inMain"] and not info["inDialog"]:
            assert info["top"] >= HEADER_PX and info["bottom"] <= vh and info["left"] < vw, \
                f"focus outside the visible area or under the header: {info}"
        if want(info):
            return info
    raise AssertionError("never reached by Tab")


def label_is(info: dict, label: str) -> bool:
    """A button's own text (after its icon's ligature name) is `label`."""
    return info["tag"] == "BUTTON" and info["text"].split("\n")[-1].strip() == label


def test_a_lesson_step_by_keyboard_alone(browser, server):
    context = browser.new_context(**VIEWPORTS["desktop"])
    page = context.new_page()
    open_view(page, server, "lesson?step=2", "en")
    live = page.locator('.st-key-lesson_question [role="status"].ase-sr-only')
    assert "hidden until you reveal" in live.inner_text()
    page.evaluate("() => { document.querySelector('.st-key-lesson_question [role=status].ase-sr-only')"
                  ".dataset.probe = 'same'; }")
    tab_to(page, lambda i: i["tag"] == "BUTTON" and bool(i["text"]) and
           page.evaluate("() => !!document.activeElement.closest('.st-key-lesson_question "
                         "[data-testid=\"stButtonGroup\"]')"))
    page.keyboard.press("Enter")
    wait_idle(page)
    assert "step=2" in page.url
    tab_to(page, lambda i: text_for("lesson.reveal", "en") in i["text"])
    page.keyboard.press("Enter")
    page.wait_for_selector('.st-key-lesson_question [data-testid="stAlert"]', timeout=60_000)
    wait_idle(page)
    said = live.inner_text()
    assert text_for("lesson.result.measured", "en") in said and re.search(r"\d", said), said
    assert live.get_attribute("aria-live") == "polite"
    assert page.evaluate("() => document.querySelector('.st-key-lesson_question [role=status].ase-sr-only')"
                         ".dataset.probe") == "same", "the live region was replaced, not updated"
    # Share opens a dialog whose focus stays inside it; Escape closes it.
    tab_to(page, lambda i: label_is(i, text_for("lesson.share", "en")), limit=120)
    page.keyboard.press("Enter")
    page.wait_for_selector('[role="dialog"]', timeout=60_000)
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED)["inDialog"], "focus left the open dialog"
    page.keyboard.press("Escape")
    page.wait_for_selector('[role="dialog"]', state="detached", timeout=30_000)
    wait_idle(page)
    # Next, by Tab and Enter; then the clicker key from the page itself.
    tab_to(page, lambda i: label_is(i, text_for("lesson.next", "en")), limit=120)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"[?&]step=3\b"), timeout=60_000)
    wait_idle(page)
    context.close()


# WCAG 2.2's 2.5.8: a target is at least 24 × 24 CSS px, or a 24-px circle centred on it meets no
# other target (the spacing exception: Streamlit's 16-px "?" help icons).
SMALL_TARGETS = """() => {
    const all = [...document.querySelectorAll('[data-testid="stMain"] button, [data-testid="stMain"] a, '
        + '[data-testid="stMain"] input, [data-testid="stSidebar"] button, [data-testid="stSidebar"] a')]
        .map(e => [e, e.getBoundingClientRect()]).filter(([_, r]) => r.width > 0 && r.height > 0);
    const gap = (r, x, y) => Math.hypot(Math.max(r.left - x, 0, x - r.right),
                                        Math.max(r.top - y, 0, y - r.bottom));
    return all.filter(([e, r]) => r.width < 24 || r.height < 24).filter(([e, r]) => {
        const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
        return all.some(([o, q]) => o !== e && !o.contains(e) && !e.contains(o) && gap(q, x, y) < 12);
    }).map(([e, r]) => `${(e.innerText || e.getAttribute('aria-label') || e.tagName).trim().slice(0, 30)} `
        + `${Math.round(r.width)}x${Math.round(r.height)}`); }"""


@pytest.mark.parametrize("view", ["lesson?step=2", "variance", "lesson?step=4&lesson_projector=1"])
def test_targets_are_24_px_or_spaced(browser, server, view):
    page = browser.new_page(**VIEWPORTS["desktop"])
    open_view(page, server, view, "en")
    assert not page.evaluate(SMALL_TARGETS)
    if view == "variance":  # the check is live: two 10-px buttons side by side are caught
        page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
            for (const t of ['a', 'b']) { const b = document.createElement('button'); b.textContent = t;
                b.style.cssText = 'width:10px;height:10px;padding:0;margin:0;font-size:6px';
                m.prepend(b); } }""")
        assert len(page.evaluate(SMALL_TARGETS)) == 2
    page.close()


# ---------------------------------------------------------------- motion

MOVING = """() => [...document.querySelectorAll('*')].filter(e => {
    const s = getComputedStyle(e);
    const long = v => v.split(',').some(x => parseFloat(x) > 0);
    return (s.animationName !== 'none' && long(s.animationDuration)) || long(s.transitionDuration);
}).length"""


def test_nothing_moves_under_reduced_motion(browser, server):
    counts = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(**VIEWPORTS["desktop"], reduced_motion=motion)
        page = context.new_page()
        open_view(page, server, "saturation", "en")
        counts[motion] = page.evaluate(MOVING)
        context.close()
    assert counts["no-preference"] > 0, "the check sees no transition at all: it could not fail"
    assert counts["reduce"] == 0, counts


# ---------------------------------------------------------------- colour vision

# Colour-vision simulations as SVG colour matrices (Machado, Oliveira & Fernandes 2009, severity 1.0;
# achromatopsia as luminance), applied to the whole page for the screenshots.
CVD = {
    "deuteranopia": "0.367 0.861 -0.228 0 0  0.280 0.673 0.047 0 0  -0.012 0.043 0.969 0 0  0 0 0 1 0",
    "protanopia": "0.152 1.053 -0.205 0 0  0.115 0.786 0.099 0 0  -0.004 -0.048 1.052 0 0  0 0 0 1 0",
    "achromatopsia": " ".join(["0.2126 0.7152 0.0722 0 0"] * 3) + "  0 0 0 1 0",
}
FILTER_JS = """(matrix) => {
    document.getElementById('cvd-filters')?.remove();
    document.documentElement.style.filter = 'none';
    const ns = 'http://www.w3.org/2000/svg', svg = document.createElementNS(ns, 'svg');
    svg.id = 'cvd-filters';
    svg.setAttribute('style', 'position:absolute;width:0;height:0');
    svg.innerHTML = `<filter id="cvd"><feColorMatrix type="matrix" values="${matrix}"/></filter>`;
    document.body.appendChild(svg);
    document.documentElement.style.filter = 'url(#cvd)';
    return getComputedStyle(document.documentElement).filter; }"""


@pytest.mark.parametrize("view", ["variance", "gradients", "precision", "lesson?step=3&lesson_projector=1"])
def test_screenshots_through_colour_vision_filters(browser, server, view):
    page = browser.new_page(**VIEWPORTS["desktop"])
    name = view.replace("?", "-").replace("&", "-").replace("=", "")
    open_view(page, server, view, "en")
    screens = ARTIFACTS / "screens"
    screens.mkdir(parents=True, exist_ok=True)
    with full_height(page):  # the whole page: every chart
        page.screenshot(path=str(screens / f"cvd-{name}-normal.png"), scale="css")
        for kind, matrix in CVD.items():  # one page, its filter replaced: no reload nor resize per filter
            # the filter is in the computed style (asserted): the screenshot draws its own frame with it
            assert "url" in page.evaluate(FILTER_JS, matrix)
            page.screenshot(path=str(screens / f"cvd-{name}-{kind}.png"), scale="css")
    page.close()


# ---------------------------------------------------------------- projector mode

CLAIM_PX = "() => parseFloat(getComputedStyle(document.querySelector('.st-key-lesson_claim h1')).fontSize)"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_projector_mode_sets_the_claim_large_at_1280(browser, server, lang):
    page = browser.new_page(**VIEWPORTS["desktop"])
    open_view(page, server, "lesson?step=4", lang)
    normal = page.evaluate(CLAIM_PX)
    open_view(page, server, "lesson?step=4&lesson_projector=1", lang)
    assert page.evaluate(CLAIM_PX) >= 32 > normal, (normal, page.evaluate(CLAIM_PX))
    page.screenshot(path=str(ARTIFACTS / "screens" / f"projector-step4-{lang}-desktop.png"))
    page.close()
