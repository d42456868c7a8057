"""The app in a real browser: start `streamlit run app.py` on a free loopback port, launch Debian's
Chromium through Playwright, and wait on the app's own signals. Shared by the browser tests and
tools.page_timing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("overview", "variance", "saturation", "gradients", "precision", "q-vs-k", "beyond", "cost",
         "training", "real-model", "fact-check")
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# The sidebar's page links (drawn by the app with st.page_link: pages/ui/nav.py).
NAV_LINK = '[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]'
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# The page's own charts (the sidebar holds a hidden one that preloads the chart code).
MAIN_CHARTS = '[data-testid="stMain"] [data-testid="stVegaLiteChart"]'
# Every Vega chart of the page (main area) has drawn (a canvas or svg inside it); true on a page
# without charts.
CHARTS_DRAWN_JS = f"""() => [...document.querySelectorAll('{MAIN_CHARTS}')]
                          .every(el => el.querySelector('canvas, svg'))"""
# Viewports: a laptop, a tall desktop (the whole page painted), and a phone (an iPhone 12-14:
# 390 × 844 CSS px, 3 device pixels per CSS px, touch).
VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 720}},
    "tall": {"viewport": {"width": 1280, "height": 4200}},
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True,
              "has_touch": True},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(log_path: Path, port: int | None = None, timeout_s: float = 60,
          script: Path = ROOT / "app.py") -> Iterator[str]:
    """`streamlit run app.py` headless on a loopback port (as the README runs it); its base URL.
    The server and its children are stopped on exit; its output goes to `log_path`."""
    port = port or free_port()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.read().strip() == b"ok":
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not start; see {log_path}")
                time.sleep(0.2)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


# What sticks out sideways on a narrow screen. Streamlit's main area scrolls by itself, so the
# document's own scrollWidth stays at the viewport's even when content overflows: measure the main
# area, then every element in it that reaches past the viewport — unless it sits inside a box that
# scrolls sideways and itself fits (a wide table scrolls there; such a box clips whatever it holds,
# scrolling boxes inside it included, as a table cell's own text box) — and every formula that had to
# scroll. Not counted: the hidden MathML copy of a formula (for screen readers, never drawn) and
# the SVG pieces of KaTeX's stretchy symbols (drawn oversized on purpose, clipped to the symbol).
OVERFLOW_JS = """() => {
  const vw = document.documentElement.clientWidth, out = [];
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return ['no main area'];
  if (main.scrollWidth > main.clientWidth + 1)
    out.push(`main area scrolls sideways: ${main.scrollWidth} > ${main.clientWidth}`);
  if (document.documentElement.scrollWidth > vw + 1)
    out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  const charts = [...main.querySelectorAll('[data-testid="stVegaLiteChart"]')];
  const name = el => { const id = el.getAttribute('data-testid');
    if (id === 'stVegaLiteChart') return `chart ${charts.indexOf(el) + 1} of ${charts.length}`;
    return id || el.tagName.toLowerCase(); };
  const scrollsX = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const fits = r => r.right <= vw + 1 && r.left >= -1;
  const worst = new Map();  // the Streamlit element holding an overflowing node → its widest extent
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('.katex-mathml') || (el.closest('.katex') && el.closest('svg'))) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || fits(r)) continue;
    let p = el.parentElement, inScroller = false;
    for (; p && p !== main && !inScroller; p = p.parentElement)
      inScroller = scrollsX(p) && fits(p.getBoundingClientRect());
    if (inScroller) continue;
    const holder = el.closest('[data-testid="stVegaLiteChart"]') || el.closest('[data-testid^="st"]') || el;
    const [lo, hi] = worst.get(holder) || [Infinity, -Infinity];
    worst.set(holder, [Math.min(lo, r.left), Math.max(hi, r.right)]);
  }
  for (const [holder, [lo, hi]] of worst)
    out.push(`${name(holder)} spans ${Math.round(lo)}..${Math.round(hi)} px of ${vw}`);
  for (const el of main.querySelectorAll('.katex-display'))
    if (el.scrollWidth > el.clientWidth + 1)
      out.push(`formula cut off: ${el.scrollWidth} px wide in ${el.clientWidth} px`);
  return out;
}"""


def overflow(page: Any) -> list[str]:
    """What sticks out of the viewport sideways (empty when everything fits); see OVERFLOW_JS."""
    return page.evaluate(OVERFLOW_JS)


# Text the reader cannot read whole, in the main area (each finding names its element):
# - HTML text cut off by its own box: an element that clips (overflow hidden or clip, or an ellipsis)
#   whose content is wider than the box (scrollWidth > clientWidth), or a row that scrolls sideways
#   behind a fading edge (Streamlit's pills: the options past the edge fade out, "64-51");
# - in a chart (Vega draws SVG): a label Vega shortened to fit ("…" at its end), a label that lies
#   outside the chart's box, and a label drawn in the plot (a text mark) that a line or a rule of the
#   plot crosses: each line and rule is sampled every 2 px along its length and a label is crossed
#   when a sample falls inside the label's box (shrunk by 1 px, so a line that only touches it does
#   not count). A label is outside its chart when its box passes the chart's edge by more than 40 %
#   of its font size (a text box is taller than its glyphs). Not counted: text for screen readers
#   only (the hidden MathML copy of a formula, a chart's visually hidden description).
CLIPPED_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return ['no main area'];
  const out = [], short = s => JSON.stringify((s || '').trim().replace(/\\s+/g, ' ').slice(0, 60));
  const holder = el => (el.closest('[data-testid^="st"]') || el).getAttribute('data-testid') || el.tagName;
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('.katex-mathml') || el.closest('svg')) continue;
    const cs = getComputedStyle(el), text = el.innerText;
    // (a visually hidden box, 1 px wide, holds a chart's text for screen readers: never drawn)
    if (!text || !text.trim() || el.clientWidth <= 2 || el.clientHeight <= 2) continue;
    const wider = el.scrollWidth > el.clientWidth + 1;
    const mask = cs.maskImage || cs.webkitMaskImage || 'none';
    if (wider && (['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis'))
      out.push(`text cut off in ${holder(el)}: ${short(text)} `
               + `(${el.scrollWidth} px in ${el.clientWidth} px)`);
    else if (wider && ['auto', 'scroll'].includes(cs.overflowX) && mask !== 'none')
      out.push(`options hidden past a fading edge in ${holder(el)}: ${short(text)} `
               + `(${el.scrollWidth} px in ${el.clientWidth} px)`);
  }
  const charts = [...main.querySelectorAll('[data-testid="stVegaLiteChart"]')];
  charts.forEach((chart, i) => {
    const svg = chart.querySelector('svg.marks') || chart.querySelector('svg');
    if (!svg) return;
    const name = `chart ${i + 1} of ${charts.length}`, box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (t.textContent.trim().endsWith('…'))
        out.push(`${name}: label shortened to fit: ${short(t.textContent)}`);
      // a text box is a line taller than its glyphs: allow 40 % of the font size past the edge
      const slack = 0.4 * (parseFloat(getComputedStyle(t).fontSize) || 10);
      if (r.left < box.left - slack || r.right > box.right + slack
          || r.top < box.top - slack || r.bottom > box.bottom + slack)
        out.push(`${name}: label outside the chart: ${short(t.textContent)}`);
    }
    const labels = [...svg.querySelectorAll('g.mark-text.role-mark text')].filter(t => t.textContent.trim())
      .map(t => [t, t.getBoundingClientRect()]).filter(([, r]) => r.width > 2 && r.height > 2);
    if (!labels.length) return;
    const strokes = [...svg.querySelectorAll('g.mark-line.role-mark path, g.mark-rule.role-mark line, '
                                            + 'g.mark-rule.role-mark path')];
    for (const [t, r] of labels) {
      for (const g of strokes) {
        if (!g.getTotalLength) continue;
        const m = g.getScreenCTM(), length = g.getTotalLength();
        if (!m || !(length > 0)) continue;
        let hit = false;
        for (let d = 0; d <= length && !hit; d += 2) {
          const p = g.getPointAtLength(d), x = m.a * p.x + m.c * p.y + m.e, y = m.b * p.x + m.d * p.y + m.f;
          hit = x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1;
        }
        if (hit) {
          const kind = g.closest('g.mark-rule') ? 'a rule' : 'a line';
          out.push(`${name}: label ${short(t.textContent)} crossed by ${kind}`);
          break;
        }
      }
    }
  });
  return [...new Set(out)];
}"""


def clipped_text(page: Any) -> list[str]:
    """Text cut off by its box, options hidden past a fading edge, chart labels shortened, outside
    their chart or crossed by a line or rule (empty when none); see CLIPPED_JS."""
    return page.evaluate(CLIPPED_JS)


@contextlib.contextmanager
def full_height(page: Any, max_height: int = 12_000) -> Iterator[None]:
    """The viewport grown to the main area's height while inside (Streamlit's main area scrolls
    inside a fixed-size page, so Playwright's full_page sees one screen only), then restored."""
    size = page.viewport_size
    height = page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
                                       return m ? m.scrollHeight : document.body.scrollHeight; }""")
    page.set_viewport_size({"width": size["width"], "height": min(max_height, max(size["height"], height))})
    page.wait_for_timeout(600)
    try:
        yield
    finally:
        page.set_viewport_size(size)


def screenshot_full(page: Any, path: Path, max_height: int = 12_000) -> None:
    """The whole page as one image (full_height), at one pixel per CSS pixel (a phone's 3× would
    make a 27,000-pixel-tall image slow to encode)."""
    with full_height(page, max_height):
        page.screenshot(path=str(path), scale="css")


def browser_missing() -> str | None:
    """Why the browser cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing; install Debian's chromium (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is missing ({exc})"
    return None


def launch_chromium(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)


def url_path(name: str) -> str:
    """URL path of a page: the default page (overview) lives at "/"."""
    return "" if name == "overview" else name


def wait_first_render(page: Any, timeout_ms: float = 60_000, charts: bool = True) -> float:
    """Wait until the title is shown, the script has finished and every chart has drawn (`charts`:
    the page draws at least one on opening); return that moment in ms since the navigation started
    (the page's own clock)."""
    some = "c.length > 0" if charts else "true"
    return float(page.wait_for_function(
        f"""() => {{ const c = [...document.querySelectorAll('{MAIN_CHARTS}')];
                    return document.querySelector('h1') && document.querySelector('{IDLE}')
                           && {some} && c.every(el => el.querySelector('canvas, svg'))
                           && performance.now(); }}""",
        timeout=timeout_ms).json_value())


def wait_idle(page: Any, timeout_ms: float = 60_000, charts: bool = True) -> None:
    """Wait until the script has finished (state notRunning, stable for 0.5 s) and charts have drawn."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        page.wait_for_selector(IDLE, timeout=timeout_ms)
        page.wait_for_timeout(500)
        if page.locator(IDLE).count() and page.locator('[data-testid="stStatusWidget"]').count() == 0:
            break
        if time.monotonic() > deadline:
            raise TimeoutError("the app kept running")
    if charts:
        page.wait_for_function(
            f"""() => {{ const c = [...document.querySelectorAll('{MAIN_CHARTS}')];
                       return c.length > 0 && c.every(el => el.querySelector('canvas, svg')); }}""",
            timeout=timeout_ms)


# Records, in the page's clock, the last key press or click, the last moment the script state
# turned notRunning after having run (seen from the mutation records, so a run that starts and ends
# between two calls of the observer counts too: without it a cached rerun of a page without charts
# left no evidence and timed out), the last change inside any chart (Vega redraws replace nodes), and
# the last change of the URL (the router writes every control to it at the end of a run).
RERUN_PROBE_JS = """() => {
  const w = window, app = document.querySelector('[data-testid="stApp"]');
  w.__ase = {key: 0, ran: 0, idle: 0, chart: 0, url: 0};
  // Even with every record read, a cached rerun of a page without charts once in about a hundred
  // presses left the state attribute unchanged (phone, fact-check: the URL had taken the new d_k).
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name].bind(history);
    history[name] = (...args) => {
      const out = original(...args);
      w.__ase.url = performance.now();
      return out;
    };
  }
  document.addEventListener('keydown', () => { w.__ase.key = performance.now(); }, true);
  document.addEventListener('click', () => { w.__ase.key = performance.now(); }, true);
  // Every record counts: a rerun served from the caches can turn running and back before the
  // observer is called, which then reads notRunning with a record whose old value was running.
  new MutationObserver(ms => {
    const now = performance.now(), state = app.getAttribute('data-test-script-state');
    if (state === 'running' || ms.some(m => m.oldValue === 'running')) w.__ase.ran = now;
    if (state === 'notRunning' && w.__ase.ran) w.__ase.idle = now;
  }).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
  new MutationObserver(ms => {
    for (const m of ms) {
      const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
      if (el && el.closest('MAIN_CHARTS')) { w.__ase.chart = performance.now(); return; }
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}""".replace("MAIN_CHARTS", MAIN_CHARTS)


def measure_rerun(page: Any, act: Any, quiet_ms: float = 700, timeout_ms: float = 120_000) -> float:
    """Call `act()` (a key press or a click; RERUN_PROBE_JS installed) and return the seconds until
    the rerun it starts has finished and the charts have stopped changing (measured in the page:
    the key press or click → the latest of script done, last chart change and last URL change)."""
    page.evaluate("() => { Object.assign(window.__ase, {key: 0, ran: 0, idle: 0, url: 0}); }")
    act()
    deadline = time.monotonic() + timeout_ms / 1000
    retry_at = time.monotonic() + 5
    while time.monotonic() < deadline:
        if time.monotonic() > retry_at and not page.evaluate("() => window.__ase.key"):
            act()  # the press never reached the page (seen once on a phone; why is not established)
            retry_at = time.monotonic() + 5
        st = page.evaluate("""() => ({...window.__ase, now: performance.now(),
            running: document.querySelector('[data-testid="stApp"]')
                             .getAttribute('data-test-script-state') !== 'notRunning',
            drawn: (""" + CHARTS_DRAWN_JS + """)()})""")
        # A rerun served from the caches can turn running and back within one frame, so that the
        # app's state attribute never shows it (seen on phones): a chart redrawn or the URL
        # rewritten after the press counts as the rerun's evidence as well as a state change does.
        changed = [t for t in (st["idle"], st["chart"], st["url"]) if t > st["key"]]
        if st["key"] and changed and not st["running"] and st["drawn"]:
            end = max(changed)
            if st["now"] - end >= quiet_ms:
                return (end - st["key"]) / 1000
        page.wait_for_timeout(100)
    raise TimeoutError(f"no finished rerun within {timeout_ms / 1000:.0f} s")


def open_sidebar(page: Any) -> None:
    """Expand the sidebar where it starts collapsed (phones)."""
    if not page.locator('[data-testid="stSidebar"][data-collapsed="true"]').count():
        return
    opener = page.locator('[data-testid="stExpandSidebarButton"]')
    if opener.count():
        opener.first.click()
        page.locator('[data-testid="stSidebar"][data-collapsed="false"]').wait_for(timeout=10_000)
