"""The shared store on a real Redis (Debian's redis-server on a free loopback port, with a password, no
persistence, 8 MB with LRU eviction): two replicas computing a result once, Redis stopped and started
again under a running store, Redis full, a foreign value under our key, and heavy jobs admitted across
replicas with their queue places and leases."""

from __future__ import annotations

import json
import logging
import os
import pickle
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, free_port, require_marker
from waiting import wait_until

from server.admission import SharedGate
from server.results import ResultStore, result_key, shared_key
from server.store import RedisStore, store_key

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
pytestmark = [pytest.mark.server, pytest.mark.skipif(not Path(REDIS_SERVER).exists(),
                                                    reason="REDIS TEST SKIPPED: no redis-server")]


class RedisServer:
    """redis-server on 127.0.0.1:`port` in `folder`, as the hosting docs configure it (password,
    no persistence, maxmemory with LRU eviction); `stop()` and `start()` again keep port and password."""

    def __init__(self, folder: Path, maxmemory: str = "8mb", policy: str = "allkeys-lru") -> None:
        self.folder, self.maxmemory, self.policy = folder, maxmemory, policy
        self.port, self.password = free_port(), secrets.token_hex(16)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        require_marker("server")
        import redis

        with open(self.folder / "redis.log", "a") as log:  # the process keeps its own copy of the file
            self.proc = subprocess.Popen(
                [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                 "--requirepass", self.password, "--save", "", "--appendonly", "no",
                 "--maxmemory", self.maxmemory, "--maxmemory-policy", self.policy,
                 "--dir", str(self.folder)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    return self
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start; see {self.folder / 'redis.log'}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def client(self):
        import redis

        return redis.Redis.from_url(self.url, socket_timeout=2)


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


def key(i: int = 0):
    return result_key("core.views:one_draw", {"dk": 64, "n": 32, "seed": i})


def test_two_replicas_compute_a_result_once(redis_server):
    first, second = (ResultStore(shared=RedisStore(redis_server.url)) for _ in range(2))
    value = {"rows": [{"dk": 64, "var": 1.0}], "w": np.linspace(0, 1, 50)}
    first.get_or_compute(key(), lambda f: (value, {}), None)
    back, _ = second.get_or_compute(key(), lambda f: pytest.fail("computed again"), None)
    assert np.array_equal(back["w"], value["w"]) and first.computed + second.computed == 1

    # asked at the same moment on both: one computes, the other waits for its result
    go, calls = threading.Barrier(2), []

    def ask(store):
        go.wait()
        # the computation lasts 0.4 s (the overlap is what is tested): the other asks while it runs
        return store.get_or_compute(key(1), lambda f: (calls.append(1) or time.sleep(0.4) or [3.0], {}), None)

    out: list = []
    threads = [threading.Thread(target=lambda s=s: out.append(ask(s))) for s in (first, second)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert len(calls) == 1 and [v for v, _ in out] == [[3.0], [3.0]]
    assert first.counters()["shared_waits"] + second.counters()["shared_waits"] == 1


def test_redis_stopped_then_started_again(redis_server, caplog):
    caplog.set_level(logging.INFO, logger="server.store")
    shared = RedisStore(redis_server.url, retry_s=0.3)
    store = ResultStore(shared=shared)
    store.get_or_compute(key(0), lambda f: ("before", {}), None)

    redis_server.stop()
    for i in range(1, 30):  # every page still works, on this process's own cache
        assert store.get_or_compute(key(i), lambda f, i=i: (i, {}), None)[0] == i
    assert store.peek(key(0))[0] == "before" and not shared.up
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "unreachable" in warnings[0].getMessage()
    assert redis_server.password not in warnings[0].getMessage()

    redis_server.start()

    def reached() -> bool:  # a call once the retry is due (retry_s=0.3) reaches the restarted Redis
        shared.exists(store_key("probe", "0" * 32))
        return shared.up

    wait_until("the store reaching the restarted Redis", reached, timeout=5)
    store.get_or_compute(key(100), lambda f: ("after", {}), None)
    assert shared.up and any("reachable again" in r.getMessage() for r in caplog.records)
    other = ResultStore(shared=RedisStore(redis_server.url))  # used again: another replica reads it
    assert other.get_or_compute(key(100), lambda f: pytest.fail("not shared"), None)[0] == "after"
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_redis_full_evicts_without_error(redis_server):
    shared = RedisStore(redis_server.url)
    store = ResultStore(shared=shared)
    rng = np.random.default_rng(0)
    for i in range(60):  # 60 × 350 kB encoded against 8 MB
        value = rng.standard_normal(32_768)
        assert np.array_equal(store.get_or_compute(key(i), lambda f, v=value: (v, {}), None)[0], value)
    stats = redis_server.client().info("stats")
    assert stats["evicted_keys"] > 0 and shared.counters()["refused"] == 0 and shared.up
    assert store.counters()["computed"] == 60


def test_a_foreign_value_under_our_key_is_rejected_and_recomputed(redis_server, caplog, tmp_path):
    caplog.set_level(logging.WARNING, logger="server.results")
    store = ResultStore(shared=RedisStore(redis_server.url))
    raw = redis_server.client()
    where = store_key("r", shared_key(key()))

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    raw.set(where, pickle.dumps(Payload()))
    value, _ = store.get_or_compute(key(), lambda f: ([1.0, 2.0], {}), None)
    assert value == [1.0, 2.0] and store.counters()["rejected"] == 1 and store.computed == 1
    assert not (tmp_path / "ran").exists()
    assert raw.get(where).startswith(b'{"ase":1')  # replaced by ours
    assert len(caplog.records) == 1


def _gates(url: str, count: int, slots: int, **kwargs) -> list[SharedGate]:
    """`count` gates of one name, each on its own connection: the replicas' views of one gate."""
    return [SharedGate(RedisStore(url), "test", slots, **kwargs) for _ in range(count)]


def test_the_heavy_gate_admits_at_most_its_slots_across_replicas(redis_server):
    gates = _gates(redis_server.url, 2, slots=2, poll_s=0.02)
    lock, running, peak = threading.Lock(), [0], [0]

    def job(gate):
        with gate.slot(lambda ahead, waited: None):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.2)  # each job holds its slot a while, so that the others overlap it
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=job, args=(gates[i % 2],)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(20)
    assert peak[0] == 2 and gates[0].load() == (0, 0)
    assert sum(g.counters()["admitted"] for g in gates) == 8


def test_the_queue_is_one_for_every_replica_with_places_in_order(redis_server):
    a, b, c = _gates(redis_server.url, 3, slots=1, poll_s=0.02)
    order, seen, hold = [], {}, threading.Event()
    queued = {name: threading.Event() for name in "BC"}

    def job(name, gate):
        def wait(ahead, seconds):
            seen.setdefault(name, ahead)
            queued[name].set()

        with gate.slot(wait):
            order.append(name)
            if name == "A":
                hold.wait(10)

    ta = threading.Thread(target=job, args=("A", a))
    ta.start()
    wait_until("A admitted", lambda: a.load() == (1, 0))
    tb = threading.Thread(target=job, args=("B", b))
    tb.start()
    queued["B"].wait(10)
    tc = threading.Thread(target=job, args=("C", c))
    tc.start()
    queued["C"].wait(10)
    assert a.load() == (1, 2)
    hold.set()
    for th in (ta, tb, tc):
        th.join(10)
    assert order == ["A", "B", "C"] and seen == {"B": 1, "C": 2} and c.load() == (0, 0)


def test_a_killed_replica_gives_its_slot_back_when_its_lease_lapses(redis_server):
    code = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
            "from server.admission import SharedGate\nfrom server.store import RedisStore\n"
            f"gate = SharedGate(RedisStore({redis_server.url!r}), 'test', 1, lease_s=1.0)\n"
            "with gate.slot(lambda a, s: None):\n    print('admitted', flush=True)\n    time.sleep(120)\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        assert holder.stdout.readline().strip() == "admitted"
        (gate,) = _gates(redis_server.url, 1, slots=1, lease_s=1.0, poll_s=0.05)
        places: list[int] = []
        got_in = threading.Event()

        def waiting_job():
            with gate.slot(lambda ahead, waited: places.append(ahead)):
                got_in.set()

        th = threading.Thread(target=waiting_job)
        th.start()
        assert not got_in.wait(2.5)  # 2.5 leases: the living holder's heartbeat keeps its slot
        assert places and set(places) == {1}
        os.killpg(holder.pid, signal.SIGKILL)
        killed = time.monotonic()
        assert got_in.wait(10)
        assert time.monotonic() - killed < 3.0  # within a lease (1 s) and a look or two
        th.join(5)
    finally:
        if holder.poll() is None:
            os.killpg(holder.pid, signal.SIGKILL)
        holder.wait(5)


def test_two_app_processes_share_their_results_through_redis(redis_server):
    """Two processes of the app (two replicas), each opening /variance with the same link: the first
    computes the page's results, the second reads every one of them from Redis."""
    code = (f"import json, sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]\n"
            "from conftest import run_page\n"
            "at = run_page('variance', {'dk': '32', 'trials': '20', 'seed': '5'})\n"
            "assert not at.exception, at.exception\n"
            "from server.shared import HEAVY, RESULTS, STORE\n"
            "print(json.dumps({'store': type(STORE).__name__, 'heavy': type(HEAVY).__name__,"
            " **RESULTS.counters()}))\n")
    env = {**os.environ, "ASE_REDIS_URL": redis_server.url}
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True,
                             text=True, timeout=240, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["store"] == "RedisStore" and first["heavy"] == "SharedGate"
    assert first["computed"] >= 1 and second["computed"] == 0
    assert second["shared_hits"] == first["computed"] and second["rejected"] == 0
