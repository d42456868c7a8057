"""How long each page takes in a real browser: Chromium (through Playwright) against the app.

    python -m tools.page_timing                               # starts servers itself, every page
    python -m tools.page_timing --url http://127.0.0.1:8501 --no-cold saturation variance
    python -m tools.page_timing --path "lesson?step=3" --viewports phone --json
    python -m tools.page_timing --floor overview q-vs-k        # with Streamlit's own floor beside them
    python -m tools.page_timing --no-cold --network 3.3 40 saturation  # a phone's share of a class's Wi-Fi

For each page and viewport (desktop 1280×720, tall 1280×4200, phone 390×844 at 3× with touch):
- cold: the first page a freshly started server serves (a new server per page and viewport;
  only when this tool starts the servers);
- new tab: a new session opening the page on a server that has served it before, in a fresh
  browser profile (nothing cached: the app's code is downloaded and compiled; median of --repeats);
- cached: the same, in a browser that has just shown another page of the app (its code and fonts
  cached), as a student opening a second link;
- rerun: the sidebar's d_k moved one step with the keyboard (64 → 128 → 64 …) until the script
  has finished and the charts have stopped changing (median of --repeats; both values cached);
  "rerun new" is the first move to d_k = 128 on that server, computed from scratch.
With --floor, three reference apps (tools/page_floor/) are timed the same way, cold and in a new
tab: a title and a line of text, the same with one small Altair chart (the named peer: what
Streamlit itself costs on this machine, which no page of the app can beat), and that chart inside
app.py's router (the app shell: sidebar controls, navigation, URL sync, the app's server), what
every page costs before its own content.
A render ends when the title is shown, the app reports data-test-script-state=notRunning and
every Vega chart holds its canvas; times are the page's own clock (ms since navigation).
The server is started as the README says (`streamlit run app.py`). Timings on a shared, busy
machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from typing import Any

from tools.app_driver import (
    IDLE,
    PAGES,
    RERUN_PROBE_JS,
    ROOT,
    VIEWPORTS,
    browser_missing,
    launch_chromium,
    measure_rerun,
    open_sidebar,
    serve,
    url_path,
    wait_first_render,
)
from tools.loadtest.driver import charted

LOGS = ROOT / "tests" / "artifacts" / "page-timing"
DK_THUMB = '[data-testid="stSidebar"] input[type="range"]'  # the first: d_k in powers of two


def target_url(base: str, target: str, lang: str) -> str:
    """A page name ("saturation") or an extra path ("lesson?step=3") with ?lang= added."""
    path = url_path(target) if target in PAGES else target.lstrip("/")
    sep = "&" if "?" in path else "?"
    return f"{base}/{path}{sep}lang={lang}"


# --network MBIT RTT_MS: every tab's connection as Chromium's network emulation makes it ({}: as is).
NETWORK: dict[str, float] = {}


def new_tab(browser: Any, viewport: str) -> tuple[Any, Any, list[int]]:
    """A fresh browser profile and its page, under NETWORK; the list's one number counts the bytes
    the page receives (HTTP bodies and headers as sent, websocket frames)."""
    context = browser.new_context(locale="en-US", **VIEWPORTS[viewport])
    page = context.new_page()
    received = [0]
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.loadingFinished", lambda e: received.__setitem__(0, received[0] + e["encodedDataLength"]))
    cdp.on("Network.webSocketFrameReceived",
           lambda e: received.__setitem__(0, received[0] + len(e["response"]["payloadData"])))
    if NETWORK:
        mbit, rtt_ms = NETWORK["mbit_s"], NETWORK["rtt_ms"]
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": rtt_ms, "downloadThroughput": mbit * 1e6 / 8,
            "uploadThroughput": mbit * 1e6 / 8})
    return context, page, received


def first_render(browser: Any, url: str, viewport: str, timeout_ms: float, charts: bool = True
                 ) -> tuple[float, Any, Any]:
    """Open `url` in a new session; seconds to its first full render, and the open context and page
    (the page's `received_mb`: what it had received by then)."""
    context, page, received = new_tab(browser, viewport)
    page.goto(url, wait_until="commit", timeout=timeout_ms)
    seconds = wait_first_render(page, timeout_ms, charts) / 1000
    page.received_mb = received[0] / 1e6
    return seconds, context, page


def reruns(page: Any, repeats: int, timeout_ms: float) -> tuple[float | None, list[float]]:
    """(first move to d_k = 128, cached moves): seconds per rerun; (None, []) without the control."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_selector(IDLE, timeout=timeout_ms)
    page.evaluate(RERUN_PROBE_JS)
    open_sidebar(page)
    thumb = page.locator(DK_THUMB).first
    try:  # a page without charts is "rendered" (title, script done) a moment before the sidebar's
        # sliders are mounted and take keys: a press then was lost, and no rerun ever came
        thumb.wait_for(state="visible", timeout=10_000)
    except PlaywrightTimeout:
        return None, []
    page.wait_for_timeout(500)
    thumb.focus()
    first = measure_rerun(page, lambda: thumb.press("ArrowRight"), timeout_ms=timeout_ms)
    cached = []
    for i in range(repeats):
        key = "ArrowLeft" if i % 2 == 0 else "ArrowRight"
        cached.append(measure_rerun(page, lambda key=key: thumb.press(key), timeout_ms=timeout_ms))
    return first, cached


def cached_renders(browser: Any, base: str, target: str, viewport: str, lang: str, repeats: int,
                   timeout_ms: float) -> list[float]:
    """Seconds to the full render of `target` loaded in a browser that has shown another page of the
    app (its code and fonts in the HTTP cache): a new session, as a student's second link is."""
    source = "variance" if target == "overview" else "overview"
    context, page, _ = new_tab(browser, viewport)
    out = []
    try:
        page.goto(target_url(base, source, lang), wait_until="commit", timeout=timeout_ms)
        wait_first_render(page, timeout_ms)
        for _ in range(repeats):
            page.goto(target_url(base, target, lang), wait_until="commit", timeout=timeout_ms)
            out.append(wait_first_render(page, timeout_ms, charted(target)) / 1000)
    finally:
        context.close()
    return out


Warm = tuple[list[float], list[float], float | None, list[float], list[float]]


def measure_warm(browser: Any, base: str, target: str, viewport: str, args: argparse.Namespace,
                 timeout_ms: float) -> Warm:
    """(new-tab renders, cached renders, first rerun, cached reruns) of one page, in seconds, and
    the MB each new tab had received by its render's end."""
    url = target_url(base, target, args.lang)
    warm, mb, page, context = [], [], None, None
    try:
        for _ in range(args.repeats):
            if context is not None:
                context.close()
            seconds, context, page = first_render(browser, url, viewport, timeout_ms, charted(target))
            warm.append(seconds)
            mb.append(page.received_mb)
        first, cached = reruns(page, args.repeats, timeout_ms)
    finally:
        if context is not None:
            context.close()
    nav = cached_renders(browser, base, target, viewport, args.lang, args.repeats, timeout_ms)
    return warm, nav, first, cached, mb


def median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 3) if xs else None


FLOOR_APPS = (("floor: empty", ROOT / "tools" / "page_floor" / "empty.py", False),
              ("floor: one chart", ROOT / "tools" / "page_floor" / "one_chart.py", True),
              ("floor: app shell", ROOT / "tools" / "page_floor" / "app_shell.py", True))


def measure_floor(browser: Any, args: argparse.Namespace, timeout_ms: float) -> list[dict[str, Any]]:
    """Rows for the reference apps: per viewport, the first render of a freshly started server
    (cold) and then `repeats` new tabs on it, as the app's pages are timed."""
    rows = []
    for name, script, charts in FLOOR_APPS:
        for v in args.viewports:
            with serve(LOGS / f"floor-{script.stem}-{v}.log", script=script) as base:
                cold, context, _ = first_render(browser, f"{base}/", v, timeout_ms, charts)
                context.close()
                warm = []
                for _ in range(args.repeats):
                    seconds, context, _ = first_render(browser, f"{base}/", v, timeout_ms, charts)
                    context.close()
                    warm.append(seconds)
            rows.append({"page": name, "viewport": v, "cold_s": round(cold, 3),
                         "warm_s": [round(x, 3) for x in warm], "warm_median_s": median(warm)})
            print(f"floor {name:<16} {v:<8} cold {cold:.2f} s, new tab {median(warm)} s", file=sys.stderr)
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    targets = list(args.pages) + list(args.path)
    timeout_ms = args.timeout * 1000
    rows: dict[tuple[str, str], dict[str, Any]] = {
        (t, v): {"page": t, "viewport": v, "cold_s": None} for v in args.viewports for t in targets}
    load = [os.getloadavg()[0]]
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            floor = measure_floor(browser, args, timeout_ms) if args.floor else []
            if args.cold:
                for v in [v for v in args.viewports if v in args.cold_viewports]:
                    for t in targets:
                        log = LOGS / f"cold-{t.replace('/', '_').replace('?', '_')}-{v}.log"
                        try:
                            with serve(log) as base:
                                seconds, context, _ = first_render(browser, target_url(base, t, args.lang),
                                                                   v, timeout_ms, charted(t))
                                context.close()
                        except Exception as exc:  # one page failing must not lose the others' figures
                            rows[(t, v)]["error"] = f"cold: {type(exc).__name__}: {str(exc)[:200]}"
                            print(f"cold  {t:<14} {v:<8} FAILED {exc!s:.200}", file=sys.stderr)
                            continue
                        rows[(t, v)]["cold_s"] = round(seconds, 3)
                        print(f"cold  {t:<14} {v:<8} {seconds:6.2f} s", file=sys.stderr)
            server = serve(LOGS / "warm.log") if args.url is None else contextlib.nullcontext(args.url)
            with server as base:
                for t in targets:  # one untimed visit per page fills the server's caches
                    _, context, _ = first_render(browser, target_url(base, t, args.lang), "desktop",
                                                 timeout_ms, charted(t))
                    context.close()
                for v in args.viewports:
                    for t in targets:
                        try:
                            warm, nav, first, cached, mb = measure_warm(browser, base, t, v, args, timeout_ms)
                        except Exception as exc:  # one page failing must not lose the others' figures
                            rows[(t, v)]["error"] = f"warm: {type(exc).__name__}: {str(exc)[:200]}"
                            print(f"warm {t:<14} {v:<8} FAILED {exc!s:.200}", file=sys.stderr)
                            continue
                        row = rows[(t, v)]
                        row.update(warm_s=[round(x, 3) for x in warm], warm_median_s=median(warm),
                                   nav_s=[round(x, 3) for x in nav], nav_median_s=median(nav),
                                   rerun_s=[round(x, 3) for x in cached], rerun_median_s=median(cached),
                                   rerun_new_s=None if first is None else round(first, 3),
                                   new_tab_mb=round(statistics.median(mb), 2))
                        print(f"warm {t:<14} {v:<8} {row['warm_median_s']} s ({row['new_tab_mb']} MB),"
                              f" cached {row['nav_median_s']} s,"
                              f" rerun {row['rerun_median_s']} s (new value {row['rerun_new_s']} s)",
                              file=sys.stderr)
                        load.append(os.getloadavg()[0])
        finally:
            browser.close()
    return {"url": args.url, "lang": args.lang, "repeats": args.repeats, "cpus": os.cpu_count(),
            "network": dict(NETWORK) or None,
            "load_average_1min": {"min": round(min(load), 2), "max": round(max(load), 2)},
            "rows": floor + list(rows.values())}


def table(result: dict[str, Any]) -> str:
    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    lines = [f"{'page':<16} {'viewport':<8} {'cold s':>7} {'new tab s':>10} {'cached s':>9} {'rerun s':>8}"
             f" {'rerun new s':>12} {'new tab MB':>11}"]
    for r in result["rows"]:
        lines.append(f"{r['page']:<16} {r['viewport']:<8} {f(r['cold_s']):>7} {f(r.get('warm_median_s')):>10}"
                     f" {f(r.get('nav_median_s')):>9} {f(r.get('rerun_median_s')):>8}"
                     f" {f(r.get('rerun_new_s')):>12} {f(r.get('new_tab_mb')):>11}")
    la = result["load_average_1min"]
    lines += [f"{r['page']} ({r['viewport']}): {r['error']}" for r in result["rows"] if r.get("error")]
    net = result.get("network")
    where = "" if net is None else f"; every tab at {net['mbit_s']:g} Mbit/s, {net['rtt_ms']:g} ms round trip"
    lines.append(f"({result['cpus']} CPUs; 1-min load average {la['min']}–{la['max']} during the run{where})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("pages", nargs="*", default=list(PAGES), help=f"pages (default: {' '.join(PAGES)})")
    ap.add_argument("--path", action="append", default=[], metavar="PATH",
                    help='an extra URL path to time, e.g. "lesson?step=3" (repeatable)')
    ap.add_argument("--url", help="time a running server instead of starting one (no cold column)")
    ap.add_argument("--viewports", nargs="+", default=["desktop", "phone"], choices=list(VIEWPORTS))
    ap.add_argument("--repeats", type=int, default=3, help="warm renders and reruns per page (default 3)")
    ap.add_argument("--no-cold", dest="cold", action="store_false", help="skip the fresh-server renders")
    ap.add_argument("--cold-viewports", nargs="+", default=["desktop", "phone"], choices=list(VIEWPORTS),
                    help="viewports timed on fresh servers (default: desktop phone)")
    ap.add_argument("--lang", default="en", choices=("en", "zh"))
    ap.add_argument("--timeout", type=float, default=180, help="seconds one render may take (default 180)")
    ap.add_argument("--floor", action="store_true",
                    help="also time Streamlit's own floor and the app's shell (tools/page_floor/), cold"
                         " and in a new tab")
    ap.add_argument("--network", nargs=2, type=float, metavar=("MBIT", "RTT_MS"),
                    help="every tab's connection throttled by Chromium to MBIT Mbit/s each way and RTT_MS of"
                         " round trip, e.g. a phone's share of a classroom's Wi-Fi: --network 3.3 40")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = ap.parse_args(argv)
    if args.network is not None:
        if min(args.network) < 0 or args.network[0] == 0:
            print("error: --network needs MBIT > 0 and RTT_MS ≥ 0", file=sys.stderr)
            return 2
        NETWORK.update(mbit_s=args.network[0], rtt_ms=args.network[1])
    unknown = [p for p in args.pages if p not in PAGES]
    if unknown or args.repeats < 1:
        print(f"error: unknown page {unknown[0]} (extra paths go in --path)" if unknown
              else "error: --repeats must be ≥ 1", file=sys.stderr)
        return 2
    if args.url is not None:
        args.cold, args.url = False, args.url.rstrip("/")
    why = browser_missing()
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    start = time.monotonic()
    result = run(args)
    result["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
