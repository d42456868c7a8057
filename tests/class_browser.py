"""What the live-class browser tests share (tests/test_browser_class.py): the projector's and the
phones' viewports, a MutationObserver that records when a text first appears on a page (in the
browser's own clock), and the clicks, picks, downloads and screenshots they are made of."""

from __future__ import annotations

import csv
import io
import re
import time

from conftest import ARTIFACTS
from waiting import wait_js, wait_settled

from core import lesson
from pages.ui.i18n import text_for
from tools.app_driver import wait_first_render, wait_idle

DESKTOP = {"viewport": {"width": 1280, "height": 720}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}
SHOTS = ARTIFACTS / "screens"
# A phone follows the teacher, and the projector counts an answer, without a click, within this: a
# functional bound with room for a busy CI machine. The figure (2 s for 95 % of 60 phones beside 30
# other sessions) is measured by the class load test (docs/live-class.md); the times seen here are
# written to tests/artifacts/class-timings.json.
FOLLOW_S = 6.0
WAIT_MS = 20_000  # how long a step may take before the test gives up (the measure is asserted after)
QUESTION = ".st-key-lesson_question"
CLOCK_RE = re.compile(r"(\d+):(\d{2})")  # the discussion's countdown, m:ss
DIALOG = '[role="dialog"]'

# Every page records, in its own clock (Date.now(), the machine's: the same as time.time() here), the
# first moment each h1 text was shown, and each text of window.__watch appeared in the main area.
SEEN_JS = """() => {
  window.__seen = {}; window.__watch = [];
  const check = () => {
    const now = Date.now(), h1 = document.querySelector('h1');
    if (h1 && !(('h1:' + h1.textContent) in window.__seen)) window.__seen['h1:' + h1.textContent] = now;
    const main = document.querySelector('[data-testid="stMain"]');
    if (!main || !window.__watch.length) return;
    const text = main.textContent;
    for (const w of window.__watch) if (!(w in window.__seen) && text.includes(w)) window.__seen[w] = now;
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true});
  // Every address the tab showed (the router writes the link with replaceState / pushState).
  window.__urls = [location.href];
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name].bind(history);
    history[name] = (...args) => { const out = original(...args); window.__urls.push(location.href);
                                   return out; };
  }
}"""


def say(key: str, lang: str, **fmt: object) -> str:
    raw = text_for(key, lang)
    return raw.format(**fmt) if fmt else raw


def heading(step: int, lang: str) -> str:
    """Step `step`'s title before the reveal (its name: the claim comes with the reveal)."""
    return say(f"lesson.{lesson.STEPS[step - 1].name}.name", lang)


def new_page(browser, device: dict, url: str):
    context = browser.new_context(locale="en-US", **device)
    context.add_init_script(f"({SEEN_JS})()")
    page = context.new_page()
    page.goto(url)
    wait_first_render(page)
    wait_idle(page)
    return page


def watch(pages, text_of) -> None:
    """Start recording when `text_of(name)` first appears on each page (name → page)."""
    for name, page in pages.items():
        page.evaluate("(w) => { window.__watch.push(w); }", text_of(name))


def seen_after(pages, key_of, t0: float, timeout_ms: float = WAIT_MS) -> dict[str, float]:
    """Seconds from `t0` (time.time()) until each page showed `key_of(name)` (a watched text, or
    'h1:' + a title); fails naming the pages that never did."""
    deadline = time.monotonic() + timeout_ms / 1000
    out: dict[str, float] = {}
    while True:
        for name, page in pages.items():
            if name not in out:
                at = page.evaluate("(k) => window.__seen[k] ?? null", key_of(name))
                if at is not None:
                    out[name] = round(at / 1000 - t0, 3)
        if len(out) == len(pages):
            return out
        assert time.monotonic() < deadline, \
            f"never shown within {timeout_ms / 1000:g} s: {[(n, key_of(n)) for n in pages if n not in out]}"
        time.sleep(0.05)


def click(page, key: str) -> float:
    """Click the button keyed `key` (the first visible one); the time.time() just before."""
    button = page.locator(f".st-key-{key} button").first
    button.wait_for(state="visible", timeout=WAIT_MS)
    t0 = time.time()
    button.click()
    return t0


def pick(page, code: str, step: int, vote: int, choice: int) -> tuple[float, str]:
    """A phone's answer: pill `choice` of the room's question; (time.time() before, its label)."""
    pills = page.locator(f'.st-key-class_pick_{code}_{step}_{vote} [data-testid="stButtonGroup"] button')
    pills.first.wait_for(state="visible", timeout=WAIT_MS)
    label = pills.nth(choice).inner_text().strip()
    t0 = time.time()
    pills.nth(choice).click()
    return t0, label


def pill_labels(page, code: str, step: int, vote: int) -> list[str]:
    pills = page.locator(f'.st-key-class_pick_{code}_{step}_{vote} [data-testid="stButtonGroup"] button')
    pills.first.wait_for(state="visible", timeout=WAIT_MS)
    return [p.strip() for p in pills.all_inner_texts()]


def download(page, key: str) -> str:
    with page.expect_download(timeout=WAIT_MS) as info:
        page.locator(f".st-key-{key} button").first.click()
    return open(info.value.path(), encoding="utf-8").read()


def csv_counts(text: str) -> dict[tuple[int, int], dict[str, int]]:
    """{(step, vote): {answer: count}} of the summary CSV; checks its answers and share columns."""
    out: dict[tuple[int, int], dict[str, int]] = {}
    groups: dict[tuple[int, int], list[dict]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        groups.setdefault((int(row["step"]), int(row["vote"])), []).append(row)
    for key, rows in groups.items():
        total = sum(int(r["count"]) for r in rows)
        right = sum(int(r["count"]) for r in rows if r["correct"] == "True")
        assert all(int(r["answers"]) == total for r in rows), f"{key}: answers column != sum: {rows}"
        share = rows[0]["share_correct"]
        assert (share == "" if total == 0 else abs(float(share) - right / total) < 1e-3), f"{key}: {rows}"
        out[key] = {r["answer"]: int(r["count"]) for r in rows}
    return out


def expected(labels: list[str], picks: list[int]) -> dict[str, int]:
    return {label: picks.count(i) for i, label in enumerate(labels)}


def screenshot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.mouse.move(size["width"] - 2, size["height"] - 2)  # no tooltip of the last button clicked
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # nor of one pressed
    wait_js(page, "the last button's tooltip gone",
            "() => !document.querySelector('[data-testid=stTooltipContent]')")
    wait_settled(page)
    page.screenshot(path=str(SHOTS / name), scale="css")


def text_on(page, key: str) -> str:
    """The text of the element keyed `key` (waited for)."""
    box = page.locator(f".st-key-{key}").first
    box.wait_for(timeout=WAIT_MS)
    return box.inner_text()


def press(page, key: str, what: str = "Enter") -> float:
    """Operate the control keyed `key` from the keyboard (focus, then `what`); the time.time() before."""
    control = page.locator(f".st-key-{key} button, .st-key-{key} input").first
    control.wait_for(state="visible", timeout=WAIT_MS)
    control.focus()
    t0 = time.time()
    page.keyboard.press(what)
    return t0


def tap(page, key: str, index: int) -> str:
    """Tap pill `index` of the pills keyed `key`; its label."""
    pills = page.locator(f'.st-key-{key} [data-testid="stButtonGroup"] button')
    pills.first.wait_for(state="visible", timeout=WAIT_MS)
    label = pills.nth(index).inner_text().strip()
    pills.nth(index).click()
    return label


def panel_shot(page, name: str, inner: str) -> None:
    """A screenshot of one part of the question's panel (`inner`, a selector: the countdown, the
    hint, the histogram), wherever it lies on the page."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no focus tooltip
    wait_settled(page)  # an alert's fade-in
    part = page.locator(QUESTION).locator(inner).first
    part.scroll_into_view_if_needed()
    part.screenshot(path=str(SHOTS / name), scale="css")


def seconds_left(page) -> int:
    """The discussion's countdown on the projector, in seconds."""
    box = page.locator(".st-key-class_discuss")
    box.wait_for(timeout=WAIT_MS)
    found = CLOCK_RE.search(box.inner_text())
    assert found, box.inner_text()
    return 60 * int(found.group(1)) + int(found.group(2))


def wait_left(page, test, what: str) -> int:
    """Wait until the countdown satisfies `test`; its value then."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        left = seconds_left(page)
        if test(left):
            return left
        assert time.monotonic() < deadline, f"the countdown never {what} (still {left} s)"
        page.wait_for_timeout(200)


def shares(text: str) -> dict[tuple[int, int], float | None]:
    """{(step, vote): share correct} of the summary CSV, and its 1st / 2nd columns checked against it."""
    out: dict[tuple[int, int], float | None] = {}
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        raw = row["share_correct"]
        out[(int(row["step"]), int(row["vote"]))] = float(raw) if raw else None
    for row in rows:
        for vote, column in ((1, "share_correct_1st"), (2, "share_correct_2nd")):
            want = out.get((int(row["step"]), vote))
            assert (row[column] == "" if want is None else float(row[column]) == want), (column, row)
    return out
