"""The lesson page in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`
(the server and launch helpers of tests/test_browser.py).

Covers what AppTest cannot: each step on one 1280×720 projector screen and inside a 390-px phone
(measured on the main area, which scrolls on its own: the document never does), clicker keys moving
between steps with the URL following, the QR code decoding to the page's own address, the locked view
hiding the sidebar, the handout opened with the network blocked. Screenshots of every step (both sizes,
both languages) and the time each step takes to draw and to redraw after its control moves land in
tests/artifacts/.
"""

from __future__ import annotations

import io
import json
import re
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
from axe_check import axe_problems
from conftest import ARTIFACTS, require_browser
from waiting import wait_js, wait_settled

from core import lesson
from pages.ui.i18n import text_for
from tools.app_driver import IDLE, MAIN_CHARTS, launch_chromium, serve, wait_first_render, wait_idle

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
STEPS = range(1, len(lesson.STEPS) + 1)
TIMINGS: dict[str, dict[str, float]] = {}
MAIN_BOX = """() => { const m = document.querySelector('[data-testid="stMain"]');
                      return {sw: m.scrollWidth, cw: m.clientWidth,
                              sh: m.scrollHeight, ch: m.clientHeight}; }"""
CJK = re.compile(r"[\u4e00-\u9fff]")
H1_IS = "(want) => document.querySelector('h1')?.innerText === want"


@pytest.fixture(scope="module")
def server():
    require_browser()
    with serve(ARTIFACTS / "streamlit-lesson.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()
    (ARTIFACTS / "lesson-timings.json").write_text(json.dumps(TIMINGS, indent=2, sort_keys=True))


def claim(step: int, lang: str) -> str:
    return text_for(f"lesson.{lesson.STEPS[step - 1].name}.claim", lang)


def name(step: int, lang: str) -> str:
    """The step's heading before the reveal (its claim comes with the reveal)."""
    return text_for(f"lesson.{lesson.STEPS[step - 1].name}.name", lang)


def main_box(page) -> dict[str, int]:
    return page.evaluate(MAIN_BOX)


def assert_fits_width(page, what: str) -> None:
    box = main_box(page)
    assert box["sw"] <= box["cw"], f"{what}: the main area scrolls sideways ({box['sw']} > {box['cw']} px)"


def assert_healthy(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception is shown"
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, f"error notice shown: {errors.all_inner_texts()}"
    charts = page.locator(MAIN_CHARTS)
    assert charts.count() == 1, "one chart per step"
    box = charts.first.bounding_box()
    assert box and box["width"] > 250 and box["height"] > 200, f"the chart is collapsed: {box}"


# Where the step's buttons start, against the bottom of Streamlit's header (60 px, drawn opaque over
# the page whenever the sidebar is collapsed: a phone, a locked link).
NAV_UNDER_HEADER = """() => {
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect();
  const nav = [...document.querySelectorAll('.st-key-lesson_prev button')]
    .map(b => b.getBoundingClientRect()).find(r => r.height > 0);
  return {header: header.bottom, nav: nav.top}; }"""


def assert_nav_below_header(page, what: str) -> None:
    where = page.evaluate(NAV_UNDER_HEADER)
    assert where["nav"] >= where["header"], \
        f"{what}: the Previous / Next buttons start under the header: {where}"


def open_step(browser, url: str, viewport: dict, query: str):
    context = browser.new_context(viewport=viewport, locale="en-US")
    page = context.new_page()
    start = time.perf_counter()
    page.goto(f"{url}/lesson?{query}")
    wait_first_render(page)
    seconds = time.perf_counter() - start
    wait_idle(page)
    return context, page, seconds


def after(page, action) -> float:
    """Seconds from `action()` until the rerun it causes has written the new URL (the last thing a
    run does) and the app is idle again."""
    before = page.url
    start = time.perf_counter()
    action()
    page.wait_for_function("(old) => location.href !== old", arg=before, timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    seconds = time.perf_counter() - start
    wait_idle(page)
    return seconds


def predict_and_reveal(page) -> None:
    page.locator('.st-key-lesson_question [data-testid="stButtonGroup"] button').first.click()
    wait_idle(page)
    page.locator(".st-key-lesson_reveal button").click()
    page.wait_for_selector('.st-key-lesson_question [data-testid="stAlert"]', timeout=60_000)
    wait_idle(page)


def move_control(page, step: int) -> None:
    """Move the step's one control by one notch: a slider by the arrow key, pills to the next option.
    d_k and n: the page's own slider in the locked view, else the sidebar's."""
    control = lesson.STEPS[step - 1].control
    if control in ("dk", "n", "rho"):
        own = page.locator(f'.st-key-lesson_{control} input[type="range"]')
        side = page.locator(f'.st-key-{"dk_pow2" if control == "dk" else "n"} input[type="range"]')
        thumb = own if control == "rho" or own.count() else side
        thumb.focus()
        thumb.press("ArrowLeft" if control == "rho" else "ArrowRight")
    else:
        page.locator(f'.st-key-lesson_{control} [data-testid="stButtonGroup"] button').nth(1).click()


def screenshot(page, name: str, tall: bool = False) -> None:
    """The viewport as the audience sees it; with `tall`, the whole main area (a phone scrolls it)."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if tall:
        size = page.viewport_size
        page.set_viewport_size({"width": size["width"], "height": main_box(page)["sh"] + 80})
        wait_settled(page)  # laid out and drawn at the new size
        page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), scale="css")
        page.set_viewport_size(size)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_step_is_one_projector_screen_and_fits_a_phone(browser, server, step, lang):
    timing = TIMINGS.setdefault(f"step{step}-{lang}", {})

    context, page, seconds = open_step(browser, server, PROJECTOR, f"lang={lang}&step={step}")
    timing["projector_first_render_s"] = round(seconds, 2)
    assert_healthy(page)
    assert page.locator("h1").first.inner_text() == name(step, lang), "asks before it tells"
    if lang == "zh":
        assert CJK.search(page.locator(".st-key-lesson_question").inner_text())
    box = main_box(page)
    assert box["sh"] <= box["ch"] and box["sw"] <= box["cw"], f"step {step} does not fit 1280×720: {box}"
    assert_nav_below_header(page, f"step {step} at 1280×720")
    screenshot(page, f"lesson-{step}-{lang}-1280x720")
    inaccessible = axe_problems(page, f"lesson?step={step}&lang={lang} desktop")  # tests/axe_check.py
    predict_and_reveal(page)
    page.wait_for_function(H1_IS, arg=claim(step, lang), timeout=60_000)  # the claim comes with the reveal
    box = main_box(page)
    screenshot(page, f"lesson-{step}-{lang}-1280x720-revealed")
    assert box["sh"] <= box["ch"], f"step {step} with its answer does not fit 1280×720: {box}"
    inaccessible += axe_problems(page, f"lesson?step={step}&lang={lang} desktop revealed")
    timing["projector_rerun_s"] = round(after(page, lambda: move_control(page, step)), 2)
    assert_healthy(page)
    context.close()

    context, page, seconds = open_step(browser, server, PHONE, f"lang={lang}&step={step}&lock=1")
    timing["phone_first_render_s"] = round(seconds, 2)
    assert_healthy(page)
    assert_fits_width(page, f"step {step} at 390 px")
    assert_nav_below_header(page, f"step {step} at 390 px")
    inaccessible += axe_problems(page, f"lesson?step={step}&lang={lang} phone")
    predict_and_reveal(page)
    assert_fits_width(page, f"step {step} with its answer at 390 px")
    screenshot(page, f"lesson-{step}-{lang}-390x844", tall=True)
    timing["phone_rerun_s"] = round(after(page, lambda: move_control(page, step)), 2)
    assert_fits_width(page, f"step {step} at 390 px after its control moved")
    context.close()
    assert not inaccessible, inaccessible


def test_the_width_check_catches_an_element_wider_than_a_phone(browser, server):
    """The measure used above can fail: a 600-px element (a fixed-width chart's size) in the main area."""
    context, page, _ = open_step(browser, server, PHONE, "lang=en&step=2")
    assert_fits_width(page, "before")
    page.evaluate("""() => { const wide = document.createElement('div');
                             wide.style.width = '600px'; wide.style.height = '20px';
                             document.querySelector('[data-testid="stMainBlockContainer"]')
                                     .appendChild(wide); }""")
    with pytest.raises(AssertionError, match="scrolls sideways"):
        assert_fits_width(page, "with a 600-px element")
    context.close()


def test_clicker_keys_move_between_steps_and_the_url_follows(browser, server):
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=en")
    assert page.locator("h1").first.inner_text() == name(1, "en")
    for key, step in (("ArrowRight", 2), ("PageDown", 3), ("ArrowLeft", 2)):
        page.keyboard.press(key)
        page.wait_for_url(re.compile(rf"[?&]step={step}\b"), timeout=60_000)
        page.wait_for_function(H1_IS, arg=name(step, "en"), timeout=60_000)
    page.keyboard.press("PageUp")
    page.wait_for_function(H1_IS, arg=name(1, "en"), timeout=60_000)
    wait_idle(page)
    assert "step=" not in page.url, "step 1 is the default and leaves the link"
    # keys pressed on a widget belong to the widget: the d_k slider moves, the step stays
    thumb = page.locator('.st-key-dk_pow2 input[type="range"]')
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_url(re.compile(r"[?&]dk=128\b"), timeout=60_000)
    wait_idle(page)
    assert page.locator("h1").first.inner_text() == name(1, "en")
    assert "step=" not in page.url
    context.close()


QR_SHOWN_JS = """(before) => { const i = document.querySelector('.st-key-lesson_qr img');
    return i && i.complete && i.naturalWidth > 0 && i.src !== before && i.src; }"""


def _wait_qr(page, before: str) -> str:
    """Wait until the share dialog shows a loaded QR image other than `before` (its src), the
    dialog's opening over; that image's src."""
    src = wait_js(page, "a new QR code loaded in the share dialog", QR_SHOWN_JS, before, 60_000).json_value()
    wait_settled(page)
    return src


def _decode_qr(page) -> str:
    import zxingcpp
    from PIL import Image

    img = page.locator(".st-key-lesson_qr img")
    box = img.bounding_box()
    assert box and box["width"] >= 300, f"the QR code is too small to scan across a room: {box}"
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(img.screenshot())))
    assert len(found) == 1, "no QR code could be read from the share dialog"
    return found[0].text


def _same_view(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc, pa.path) == (pb.scheme, pb.netloc, pb.path) and \
        sorted(parse_qsl(pa.query)) == sorted(parse_qsl(pb.query))


def test_qr_code_decodes_to_the_pages_own_url(browser, server):
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=zh&step=3&dk=256&lock=1")
    page.locator(".st-key-lesson_share button").click()
    page.wait_for_selector(".st-key-lesson_qr img", timeout=60_000)
    shown = _wait_qr(page, "")
    text = _decode_qr(page)
    assert _same_view(text, page.url), f"QR holds {text}, the page is {page.url}"
    assert dict(parse_qsl(urlsplit(text).query))["lock"] == "1"
    page.screenshot(path=str(ARTIFACTS / "lesson-share-zh-1280x720.png"))
    page.locator(".st-key-lesson_share_lock label").click()  # the free link instead of the locked one
    link_is_free = "() => !document.querySelector('[data-testid=stCode]').innerText.includes('lock=1')"
    page.wait_for_function(link_is_free, timeout=60_000)
    _wait_qr(page, shown)
    free = _decode_qr(page)
    assert "lock" not in dict(parse_qsl(urlsplit(free).query))
    assert _same_view(free, page.url.replace("&lock=1", "").replace("lock=1&", ""))
    context.close()


def test_locked_link_hides_the_sidebar_and_the_free_link_shows_it(browser, server):
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=en&step=2&lock=1")
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert page.locator('[data-testid="stExpandSidebarButton"]').count() == 0 or \
        not page.locator('[data-testid="stExpandSidebarButton"]').is_visible()
    assert page.locator(".st-key-lesson_dk").is_visible(), "the step's own control stays"
    assert text_for("lesson.locked", "en") in page.locator('[data-testid="stMain"]').inner_text()
    assert_nav_below_header(page, "the locked view at 1280×720")
    box = main_box(page)
    assert box["sh"] <= box["ch"], f"the locked view does not fit 1280×720: {box}"
    screenshot(page, "lesson-locked-en-1280x720")
    context.close()
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=en&step=2")
    assert page.locator('[data-testid="stSidebar"]').is_visible()
    context.close()


FIRST_SCREEN = """() => { const q = document.querySelector('.st-key-lesson_question');
  const asked = q.querySelector('strong').getBoundingClientRect();
  const choices = [...q.querySelectorAll('[data-testid="stButtonGroup"] button')];
  return {choices: choices.length, top: asked.top, question: asked.bottom,
          last: choices.length ? choices[choices.length - 1].getBoundingClientRect().bottom : null}; }"""


@pytest.mark.parametrize("projector", ["0", "1"])
@pytest.mark.parametrize(("step", "lang"), [(1, "en"), (4, "en"), (7, "en"), (1, "zh")])
def test_a_locked_step_shows_its_question_and_every_choice_in_the_first_screen(browser, server, step, lang,
                                                                              projector):
    """The projector's view (?lock=1, plain and in projector mode) at 1280×720, as it opens: the
    question and the last choice's bottom edge within the first 720 px; the full setup folded, one
    click away."""
    query = f"lang={lang}&step={step}&lock=1&lesson_projector={projector}"
    context, page, _ = open_step(browser, server, PROJECTOR, query)
    assert_healthy(page)
    spec = lesson.STEPS[step - 1]
    where = page.evaluate(FIRST_SCREEN)
    assert where["choices"] >= 2, where
    fold = PROJECTOR["height"]
    assert 0 <= where["top"] and where["question"] <= fold, f"the question is not in view: {where}"
    assert where["last"] <= fold, f"step {step} ({lang}): the last choice is below the fold: {where}"
    full = page.locator(".st-key-lesson_question [data-testid='stExpander']")
    assert full.count() == 1 and text_for("lesson.setup.full", lang) in full.inner_text()
    screenshot(page, f"lesson-{step}-{lang}-locked{'-projector' if projector == '1' else ''}-1280x720")
    tail = text_for(f"lesson.{spec.name}.setup", lang)[-20:]  # in the full text only
    body = full.get_by_text(tail)
    assert not body.is_visible(), "the full setup starts folded"
    full.locator("summary").click()  # one click: the setup in full
    body.wait_for(state="visible", timeout=10_000)
    context.close()


def test_the_teachers_projector_in_a_class_keeps_the_question_and_the_vote_controls_in_view(browser, server):
    """A class on the teacher's page in projector mode at 1280×720, sidebar open, step 4: under the
    class's bar the question and the vote's buttons (*Show answers* … *Reveal to the room*) are in
    the first screen; the full setup is folded under them."""
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=en&lesson_projector=1")
    page.locator(".st-key-class_start button").first.click()
    page.wait_for_selector(".st-key-class_vote_row", timeout=60_000)
    wait_idle(page)
    for _ in range(3):
        after(page, page.locator(".st-key-lesson_next button").first.click)
    page.wait_for_function(H1_IS, arg=name(4, "en"), timeout=60_000)
    assert_healthy(page)
    where = page.evaluate("""() => ({question: document.querySelector('.st-key-lesson_question strong')
                                                        .getBoundingClientRect().bottom,
        row: document.querySelector('.st-key-class_vote_row').getBoundingClientRect().bottom})""")
    assert where["question"] <= where["row"] <= PROJECTOR["height"], f"vote controls below the fold: {where}"
    screenshot(page, "lesson-class-teacher-4-en-1280x720")
    context.close()


def test_the_handout_downloads_and_opens_with_the_network_blocked(browser, server, tmp_path):
    """*Handout (HTML)*: built for the plan, downloaded, then opened from disk in a context whose every
    request other than the file itself is aborted (and counted): each step's chart is drawn."""
    context, page, _ = open_step(browser, server, PROJECTOR, "lang=zh&steps=variance,gradients,trained")
    page.locator(".st-key-lesson_handout_prepare button").first.click()
    page.wait_for_selector(".st-key-lesson_handout_download button", timeout=120_000)
    wait_idle(page)
    with page.expect_download(timeout=60_000) as got:
        page.locator(".st-key-lesson_handout_download button").first.click()
    path = tmp_path / "handout.html"
    got.value.save_as(path)
    context.close()

    offline = browser.new_context(viewport=PROJECTOR, offline=True)
    asked: list[str] = []

    def block(route) -> None:
        if route.request.url != path.as_uri():
            asked.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    offline.route("**/*", block)
    page = offline.new_page()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert not asked, f"the handout asked the network for {asked}"
    for k, step in enumerate((1, 4, 7), start=1):
        section = page.locator(f"#step-{k}")
        assert claim(step, "zh").split("：")[0] in section.inner_text()
        box = section.locator("svg").first.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150, f"step {k}'s chart is not drawn: {box}"
    page.screenshot(path=str(ARTIFACTS / "lesson-handout-zh.png"), full_page=True)
    page.emulate_media(media="print")
    page.screenshot(path=str(ARTIFACTS / "lesson-handout-zh-print.png"), full_page=True)
    offline.close()
