"""The store layer without a Redis server (server/store.py, server/results.py's second level,
server/shared.py's choice): the in-process store, two result stores sharing one store as two replicas
would, a foreign value rejected, a store that cannot be reached, and the default wiring unchanged."""

from __future__ import annotations

import logging
import pickle
import threading
import time

import numpy as np
import pytest
from conftest import free_port
from waiting import wait_until

from server import shared
from server.codec import encode
from server.gates import Gate
from server.results import ResultStore, result_key, shared_key
from server.store import Lease, MemoryStore, RedisStore, store_key

KEY = result_key("core.views:one_draw", {"dk": 64, "n": 32, "scale": "sqrt"})


def two_replicas(**kwargs):
    """Two result stores sharing one store, as two servers share one Redis."""
    common = MemoryStore()
    return common, ResultStore(shared=common, **kwargs), ResultStore(shared=common, **kwargs)


def test_the_memory_store_keeps_bytes_for_their_time_and_within_its_budget():
    now = [0.0]
    store = MemoryStore(max_bytes=1000, clock=lambda: now[0])
    key = store_key("r", "ab" * 10)
    assert store.set(key, b"x" * 100, ttl_s=5) and store.get(key) == b"x" * 100 and store.exists(key)
    now[0] = 5.0
    assert store.get(key) is None and store.counters() == {"entries": 0, "bytes": 0, "maps": 0, "rates": 0}
    for i in range(5):
        store.set(store_key("r", f"{i:040x}"), b"y" * 300, ttl_s=60)
    assert store.counters()["bytes"] <= 1000 and store.get(store_key("r", f"{0:040x}")) is None
    assert not store.set(key, b"z" * 2000, ttl_s=60)  # larger than the whole budget: not kept
    store.delete(store_key("r", f"{4:040x}"))
    assert store.get(store_key("r", f"{4:040x}")) is None


def test_a_claim_is_held_by_one_until_released_or_expired():
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    key = store_key("claim", "cd" * 10)
    assert store.claim(key, "a", 10) is True and store.claim(key, "b", 10) is False
    assert store.extend(key, "a", 10) and not store.extend(key, "b", 10)
    store.release(key, "b")  # not b's to release
    assert store.exists(key)
    store.release(key, "a")
    assert store.claim(key, "b", 10) is True
    now[0] = 11.0
    assert store.claim(key, "c", 10) is True  # b stopped renewing


def test_keys_are_hashes_of_validated_parameters_never_raw_text():
    digest = shared_key(KEY)
    assert digest is not None and len(digest) == 40
    assert store_key("r", digest) == f"ase:v1:r:{digest}"
    bad = (("r", "../etc"), ("R", digest), ("r", digest + " *"), ("r", "'; FLUSHALL"), ("r", "ab"))
    for kind, text in bad:
        with pytest.raises(ValueError):
            store_key(kind, text)
    assert shared_key(("not a function name", ())) is None
    assert shared_key(("core.views:one_draw", (("x", object()),))) is None


def test_a_result_computed_by_one_replica_is_read_by_the_other():
    _, first, second = two_replicas()
    value = {"rows": [{"dk": 64, "var": 1.0}], "heatmap": np.eye(3)}
    first.get_or_compute(KEY, lambda f: (value, {"busy": 1}), None)
    back, meta = second.get_or_compute(KEY, lambda f: pytest.fail("computed twice"), None)
    assert np.array_equal(back["heatmap"], value["heatmap"]) and meta == {"busy": 1}
    assert first.computed + second.computed == 1
    assert second.counters()["shared_hits"] == 1 and first.counters()["shared_misses"] == 1
    # the second now holds it in its own memory: no second trip to the shared store
    assert second.peek(KEY) is not None and second.counters()["local_hits"] == 1
    assert second.has(KEY) and first.has(KEY)


def test_replicas_asking_at_the_same_time_compute_once():
    _, first, second = two_replicas(poll_s=0.02)
    started, calls = threading.Event(), []

    def slow(flight):
        calls.append(1)
        started.set()
        time.sleep(0.3)  # it lasts while the other replica asks: the overlap is what is tested
        return [1.5, 2.5], {}

    out: list = []
    th = threading.Thread(target=lambda: out.append(first.get_or_compute(KEY, slow, None)))
    th.start()
    started.wait(5)
    waited: list = []
    value, _ = second.get_or_compute(KEY, slow, lambda flight: waited.append(flight.fraction))
    th.join(5)
    assert value == [1.5, 2.5] and out[0][0] == [1.5, 2.5] and len(calls) == 1
    assert second.counters()["shared_waits"] == 1 and waited  # it showed the shared bar meanwhile


def test_a_replica_that_stops_renewing_its_claim_is_taken_over(monkeypatch):
    common, _, second = two_replicas(claim_s=0.3, poll_s=0.02)
    digest = shared_key(KEY)
    assert common.claim(store_key("claim", digest), "a replica that died", 0.3)
    start = time.monotonic()
    value, _ = second.get_or_compute(KEY, lambda f: ("computed here", {}), None)
    assert value == "computed here" and 0.2 < time.monotonic() - start < 5
    assert second.computed == 1


def test_a_foreign_value_under_our_key_is_rejected_and_recomputed(caplog):
    common, first, _ = two_replicas()
    digest = shared_key(KEY)
    caplog.set_level(logging.WARNING, logger="server.results")
    for bad in (pickle.dumps({"rows": []}), b"\x00garbage", encode([1.0], kind="room")):
        common.set(store_key("r", digest), bad, 60)
        first.clear()
        value, _ = first.get_or_compute(KEY, lambda f: ([2.0], {}), None)
        assert value == [2.0]
        assert common.get(store_key("r", digest)) != bad  # replaced by ours
    assert first.counters()["rejected"] == 3 and first.computed == 3
    assert len([r for r in caplog.records if r.name == "server.results"]) == 1  # logged once, counted


def test_a_value_the_codec_cannot_write_is_handed_out_but_not_kept(caplog):
    store = ResultStore()
    caplog.set_level(logging.WARNING, logger="server.results")
    for _ in range(2):
        value, _ = store.get_or_compute(KEY, lambda f: ({"odd": {1, 2}}, {}), None)
        assert value == {"odd": {1, 2}}
    assert store.stats() == (0, 0) and store.counters()["unencodable"] == 2
    assert len(caplog.records) == 1


def test_results_are_kept_encoded_and_sized_by_their_bytes():
    store = ResultStore()
    value = {"rows": [{"x": float(i)} for i in range(50)], "w": np.ones((8, 8))}
    store.get_or_compute(KEY, lambda f: (value, {}), None)
    entries, size = store.stats()
    assert entries == 1 and size == len(encode(value, {}))


def test_a_lease_keeps_a_claim_alive_and_releases_it():
    """The store's clock is the test's: it moves on only after the lease has extended twice since the
    last move (the second extension surely came after it), by less than the claim's 0.3 s, three times:
    1.5 claims' lifetimes past the first claim, which only the extensions keep alive. A starved
    renewing thread makes the test slower, never wrong."""
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    key = store_key("claim", "ef" * 10)
    beats: list = []
    assert store.claim(key, "me", 0.3)
    with Lease(store, key, "me", 0.3, beat=lambda: beats.append(1)).held() as lease:
        for _ in range(3):
            seen = len(beats)
            wait_until("two extensions of the claim", lambda seen=seen: len(beats) >= seen + 2)
            now[0] += 0.25
            assert store.exists(key) and not lease.lost, now[0]
    assert now[0] > 0.6 and not store.exists(key)


# ---------------------------------------------------------------- a store that cannot be reached


def test_an_unreachable_redis_answers_nothing_at_once_logs_one_line_and_retries_later(caplog):
    now = [0.0]
    port = free_port()  # nothing listens there
    store = RedisStore(f"redis://:secret@127.0.0.1:{port}/0", timeout_s=0.2, retry_s=5, clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="server.store")
    results = ResultStore(shared=store)
    for i in range(20):
        key = result_key("core.views:one_draw", {"dk": i})
        assert results.get_or_compute(key, lambda f, i=i: (i * 2, {}), None)[0] == i * 2
    assert not store.up and store.counters()["unreachable"] == 1 and store.counters()["skipped"] > 20
    lines = [r.getMessage() for r in caplog.records if r.name == "server.store"]
    assert len(lines) == 1 and "unreachable" in lines[0] and "secret" not in lines[0]
    now[0] = 6.0  # the retry is due: one call tries again, fails, and logs nothing more
    assert store.get(store_key("r", "0" * 40)) is None
    assert store.counters()["unreachable"] == 2 and len(caplog.records) == 1


def test_the_shared_gate_falls_back_to_this_process_while_redis_is_down():
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2)
    gate = store.gate("heavy", 1)
    with gate.slot(lambda ahead, waited: None):
        assert gate.load() == (1, 0)  # the local gate's count
    assert gate.counters()["local"] == 1 and gate.load() == (0, 0)


# ---------------------------------------------------------------- the wiring


def test_with_no_redis_configured_the_server_objects_are_todays():
    if shared.os.environ.get(shared.REDIS_URL_ENV):
        pytest.skip("this run configures a Redis URL")
    assert isinstance(shared.STORE, MemoryStore) and shared.RESULTS.shared is None
    assert type(shared.HEAVY) is Gate and shared.HEAVY.slots == shared.HEAVY_SLOTS
    assert type(shared.LIGHT) is Gate


def test_the_backend_is_chosen_by_the_url(caplog):
    assert isinstance(shared.open_store(None), MemoryStore)
    redis_store = shared.open_store(f"redis://:pw@127.0.0.1:{free_port()}/0")  # connects on first use only
    assert isinstance(redis_store, RedisStore) and redis_store.where.endswith("/0")
    assert "pw" not in redis_store.where
    caplog.set_level(logging.ERROR, logger="server.shared")
    assert isinstance(shared.open_store("nonsense://x"), MemoryStore)
    assert len(caplog.records) == 1


def test_the_app_passes_its_secret_in_unless_the_environment_sets_one(monkeypatch, tmp_path):
    from pages.ui import app_start, store_url

    class Secrets(dict):  # st.secrets as a host's secrets.toml with a redis_url line fills it
        def load_if_toml_exists(self) -> bool:
            return True

    monkeypatch.setattr(store_url.st, "secrets", Secrets(redis_url=" redis://s:1/0 "))
    monkeypatch.delenv(shared.REDIS_URL_ENV, raising=False)
    monkeypatch.delenv(shared.REDIS_PASSWORD_FILE_ENV, raising=False)
    assert store_url.secret_store_url() == "redis://s:1/0"
    assert app_start.settings().redis_url == "redis://s:1/0"
    assert shared.REDIS_URL_ENV not in shared.os.environ  # handed over in the settings, not the environment
    monkeypatch.setenv(shared.REDIS_URL_ENV, "redis://from-env:6379/0")
    assert app_start.settings().redis_url == "redis://from-env:6379/0"
    monkeypatch.setattr(store_url.st, "secrets", Secrets())
    assert store_url.secret_store_url() is None

    secret = tmp_path / "password"
    secret.write_text("pw-0123456789\n")
    settings = shared.Settings.from_env(environ={shared.REDIS_URL_ENV: "redis://r:1/0", "ASE_MAX_ROOMS": "3",
                                                 shared.REDIS_PASSWORD_FILE_ENV: str(secret)})
    assert settings.redis_url == "redis://r:1/0" and settings.password == "pw-0123456789"
    assert settings.max_rooms == 3
    assert "pw-0123456789" not in repr(settings)
    assert shared.Settings.from_env(environ={}) == shared.Settings()


def test_results_of_other_code_never_share_a_key(monkeypatch, tmp_path):
    from server import results

    key = results.result_key("core.views:saturation_view", {"dks": [16, 64], "n": 32})
    now = results.shared_key(key)
    monkeypatch.setattr(results, "CODE_VERSION", "0" * 16)
    assert results.shared_key(key) != now, "a deployment of other code would read this result"
    (tmp_path / "a.py").write_text("x = 1\n")
    before = results.code_version(tmp_path)
    (tmp_path / "a.py").write_text("x = 2\n")
    assert results.code_version(tmp_path) != before
    assert len(results.CODE_VERSION) == 16


def test_a_map_put_writes_its_field_in_place_without_copying_the_map():
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    key = store_key("roomans", "ab" * 16)
    assert store.map_put(key, "1.0.a", b"2", ttl_s=60)
    fields = store._maps[key][1]
    for i in range(150):
        assert store.map_put(key, f"1.0.p{i}", b"1", ttl_s=60)
    assert store._maps[key][1] is fields, "the map was copied on a write"
    assert store.map_put(key, "1.0.new", b"1", ttl_s=60, cap=151) is False  # the cap still holds
    seen = store.map_get(key)
    seen["1.0.a"] = b"changed"  # a reader's copy: the store's map is not handed out
    store.map_drop(key, "1.0.p0")
    assert store._maps[key][1] is fields and "1.0.p0" not in store.map_get(key)
    assert store.map_get(key)["1.0.a"] == b"2" and len(store.map_get(key)) == 150
    now[0] = 61.0
    assert store.map_get(key) == {} and key not in store._maps  # expired as before


def test_a_few_named_fields_of_a_map_are_read_without_the_rest():
    """A phone reads its own place and its own answer (server/room_phones.py, server/rooms.py), not
    the whole room's maps."""
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    key = store_key("roommem", "cd" * 16)
    for i in range(200):
        assert store.map_put(key, f"{i:012x}", b"t", ttl_s=60)
    assert store.map_fields(key, (f"{7:012x}", "000000000fff")) == {f"{7:012x}": b"t"}
    assert store.map_fields(key, ()) == {}
    with pytest.raises(ValueError):
        store.map_fields(key, ("Not A Field",))
    now[0] = 61.0
    assert store.map_fields(key, (f"{7:012x}",)) == {}  # expired with its map
    assert RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2).map_fields(key, ("a",)) is None


def test_the_password_is_read_from_its_file_and_given_to_url_only_clients(tmp_path, caplog):
    secret = tmp_path / "redis-password"
    secret.write_text("p@ss:w/rd\n")
    assert shared.redis_password(str(secret)) == "p@ss:w/rd"
    caplog.set_level(logging.ERROR, logger="server.shared")
    assert shared.redis_password(str(tmp_path / "missing")) is None and len(caplog.records) == 1
    assert shared.redis_password("") is None
    url = shared.with_password("redis://127.0.0.1:6379/0", "p@ss:w/rd")
    assert url == "redis://:p%40ss%3Aw%2Frd@127.0.0.1:6379/0"
    import redis

    assert redis.connection.parse_url(url)["password"] == "p@ss:w/rd"  # the room bus's client reads it back
    assert shared.with_password("redis://u:old@h:1/0", "new") == "redis://u:new@h:1/0"
    assert shared.with_password("redis://h:1/0", None) == "redis://h:1/0"
    store = shared.open_store("redis://127.0.0.1:1/0", password="from-file")
    assert store.client.connection_pool.connection_kwargs["password"] == "from-file"
