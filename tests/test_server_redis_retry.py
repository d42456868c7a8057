"""How soon the shared store is used again after Redis comes back, and how little a down Redis is
tried meanwhile (server/redis_store.py): the first try `FIRST_RETRY_S` after the failure, then twice
as long at each failed try up to `RETRY_S`, one try at a time per process however many sessions
call. Checked on a schedule (a clock of our own) and on a real redis-server paused (SIGSTOP, as a
stalled host) and stopped (a restart), with eight sessions calling all along."""

from __future__ import annotations

import os
import signal
import threading
import time
from itertools import pairwise

import pytest
from conftest import free_port
from test_server_redis import REDIS_SERVER, RedisServer

from server.store import RedisStore, store_key
from server.store_keys import FIRST_RETRY_S, RETRY_S, TIMEOUT_S

pytestmark = [pytest.mark.server, pytest.mark.skipif(not os.path.exists(REDIS_SERVER),
                                                    reason="REDIS TEST SKIPPED: no redis-server")]
KEY = store_key("retry", "0" * 32)
SESSIONS = 8


def test_a_down_redis_is_tried_again_soon_then_at_most_every_retry_s():
    now = [0.0]
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2, clock=lambda: now[0])
    tries = []
    step = 0.01
    while now[0] < 10.0:  # a call every 10 ms for 10 s: each failed try is one count more
        before = store.counters()["unreachable"]
        store.get(KEY)
        if store.counters()["unreachable"] > before:
            tries.append(round(now[0], 2))
        now[0] += step
    gaps = [round(b - a, 2) for a, b in pairwise(tries)]
    assert gaps[0] == pytest.approx(FIRST_RETRY_S, abs=2 * step), "the first try comes soon"
    assert all(b >= a - step for a, b in pairwise(gaps)), f"the waits grow: {gaps}"
    assert max(gaps) <= RETRY_S + 2 * step, f"never more than RETRY_S apart: {gaps}"
    assert len(tries) <= 1 + 10.0 / RETRY_S + 4, f"{len(tries)} tries in 10 s: a down Redis is not hammered"
    assert RETRY_S + TIMEOUT_S < 2.0  # a Redis back is used again within 2 s


def _sessions(store: RedisStore, stop: threading.Event, seen: list[float]) -> list[threading.Thread]:
    """Eight sessions reading the key every 20 ms; `seen` gets the time of each read that found it."""
    def run() -> None:
        while not stop.is_set():
            if store.get(KEY) == b"class":
                seen.append(time.monotonic())
            stop.wait(0.02)
    threads = [threading.Thread(target=run, daemon=True) for _ in range(SESSIONS)]
    for th in threads:
        th.start()
    return threads


@pytest.mark.parametrize("how", ["paused", "stopped"])
def test_redis_back_after_four_seconds_is_used_again_within_two(tmp_path, how):
    server = RedisServer(tmp_path).start()
    try:
        server.client().set(KEY, b"class")
        store = RedisStore(server.url)
        stop, seen = threading.Event(), []
        threads = _sessions(store, stop, seen)
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
        assert seen, "read before the outage"
        if how == "paused":
            os.kill(server.proc.pid, signal.SIGSTOP)
        else:
            server.stop()
        down_at = time.monotonic()
        while store.up and time.monotonic() < down_at + 5:
            time.sleep(0.01)
        assert not store.up
        # the calls in flight when it went down each fail once; count the tries of its last 2.5 s
        time.sleep(max(0.0, 1.5 - (time.monotonic() - down_at)))  # the window's start: a time
        tries_before = store.counters()["unreachable"]
        time.sleep(max(0.0, 4.0 - (time.monotonic() - down_at)))  # the outage's own length
        tries_down = store.counters()["unreachable"] - tries_before
        if how == "paused":
            os.kill(server.proc.pid, signal.SIGCONT)
        else:
            server.start()
            server.client().set(KEY, b"class")  # the restarted Redis kept nothing
        back = time.monotonic()
        seen.clear()
        while not seen and time.monotonic() < back + 10:
            time.sleep(0.01)
        stop.set()
        for th in threads:
            th.join(5)
        assert seen, "the store was never used again"
        took = seen[0] - back
        assert took < RETRY_S + 2 * TIMEOUT_S + 0.3, f"used again {took:.2f} s after Redis's return"
        # 8 sessions calling every 20 ms for 2.5 s: about 1000 calls, yet a handful of tries
        assert tries_down <= 2.5 / RETRY_S + 2, f"{tries_down} tries in 2.5 s while down"
        assert store.counters()["skipped"] > 10 * tries_down
    finally:
        if server.proc is not None and server.proc.poll() is None:
            os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()

