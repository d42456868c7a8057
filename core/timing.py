"""One way to time a call: a clock (perf_counter, or CUDA events on a GPU), interleaved repeats, a summary.

The cost experiment, the bench experiment, the machine peak and the GPU benchmark all time through
`time_interleaved`: each function gets untimed warm-up calls (the last one's output is kept, for
checking), then timed calls round robin (a, b, c, a, b, c, …) so that load from elsewhere hits
each alike. A round faster than `min_round_seconds` is noisy, so with `autorange` > 1 more rounds
follow. The reported time is the median; min and max come with it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from core.backend import Backend

MAX_SECONDS = 10.0  # stop repeating (after at least two rounds) once this much time was spent
MIN_ROUND_SECONDS = 0.02  # rounds faster than this are repeated more (see time_interleaved)
AUTORANGE = 5  # … up to this many times the requested repeats
Between = Callable[[int, int], Any] | None  # called after each call: (calls so far, calls planned)


class Clock:
    """Times one call: perf_counter on the CPU (event None); on a GPU, a pair of CUDA events recorded
    on the current stream around the call (`event()` makes one, `elapsed(start, stop)` gives seconds)."""

    def __init__(self, event: Callable[[], Any] | None = None,
                 elapsed: Callable[[Any, Any], float] | None = None) -> None:
        self.event = event
        self.elapsed = elapsed

    @classmethod
    def cupy_events(cls, cp: Any) -> Clock:
        """CUDA events of CuPy (`cp` is the cupy module)."""
        return cls(cp.cuda.Event, lambda s, e: cp.cuda.get_elapsed_time(s, e) / 1e3)

    @classmethod
    def torch_events(cls) -> Clock:
        """CUDA events of torch."""
        import torch

        return cls(lambda: torch.cuda.Event(enable_timing=True), lambda s, e: s.elapsed_time(e) / 1e3)

    @classmethod
    def for_engine(cls, engine: str, be: Backend) -> Clock:
        """The clock for work of `engine` ("torch", or the backend's own array module) on `be`'s device."""
        if not be.is_gpu:
            return cls()
        return cls.torch_events() if engine == "torch" else cls.cupy_events(be.xp)

    @property
    def name(self) -> str:
        return "perf_counter" if self.event is None else "cuda-events"

    def run(self, fn: Callable[[], Any]) -> float:
        """Seconds of one fn() call, the GPU work included."""
        if self.event is None:
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0
        start, stop = self.event(), self.event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return self.elapsed(start, stop)


def time_interleaved(fns: dict[Hashable, tuple[Callable[[], Any], Clock]], repeats: int = 5,
                     warmup: int = 1, max_seconds: float = MAX_SECONDS,
                     min_round_seconds: float = MIN_ROUND_SECONDS, autorange: int = AUTORANGE,
                     between: Between = None) -> tuple[dict[Any, list[float]], dict[Any, Any]]:
    """Time several functions round-robin (a, b, c, a, b, c, …) so background load hits each alike.

    Each gets `warmup` untimed calls (the last one's output is returned, for checking), then
    `repeats` timed ones. Fast rounds are noisy, so while one round takes under
    min_round_seconds, more rounds follow (up to autorange × repeats, until the rounds together
    took min_round_seconds × repeats). Once max_seconds have passed, at least two rounds are kept.
    `between(calls, planned)`, when given, is called after every call, outside the timed part
    (calls made so far; planned = len(fns) × (warmup + repeats)): a long measurement reports its
    progress there, and a shared server lets other work go first. Time spent in it counts
    towards neither a call nor max_seconds.
    Returns (seconds per timed call, warm-up output) per key.
    """
    planned = len(fns) * (warmup + repeats)
    calls, paused = 0, 0.0

    def after_call() -> None:
        nonlocal calls, paused
        calls += 1
        if between is not None:
            t0 = time.perf_counter()
            between(calls, planned)
            paused += time.perf_counter() - t0

    outputs: dict[Any, Any] = {}
    for k, (fn, clock) in fns.items():
        for _ in range(warmup):
            outputs[k] = fn()
            after_call()
        if clock.event is not None and warmup:  # let queued GPU work finish before timing
            clock.run(lambda: None)
    times: dict[Any, list[float]] = {k: [] for k in fns}
    t_start = time.perf_counter()
    paused = 0.0
    r = 0
    while r < max(1, autorange) * repeats:
        for k, (fn, clock) in fns.items():
            times[k].append(clock.run(fn))
            after_call()
        r += 1
        elapsed = time.perf_counter() - t_start - paused
        if r >= 2 and elapsed > max_seconds:
            break
        if r >= repeats and elapsed >= min_round_seconds * repeats:
            break
    return times, outputs


def summary(times: list[float]) -> dict[str, float]:
    """Median, min and max seconds and the number of timed calls."""
    return {"seconds": float(np.median(times)), "seconds_min": float(min(times)),
            "seconds_max": float(max(times)), "repeats": len(times)}


def time_one(fn: Callable[[], Any], clock: Clock, repeats: int = 10, warmup: int = 3) -> float:
    """Median seconds of exactly `repeats` timed calls of fn() after `warmup` untimed ones
    (time_interleaved with one function, no autorange and no time limit)."""
    times, _ = time_interleaved({0: (fn, clock)}, max(1, repeats), warmup, max_seconds=math.inf,
                                autorange=1)
    return summary(times[0])["seconds"]
