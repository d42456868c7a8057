"""Admission of computations: at most a few at once, the others waiting in the order they asked.

- `Gate`: at most `slots` jobs at once; the rest wait in order, told their place. The server has
  two (server.shared): heavy jobs (the cost page's live timing, the training page) one at a time,
  and every other computation two at a time (the server's cores): thirty sessions computing at
  once would share one interpreter lock and all finish late, each holding its arrays meanwhile.
- `Courtesy`: between its steps a running heavy job gives way to light work, within a bound that
  keeps it moving.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from server.cache import POLL_S

YIELD_SHARE = 2.0           # a heavy job waits for light work at most twice as long as it works …
YIELD_STEP_S = 0.5          # … and at most this long at a time


class Gate:
    """At most `slots` jobs at once; the rest wait in the order they came."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._queue: list[object] = []
        self._running = 0

    def load(self) -> tuple[int, int]:
        """(running, waiting) now."""
        with self._cond:
            return self._running, len(self._queue)

    def wait_idle(self, timeout: float) -> float:
        """Block until no job holds or waits for a slot, at most `timeout` s; the seconds waited."""
        start = time.monotonic()
        deadline = start + timeout
        with self._cond:
            while self._running or self._queue:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, POLL_S))
        return time.monotonic() - start

    @contextlib.contextmanager
    def slot(self, wait: Callable[[int, float], None]) -> Iterator[None]:
        """Hold a slot for the `with` body; until one is free call `wait(ahead, seconds_waited)`
        every POLL_S seconds (`ahead`: jobs running or queued before this one)."""
        ticket, start = object(), time.monotonic()
        with self._cond:
            self._queue.append(ticket)
        try:
            while True:
                with self._cond:
                    place = self._queue.index(ticket)
                    if place < self.slots - self._running:
                        self._queue.remove(ticket)
                        self._running += 1
                        break
                    ahead = self._running + place
                    self._cond.wait(POLL_S)
                wait(ahead, time.monotonic() - start)
        except BaseException:
            with self._cond:
                if ticket in self._queue:
                    self._queue.remove(ticket)
                self._cond.notify_all()
            raise
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()


class Courtesy:
    """Lets a heavy job give way to light work between its steps, without starving itself.

    `pause()` (called by the heavy job at each progress report) waits while light computations
    run or wait, at most `step` s at a time and only while the job has yielded less than `share`
    times the time it has worked: a heavy job keeps at least 1 / (1 + share) of its own speed.
    On two cores a training run would otherwise hold one of them while thirty students move
    sliders (what it earned: docs/hosting.md#sharing-work-between-sessions). Returns the seconds it
    waited.
    """

    def __init__(self, light: Gate, share: float = YIELD_SHARE, step: float = YIELD_STEP_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.light, self.share, self.step, self.clock = light, share, step, clock
        self.start = clock()
        self.yielded = 0.0

    def pause(self, notify: Callable[[], Any] | None = None) -> float:
        """Wait for light work as above; `notify()` is called first when there is some to wait for."""
        worked = self.clock() - self.start - self.yielded
        allowed = min(self.step, self.share * worked - self.yielded)
        if allowed <= 0 or self.light.load() == (0, 0):
            return 0.0
        if notify is not None:
            notify()
        waited = self.light.wait_idle(allowed)
        self.yielded += waited
        return waited
