"""Who to wake when a class room changes: the phones in the room are told at once, instead of each
asking every second.

`RoomBus.listen(room, who, wake)` keeps `wake` (a callable that asks one session to rerun; the page
layer builds it, server/ never imports Streamlit) until `forget`, until `wake` answers False (the
session is gone), or until the room is found ended or expired (`drop`, server/rooms.py).
`changed(room)` wakes every listener of the room: in this process directly, or,
with Redis, through a PUBLISH on `CHANNEL` that every replica's listener thread receives, so the
phones on other replicas are woken too. While Redis cannot be reached nothing is published; the
phones' own slow poll (pages/ui/live_class.py) still finds the change.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

CHANNEL = "ase:v1:roomev"
ROOM_RE = re.compile(rb"[0-9a-f]{32}")
WAKE_BATCH = 8     # phones woken at once; the next ones WAKE_GAP_S later (a phone's rerun: ~12 ms of CPU)
WAKE_GAP_S = 0.1
LOG = logging.getLogger("server.room_bus")
FIRST_RETRY_S = 0.25  # the first wait before listening again after Redis failed


class RoomBus:
    def __init__(self, redis_url: str | None = None, retry_s: float = 5.0) -> None:
        self.redis_url, self.retry_s = redis_url, retry_s
        self._lock = threading.Lock()
        self._listeners: dict[str, dict[str, Callable[[], bool]]] = {}
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self.woken = 0  # wakes delivered, for tests and the load figures

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
        """Forget every listener of `room` (it ended or expired: nothing will wake them again)."""
        with self._lock:
            self._listeners.pop(room, None)

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
            self._publisher().publish(CHANNEL, room.encode("ascii"))
        except Exception as exc:  # unreachable: the phones' slow poll finds the change
            LOG.warning("room change not published (%s: %s)", type(exc).__name__, exc)

    def _wake(self, room: str) -> None:
        with self._lock:
            targets = list(self._listeners.get(room, {}).items())
        if len(targets) > WAKE_BATCH:  # a few at a time, so that the reruns queue rather than all share
            threading.Thread(target=self._wake_in_batches, args=(room, targets), daemon=True).start()
        else:
            self._wake_these(room, targets)

    def _wake_in_batches(self, room: str, targets: list[tuple[str, Callable[[], bool]]]) -> None:
        for i in range(0, len(targets), WAKE_BATCH):
            time.sleep(WAKE_GAP_S)  # the first batch too: the teacher's own run, which made the change, first
            self._wake_these(room, targets[i:i + WAKE_BATCH])

    def _wake_these(self, room: str, targets: list[tuple[str, Callable[[], bool]]]) -> None:
        gone = []
        for who, wake in targets:
            try:
                alive = wake()
            except Exception:  # a session that cannot be woken is dropped, never the caller's problem
                LOG.exception("waking a session failed")
                alive = False
            if alive:
                self.woken += 1
            else:
                gone.append(who)
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
                    if msg and isinstance(msg.get("data"), bytes) and ROOM_RE.fullmatch(msg["data"]):
                        self._wake(msg["data"].decode("ascii"))
                pubsub.close()
            except Exception as exc:
                if self._closed.is_set():
                    return
                wait_s = min(wait_s, self.retry_s)
                LOG.warning("room bus: Redis unreachable (%s: %s); listening again in %g s",
                            type(exc).__name__, exc, wait_s)
                self._closed.wait(wait_s)
                wait_s *= 2
