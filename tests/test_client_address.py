"""The reader's address (server/client_address.py): X-Forwarded-For is believed only from a trusted
balancer, and then read from the right; anything else counts as the peer itself."""

from __future__ import annotations

import http.client
import http.server
import logging
import os
import signal
import subprocess
import threading
import time

import pytest
from conftest import free_port

from server.client_address import client_address, from_context, trusted_networks
from tools.cluster.haproxy_cfg import HAPROXY, SOURCE, Server, runtime_cfg

BALANCER = trusted_networks("172.28.0.2/32, 127.0.0.1")


def test_a_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored():
    assert client_address("198.51.100.7", ["203.0.113.9"], BALANCER) == "198.51.100.7"
    assert client_address("198.51.100.7", ["172.28.0.2"], BALANCER) == "198.51.100.7"
    # with nothing trusted (the default), a header never counts
    assert client_address("172.28.0.2", ["203.0.113.9"], ()) == "172.28.0.2"


def test_from_the_balancer_the_rightmost_untrusted_hop_is_used():
    assert client_address("172.28.0.2", ["203.0.113.9"], BALANCER) == "203.0.113.9"
    # the reader wrote "1.2.3.4" itself; the balancer appended the address it saw
    assert client_address("172.28.0.2", ["1.2.3.4, 203.0.113.9"], BALANCER) == "203.0.113.9"
    # the balancer's own line after the reader's forged one (HAProxy adds a header line)
    assert client_address("172.28.0.2", ["1.2.3.4", "203.0.113.9"], BALANCER) == "203.0.113.9"
    # a chain of trusted hops is skipped from the right
    assert client_address("172.28.0.2", ["203.0.113.9, 127.0.0.1"], BALANCER) == "203.0.113.9"
    # no header, or nothing that parses: the balancer's own address (one bucket, as before)
    assert client_address("172.28.0.2", [], BALANCER) == "172.28.0.2"
    assert client_address("172.28.0.2", ["unknown, <script>"], BALANCER) == "172.28.0.2"


def test_addresses_are_normalised_before_they_are_compared():
    assert client_address("::ffff:172.28.0.2", ["[2001:db8::1]:5000"], BALANCER) == "2001:db8::1"
    assert client_address("172.28.0.2", ["203.0.113.9:4242"], BALANCER) == "203.0.113.9"


def test_a_malformed_trusted_entry_is_logged_and_trusts_nothing_more(caplog):
    caplog.set_level(logging.ERROR, logger="server.client_address")
    nets = trusted_networks("10.0.0.0/8, everything, 0.0.0.0/33")
    assert [str(n) for n in nets] == ["10.0.0.0/8"]
    assert len(caplog.records) == 2


def test_the_environment_names_the_balancers(monkeypatch):
    monkeypatch.setenv("ASE_TRUSTED_PROXIES", "10.1.2.3")
    assert client_address("10.1.2.3", ["203.0.113.9"]) == "203.0.113.9"
    monkeypatch.delenv("ASE_TRUSTED_PROXIES")
    assert client_address("10.1.2.3", ["203.0.113.9"]) == "10.1.2.3"


class Headers:  # st.context.headers: every value of a repeated header through get_all
    def __init__(self, pairs):
        self.pairs = pairs

    def get_all(self, key):
        return [v for k, v in self.pairs if k.lower() == key.lower()]


class Context:  # st.context: ip_address is None for a loopback peer
    def __init__(self, ip, pairs):
        self.ip_address, self.headers = ip, Headers(pairs)


def test_a_page_passes_streamlits_context():
    ctx = Context("172.28.0.2", [("X-Forwarded-For", "1.2.3.4"), ("x-forwarded-for", "203.0.113.9")])
    assert from_context(ctx, BALANCER) == "203.0.113.9"
    assert from_context(Context("198.51.100.7", [("X-Forwarded-For", "1.2.3.4")]), BALANCER) == "198.51.100.7"
    # loopback (None): the local cluster's balancer on 127.0.0.1
    assert from_context(Context(None, [("X-Forwarded-For", "203.0.113.9")]), BALANCER) == "203.0.113.9"
    assert from_context(Context(None, [("X-Forwarded-For", "203.0.113.9")]), ()) == "127.0.0.1"


@pytest.mark.server
@pytest.mark.skipif(not HAPROXY.exists(), reason=f"{HAPROXY} is missing")
def test_through_the_real_balancer_a_forged_header_is_outvoted_and_a_direct_one_ignored(tmp_path):
    """deploy/haproxy.cfg as the local cluster runs it, in front of a server that reports its peer
    and X-Forwarded-For lines: through the balancer the reader's forged address loses to the one the
    balancer saw; sent directly, the same header is ignored."""
    seen: list[tuple[str, list[str]]] = []

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/_stcore/health":
                seen.append((self.client_address[0], self.headers.get_all("X-Forwarded-For") or []))
            body = b"ok"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    app = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=app.serve_forever, daemon=True).start()
    port = free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(runtime_cfg(SOURCE.read_text(), port, [Server("app1", app.server_address[1])],
                               tmp_path / "haproxy.sock"))
    balancer = subprocess.Popen([str(HAPROXY), "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    trusted = trusted_networks("127.0.0.1/32")  # the local cluster's ASE_TRUSTED_PROXIES
    try:
        def get(at: int) -> None:  # from 127.0.0.2: a reader whose address is not the balancer's
            conn = http.client.HTTPConnection("127.0.0.1", at, timeout=5, source_address=("127.0.0.2", 0))
            try:
                conn.request("GET", "/lesson", headers={"X-Forwarded-For": "203.0.113.66"})
                conn.getresponse().read()
            finally:
                conn.close()

        deadline = time.monotonic() + 20
        while True:
            try:
                get(port)
                break
            except OSError:
                assert balancer.poll() is None and time.monotonic() < deadline, "haproxy did not start"
                time.sleep(0.1)
        peer, lines = seen[-1]
        assert peer == "127.0.0.1" and lines[0] == "203.0.113.66" and len(lines) == 2  # HAProxy's own line
        assert lines[1] == "127.0.0.2"
        assert client_address(peer, lines, trusted) == "127.0.0.2"  # what the balancer saw: the reader
        assert client_address(peer, lines, ()) == peer  # nothing trusted: the header never counts
        # a direct peer that is not the balancer: its header is ignored
        assert client_address("198.51.100.7", ["203.0.113.66"], trusted) == "198.51.100.7"
        # and a balancer line for a real reader wins over the forged one
        assert client_address(peer, [lines[0], "192.0.2.44"], trusted) == "192.0.2.44"
    finally:
        os.killpg(balancer.pid, signal.SIGTERM)
        balancer.wait(10)
        app.shutdown()
