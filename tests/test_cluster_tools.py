"""The local cluster's and the balanced load test's own pieces, without a server (fast tier): the
browser-like cookie jar, the per-replica spread, children that die with their starter, and the
cluster's two Redis servers (started alone)."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from waiting import wait_until

from tools.cluster.cluster import REDIS_SERVER, LocalCluster
from tools.cluster.processes import SETPRIV, group_members, stop_all
from tools.loadtest.cookies import CookieJar, http_get
from tools.loadtest.driver import Phase, unique_link
from tools.loadtest.report import replica_spread, spread_line


def test_the_jar_keeps_the_latest_cookie_and_drops_an_expired_one():
    jar = CookieJar()
    jar.take(["ASE_SERVER=app1; path=/; HttpOnly", "_streamlit_xsrf=2|ab|cd|1; Path=/; SameSite=Lax"])
    assert jar == {"ASE_SERVER": "app1", "_streamlit_xsrf": "2|ab|cd|1"}
    jar.take(["ASE_SERVER=app2; path=/"])
    assert jar.header() == "ASE_SERVER=app2; _streamlit_xsrf=2|ab|cd|1"
    jar.take(["_streamlit_xsrf=; Max-Age=0", "ASE_SERVER=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
              "not a cookie"])
    assert jar == {}


def test_a_get_sends_the_jar_and_keeps_what_the_answer_sets():
    """Against a one-shot HTTP answer on a loopback port (an asyncio server in this test)."""
    seen: list[bytes] = []

    async def go() -> tuple[int, CookieJar]:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(b"HTTP/1.1 200 OK\r\nSet-Cookie: ASE_SERVER=app3; path=/\r\nContent-Length: 2\r\n"
                         b"Connection: close\r\n\r\nok")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        jar = CookieJar({"a": "1"})
        async with server:
            status = await http_get(f"http://127.0.0.1:{port}/variance?lang=zh", jar, 5)
        return status, jar

    status, jar = asyncio.run(go())
    assert status == 200 and jar == {"a": "1", "ASE_SERVER": "app3"}
    request = seen[0].decode()
    assert request.startswith("GET /variance?lang=zh HTTP/1.1\r\n") and "\r\nCookie: a=1\r\n" in request


def test_the_spread_counts_each_session_on_its_first_replica():
    spread = replica_spread({0: ["app1"], 1: ["app2"], 2: ["app1"], 3: ["app1", "app2"], 4: []})
    assert spread["sessions"] == {"app1": 3, "app2": 1} and spread["moved"] == 1 and spread["unpinned"] == 1
    assert spread["from_even_pct"] == {"app1": 50.0, "app2": -50.0}
    assert spread_line(spread) == ("sessions per replica: app1 3 (+50%), app2 1 (-50%); changed replica 1; "
                                   "never connected 1")
    assert replica_spread({}) == {"sessions": {}, "from_even_pct": {}, "moved": 0, "unpinned": 0}


def test_unique_sessions_carry_their_own_seed_in_the_link():
    assert unique_link("/variance?lang=zh", 7) == "/variance?lang=zh&seed=7"
    assert unique_link("/", 2**31 + 5) == "/?seed=6"
    assert Phase("x", 1, 1.0, unique=True).unique


def test_a_child_dies_with_the_process_that_started_it(tmp_path):
    """A cluster killed by SIGKILL leaves nothing: its children get SIGTERM from the kernel."""
    if not SETPRIV.exists():
        pytest.skip(f"{SETPRIV} is missing (util-linux): children would outlive a killed cluster")
    script = ("import sys, time; from pathlib import Path; from tools.cluster.processes import spawn; "
              "p = spawn(['sleep', '60'], Path(sys.argv[1]), Path('.')); print(p.pid, flush=True); "
              "time.sleep(60)")
    starter = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "sleep.log")], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True, start_new_session=True)
    child = int(starter.stdout.readline())
    assert group_members(child) == [child]
    os.kill(starter.pid, signal.SIGKILL)
    starter.wait()
    starter.stdout.close()
    deadline = time.monotonic() + 10
    while group_members(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_members(child)


def test_stopping_ends_a_group_that_ignores_sigterm(tmp_path):
    from tools.cluster.processes import spawn

    proc = spawn(["sh", "-c", "trap '' TERM; sleep 30 & wait"], tmp_path / "stubborn.log", ROOT)
    # the shell has set its trap once it has started its sleep
    wait_until("the stubborn group's sleep starting", lambda: len(group_members(proc.pid)) >= 2)
    assert stop_all([proc], grace=1.0) == [proc.pid]
    assert not group_members(proc.pid)


def test_the_load_leaves_presentation_toggles_alone():
    """The load moves settings, not how a view is shown (every chart's table, the projector mode)."""
    import random

    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from tools.loadtest.protocol import Widget

    def toggle(key: str) -> Widget:
        return Widget(id=f"$$ID-0123abcd-{key}", kind="checkbox", proto=None, script_hash="h",
                      state=WidgetState(id=f"$$ID-0123abcd-{key}", bool_value=False))

    rng = random.Random(0)
    assert toggle("tables").random_move(rng) is None
    assert toggle("lesson_projector").random_move(rng) is None
    assert toggle("sat_more").random_move(rng).bool_value is True


@pytest.mark.server
@pytest.mark.skipif(not REDIS_SERVER.exists(), reason="no redis-server")
def test_the_clusters_redis_servers_keep_rooms_apart_and_the_password_off_every_command_line(tmp_path):
    """The local cluster's two Redis servers alone (no app): one evicts nothing (rooms, limits,
    admission), the other is the results' LRU cache; the password is in files of mode 600 only,
    on no process's command line and in no replica's environment, which trusts the balancer alone."""
    import redis

    cluster = LocalCluster(replicas=1, workdir=tmp_path)
    try:
        cluster._start_redis()
        password = cluster.password_file.read_text().strip()
        assert len(password) >= 32 and stat.S_IMODE(cluster.password_file.stat().st_mode) == 0o600
        policies = {}
        for member in (cluster.store, cluster.cache):
            cmdline = Path(f"/proc/{member.pid}/cmdline").read_bytes()
            assert password.encode() not in cmdline, member.name
            client = redis.Redis(port=member.port, password=password, socket_timeout=2)
            policies[member.name] = client.config_get("maxmemory-policy")["maxmemory-policy"]
            with pytest.raises(redis.AuthenticationError):
                redis.Redis(port=member.port, socket_timeout=2).ping()
        assert policies == {"redis": "noeviction", "redis-cache": "allkeys-lru"}
        env = cluster._replica_env()
        assert not [k for k, v in env.items() if password in v]
        assert env["ASE_REDIS_PASSWORD_FILE"] == str(cluster.password_file)
        assert env["ASE_REDIS_URL"].endswith(f":{cluster.store.port}/0")
        assert env["ASE_REDIS_CACHE_URL"].endswith(f":{cluster.cache.port}/0")
        assert env["ASE_TRUSTED_PROXIES"] == "127.0.0.1/32"
    finally:
        assert cluster.stop() == []
