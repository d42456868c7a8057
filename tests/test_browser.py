"""The app in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`.

Covers what AppTest cannot: the navigation menu, charts actually drawn, a slider moved with the
keyboard changing the URL and the chart, a fresh server's first request. Every page at every size
and in both languages: tests/test_browser_screens.py. Timings are the business of
`python -m tools.page_timing`, not of a test.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import ARTIFACTS, MY_PAGES, ROOT, page_table, served_app
from waiting import wait_settled

from pages.ui.i18n import text_for
from pages.ui.layout import PRELOAD_KEY, TABLE_CLASS
from tools import page_timing
from tools.app_driver import (
    IDLE,
    MAIN_CHARTS,
    NAV_LINK,
    RERUN_PROBE_JS,
    VIEWPORTS,
    measure_rerun,
    open_sidebar,
    overflow,
    screenshot_full,
    serve,
    url_path,
    wait_first_render,
    wait_idle,
)
from tools.loadtest.driver import ASKED, CHARTLESS_ON_OPEN
from tools.page_timing import FLOOR_APPS

TALL = {"viewport": {"width": 1440, "height": 4200}}  # the main area scrolls inside the page
SHOTS = ARTIFACTS / "screens"

pytestmark = pytest.mark.browser


server = served_app("streamlit.log")  # and conftest's `browser`


def open_app(browser, url: str, device: dict | None = None, charts: bool = True):
    """A new session at `url`, once its title, its script and (when `charts`) its charts are done."""
    context = browser.new_context(locale="en-US", **(device or TALL))
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("h1", timeout=120_000)
    if charts:
        wait_first_render(page, timeout_ms=120_000)
    wait_idle(page, timeout_ms=120_000, charts=charts)
    return context, page


def model_installed() -> bool:
    from core import real_model

    return real_model.availability() is None


def assert_healthy(page, charts: bool = True) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception is shown"
    dialogs = page.locator('[role="dialog"]')
    assert dialogs.count() == 0, f"a dialog covers the page: {dialogs.all_inner_texts()}"
    # red boxes inside expanders are content (the fact-check's "does not hold" verdicts), not errors
    errors = page.locator('[data-testid="stAlertContentError"]:not([data-testid="stExpander"] *)')
    assert errors.count() == 0, f"error notice shown: {errors.all_inner_texts()}"
    if not charts:
        return
    drawn = page.locator(MAIN_CHARTS)
    assert drawn.count() >= 1, "no chart on the page"
    preload = page.locator(f".st-key-{PRELOAD_KEY}")  # cost's and real-model's chart-code preload
    assert preload.count() == 0 or preload.bounding_box() is None, "the preload chart is visible"
    for i in range(drawn.count()):
        box = drawn.nth(i).bounding_box()
        assert box and box["width"] > 100 and box["height"] > 80, f"chart {i} is empty or collapsed: {box}"


def test_navigation_shows_only_the_registered_pages(browser, server):
    from test_i18n import page_table

    context, page = open_app(browser, f"{server}/?lang=en")
    page.wait_for_selector(NAV_LINK)
    links = page.locator(NAV_LINK)
    hrefs = [links.nth(i).get_attribute("href") or "" for i in range(links.count())]
    expected = [url for file, url, *_ in page_table() if (ROOT / file).is_file()]
    assert len(hrefs) == len(expected), f"navigation shows {hrefs}, expected {expected}"
    assert not any(h.rstrip("/").endswith(("/ui", "__init__")) for h in hrefs)
    context.close()


def shot_and_check_width(context, page, name: str) -> None:
    """No error on the page; a whole-page screenshot `name`; the tab closed; nothing wider than it."""
    assert_healthy(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    screenshot_full(page, SHOTS / name)
    too_wide = overflow(page)
    context.close()
    assert not too_wide, f"{name}: {too_wide}"


# Sections computed only while open: page, flag, text of the expander's label, charts closed / open.
SECTIONS = [("saturation", "sat_more", "More:", 4, 7), ("q-vs-k", "qk_grad", "∂L/∂Q", 3, 6)]


@pytest.mark.parametrize("device", ["desktop", "phone"])
@pytest.mark.parametrize(("name", "flag", "label", "closed", "opened"), SECTIONS)
def test_a_closed_section_opens_on_a_click_and_from_a_link(browser, server, name, flag, label, closed, opened,
                                                           device):
    """Closed, the section costs nothing; a click opens it (the URL says so) and draws its charts;
    a link with the flag opens the page with it open, fitting the screen."""
    context, page = open_app(browser, f"{server}/{name}?lang=en", VIEWPORTS[device])
    charts = page.locator(MAIN_CHARTS)
    assert charts.count() == closed
    page.locator('[data-testid="stExpander"] summary', has_text=label).click()
    page.wait_for_url(re.compile(rf"[?&]{flag}=1\b"), timeout=60_000)
    page.wait_for_function(f"() => document.querySelectorAll({MAIN_CHARTS!r}).length == {opened}",
                           timeout=120_000)
    wait_idle(page, timeout_ms=120_000)
    assert_healthy(page)
    context.close()
    context, page = open_app(browser, f"{server}/{name}?lang=zh&{flag}=1", VIEWPORTS[device])
    assert page.locator(MAIN_CHARTS).count() == opened
    shot_and_check_width(context, page, f"{name}-{flag}-zh-{device}-full.png")


ASKED_SMALL = {"training": "train_steps=20&train_n=8&train_dk16=0&train_dk256=0",
               "cost": "cost_n=64-512&cost_d=8-64&cost_repeats=2&cost_naive_ms=10&cost_torch=0"}
SETTINGS = {"training": ("train_set", "training.controls", 'input[type="checkbox"]'),
            "cost": ("cost_set", "cost.controls", '[data-testid="stButtonGroup"]')}


@pytest.mark.parametrize(("name", "lang", "device"), [("training", "zh", "phone"), ("cost", "en", "phone"),
                                                      ("cost", "zh", "desktop")])
def test_a_link_that_asks_for_the_work_folds_its_settings_and_a_click_opens_them(browser, server, name,
                                                                                lang, device):
    """The results first: the settings of the asked-for work are one closed line (none of its
    controls drawn); a click draws them, and the URL says so."""
    flag = ASKED[name]
    context, page = open_app(browser, f"{server}/{name}?lang={lang}&{ASKED_SMALL[name]}&{flag}",
                             VIEWPORTS[device])
    key, label, control = SETTINGS[name]
    main = page.locator('[data-testid="stMain"]')
    assert main.locator(control).count() == 0
    page.locator('[data-testid="stExpander"] summary', has_text=text_for(label, lang)).click()
    page.wait_for_url(re.compile(rf"[?&]{key}=1\b"), timeout=60_000)
    main.locator(control).nth(2).wait_for(timeout=60_000)
    wait_idle(page, timeout_ms=120_000)
    assert_healthy(page)
    assert parse_qs(urlsplit(page.url).query)[flag.split("=")[0]] == ["1"], "the results stay asked for"
    shot_and_check_width(context, page, f"{name}-settings-open-{lang}-{device}-full.png")


def test_the_sidebar_second_section_opens_keeps_and_closes(browser, server):
    """Exact d_k, trials, seed, backend and dtype are drawn only while their section is open; a value
    set there stays in the link, and in use, after the section is closed again."""
    context, page = open_app(browser, f"{server}/variance?lang=en", VIEWPORTS["desktop"])
    sidebar = page.locator('[data-testid="stSidebar"]')
    inputs = sidebar.locator('[data-testid="stNumberInput"] input')
    assert inputs.count() == 0
    summary = sidebar.locator('[data-testid="stExpander"] summary',
                              has_text=text_for("common.advanced", "en"))
    summary.click()
    inputs.nth(2).wait_for(timeout=60_000)
    assert inputs.count() == 3  # exact d_k, trials, seed
    seed = sidebar.get_by_label(text_for("common.seed.label", "en"))
    seed.fill("7")
    seed.press("Enter")
    page.wait_for_url(re.compile(r"[?&]seed=7\b"), timeout=60_000)
    wait_idle(page, timeout_ms=120_000)
    summary.click()
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSidebar\"] "
                           "[data-testid=\"stNumberInput\"]')", timeout=60_000)
    wait_idle(page, timeout_ms=120_000)
    thumb = sidebar.locator('input[type="range"]').first  # another control moves: the seed stays
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_url(re.compile(r"[?&]dk=128\b"), timeout=60_000)
    wait_idle(page, timeout_ms=120_000)
    assert parse_qs(urlsplit(page.url).query).get("seed") == ["7"], page.url
    assert_healthy(page)
    context.close()


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_beyond_page_shows_the_section_picked_and_the_link_follows(browser, server, device):
    """The first section by default (three charts); picking another draws only its charts, the
    URL says which, and its link opens it, fitting the screen."""
    context, page = open_app(browser, f"{server}/beyond?lang=en", VIEWPORTS[device])
    assert page.locator(MAIN_CHARTS).count() == 3
    page.locator('[data-testid="stButtonGroup"] button', has_text=text_for("beyond.len.pick", "en")).click()
    page.wait_for_url(re.compile(r"[?&]beyond_part=len\b"), timeout=60_000)
    wait_idle(page, timeout_ms=60_000)
    page.wait_for_function(f"() => document.querySelectorAll({MAIN_CHARTS!r}).length == 2",
                           timeout=60_000)
    assert page.locator("h2", has_text=text_for("beyond.len.header", "en")).count() == 1
    assert page.locator("h2", has_text=text_for("beyond.corr.header", "en")).count() == 0
    assert_healthy(page)
    context.close()
    context, page = open_app(browser, f"{server}/beyond?lang=zh&beyond_part=init", VIEWPORTS[device])
    assert page.locator(MAIN_CHARTS).count() == 1
    assert page.locator(f".{TABLE_CLASS} table").count() == 1
    shot_and_check_width(context, page, f"beyond-init-zh-{device}-full.png")


@pytest.fixture(scope="module")
def fit_server(browser):
    with serve(ARTIFACTS / "streamlit-phone-fit.log", script=ROOT / "tests" / "apps" / "phone_fit.py") as url:
        yield url


def test_the_width_check_catches_what_used_to_overflow_a_phone(browser, fit_server):
    """The check above is not blind: a fixed-width chart and an st.latex formula, drawn as the
    pages drew them before, and a sideways-scrolling box wider than the phone stick out of a
    390-px phone and are reported; the same chart and formula drawn as the pages draw them now,
    and a table wider than the phone that scrolls inside its own box, fit."""
    found = {}
    SHOTS.mkdir(parents=True, exist_ok=True)
    for mode in ("fixed", "fitted"):
        context = browser.new_context(**VIEWPORTS["phone"])
        page = context.new_page()
        page.goto(f"{fit_server}/?mode={mode}")
        wait_first_render(page, timeout_ms=60_000)
        wait_idle(page, timeout_ms=60_000)
        found[mode] = overflow(page)
        page.screenshot(path=str(SHOTS / f"phone-fit-{mode}.png"))
        context.close()
    report = " | ".join(found["fixed"])
    assert "main area scrolls sideways" in report, report
    assert "chart 1 of 1 spans" in report and "formula cut off" in report, report
    assert "stHtml spans" in report, report  # the box scrolls, but it does not fit
    assert found["fitted"] == [], found["fitted"]


@pytest.mark.parametrize("name", MY_PAGES)
def test_slider_changes_url_and_chart(browser, server, name):
    context, page = open_app(browser, f"{server}/{url_path(name)}?lang=en")
    chart = page.locator(MAIN_CHARTS).first
    before = chart.screenshot()
    thumb = page.locator('[data-testid="stSidebar"] input[type="range"]').first  # d_k, powers of two
    assert thumb.get_attribute("aria-valuetext") == "64"
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_url(re.compile(r"[?&]dk=128\b"), timeout=60_000)  # written at the end of the run
    page.wait_for_selector(IDLE, timeout=60_000)
    wait_idle(page)
    after = page.locator(MAIN_CHARTS).first.screenshot()
    assert before != after, "the chart did not change when d_k moved from 64 to 128"
    assert_healthy(page)
    context.close()


ASK_TEXT = {"cost": "cost.ask", "training": "training.ask", "real-model": "real_model.ask"}


@pytest.mark.parametrize(("name", "lang", "device"), [("training", "zh", "phone"), ("cost", "en", "phone"),
                                                      ("training", "en", "desktop")])
def test_a_heavy_page_asks_first_and_the_button_runs_it(browser, server, name, lang, device):
    """Opened before anyone computed its settings, a heavy page shows its question and button (and
    fits the screen); the button runs the work, draws the charts and puts the request in the URL."""
    seed = {"zh": "8801", "en": "8802"}[lang] + str(len(device))  # settings nobody has computed
    context, page = open_app(browser, f"{server}/{name}?lang={lang}&seed={seed}", VIEWPORTS[device],
                             charts=False)
    assert_healthy(page, charts=False)
    assert page.locator(MAIN_CHARTS).count() == 0
    button = page.get_by_role("button", name=text_for(f"{ASK_TEXT[name]}.button", lang))
    assert button.is_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-ask-{lang}-{device}.png"))
    too_wide = overflow(page)
    assert not too_wide, f"{name}'s question at {VIEWPORTS[device]['viewport']['width']} px: {too_wide}"
    button.click()
    flag = ASKED[name]
    page.wait_for_url(re.compile(rf"[?&]{flag}\b"), timeout=120_000)
    wait_idle(page, timeout_ms=300_000)
    assert_healthy(page)
    assert button.count() == 0
    context.close()


@pytest.mark.parametrize("name", ["q-vs-k", "fact-check", "variance", "beyond"])
def test_first_request_of_a_fresh_server_can_be_a_deep_link(browser, name):
    """A shared link is often the first request a server sees: it must open that page, with the
    sidebar, and no "page not found" dialog (Streamlit resolves it against pages/ file names
    before app.py has declared the navigation)."""
    with serve(ARTIFACTS / f"streamlit-fresh-{name}.log") as url:
        context = browser.new_context(locale="en-US", **TALL)
        page = context.new_page()
        page.goto(f"{url}/{name}?lang=zh")
        page.wait_for_selector("h1", timeout=120_000)
        wait_idle(page, timeout_ms=120_000, charts=name not in CHARTLESS_ON_OPEN)
        assert page.locator('[role="dialog"]').count() == 0, page.locator('[role="dialog"]').all_inner_texts()
        try:  # the sidebar is drawn by the same run as the page; a slow machine may still be sending it
            page.wait_for_function(f"document.querySelectorAll('{NAV_LINK}').length >= 5", timeout=30_000)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / f"fresh-{name}-no-sidebar.png"))
            raise AssertionError(f"{name}: {page.locator(NAV_LINK).count()} sidebar links after 30 s; "
                                 f"see {ARTIFACTS}/fresh-{name}-no-sidebar.png") from None
        assert re.search(r"[\u4e00-\u9fff]", page.locator("h1").first.inner_text())
        assert page.url.split("?")[0].endswith(f"/{name}")
        context.close()


def script_bytes(page) -> tuple[int, int, int]:
    """(scripts, bytes on the wire, bytes decoded) of every script the page has loaded."""
    sizes = page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(e => e.name.endsWith('.js')).map(e => [e.encodedBodySize, e.decodedBodySize])""")
    return len(sizes), sum(e for e, _ in sizes), sum(d for _, d in sizes)


@pytest.mark.parametrize("name, script, charts", FLOOR_APPS)
def test_the_timing_floor_apps_render_what_they_stand_for(browser, name, script, charts):
    """`page_timing --floor` compares the pages with three reference apps; each must render its title
    (and its one chart) in a browser, as a page of the app does, or the floor would mean nothing.
    The app shell is that chart inside the app's own router: its sidebar holds every page's link
    and the shared controls, as on every page, and its server is the app's (code sent compressed)."""
    with serve(ARTIFACTS / f"floor-{script.stem}.log", script=script) as url:
        context, page = open_app(browser, f"{url}/", VIEWPORTS["phone"], charts=charts)
        drawn = page.locator(f"{MAIN_CHARTS} :is(canvas, svg)")
        assert drawn.count() == (1 if charts else 0), name
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not overflow(page)
        sidebar = page.locator('[data-testid="stSidebar"]')
        if script.stem == "app_shell":
            assert page.locator(NAV_LINK).count() == len(page_table())
            assert sidebar.locator('[data-testid="stSlider"]').count() == 2  # d_k and n
            count, encoded, decoded = script_bytes(page)
            assert count > 50 and encoded < decoded / 3
        else:
            assert sidebar.count() == 0
        context.close()


def test_the_timing_probe_counts_a_rewritten_url_as_a_finished_run(browser, server):
    """`page_timing`'s rerun probe: a cached rerun of a page without charts can leave the app's
    state attribute unchanged, and the URL's rewrite (the router's last act) is then the only
    evidence. A keydown followed by a rewrite and no run at all must count; then a real press on
    fact-check at a phone's size is measured and has moved d_k in the URL."""
    context, page = open_app(browser, f"{server}/fact-check?lang=en", VIEWPORTS["phone"], charts=False)
    page.evaluate(RERUN_PROBE_JS)

    def key_then_rewrite() -> None:
        page.evaluate("""() => { document.dispatchEvent(new KeyboardEvent('keydown', {key: 'x'}));
                                 setTimeout(() => history.replaceState(null, '', location.href), 300); }""")

    seconds = measure_rerun(page, key_then_rewrite, quiet_ms=300, timeout_ms=10_000)
    assert 0.25 < seconds < 5, seconds
    open_sidebar(page)
    thumb = page.locator('[data-testid="stSidebar"] input[type="range"]').first
    thumb.wait_for(state="visible", timeout=10_000)
    wait_settled(page)  # the sidebar has slid in
    thumb.focus()
    seconds = measure_rerun(page, lambda: thumb.press("ArrowRight"), timeout_ms=60_000)
    assert 0 < seconds < 60
    assert re.search(r"[?&]dk=128\b", page.url), page.url
    context.close()


def test_a_new_tab_gets_the_apps_code_compressed_and_the_timing_tool_counts_and_throttles_it(
        browser, server, monkeypatch):
    """In Chromium, every script of a new tab arrives gzip-compressed (server/static_gzip.py):
    the bytes on the wire are under a third of the scripts' size. page_timing's new tab counts what
    it received, and with --network 2 Mbit/s it cannot have taken that much in less time."""
    monkeypatch.setattr(page_timing, "NETWORK", {"mbit_s": 2.0, "rtt_ms": 40.0})
    seconds, context, page = page_timing.first_render(browser, f"{server}/?lang=en", "phone", 120_000)
    count, encoded, decoded = script_bytes(page)
    context.close()
    assert count > 50 and encoded < decoded / 3, (count, encoded, decoded)
    assert 0.5 < page.received_mb < decoded / 1e6, page.received_mb
    assert seconds > page.received_mb * 8 / 2.0, (seconds, page.received_mb)
