"""The server's start (pages/ui/serving.py): what it loads before the first page asks, and when."""

from __future__ import annotations

import asyncio
import http.client
import re
import socket
import sys
import threading
import time

import pytest
from conftest import StreamlitServer

from pages.ui.serving import TORCH_VIEWS, Prefetch, WarmUp, no_delay_on_listeners, opens_with_torch
from pages.ui.shared_work import RunRegistry


def view_link(page: str, key: str, value: str) -> tuple[str, str]:
    return f"/{page}", f"{key}={value}"


@pytest.mark.parametrize("view", TORCH_VIEWS, ids="-".join)
def test_each_view_that_needs_torch_is_recognised_by_its_link_alone(view):
    path, query = view_link(*view)
    assert opens_with_torch(path, query)
    assert opens_with_torch(f"/class/app{path}/", f"lang=zh&{query}&dk=512")


@pytest.mark.parametrize("path, query", [
    ("/", ""), ("/overview", "lang=zh"), ("/saturation", "dk=512"), ("/q-vs-k", ""),
    ("/q-vs-k", "qk_grad=0"), ("/beyond", "beyond_part=corr"), ("/cost", ""), ("/training", "lang=zh"),
    ("/static/js/index.js", ""), ("/_stcore/health", ""), ("/_stcore/stream", ""),
    ("/precision", ""), ("/precision", "lang=zh&dk=4096"), ("/gradientsx", ""),
    ("/overview", "page=gradients"), ("/gradients", ""), ("/gradients", "lang=zh&grad_check=0"),
])
def test_the_other_requests_do_not_ask_for_torch(path, query):
    assert not opens_with_torch(path, query)


def test_a_link_to_a_page_that_does_not_exist_does_not_ask_for_torch():
    pages = {view for view, _, _ in TORCH_VIEWS}
    assert not any(opens_with_torch(f"/{p}x", "") for p in pages)


class Loader:
    """Records what WarmUp imports, and in which thread; `fail` names a module that cannot load."""

    def __init__(self, fail: str = "") -> None:
        self.names: list[str] = []
        self.fail = fail
        self.freezes: list[list[str]] = []  # what had been loaded at each freeze

    def freeze(self) -> None:
        self.freezes.append(list(self.names))

    def __call__(self, name: str) -> object:
        if name == self.fail:
            raise ImportError(f"{name} is switched off here")
        self.names.append(name)
        return object()


def warm_up(runs: RunRegistry, loader: Loader, quiet_s: float = 0.2) -> WarmUp:
    return WarmUp(first=("altair", "pandas"), late=("torch",), runs=runs, quiet_s=quiet_s, load=loader,
                  freeze=loader.freeze)


def in_a_run(runs: RunRegistry, seconds: float) -> threading.Thread:
    """A script run of `seconds` in its own thread, as Streamlit runs one per session."""
    def body() -> None:
        runs.start()
        time.sleep(seconds)
        runs.end()

    th = threading.Thread(target=body)
    th.start()
    return th


def test_the_first_modules_load_at_once_and_torch_only_after_a_page_and_a_quiet_time():
    runs, loader = RunRegistry(), Loader()
    w = warm_up(runs, loader)
    assert w.start() and not w.start()  # once per server
    time.sleep(0.6)
    assert loader.names == ["altair", "pandas"], "before any page: the first modules, not torch"
    run = in_a_run(runs, 0.4)
    time.sleep(0.3)
    assert loader.names == ["altair", "pandas"], "not while a page runs"
    run.join()
    ended = time.monotonic()
    assert w.done.wait(5)
    waited = time.monotonic() - ended
    assert loader.names == ["altair", "pandas", "torch"]
    assert waited >= 0.15, f"torch loaded {waited:.2f} s after the page, before the quiet time (0.2 s)"
    assert loader.freezes == [["altair", "pandas"]], "frozen before the first page only, not after it"


def test_a_view_that_needs_torch_has_it_loaded_at_once_even_while_a_page_runs():
    runs, loader = RunRegistry(), Loader()
    w = warm_up(runs, loader, quiet_s=60)
    run = in_a_run(runs, 3.0)
    w.start()
    time.sleep(0.3)
    assert loader.names == ["altair", "pandas"]
    w.hurry()
    assert w.done.wait(2), "torch waited for the page to end and the quiet time"
    assert loader.names[-1] == "torch"
    assert loader.freezes == [], "a page was running: its objects would have been frozen"
    run.join()


def test_a_module_that_cannot_load_is_skipped_and_the_rest_still_load():
    runs, loader = RunRegistry(), Loader(fail="pandas")
    w = warm_up(runs, loader)
    w.hurry()
    w.start()
    assert w.done.wait(5)
    assert loader.names == ["altair", "torch"] and w.loaded == ["altair", "torch"]
    assert loader.freezes == [["altair"], ["altair", "torch"]], "no page yet: frozen after each group"


def test_waiting_for_quiet_waits_for_a_first_run_to_end_then_the_quiet_time_or_a_signal():
    runs = RunRegistry()
    hurry = threading.Event()
    threading.Timer(0.3, hurry.set).start()
    assert 0.25 <= runs.wait_quiet(10, until=hurry) < 2, "no run yet: it waits until the signal"
    run = in_a_run(runs, 0.3)
    start = time.monotonic()
    waited = runs.wait_quiet(0.2)
    run.join()
    assert waited >= 0.45 and time.monotonic() - start >= 0.45, "the run (0.3 s), then the quiet time"
    assert runs.wait_quiet(0.2) < 0.1, "quiet long enough already"


def test_the_middleware_hurries_only_for_a_view_that_needs_torch_and_passes_every_request_on():
    seen: list[dict] = []

    async def app(scope, receive, send):
        seen.append(scope)
        await send({"type": "done", "path": scope.get("path")})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {}

    runs = RunRegistry()
    w = WarmUp(first=(), late=(), runs=runs, load=Loader(), freeze=lambda: None)
    mw = Prefetch(app, warm_up=w)
    requests = [{"type": "lifespan"}, {"type": "websocket", "path": "/precision", "query_string": b""},
                {"type": "http", "path": "/", "query_string": b"lang=zh"},
                {"type": "http", "path": "/static/js/index.js", "query_string": b""},
                {"type": "http", "path": "/q-vs-k", "query_string": b"lang=zh"}]
    for scope in requests:
        asyncio.run(mw(scope, receive, send))
    assert not w.soon.is_set()
    asyncio.run(mw({"type": "http", "path": "/q-vs-k", "query_string": b"lang=zh&qk_grad=1"}, receive, send))
    assert w.soon.is_set()
    assert len(seen) == len(sent) == len(requests) + 1, "every request reaches the app, unchanged"
    assert seen[-1]["query_string"] == b"lang=zh&qk_grad=1"


def nodelay(sock: socket.socket) -> bool:
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


@pytest.mark.skipif(sys.platform == "win32", reason="no /dev/fd to list on Windows")
def test_the_listening_sockets_drop_nagles_delay_and_pass_it_to_what_they_accept(tmp_path):
    """Streamlit binds its listener as socket.socket(family): protocol 0, which asyncio does not set
    TCP_NODELAY on. no_delay_on_listeners sets it on the listener; accepted sockets inherit it.
    A connected socket and a file are left alone; a folder that cannot be listed changes nothing."""
    with socket.socket(socket.AF_INET) as listener, open(tmp_path / "f", "w"):
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as client, listener.accept()[0] as before:
            assert not nodelay(listener) and not nodelay(client)
            assert no_delay_on_listeners() >= 1
            assert nodelay(listener) and not nodelay(client) and not nodelay(before)
        # a connection takes its listener's options as it is established, before accept()
        with socket.create_connection(listener.getsockname()), listener.accept()[0] as accepted:
            assert nodelay(accepted)
    assert no_delay_on_listeners(str(tmp_path / "missing")) == 0


def test_a_reused_connection_gets_each_file_without_waiting_for_the_delayed_ack():
    """The app's code is about a hundred files, fetched over a few reused connections. A response is
    written as headers, then body; with Nagle's algorithm on, the kernel holds the body until the
    browser acknowledges the headers, and the browser delays that acknowledgement (Linux: at least
    40 ms). So the share of ten requests on one connection that take 40 ms or more shows whether the
    server waits for it: as served before no_delay_on_listeners, 8 of 10 (the others are answered
    while an acknowledgement happens to be on its way); without the wait a file takes a few ms.
    Not a speed target: the 40 ms is the kernel's, whatever the machine's load; two slow answers
    are allowed for a busy machine."""
    with StreamlitServer(log_name="serving-nodelay.log") as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        conn.request("GET", "/")
        html = conn.getresponse().read().decode()
        files = re.findall(r'href="\./(static/js/[^"]+\.js)"', html)[:10]
        assert len(files) == 10, html[:500]
        took = []
        for name in files:
            start = time.perf_counter()
            conn.request("GET", f"/{name}")
            response = conn.getresponse()
            body = response.read()
            took.append(time.perf_counter() - start)
            assert response.status == 200 and body, name
        conn.close()
    assert sum(t >= 0.040 for t in took) <= 2, [f"{t * 1000:.1f} ms" for t in took]
