"""How much machine a load test had: the same fixed workload timed before every run, and the CPU time
the host took from this machine while it ran.

Two runs of the same code on the same two cores can differ by more than any mechanism changes a
figure when the host is busier one day than another (the same code's nothing-shared moves cost
0.31 s of server CPU on average one night and 0.21–0.23 s the next afternoon). Every load test
therefore records, beside its figures:

- `reference_ms`: one fixed single-threaded workload shaped like a rerun's work — NumPy draws, a
  softmax's elementwise passes and reductions, Python calls and dicts — timed before the load starts
  (the fastest of five), so a table can say how fast the machine was when its row was measured;
- `steal_s`: the CPU seconds the hypervisor gave to other guests while this machine's CPUs wanted to
  run (`steal` in /proc/stat), over the whole run;
- `load_before`: the one-minute load average before the run (work already on the machine).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

REFERENCE_REPEATS = 5


def _workload() -> float:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64, 64), dtype="float32")
    x -= x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    total = float((e / e.sum(axis=-1, keepdims=True)).max(axis=-1).mean())
    rows = [{"dk": 2 ** (i % 12), "value": i * 0.5, "scale": "sqrt"} for i in range(20_000)]
    total += sum(r["value"] for r in rows if r["scale"] == "sqrt") * 1e-9
    return total


def reference_ms(repeats: int = REFERENCE_REPEATS) -> float:
    """Milliseconds the fixed reference workload takes on one core: the fastest of `repeats` runs."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        _workload()
        best = min(best, time.perf_counter() - start)
    return 1000.0 * best


def steal_seconds() -> float | None:
    """CPU seconds stolen from this machine so far, all CPUs together (None where /proc/stat has none)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    return int(fields[8]) / os.sysconf("SC_CLK_TCK")


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


class MachineRecord:
    """`begin()` before the load (times the reference workload), `end()` after it; `as_dict()`."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] = {}
        self._steal: float | None = None

    def begin(self) -> None:
        self.doc["load_before"] = load_average()
        self.doc["reference_ms"] = round(reference_ms(), 1)
        self._steal = steal_seconds()

    def end(self) -> None:
        now = steal_seconds()
        if now is not None and self._steal is not None:
            self.doc["steal_s"] = round(now - self._steal, 2)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.doc)


def machine_line(doc: dict[str, Any]) -> str:
    """One line for the text report: "machine: reference workload 41.2 ms, load before 0.3, …"."""
    parts = []
    if doc.get("reference_ms") is not None:
        parts.append(f"reference workload {doc['reference_ms']:.1f} ms")
    if doc.get("load_before") is not None:
        parts.append(f"load average before {doc['load_before']:.2f}")
    if doc.get("steal_s") is not None:
        parts.append(f"{doc['steal_s']:.1f} CPU s stolen by the host during the run")
    return "machine: " + (", ".join(parts) if parts else "not measured")
