"""`/_ase/stats`: what this replica's shared work has done, for the load test and the local cluster.

A GET from a loopback address (the load generator, `tools.cluster`, a balancer on the same host)
is answered with JSON: this process's id, the result store's counters (computations run here,
hits and misses per level, waits on another replica's computation, rejected foreign values:
server.results.ResultStore.counters) and, when given, the room bus's waves (server.room_bus
RoomBus.stats: each recent wave's timings). Summed over replicas, `computed` says how many times a
class's results were computed across all of them. Any other client, method or path passes to the
app unchanged, so nothing is exposed beyond the host. Nothing here imports Streamlit.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Callable

from server.asgi import ASGIApp, Receive, Scope, Send

PATH = "/_ase/stats"


def loopback(scope: Scope) -> bool:
    """Whether the request comes from this host (127.0.0.0/8 or ::1)."""
    client = scope.get("client")
    try:
        return bool(client) and ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


class StatsEndpoint:
    """ASGI middleware answering `PATH` (under the server's base path) for loopback clients with
    `counters()` as JSON."""

    def __init__(self, app: ASGIApp, counters: Callable[[], dict[str, int]], base_url_path: str = "",
                 waves: Callable[[], dict[str, object]] | None = None) -> None:
        self.app = app
        self.counters, self.waves = counters, waves
        prefix = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
        self.path = prefix + PATH

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope.get("type") != "http" or scope.get("method") != "GET" or scope.get("path") != self.path
                or not loopback(scope)):
            await self.app(scope, receive, send)
            return
        doc: dict[str, object] = {"pid": os.getpid(), "results": self.counters()}
        if self.waves is not None:
            doc["bus"] = self.waves()
        body = json.dumps(doc).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
