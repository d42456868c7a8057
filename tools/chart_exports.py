"""Every chart's downloads, written to a folder, so that two versions of the app can be compared.

    python -m tools.chart_exports record OLD/           # run each page, save its PNG / SVG / CSV exports
    python -m tools.chart_exports replay OLD/ NEW/     # the same pages fed the same core results
    python -m tools.chart_exports compare OLD/ NEW/    # pixel and spec differences, per chart

Each page runs under AppTest in both languages at its default settings; every chart it shows is
exported as the download buttons would (PNG at 2×, SVG, CSV, and the Vega-Lite JSON the PNG is
made from). `record` also saves the core results the pages received; `replay` hands the pages
exactly those results, so live timings (the cost and training pages) cannot make two runs differ.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
from pathlib import Path
from typing import Any

from tools.app_driver import PAGES, ROOT
from tools.loadtest.driver import ASKED

EXPORT_PAGES = tuple(p for p in PAGES if p != "fact-check")
LANGS = ("en", "zh")
# Pages whose charts are not all shown at their defaults: the extra settings that show the others.
EXTRA_SETTINGS = {"training": [{"train_metric": m}
                               for m in ("accuracy", "entropy", "grad_wq_norm", "max_logit")],
                  "saturation": [{"sat_more": "1"}],
                  "q-vs-k": [{"qk_grad": "1"}],
                  "beyond": [{"beyond_part": p} for p in ("norm", "len", "init")]}


def _key(path: str, kwargs: dict[str, Any]) -> str:
    return repr((path, sorted(kwargs.items())))


def run_pages(out: Path, results: dict[str, Any], replay: bool) -> None:
    """Run every page in both languages, exporting each chart it shows into `out`."""
    import pandas as pd
    import vl_convert as vlc
    from streamlit.testing.v1 import AppTest

    from pages.ui import compute
    from pages.ui.chart import charts
    from pages.ui.chart.export import export_spec

    original_call, original_show = compute.shared_call, charts.show_chart
    shown: list[tuple[str, Any]] = []

    def call(fn: Any, kwargs: dict[str, Any], container: Any = None, progress: bool = False) -> Any:
        key = _key(compute.fn_path(fn), kwargs)
        if replay:
            if key not in results:
                raise KeyError(f"no recorded result for {key}")
            return pickle.loads(results[key])
        value = original_call(fn, kwargs, container, progress=progress)
        results[key] = pickle.dumps(value)
        return value

    def show(fig: Any, name: str = "chart", *args: Any, **kwargs: Any) -> None:
        shown.append((name, fig))
        original_show(fig, name, *args, **kwargs)

    compute.shared_call, charts.show_chart = call, show
    try:
        for page, lang, extra in [(p, lang, e) for p in EXPORT_PAGES for lang in LANGS
                                  for e in [{}, *EXTRA_SETTINGS.get(p, [])]]:
                shown.clear()
                at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
                at.query_params["lang"] = lang
                asked = dict([ASKED[page].split("=")]) if page in ASKED else {}  # its work asked for
                for key, value in {**asked, **extra}.items():
                    at.query_params[key] = value
                at.switch_page(f"pages/{page}.py")
                at.run()
                if at.exception:
                    raise RuntimeError(f"{page} ({lang}): {[e.value for e in at.exception]}")
                for name, fig in shown:
                    stem = out / f"{name}-{lang}"
                    spec = export_spec(fig.chart)
                    stem.with_suffix(".vl.json").write_text(spec)
                    stem.with_suffix(".png").write_bytes(vlc.vegalite_to_png(spec, scale=2))
                    stem.with_suffix(".svg").write_text(vlc.vegalite_to_svg(spec))
                    if isinstance(fig.data, pd.DataFrame):
                        stem.with_suffix(".csv").write_bytes(fig.data.to_csv(index=False).encode("utf-8"))
                print(f"{page:<12} {lang} {extra or ''}: {len(shown)} charts", file=sys.stderr)
    finally:
        compute.shared_call, charts.show_chart = original_call, original_show


def _normalised_spec(text: str) -> Any:
    """The export spec with its datasets renamed by the order the views use them (the names were
    content hashes before, positions now); `$schema` dropped."""
    spec = json.loads(text)
    spec.pop("$schema", None)
    datasets = spec.pop("datasets", {})
    mapping: dict[str, str] = {}

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            out = {}
            for k in sorted(x):
                v = x[k]
                if k == "data" and isinstance(v, dict) and isinstance(v.get("name"), str):
                    v = {**v, "name": mapping.setdefault(v["name"], f"dataset-{len(mapping)}")}
                out[k] = walk(v)
            return out
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    spec = walk(spec)
    spec["datasets"] = {mapping.get(k, k): v for k, v in datasets.items()}
    return spec


def _svg_text(path: Path) -> str:
    return re.sub(r"clip\d+", "clip#", path.read_text())


def compare(old: Path, new: Path) -> int:
    """Print one line per chart: same or how it differs; the number of differing charts."""
    import numpy as np
    from PIL import Image

    bad = 0
    olds = sorted(p.name for p in old.glob("*.png"))
    news = {p.name for p in new.glob("*.png")}
    for name in sorted(set(olds) | news):
        if name not in news or name not in olds:
            print(f"{name:<52} only in {'old' if name in olds else 'new'}")
            bad += 1
            continue
        a = np.asarray(Image.open(old / name).convert("RGBA"), dtype=np.int16)
        b = np.asarray(Image.open(new / name).convert("RGBA"), dtype=np.int16)
        stem = name.removesuffix(".png")
        same_spec = _normalised_spec((old / f"{stem}.vl.json").read_text()) == _normalised_spec(
            (new / f"{stem}.vl.json").read_text())
        same_csv = (old / f"{stem}.csv").read_bytes() == (new / f"{stem}.csv").read_bytes() if (
            old / f"{stem}.csv").exists() else True
        # vl-convert numbers clip paths across its process: compare the SVGs with those ids masked
        same_svg = _svg_text(old / f"{stem}.svg") == _svg_text(new / f"{stem}.svg")
        if a.shape != b.shape:
            print(f"{name:<52} size {a.shape[1]}×{a.shape[0]} → {b.shape[1]}×{b.shape[0]}")
            bad += 1
            continue
        differ = int(np.count_nonzero(np.abs(a - b).max(axis=2) > 0))
        verdict = "identical pixels" if differ == 0 else f"{differ} pixels differ"
        print(f"{name:<52} {verdict}; spec {'same' if same_spec else 'DIFFERS'}; "
              f"svg {'same' if same_svg else 'DIFFERS'}; csv {'same' if same_csv else 'DIFFERS'}")
        bad += bool(differ or not same_spec or not same_svg or not same_csv)
    print(f"{bad} of {len(set(olds) | news)} charts differ")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("mode", choices=("record", "replay", "compare"))
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if args.mode == "compare":
        if len(args.dirs) != 2:
            ap.error("compare needs OLD and NEW")
        return 1 if compare(*args.dirs) else 0
    if args.mode == "record":
        out = args.dirs[0]
        out.mkdir(parents=True, exist_ok=True)
        results: dict[str, Any] = {}
        run_pages(out, results, replay=False)
        (out / "results.pkl").write_bytes(pickle.dumps(results))
        return 0
    if len(args.dirs) != 2:
        ap.error("replay needs the recorded folder and an output folder")
    source, out = args.dirs
    out.mkdir(parents=True, exist_ok=True)
    run_pages(out, pickle.loads((source / "results.pkl").read_bytes()), replay=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
