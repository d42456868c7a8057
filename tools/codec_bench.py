"""The result store's format against pickle, on real results: size, encode and decode time.

    python -m tools.codec_bench                      # the largest results the pages can ask for
    python -m tools.codec_bench --size page --only one_draw,training

Every result is computed once (tools/page_calls.py), then written and read back `--repeats` times by
each; the best time of each is printed with the codec's time as a multiple of pickle's. A warm rerun
of a page reads its results back from the store: `decode` is that cost per result.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from typing import Any

from server import codec
from tools import page_calls


def best(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of `repeats` runs of fn(), in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(value: Any, repeats: int) -> dict[str, float]:
    """Sizes (bytes) and best times (s) of pickle and the codec for one value."""
    pickled = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    encoded = codec.encode(value)
    return {
        "pickle_bytes": len(pickled), "codec_bytes": len(encoded),
        "pickle_dump": best(lambda: pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), repeats),
        "codec_encode": best(lambda: codec.encode(value), repeats),
        "pickle_load": best(lambda: pickle.loads(pickled), repeats),
        "codec_decode": best(lambda: codec.decode(encoded), repeats),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=page_calls.SIZES, default="largest")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated labels (default: the story and torch calls)")
    args = ap.parse_args(argv)
    calls = [*page_calls.story_calls(args.size), *page_calls.torch_calls(args.size),
             *page_calls.cost_calls(args.size)]
    if args.only:
        wanted = set(args.only.split(","))
        calls = [c for c in calls if c[0] in wanted]
    print(f"{'result':28} {'pickle kB':>10} {'codec kB':>9} {'dump ms':>8} {'encode ms':>10} {'×':>5} "
          f"{'load ms':>8} {'decode ms':>10} {'×':>5}")
    for label, fn, kwargs in calls:
        m = measure(fn(**kwargs), args.repeats)
        print(f"{label:28} {m['pickle_bytes'] / 1e3:10.1f} {m['codec_bytes'] / 1e3:9.1f} "
              f"{m['pickle_dump'] * 1e3:8.2f} {m['codec_encode'] * 1e3:10.2f} "
              f"{m['codec_encode'] / m['pickle_dump']:5.1f} {m['pickle_load'] * 1e3:8.2f} "
              f"{m['codec_decode'] * 1e3:10.2f} {m['codec_decode'] / m['pickle_load']:5.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
