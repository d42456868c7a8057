"""The server's start (pages/ui/serving.py): what it loads before the first page asks, and when."""

from __future__ import annotations

import http.client
import importlib
import json
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conftest import StreamlitServer

from pages.ui.serving import StepAside, WarmUp, no_delay_on_listeners
from pages.ui.shared_work import RunRegistry


class Loader:
    """Records what WarmUp imports, and in which thread; `fail` names a module that cannot load."""

    def __init__(self, fail: str = "") -> None:
        self.names: list[str] = []
        self.fail = fail
        self.freezes: list[list[str]] = []  # what had been loaded at each freeze

    def freeze(self) -> None:
        self.freezes.append(list(self.names))

    def preload(self, name: str) -> None:
        self.names.append(f"preload {name}")

    def __call__(self, name: str) -> object:
        if name == self.fail:
            raise ImportError(f"{name} is switched off here")
        self.names.append(name)
        return object()


def warm_up(runs: RunRegistry, loader: Loader, quiet_s: float = 0.2) -> WarmUp:
    return WarmUp(first=("altair", "pandas"), late=("torch",), runs=runs, quiet_s=quiet_s, load=loader,
                  freeze=loader.freeze, preload=loader.preload)


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
    assert loader.names == ["altair", "pandas", "preload torch", "torch"], "its libraries, then torch"
    assert waited >= 0.15, f"torch loaded {waited:.2f} s after the page, before the quiet time (0.2 s)"
    assert loader.freezes == [["altair", "pandas"]], "frozen before the first page only, not after it"


def test_torch_waits_for_the_quiet_time_however_long_a_page_runs():
    runs, loader = RunRegistry(), Loader()
    w = warm_up(runs, loader, quiet_s=0.2)
    run = in_a_run(runs, 1.0)
    w.start()
    time.sleep(0.8)
    assert loader.names == ["altair", "pandas"], "torch loaded while a page ran"
    assert loader.freezes == [], "a page was running: its objects would have been frozen"
    run.join()
    assert w.done.wait(5) and loader.names[-1] == "torch"


def test_a_module_that_cannot_load_is_skipped_and_the_rest_still_load():
    runs, loader = RunRegistry(), Loader(fail="pandas")
    w = warm_up(runs, loader)
    w.start()
    time.sleep(0.3)
    in_a_run(runs, 0.05).join()
    assert w.done.wait(5)
    assert loader.names == ["altair", "preload torch", "torch"] and w.loaded == ["altair", "torch"]
    assert loader.freezes == [["altair"]], "no page yet: frozen after the first group only"


def test_a_preload_that_fails_leaves_the_libraries_to_the_import():
    runs, loader = RunRegistry(), Loader()

    def broken(name: str) -> None:
        raise OSError(f"no dlopen for {name} here")

    w = WarmUp(first=(), late=("torch",), runs=runs, quiet_s=0.05, load=loader, freeze=loader.freeze,
               preload=broken)
    w.start()
    in_a_run(runs, 0.01).join()
    assert w.done.wait(5) and loader.names == ["torch"] and w.loaded == ["torch"]


def test_waiting_for_quiet_waits_for_a_first_run_to_end_then_the_quiet_time():
    runs = RunRegistry()
    waited: list[float] = []
    waiter = threading.Thread(target=lambda: waited.append(runs.wait_quiet(0.2)))
    start = time.monotonic()
    waiter.start()
    time.sleep(0.5)
    assert waiter.is_alive(), "no run yet: it keeps waiting"
    in_a_run(runs, 0.3).join()
    waiter.join(5)
    assert waited and time.monotonic() - start >= 0.5 + 0.3 + 0.2 - 0.05, "the run, then the quiet time"
    run = in_a_run(runs, 0.3)
    start = time.monotonic()
    runs.wait_quiet(0.2)
    run.join()
    assert time.monotonic() - start >= 0.45, "a run in progress: its end, then the quiet time"
    assert runs.wait_quiet(0.2) < 0.1, "quiet long enough already"


def slow_package(root: Path, name: str, modules: int, seconds: float) -> None:
    """A package whose import executes `modules` submodules one after the other; each records when
    it started executing (in the package's `started`) and then takes `seconds`."""
    pkg = root / name
    pkg.mkdir()
    body = (f"import time\nfrom {name} import started\n\n"
            f"started.append(time.monotonic())\ntime.sleep({seconds})\n")
    for i in range(modules):
        (pkg / f"m{i}.py").write_text(body)
    submodules = "".join(f"from . import m{i}\n" for i in range(modules))
    (pkg / "__init__.py").write_text("started = []\n" + submodules)


@pytest.fixture
def packages(tmp_path):
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("slowpkg")]:
        del sys.modules[name]


def import_in_thread(step: StepAside, name: str) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []
    th = threading.Thread(target=lambda: out.append(step.load(importlib.import_module, name)))
    th.start()
    return th, out


def test_a_background_import_waits_before_each_module_while_a_page_runs_and_until_it_is_drawn(packages):
    slow_package(packages, "slowpkg_a", modules=6, seconds=0.05)
    runs = RunRegistry()
    in_a_run(runs, 0.01).join()  # the warm-up imports after a first run has ended
    time.sleep(0.2)
    step = StepAside(runs, settle_s=0.15, longest_s=2.0)
    th, out = import_in_thread(step, "slowpkg_a")
    time.sleep(0.02)  # the first module is executing
    run = in_a_run(runs, 0.4)
    run.join()
    ended = time.monotonic()
    th.join(5)
    started = out[0].started
    during = [t for t in started[1:] if t < ended + 0.15 - 0.01]
    assert not during, f"{len(during)} module(s) executed while the page ran or was being drawn"
    assert len(started) == 6 and step.waits == 1 and 0.4 <= step.waited_s < 1.0 and not step.gave_up
    assert sys.getprofile() is None, "the test's own thread was never profiled"


def test_a_background_import_stops_waiting_for_a_run_that_lasts_too_long(packages):
    """A heavy page, or one that needs the module being imported (it waits on its import lock):
    the import goes on after `longest_s` instead of waiting for it."""
    slow_package(packages, "slowpkg_b", modules=4, seconds=0.02)
    runs = RunRegistry()
    in_a_run(runs, 0.01).join()
    step = StepAside(runs, settle_s=0.05, longest_s=0.3)
    run = in_a_run(runs, 3.0)
    time.sleep(0.05)
    start = time.monotonic()
    th, out = import_in_thread(step, "slowpkg_b")
    th.join(5)
    took = time.monotonic() - start
    assert run.is_alive(), "the import finished while the long run still ran"
    assert step.gave_up and step.waits == 1 and 0.3 <= took < 1.5
    assert len(out[0].started) == 4
    run.join()


def test_a_background_import_goes_on_at_once_when_the_page_needs_what_it_imports(packages):
    """A page that imports the package being imported waits for it on its import lock: the import
    stops stepping aside at once instead of after `longest_s`."""
    slow_package(packages, "slowpkg_d", modules=6, seconds=0.05)
    runs = RunRegistry()
    in_a_run(runs, 0.01).join()
    time.sleep(0.2)
    step = StepAside(runs, settle_s=0.05, longest_s=3.0)
    th, out = import_in_thread(step, "slowpkg_d")
    time.sleep(0.02)  # the first module is executing
    got: list[float] = []

    def page() -> None:
        runs.start()
        start = time.monotonic()
        importlib.import_module("slowpkg_d")
        got.append(time.monotonic() - start)
        runs.end()

    run = threading.Thread(target=page)
    run.start()
    run.join(5)
    th.join(5)
    assert step.gave_up and got and got[0] < 1.0, f"the page waited {got} s for the import"
    assert len(out[0].started) == 6


def test_a_background_import_without_pages_does_not_wait(packages):
    slow_package(packages, "slowpkg_c", modules=5, seconds=0.0)
    runs = RunRegistry()
    in_a_run(runs, 0.01).join()
    time.sleep(0.2)
    step = StepAside(runs, settle_s=0.1)
    th, out = import_in_thread(step, "slowpkg_c")
    th.join(5)
    assert len(out[0].started) == 5 and step.waits == 0 and not step.gave_up


PRELOAD_CHILD = textwrap.dedent("""
    import json, sys, threading, time
    from pages.ui.serving import preload_extensions
    gaps, stop = [0.0], []
    def spin():
        last = time.perf_counter()
        while not stop:
            now = time.perf_counter()
            gaps[0] = max(gaps[0], now - last)
            last = now
    th = threading.Thread(target=spin)
    th.start()
    time.sleep(0.05)
    start = time.perf_counter()
    loaded = preload_extensions("torch")
    took = time.perf_counter() - start
    stop.append(1)
    th.join()
    imported_by_preload = "torch" in sys.modules
    import torch
    print(json.dumps({"loaded": loaded, "took": took, "gap": gaps[0], "imported": imported_by_preload,
                      "works": float(torch.ones(3).sum()), "missing": preload_extensions("no_such_package_x"),
                      "none_listed": preload_extensions("json")}))
""")


def test_torchs_libraries_load_without_holding_the_interpreter():
    """In a fresh process: the C library's dlopen of torch's extension leaves another thread running
    (Python's own loading, and ctypes.CDLL, stall every thread for the whole 0.2 s), imports nothing,
    and torch's import afterwards works."""
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", PRELOAD_CHILD], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert [Path(p).name.split(".")[0] for p in got["loaded"]] == ["_C"]
    assert not got["imported"] and got["works"] == 3.0
    assert got["missing"] == [] and got["none_listed"] == []
    assert got["took"] > 0.05, "the libraries were loaded already: nothing was measured"
    assert got["gap"] < min(0.1, got["took"] / 2), (
        f"another thread stalled {got['gap']:.3f} s of the {got['took']:.3f} s the libraries took to load")


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
