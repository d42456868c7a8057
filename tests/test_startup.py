"""The server's start (server/startup.py): what it loads before the first page asks, and when; its
listening sockets without Nagle's delay."""

from __future__ import annotations

import http.client
import re
import socket
import statistics
import sys
import threading
import time

import pytest
from conftest import StreamlitServer
from waiting import wait_until

from server.runs import RunRegistry
from server.startup import WarmUp, no_delay_on_listeners


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
        time.sleep(seconds)  # the run's length is part of the scenario
        runs.end()

    th = threading.Thread(target=body)
    th.start()
    return th


def test_the_first_modules_load_at_once_and_torch_only_after_a_page_and_a_quiet_time():
    runs, loader = RunRegistry(), Loader()
    w = warm_up(runs, loader)
    assert w.start() and not w.start()  # once per server
    wait_until("the first modules loading", lambda: len(loader.names) >= 2)
    time.sleep(0.3)  # what is tested: nothing more loads for longer than the quiet time (0.2 s)
    assert loader.names == ["altair", "pandas"], "before any page: the first modules, not torch"
    run = in_a_run(runs, 0.4)
    time.sleep(0.3)  # what is tested: nothing loads for 0.3 s while the page runs
    assert loader.names == ["altair", "pandas"], "not while a page runs"
    run.join()
    ended = time.monotonic()
    assert w.done.wait(5)
    waited = time.monotonic() - ended
    assert loader.names == ["altair", "pandas", "torch"]
    assert waited >= 0.15, f"torch loaded {waited:.2f} s after the page, before the quiet time (0.2 s)"
    assert loader.freezes == [["altair", "pandas"]], "frozen before the first page only, not after it"


def test_torch_waits_for_the_quiet_time_however_long_a_page_runs():
    runs, loader = RunRegistry(), Loader()
    w = warm_up(runs, loader, quiet_s=0.2)
    run = in_a_run(runs, 1.0)
    w.start()
    time.sleep(0.8)  # what is tested: torch does not load during 0.8 s of the page's run
    assert loader.names == ["altair", "pandas"], "torch loaded while a page ran"
    assert loader.freezes == [], "a page was running: its objects would have been frozen"
    run.join()
    assert w.done.wait(5) and loader.names[-1] == "torch"


def test_a_module_that_cannot_load_is_skipped_and_the_rest_still_load():
    runs, loader = RunRegistry(), Loader(fail="pandas")
    w = warm_up(runs, loader)
    w.start()
    wait_until("the first group frozen", lambda: loader.freezes)
    in_a_run(runs, 0.05).join()
    assert w.done.wait(5)
    assert loader.names == ["altair", "torch"] and w.loaded == ["altair", "torch"]
    assert loader.freezes == [["altair"]], "no page yet: frozen after the first group only"


def test_waiting_for_quiet_waits_for_a_first_run_to_end_then_the_quiet_time():
    runs = RunRegistry()
    waited: list[float] = []
    waiter = threading.Thread(target=lambda: waited.append(runs.wait_quiet(0.2)))
    start = time.monotonic()
    waiter.start()
    time.sleep(0.5)  # what is tested: with no run, the waiter keeps waiting for 0.5 s
    assert waiter.is_alive(), "no run yet: it keeps waiting"
    in_a_run(runs, 0.3).join()
    waiter.join(5)
    assert waited and time.monotonic() - start >= 0.5 + 0.3 + 0.2 - 0.05, "the run, then the quiet time"
    run = in_a_run(runs, 0.3)
    start = time.monotonic()
    runs.wait_quiet(0.2)
    run.join()
    assert time.monotonic() - start >= 0.45, "a run in progress: its end, then the quiet time"
    assert runs.wait_quiet(0.2) < 0.15, "quiet long enough already: no wait (0.2 s if it had waited)"


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


@pytest.mark.server
def test_a_reused_connection_gets_each_file_without_waiting_for_the_delayed_ack():
    """The app's code is about a hundred files, fetched over a few reused connections. A response is
    written as headers, then body; with Nagle's algorithm on, the kernel holds the body until the
    browser acknowledges the headers, and the browser delays that acknowledgement (Linux: at least
    40 ms). So the share of ten requests on one connection that take 40 ms or more shows whether the
    server waits for it: as served before no_delay_on_listeners, 8 of 10 (the others are answered
    while an acknowledgement happens to be on its way); without the wait a file takes a few ms.
    Not a speed target: the 40 ms is the kernel's, whatever the machine's load; the median is asked
    for, so a busy machine's few slow answers do not decide it."""
    with StreamlitServer(log_name="startup-nodelay.log") as srv:
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
    assert statistics.median(took) < 0.040, [f"{t * 1000:.1f} ms" for t in took]


def test_the_lifespan_runs_each_start_job_once_in_a_thread_of_its_own(monkeypatch):
    """Work for the whole server (app.py: compiling GPU kernels) starts with the server, never in a
    script run, and a slow job does not hold the server back from serving."""
    import asyncio

    from server import startup

    monkeypatch.setattr(startup.WarmUp, "start", lambda self: True)  # nothing imported here
    ran: list[str] = []
    release = threading.Event()

    def slow_job() -> None:
        ran.append(threading.current_thread().name)
        release.wait(5)

    async def serve_once() -> float:
        began = time.monotonic()
        async with startup.lifespan((), at_start=(slow_job,))(None):
            return time.monotonic() - began

    waited = asyncio.run(serve_once())
    release.set()
    deadline = time.monotonic() + 5
    while not ran and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ran == ["start-slow_job"] and waited < 1.0


def test_a_server_process_masks_passwords_in_every_log_line_from_its_start():
    """The server layer installs the mask first as it starts (server.startup.start, then the lifespan
    again, once): a fresh process's log lines from any library show no password."""
    import subprocess

    from conftest import ROOT

    code = ("import logging, sys\nlogging.basicConfig(stream=sys.stdout, format='%(name)s %(message)s')\n"
            "import server.startup\nserver.startup.start()\n"
            "logging.getLogger('redis.connection').warning('lost %s', 'redis://:pw-0123456789@10.0.0.5:6379/0')\n"
            "logging.getLogger('uvicorn.error').error('GET /x?password=pw-0123456789 400')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert "pw-0123456789" not in out.stdout + out.stderr
    assert "redis://:***@10.0.0.5" in out.stdout and "password=***" in out.stdout
