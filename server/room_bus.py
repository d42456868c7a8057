"""Who to wake when a class room changes: the phones in the room are told at once, instead of each
asking every second.

`RoomBus.listen(room, who, wake)` keeps `wake` (a callable that asks one session to rerun; the page
layer builds it, the bus never imports Streamlit) until `forget`, until `wake` answers False (the
session is gone), or until the room is found ended or expired (`drop`, server/rooms.py).
`changed(room)` wakes every listener of the room: in this process directly, or,
with Redis, through a PUBLISH on `CHANNEL` that every replica's listener thread receives, so the
phones on other replicas are woken too. While Redis cannot be reached nothing is published; the
phones' own slow poll (pages/ui/live/class_follow.py) still finds the change.

The wakes of a change go out in a pipeline that follows this process's pace rather than a clock
(docs/live-class.md, "Where a move's time goes"): first the run that made the change is left to
finish (`hold`, the teacher's run going first: server/runs.py), then the listeners are woken one
after another with at most `IN_FLIGHT` of their runs under way at once — a woken session says
`drawn(room, who)` when its run has drawn the change, which frees its place; one that has not said
so within `SLOT_S` gives its place up anyway (a session that closed, a run Streamlit merged into
another). A process whose runs take longer thus wakes its phones more slowly, one whose runs are
quick at once, and no more than `IN_FLIGHT` runs ever share the interpreter lock for a wave.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

CHANNEL = "ase:v1:roomev"
# what a change publishes: the room's digest and, after "@", when it was published (Unix seconds)
CHANGE_RE = re.compile(rb"([0-9a-f]{32})(?:@(\d{1,12}\.\d{1,6}))?")
WAVE_LOG = 64      # the last waves' timings kept for /_ase/stats (server/stats.py)
IN_FLIGHT = 3      # woken runs under way at once in this process (one interpreter lock)
SLOT_S = 0.5       # a woken session that has not said `drawn` within this long frees its place
LOG = logging.getLogger("server.room_bus")
FIRST_RETRY_S = 0.25  # the first wait before listening again after Redis failed


class RoomBus:
    def __init__(self, redis_url: str | None = None, retry_s: float = 5.0,
                 hold: Callable[[], object] | None = None, in_flight: int = IN_FLIGHT,
                 slot_s: float = SLOT_S) -> None:
        """`hold()` is called before a change's first wake and returns once the run that made the
        change may be left to finish (server.runs.RunRegistry.wait_for_first)."""
        self.redis_url, self.retry_s, self.hold, self.slot_s = redis_url, retry_s, hold, slot_s
        self.in_flight = max(1, in_flight)
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._under_way: dict[tuple[str, str], float] = {}  # (room, who) woken → when its place frees
        # the changes whose listeners are still to be woken: (room, when it was made in Unix seconds,
        # the last listeners of a room just dropped or None)
        self._waves: list[tuple[str, float, dict[str, Callable[[], bool]] | None]] = []
        self._waker: threading.Thread | None = None
        self._waving = False
        self._current: str | None = None  # the room whose wave is under way
        self._remaining: set[str] = set()  # the listeners that wave has still to wake
        self._listeners: dict[str, dict[str, Callable[[], bool]]] = {}
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self.woken = 0  # wakes delivered, for tests and the load figures
        self.expired = 0  # woken sessions that did not say `drawn` within `slot_s`
        # Each wave's timings, the last WAVE_LOG of them (`stats`): how long the change took to arrive
        # (Redis), the teacher's run held it, the wakes took to go out, the woken runs to draw.
        self.log: deque[dict[str, Any]] = deque(maxlen=WAVE_LOG)
        self._open: dict[str, dict[str, Any]] = {}  # room → its latest wave, which `drawn` completes

    def listen(self, room: str, who: str, wake: Callable[[], bool]) -> None:
        """Call `wake()` whenever `room` changes, until it answers False or `forget(room, who)`."""
        with self._lock:
            self._listeners.setdefault(room, {})[who] = wake
        if self.redis_url and self._thread is None:
            self._start()

    def forget(self, room: str, who: str) -> None:
        with self._lock:
            self._listeners.get(room, {}).pop(who, None)

    def drop(self, room: str) -> None:
        """`room` ended or expired: wake its listeners one last time (each then shows that the class
        has ended) and forget them. A run that finds the room gone may come before the change's own
        wave — the teacher's next run after *End the class*, while the change is still on its way
        through Redis — and would otherwise leave this process's phones to their slow poll. Those
        that the room's wave under way has still to wake are left to it: the first phones that wave
        woke find the room gone, and a second wake would cut short the whole run each of the others
        is then about to draw (docs/live-class.md, "Where a move's time goes")."""
        with self._lock:
            last = self._listeners.pop(room, None)
            if room == self._current:  # its wave wakes the rest, and its timings go on
                last = {who: wake for who, wake in (last or {}).items() if who not in self._remaining}
            else:
                self._open.pop(room, None)
            if last:
                self._queue(room, time.time(), last)

    def rooms(self) -> int:
        """Rooms with listeners kept (for tests: an expired room's are dropped)."""
        with self._lock:
            return len(self._listeners)

    def close(self) -> None:
        """Stop listening to Redis (within a second): a bus lives as long as its server; a test that
        makes its own closes it, so its retries do not outlive the Redis it was given."""
        self._closed.set()

    def listeners(self, room: str) -> int:
        with self._lock:
            return len(self._listeners.get(room, {}))

    def changed(self, room: str) -> None:
        """`room` changed: wake its listeners (here, or on every replica through Redis)."""
        if not self.redis_url:
            self._wake(room)
            return
        try:
            self._publisher().publish(CHANNEL, f"{room}@{time.time():.6f}".encode("ascii"))
        except Exception as exc:  # unreachable: the phones' slow poll finds the change
            LOG.warning("room change not published (%s: %s)", type(exc).__name__, exc)

    def drawn(self, room: str, who: str, cpu_s: float | None = None) -> None:
        """`who`'s run has drawn `room` as it is now: the place its wake held is free. `cpu_s`, the
        run's own CPU seconds, goes into the wave's timings."""
        with self._lock:
            if self._under_way.pop((room, who), None) is not None:
                self._freed.notify_all()
                wave = self._open.get(room)
                if wave is not None:
                    wave["drawn"] += 1
                    wave["last_drawn_s"] = round(time.monotonic() - wave["_t0"], 3)
                    if cpu_s is not None:
                        wave["run_cpu_ms"].append(round(1000 * cpu_s, 2))

    def stats(self) -> dict[str, Any]:
        """The wakes so far and the last waves' timings (seconds; the woken runs' CPU in ms), for
        /_ase/stats: what a move costs this process (docs/live-class.md)."""
        with self._lock:
            waves = [{k: v for k, v in w.items() if not k.startswith("_")} for w in self.log]
        return {"woken": self.woken, "expired": self.expired, "waves": waves}

    def under_way(self) -> int:
        """Woken runs that have not drawn yet (and whose place has not expired)."""
        with self._lock:
            return self._purge(time.monotonic())

    def _purge(self, now: float) -> int:
        """Forget the places whose time is up; how many are left (the lock held)."""
        for key in [k for k, until in self._under_way.items() if until <= now]:
            del self._under_way[key]
            self.expired += 1
        return len(self._under_way)

    def _take_place(self, room: str, who: str) -> None:
        """Wait until fewer than `in_flight` woken runs are under way, then hold a place for `who`."""
        with self._lock:
            while True:
                now = time.monotonic()
                if self._purge(now) < self.in_flight:
                    self._under_way[(room, who)] = now + self.slot_s
                    return
                self._freed.wait(timeout=max(0.001, min(self._under_way.values()) - now))

    def waving(self, room: str | None = None) -> bool:
        """Whether the listeners of `room` (of any room: None) are being woken, or are about to be,
        in this process: a phone's own poll then leaves the change to its wake, and the other
        sessions' new runs wait for the wave (server/runs.py)."""
        with self._lock:
            if room is None:
                return self._waving or bool(self._waves)
            return room == self._current or self._queued(room)

    def pending(self, room: str, who: str) -> bool:
        """Whether `who` is still to be woken for a change of `room` in this process: its wave is
        queued, or under way and has not reached it yet. A phone's own poll then leaves the change
        to its wake; a phone already woken whose run was cut short (another request of its own
        came first) sees the change itself."""
        with self._lock:
            return self._queued(room) or (room == self._current and who in self._remaining)

    def settled(self, timeout_s: float) -> bool:
        """Wait until every change so far has woken its listeners (`timeout_s` at most); whether it
        has (for tests)."""
        with self._freed:
            return self._freed.wait_for(lambda: not self._waves and not self._waving, timeout=timeout_s)

    def _wake(self, room: str, sent: float | None = None) -> None:
        """Queue a wave for `room`: one thread wakes the waves in the order of their changes, off the
        caller's thread (the teacher's run, or the Redis listener, goes on at once)."""
        with self._lock:
            if self._listeners.get(room):
                self._queue(room, sent if sent is not None else time.time(), None)

    def _queue(self, room: str, sent: float, last: dict[str, Callable[[], bool]] | None) -> None:
        """Queue `room`'s wave (the lock held): its listeners when it goes out, or `last`, those of
        a room just dropped."""
        self._waves.append((room, sent, last))
        if self._waker is None or not self._waker.is_alive():
            self._waker = threading.Thread(target=self._wake_waves, name="room waves", daemon=True)
            self._waker.start()

    def _queued(self, room: str) -> bool:
        """Whether a change of `room` waits in the queue (the lock held)."""
        return any(queued == room for queued, _, _ in self._waves)

    def _wake_waves(self) -> None:
        while True:
            with self._lock:
                if not self._waves:
                    self._waker, self._waving, self._current = None, False, None
                    self._freed.notify_all()
                    return
                room, sent, last = self._waves.pop(0)
                self._waving, self._current = True, room
                targets = list((last if last is not None else self._listeners.get(room, {})).items())
                wave = {"_t0": time.monotonic(), "at": round(time.time(), 3), "listeners": len(targets),
                        "arrived_s": round(max(0.0, time.time() - sent), 4), "hold_s": 0.0, "woken_s": 0.0,
                        "last_drawn_s": None, "drawn": 0, "run_cpu_ms": []}
                self._open[room] = wave
                self.log.append(wave)
            self._wake_in_order(room, targets, wave)

    def _wake_in_order(self, room: str, targets: list[tuple[str, Callable[[], bool]]],
                       wave: dict[str, Any] | None = None) -> None:
        began = time.monotonic()
        if self.hold is not None:
            self.hold()
        if wave is not None:
            wave["hold_s"] = round(time.monotonic() - began, 3)
        gone = []
        with self._lock:
            self._remaining = {who for who, _ in targets}
        for who, wake in targets:
            self._take_place(room, who)
            with self._lock:
                self._remaining.discard(who)
            try:
                alive = wake()
            except Exception:  # a session that cannot be woken is dropped, never the caller's problem
                LOG.exception("waking a session failed")
                alive = False
            if alive:
                self.woken += 1
            else:
                gone.append(who)
                self.drawn(room, who)
        if wave is not None:
            wave["woken_s"] = round(time.monotonic() - began, 3)
        if gone:
            with self._lock:
                mine = self._listeners.get(room, {})
                for who in gone:
                    mine.pop(who, None)
                if not mine:
                    self._listeners.pop(room, None)

    # ------------------------------------------------------------ Redis

    def _publisher(self) -> Any:
        if self._client is None:
            import redis

            self._client = redis.Redis.from_url(self.redis_url, socket_timeout=0.5,
                                                socket_connect_timeout=0.5)
        return self._client

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="room bus", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import redis

        wait_s = FIRST_RETRY_S  # after a failure: then twice as long at each one, up to retry_s
        while not self._closed.is_set():
            try:
                client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=2.0)
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                wait_s = FIRST_RETRY_S
                while not self._closed.is_set():
                    msg = pubsub.get_message(timeout=1.0)
                    found = CHANGE_RE.fullmatch(msg["data"]) if msg and isinstance(msg.get("data"), bytes) \
                        else None
                    if found:
                        sent = float(found.group(2)) if found.group(2) else None
                        self._wake(found.group(1).decode("ascii"), sent)
                pubsub.close()
            except Exception as exc:
                if self._closed.is_set():
                    return
                wait_s = min(wait_s, self.retry_s)
                LOG.warning("room bus: Redis unreachable (%s: %s); listening again in %g s",
                            type(exc).__name__, exc, wait_s)
                self._closed.wait(wait_s)
                wait_s *= 2
