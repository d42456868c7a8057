"""`/_ase/stats`: a replica's result counters as JSON, to loopback clients only (server/stats.py)."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
from conftest import StreamlitServer
from test_static_gzip import answer, request

from server.stats import PATH, StatsEndpoint


class App:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def __call__(self, scope, receive, send):
        self.calls.append(scope["path"])
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b"app"})


def ask(app, path: str, client: str, method: str = "GET"):
    scope = request(path, method=method) | {"client": (client, 50000)}
    return asyncio.run(answer(app, scope))


def test_a_loopback_client_gets_the_counters_as_json():
    inner = App()
    app = StatsEndpoint(inner, counters=lambda: {"computed": 3, "shared_hits": 5})
    for client in ("127.0.0.1", "::1"):
        status, headers, body = ask(app, PATH, client)
        assert status == 200 and headers[b"content-type"] == b"application/json"
        data = json.loads(body)
        assert data["results"] == {"computed": 3, "shared_hits": 5} and data["pid"] > 0
    assert inner.calls == []


@pytest.mark.parametrize(("path", "client", "method"), [
    (PATH, "10.1.2.3", "GET"),          # another host: the app answers, nothing is exposed
    (PATH, "not an address", "GET"),
    (PATH, "127.0.0.1", "POST"),
    ("/_ase/statsx", "127.0.0.1", "GET"),
    ("/variance", "127.0.0.1", "GET"),
])
def test_anything_else_goes_to_the_app(path, client, method):
    inner = App()
    status, _, body = ask(StatsEndpoint(inner, counters=dict), path, client, method)
    assert (status, body, inner.calls) == (404, b"app", [path])


def test_under_a_base_path_the_endpoint_moves_with_the_app():
    inner = App()
    app = StatsEndpoint(inner, counters=lambda: {"computed": 0}, base_url_path="/explorer/")
    assert ask(app, "/explorer" + PATH, "127.0.0.1")[0] == 200
    assert ask(app, PATH, "127.0.0.1")[0] == 404


@pytest.mark.server
def test_the_running_app_counts_a_page_s_computations():
    from tools.loadtest.protocol import BrowserTab

    def counters(url: str) -> dict:
        with urllib.request.urlopen(f"{url}{PATH}", timeout=10) as answer:
            return json.load(answer)["results"]

    async def open_page(url: str) -> None:
        tab = BrowserTab(url)
        await tab.connect()
        assert (await tab.open("/variance?lang=en&dk=128", 600)).status == "ok"
        await tab.close()

    with StreamlitServer(log_name="stats.log") as server:
        before = counters(server.url)
        asyncio.run(open_page(server.url))
        after = counters(server.url)
    assert after["computed"] > before["computed"], (before, after)
