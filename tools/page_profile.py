"""Where a page's script time goes: each page run under AppTest once, then warm reruns timed
(and optionally profiled with cProfile) inside the script thread.

    python -m tools.page_profile                          # every page: first-run and warm script seconds
    python -m tools.page_profile saturation --profile 25  # plus the 25 costliest calls of a warm rerun
    python -m tools.page_profile "lesson?step=3"          # a page with its own query (lesson steps)
    python -m tools.page_profile --new-charts             # plus reruns that rebuild every chart
    python -m tools.page_profile --json

"Script time" is one whole run of app.py with the page (router, sidebar, page, URL sync), as
ScriptRunner._run_script executes it; the browser's share (drawing Vega charts) is in
tools.page_timing. The first run of a page computes what its caches lack (pages timed earlier in
the same process may have filled some: its "first" column is not a cold server); the reruns after
it are warm: what every rerun of a class of sessions costs the server's one interpreter lock.
With --new-charts, as many reruns again with the shared chart cache emptied before each: the
results are cached but every chart is built anew, as after a move to new settings (the cost of
building charts, which a rerun to new data pays on top of its computation).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tools.app_driver import PAGES, ROOT

# Functions whose inclusive time the report singles out (substring of "file:function"; where
# several functions match — Altair's to_dict methods call one another — the costliest one counts).
HOTSPOTS = {"altair_chart": "streamlit/elements/vega_charts.py:altair_chart",
            "vega_lite_chart": "streamlit/elements/vega_charts.py:vega_lite_chart",
            "altair to_dict": "altair/vegalite/v6/api.py:to_dict",
            "jsonschema validate": "jsonschema/validators.py:iter_errors",
            "dataframe → arrow": "streamlit/dataframe_util.py:convert_anything_to_arrow_bytes"}


@contextmanager
def timed_script_runs(profiler: cProfile.Profile | None = None) -> Iterator[list[float]]:
    """Every ScriptRunner._run_script in this process timed (seconds appended to the list), and
    profiled by `profiler` when given (cProfile sees only the thread that enables it)."""
    from streamlit.runtime.scriptrunner import script_runner

    original = script_runner.ScriptRunner._run_script
    seconds: list[float] = []

    def run(self, rerun_data):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        try:
            return original(self, rerun_data)
        finally:
            if profiler is not None:
                profiler.disable()
            seconds.append(time.perf_counter() - start)

    script_runner.ScriptRunner._run_script = run  # type: ignore[method-assign]
    try:
        yield seconds
    finally:
        script_runner.ScriptRunner._run_script = original  # type: ignore[method-assign]


PROFILED = (*PAGES, "lesson")


def page_file(name: str) -> str:
    return f"pages/{name}.py"


def split_target(target: str) -> tuple[str, dict[str, str]]:
    """"lesson?step=3" → ("lesson", {"step": "3"}); a plain page name has no query."""
    from urllib.parse import parse_qsl

    name, _, query = target.partition("?")
    return name, dict(parse_qsl(query))


def measure(name: str, reruns: int, query: dict[str, str], profile_top: int = 0,
            new_charts: bool = False) -> dict:
    """A first run, then `reruns` warm reruns of one page; script seconds of each, hotspot shares;
    with `new_charts`, `reruns` more that each build every chart again (results cached)."""
    from streamlit.testing.v1 import AppTest

    from pages.ui.chart.figure import FIGURES

    name, extra = split_target(name)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for key, value in {**query, **extra}.items():
        at.query_params[key] = value
    at.switch_page(page_file(name))
    with timed_script_runs() as first:
        at.run()
    profiler = cProfile.Profile() if profile_top else None
    with timed_script_runs(profiler) as warm:
        for _ in range(reruns):
            at.run()
    rebuilt: list[float] = []
    if new_charts:
        with timed_script_runs() as rebuilt:
            for _ in range(reruns):
                FIGURES.clear()
                at.run()
    errors = [e.value for e in at.exception] if at.exception else []
    label = name + ("?" + "&".join(f"{k}={v}" for k, v in extra.items()) if extra else "")
    out = {"page": label, "first_s": round(sum(first), 4), "warm_s": [round(x, 4) for x in warm],
           "warm_median_s": round(statistics.median(warm), 4), "exceptions": errors,
           "charts": len(at.main.get("vega_lite_chart"))}
    if new_charts:
        out["new_charts_median_s"] = round(statistics.median(rebuilt), 4)
    if profiler is not None:
        stats = pstats.Stats(profiler)
        total = sum(warm)
        shares = {}
        for label, needle in HOTSPOTS.items():
            cum = max((v[3] for k, v in stats.stats.items() if needle in f"{k[0]}:{k[2]}"),  # type: ignore[attr-defined]
                      default=0.0)
            shares[label] = round(cum / total, 3) if total else 0.0
        out["hotspot_share"] = shares
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(profile_top)
        out["profile"] = buf.getvalue()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="*", default=list(PAGES),
                    help=f"pages (default: {' '.join(PAGES)}; also lesson?step=K)")
    ap.add_argument("--reruns", type=int, default=5, help="warm reruns per page (default 5)")
    ap.add_argument("--profile", type=int, default=0, metavar="TOP",
                    help="cProfile the warm reruns; print the TOP costliest calls per page")
    ap.add_argument("--lang", default="en", choices=("en", "zh"))
    ap.add_argument("--new-charts", action="store_true",
                    help="also time reruns that build every chart anew (results cached)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    unknown = [p for p in args.pages if split_target(p)[0] not in PROFILED]
    if unknown or args.reruns < 1:
        print(f"error: unknown page {unknown[0]}" if unknown else "error: --reruns must be ≥ 1",
              file=sys.stderr)
        return 2
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    query = {"lang": args.lang}
    results = [measure(p, args.reruns, query, args.profile, args.new_charts) for p in args.pages]
    if args.json:
        print(json.dumps({"reruns": args.reruns, "pages": [{k: v for k, v in r.items() if k != "profile"}
                                                           for r in results]}, indent=2))
        return 0
    extra = f" {'new charts s':>13}" if args.new_charts else ""
    warm = f"warm s (median of {args.reruns})"
    print(f"{'page':<14} {'first s':>8} {warm:>24} {'charts':>7}{extra}")
    for r in results:
        flag = f"  EXCEPTION: {r['exceptions']}" if r["exceptions"] else ""
        rebuilt = f" {r['new_charts_median_s']:>13.4f}" if args.new_charts else ""
        row = f"{r['page']:<14} {r['first_s']:>8.3f} {r['warm_median_s']:>24.4f} {r['charts']:>7}"
        print(f"{row}{rebuilt}{flag}")
    for r in results:
        if "profile" in r:
            print(f"\n== {r['page']}: share of warm script time ==")
            for label, share in r["hotspot_share"].items():
                print(f"  {label:<22} {100 * share:5.1f} %")
            print(r["profile"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
