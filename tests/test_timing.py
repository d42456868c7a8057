"""core.timing: the one way calls are timed (interleaved rounds, warm-up, autorange, CUDA-event clock)."""

from core import timing
from core.backend import get_backend


class _FakeEvent:
    clock = 0.0

    def record(self) -> None:
        _FakeEvent.clock += 1.0
        self.at = _FakeEvent.clock

    def synchronize(self) -> None:
        pass


def _event_clock() -> timing.Clock:
    return timing.Clock(event=_FakeEvent, elapsed=lambda s, e: (e.at - s.at) * 1e-3)


def test_interleaved_timing_takes_event_time_and_round_robins():
    calls: list[str] = []
    clock = _event_clock()
    fns = {"a": (lambda: calls.append("a") or 1, clock), "b": (lambda: calls.append("b") or 2, clock)}
    times, outs = timing.time_interleaved(fns, repeats=3, min_round_seconds=0.0)
    assert outs == {"a": 1, "b": 2}
    assert calls == ["a", "b", "a", "b", "a", "b", "a", "b"]  # warm-up each, then round robin
    assert times == {"a": [1e-3] * 3, "b": [1e-3] * 3}
    # rounds faster than min_round_seconds are repeated more, up to AUTORANGE × repeats
    times, _ = timing.time_interleaved(fns, repeats=3, min_round_seconds=60.0)
    assert len(times["a"]) == len(times["b"]) == timing.AUTORANGE * 3
    # … unless autorange is off
    times, _ = timing.time_interleaved(fns, repeats=3, min_round_seconds=60.0, autorange=1)
    assert len(times["a"]) == 3
    # past max_seconds, two rounds are enough
    times, _ = timing.time_interleaved(fns, repeats=3, max_seconds=0.0)
    assert len(times["a"]) == 2


def test_between_runs_after_every_call_outside_the_timing_and_the_time_limit():
    import time

    clock = _event_clock()
    calls: list[str] = []
    seen: list[tuple[int, int]] = []
    fns = {"a": (lambda: calls.append("a"), clock), "b": (lambda: calls.append("b"), clock)}

    def between(done: int, planned: int) -> None:
        seen.append((done, planned, len(calls)))
        time.sleep(0.02)  # a shared server letting other work go first

    times, _ = timing.time_interleaved(fns, repeats=3, warmup=1, min_round_seconds=0.0,
                                       max_seconds=0.03, between=between)
    # once after each of the 2 warm-up and 6 timed calls, never inside a call
    assert seen == [(k, 8, k) for k in range(1, 9)]
    # 0.16 s were spent in `between`, yet the 0.03 s limit did not cut the repeats to two rounds
    assert times == {"a": [1e-3] * 3, "b": [1e-3] * 3}


def test_time_one_is_the_median_of_exactly_repeats_calls_after_warm_up():
    calls: list[int] = []
    elapsed = iter([0.0, 4.0, 1.0, 2.0, 9.0, 3.0])  # the wait for the warm-up's GPU work, then 5 calls
    clock = timing.Clock(event=_FakeEvent, elapsed=lambda s, e: next(elapsed))
    assert timing.time_one(lambda: calls.append(1), clock, repeats=5, warmup=2) == 3.0
    assert len(calls) == 7


def test_summary_reports_median_min_max_and_count():
    assert timing.summary([3.0, 1.0, 2.0, 10.0]) == {"seconds": 2.5, "seconds_min": 1.0,
                                                     "seconds_max": 10.0, "repeats": 4}


def test_the_cpu_clock_is_perf_counter():
    clock = timing.Clock.for_engine("torch", get_backend("numpy"))
    assert clock.name == "perf_counter" and clock.event is None
    assert _event_clock().name == "cuda-events"
