"""The store's guarantees for a live class on real Redis servers: the room limits shared by two
clients (two replicas), a Redis that stops falling back to limited buckets, rooms beside a results
cache filled past its memory, and the password read from a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import ROOT
from test_server_limits import LIMITS
from test_server_redis import REDIS_SERVER, RedisServer, key
from waiting import wait_until

from server.limits import SharedRateLimit
from server.results import ResultStore
from server.rooms import Rooms
from server.store import RedisStore, store_key

pytestmark = [pytest.mark.server, pytest.mark.skipif(not os.path.exists(REDIS_SERVER),
                                                    reason="REDIS TEST SKIPPED: no redis-server")]


@pytest.fixture
def state(tmp_path):
    """The rooms' Redis, as deploy/ runs it: nothing evicted."""
    (tmp_path / "state").mkdir()
    server = RedisServer(tmp_path / "state", maxmemory="16mb", policy="noeviction").start()
    yield server
    server.stop()


@pytest.mark.parametrize(("kind", "per_s", "burst", "cost"), LIMITS, ids=[x[0] for x in LIMITS])
def test_two_redis_clients_share_one_allowance(state, kind, per_s, burst, cost):
    one, two = (SharedRateLimit(RedisStore(state.url), kind, per_s, burst) for _ in range(2))
    start = time.monotonic()
    taken = sum((one if i % 2 else two).allow("198.51.100.4", cost) for i in range(int(burst) * 2))
    refill = (time.monotonic() - start) * per_s  # what the bucket regained while we asked
    assert burst <= taken <= burst + refill + 1, f"{kind}: {taken} taken by two replicas, allowance {burst}"
    assert one.fallbacks == two.fallbacks == 0
    if per_s >= 1:  # one attempt's time later (the slow limits are checked at the store below)
        time.sleep(cost / per_s + 0.05)  # the refill's time is what is tested
        assert two.allow("198.51.100.4", cost)
    ttl = state.client().pttl(one.key("198.51.100.4"))
    assert 0 < ttl <= burst / per_s * 1000 + 1, "the counter expires when its bucket is full again"


def test_a_stopped_redis_falls_back_to_a_limited_bucket_then_shares_again(state):
    store = RedisStore(state.url, retry_s=0.2)
    limit = SharedRateLimit(store, "joins", per_s=0.5, burst=4)
    assert [limit.allow("a") for _ in range(5)] == [True] * 4 + [False]
    state.stop()
    answers = [limit.allow("b") for _ in range(6)]
    assert answers == [True] * 4 + [False] * 2 and limit.fallbacks == 6  # limited, never unlimited
    state.start()

    def reached() -> bool:  # a call once the retry is due (retry_s=0.2) reaches the restarted Redis
        store.exists(store_key("probe", "0" * 32))
        return store.up

    # the restarted Redis saved nothing: the buckets start full
    wait_until("the limit's store reaching the restarted Redis", reached, timeout=5)
    other = SharedRateLimit(RedisStore(state.url), "joins", per_s=0.5, burst=4)
    assert [limit.allow("c") for _ in range(4)] == [True] * 4 and store.up and limit.fallbacks == 6
    assert not other.allow("c"), "another replica's limit shares the bucket again"


def test_rooms_survive_a_results_cache_filled_past_its_memory(tmp_path, state):
    """A class on the rooms' Redis (noeviction) while results fill their own Redis (allkeys-lru,
    2 MB) ten times over: the cache evicts, the room and its phones are intact. The same results
    written into the rooms' Redis configured as one allkeys-lru instance evict the room."""
    (tmp_path / "cache").mkdir()
    cache = RedisServer(tmp_path / "cache", maxmemory="2mb").start()
    try:
        rooms = Rooms(RedisStore(state.url))
        room, secret, status = rooms.create()
        assert status == "ok" and room is not None and secret
        members = Rooms.keys(room.code)[1]
        for i in range(60):
            assert rooms.store.map_put(members, f"{i:012x}", b"1", ttl_s=1800)
        results, rng = ResultStore(shared=RedisStore(cache.url)), np.random.default_rng(54)
        for i in range(320):  # 320 × 64 kB = 20 MB of results into 2 MB
            results.get_or_compute(key(i), lambda f: (rng.standard_normal(8192), {}), None)
        assert cache.client().info("stats")["evicted_keys"] > 0
        again, status = rooms.get(room.code)
        assert status == "ok" and again is not None and again.code == room.code
        assert len(rooms.store.map_get(members)) == 60

        # one allkeys-lru instance for both: the same fill evicts the room
        cache.client().flushall()
        both = RedisStore(cache.url)
        lone = Rooms(both)
        room, _, status = lone.create()
        assert status == "ok"
        for i in range(320):
            both.set(store_key("res", f"{i:032x}"), os.urandom(65_536), ttl_s=3600)
        assert lone.get(room.code)[1] == "unknown", "one allkeys-lru Redis kept the room this time"
    finally:
        cache.stop()


def test_the_app_reads_the_password_from_a_file_and_keeps_results_apart(tmp_path, state):
    (tmp_path / "cache").mkdir()
    cache = RedisServer(tmp_path / "cache", maxmemory="2mb").start()
    cache.password = state.password  # one secret for both, as deploy/ runs them
    cache.stop()
    cache.start()
    secret = tmp_path / "redis-password"
    secret.write_text(state.password + "\n")
    code = ("import json\nfrom server.shared import STORE, CACHE, RESULTS, ROOMS\n"
            "STORE.set(STORE_KEY, b'state', 60); CACHE.set(CACHE_KEY, b'cache', 60)\n"
            "print(json.dumps({'store': STORE.where, 'cache': CACHE.where, 'up': [STORE.up, CACHE.up],"
            " 'results_on_cache': RESULTS.shared is CACHE, 'rooms_on_store': ROOMS.store is STORE}))\n")
    for name, digest in (("STORE_KEY", "ab" * 8), ("CACHE_KEY", "cd" * 8)):
        code = code.replace(name, repr(store_key("t", digest)))
    env = {**os.environ, "ASE_REDIS_URL": f"redis://127.0.0.1:{state.port}/0",
           "ASE_REDIS_CACHE_URL": f"redis://127.0.0.1:{cache.port}/0", "ASE_REDIS_PASSWORD_FILE": str(secret)}
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120, check=False)
        assert out.returncode == 0, out.stderr[-2000:]
        seen = json.loads(out.stdout.strip().splitlines()[-1])
        assert seen["up"] == [True, True] and seen["results_on_cache"] and seen["rooms_on_store"]
        assert state.client().get(store_key("t", "ab" * 8)) == b"state"
        assert cache.client().get(store_key("t", "cd" * 8)) == b"cache"
        assert state.password not in out.stdout + out.stderr
    finally:
        cache.stop()
