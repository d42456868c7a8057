"""`python -m tools.map_put_bench`: MemoryStore.map_put (a field written in place) against the
write that copied the whole map, in the same run: a class's answers map (field
`<step>.<vote>.<phone>`) filled by `--phones` phones answering `--questions` questions, best of
`--repeats`."""

from __future__ import annotations

import argparse
import sys
import time

from server.store import MemoryStore, store_key


class CopyingStore(MemoryStore):
    """map_put as it was: a new dict of every field on each write."""

    def map_put(self, key: str, field: str, data: bytes, ttl_s: float, cap: int = 0) -> bool | None:
        with self._lock:
            fields = self._live_map(key)
            if cap > 0 and field not in fields and len(fields) >= cap:
                return False
            fields = dict(fields, **{field: bytes(data)})
            self._maps[key] = (self.clock() + ttl_s, fields)
            return True


def fill(store: MemoryStore, phones: int, questions: int) -> float:
    """Seconds to write every phone's answer to every question into one map."""
    key = store_key("roomans", "ab" * 16)
    start = time.perf_counter()
    for step in range(questions):
        for i in range(phones):
            store.map_put(key, f"{step}.0.p{i:03d}", b"1s", ttl_s=1800, cap=phones * questions)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.map_put_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--phones", type=int, default=150, help="phones in the room (its cap)")
    ap.add_argument("--questions", type=int, default=8, help="questions each phone answers")
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args(argv)
    best = {"copy": float("inf"), "in place": float("inf")}
    for _ in range(args.repeats):  # alternating, so both meet the same machine
        best["copy"] = min(best["copy"], fill(CopyingStore(), args.phones, args.questions))
        best["in place"] = min(best["in place"], fill(MemoryStore(), args.phones, args.questions))
    writes = args.phones * args.questions
    for name, s in best.items():
        print(f"{name:>9}: {s * 1e3:.3f} ms for {writes} writes ({s / writes * 1e6:.2f} µs a write)")
    print(f"copy ÷ in place: {best['copy'] / best['in place']:.1f} ×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
