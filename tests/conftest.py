"""Shared fixtures: the repository root on sys.path, running one page of the app under AppTest, and a
real server on a free loopback port."""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
_SERIAL_FILE = pytest.StashKey[Path]()

# The views that import torch as they open: (url_path, query key, value). Every page's default view
# opens without it; its link asks for it with key=value.
TORCH_VIEWS: tuple[tuple[str, str, str], ...] = (
    ("gradients", "grad_check", "1"),
    ("q-vs-k", "qk_grad", "1"),
    ("beyond", "beyond_part", "init"),
    ("cost", "cost_run", "1"),
    ("training", "train_run", "1"),
    ("real-model", "rm_run", "1"),
)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# The test tiers (pyproject.toml's markers). A test that starts a real server must say so, so that the
# developer loop (`-m "not (browser or server or emulator or gpu or slow)"`) never starts one.
_CURRENT: list[pytest.Item] = []


def pytest_sessionstart(session: pytest.Session) -> None:
    """A fresh axe report per run (tests/axe_check.py appends to it, view by view); under xdist, by
    the controlling process only (a worker started late must not empty it mid-run)."""
    if not hasattr(session.config, "workerinput"):
        (ARTIFACTS / "axe-report.jsonl").unlink(missing_ok=True)


# The README's command, `pytest -n 2 --dist loadgroup`: the browser and server tests run in two
# lanes, each on one worker, one test after another in file order as without xdist (each module's
# server and browser started once). The first lane holds every test that times something, starts
# several servers or loads one (hosting, load tests, the cluster, the class's timings): never two of
# those at once. The second holds browser modules that check what a page shows and nothing timed
# (SECOND_LANE); its worker then runs the rest of the suite. xdist's own loadgroup cannot do it here:
# it groups by renaming node ids, which pytest 9.2's structured ids ignore (pytest-xdist#1386), so
# every test went its own way. Instead the workers, which see the marks, write each such test's lane
# to a file the controller gave them, and the scheduler below reads it before it hands out the tests.
SERIAL_GROUP = "browser-and-server"
SECOND_GROUP = "browser-views"
SECOND_LANE = frozenset({"test_browser_lesson.py", "test_browser_a11y.py", "test_browser_factcheck.py",
                         "test_browser_screens.py"})
SERIAL_IDS = "ase_serial_ids"  # the file's path, in each worker's workerinput


def serial(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) for name in ("browser", "server"))


def lane(item: pytest.Item) -> str:
    """The scope of a browser or server test: the second lane's, or the first."""
    return SECOND_GROUP if item.path.name in SECOND_LANE else SERIAL_GROUP


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadgroup" and not hasattr(config, "workerinput"):
        config.stash[_SERIAL_FILE] = Path(tempfile.mkdtemp(prefix="ase-pytest-")) / "serial-ids.json"


def pytest_unconfigure(config: pytest.Config) -> None:
    path = config.stash.get(_SERIAL_FILE, None)
    if path is not None:
        shutil.rmtree(path.parent, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    path = node.config.stash.get(_SERIAL_FILE, None)
    if path is not None:
        node.workerinput[SERIAL_IDS] = str(path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = getattr(config, "workerinput", {}).get(SERIAL_IDS)
    if path:  # both workers collect the same tests: either file will do, written whole
        partial = Path(f"{path}.{os.getpid()}")
        # A module with any such test goes whole into its lane: its other tests must not run on a
        # worker while that module's browser (an event loop in the main thread) is still open.
        mixed = {item.path for item in items if serial(item)}
        partial.write_text(json.dumps({item.nodeid: lane(item) for item in items if item.path in mixed}))
        os.replace(partial, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    path = config.stash.get(_SERIAL_FILE, None)
    if path is None:
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SerialGroupScheduling(LoadScopeScheduling):
        """xdist's loadscope with one scope per lane of browser and server tests and one per
        other test. The largest scopes are handed out first, one to each worker: a worker asks for
        more only once it is down to its last two, so the first lane's worker runs that lane alone
        and the second lane's worker then runs the rest, test by test, in collection order (each
        module's fixtures built once)."""

        lanes: dict[str, str] | None = None

        def schedule(self) -> None:
            if self.collection is None:  # the first call: every worker has collected
                self.lanes = json.loads(path.read_text())
            super().schedule()

        def _split_scope(self, nodeid: str) -> str:
            return (self.lanes or {}).get(nodeid, nodeid)

    return SerialGroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _CURRENT[:] = [item]


def require_marker(*names: str) -> None:
    """Fail the running test unless it carries one of the markers `names`."""
    item = _CURRENT[0] if _CURRENT else None
    if item is not None and not any(item.get_closest_marker(n) for n in names):
        pytest.fail(f"{item.nodeid} starts a server: mark it @pytest.mark.{names[0]}", pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]



def require_browser() -> None:
    """Skip, loudly and saying why, where Debian's Chromium or Playwright is missing."""
    from tools.app_driver import browser_missing

    why = browser_missing()
    if why:
        pytest.skip(f"BROWSER TEST SKIPPED: {why}")


def served_app(log_name: str):
    """A module's `server` fixture: `streamlit run app.py` on a loopback port for the module's tests
    (its base URL), its output in tests/artifacts/`log_name`; skips where the browser is missing."""

    @pytest.fixture(scope="module")
    def server():
        from tools.app_driver import serve

        require_browser()
        with serve(ARTIFACTS / log_name) as url:
            yield url

    return server


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, one per test module; a test that asks for it skips,
    saying why, where it is missing. (Modules that start a server with theirs define their own.)"""
    from tools.app_driver import launch_chromium

    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


def page_table() -> list[tuple[str, str, str, str, str]]:
    """PAGE_TABLE read from app.py without running it (it is a literal list)."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "PAGE_TABLE":
            return ast.literal_eval(node.value)
    raise AssertionError("app.py has no PAGE_TABLE")

class StreamlitServer:
    """`streamlit run app.py` on a loopback port, as the README starts it (headless), in its own
    process group; `start()` waits for /_stcore/health, `stop()` ends the group. With `base`, the
    server is mounted there (`--server.baseUrlPath`) and `url` includes it."""

    def __init__(self, port: int | None = None, env: dict[str, str] | None = None,
                 log_name: str = "streamlit-server.log", args: tuple[str, ...] = (), base: str = "") -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}" + (f"/{base}" if base else "")
        self.env, self.log_name = env, log_name
        self.args = (*args, "--server.baseUrlPath", base) if base else args
        self.proc = None

    def start(self, timeout: float = 90) -> StreamlitServer:
        require_marker("server", "browser")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **(self.env or {})}
        with open(ARTIFACTS / self.log_name, "a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
                 "--server.address", "127.0.0.1", "--server.port", str(self.port),
                 "--browser.gatherUsageStats", "false", *self.args],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"streamlit did not start; see {ARTIFACTS / self.log_name}")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def call_in_threads(fn, count: int) -> list:
    """fn() from `count` threads started together; their results, once all have finished."""
    import threading

    results: list = []
    threads = [threading.Thread(target=lambda: results.append(fn())) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def count_calls(monkeypatch, module, name: str, calls: list | None = None) -> list:
    """Replace `module.name` (a core function) by a wrapper that appends `name` to `calls` (a new
    list unless one is given, to share between functions) at each call and still computes. The
    wrapper keeps the function's module and name: the shared result store keys it as before."""
    import functools

    calls = [] if calls is None else calls
    real = getattr(module, name)

    @functools.wraps(real)
    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


MY_PAGES = ("overview", "variance", "saturation", "gradients", "precision")


def run_page(page: str, query: dict[str, str] | None = None, locale: str | None = None, timeout: float = 120):
    """Open pages/<page>.py through app.py (as a deep link would), with URL query parameters."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if locale:
        at.context = {"locale": locale}
    at.switch_page(f"pages/{page}.py")
    return at.run()


def tables(at) -> list:
    """The static tables an AppTest run shows (pages.ui.layout.show_table, as HTML), in page order,
    each as a DataFrame of its cells' text under its header."""
    from html.parser import HTMLParser

    import pandas as pd

    from pages.ui.layout import TABLE_CLASS

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.header: list[str] = []
            self.rows: list[list[str]] = []
            self.cell: list[str] | None = None

        def handle_starttag(self, tag, attrs) -> None:
            if tag == "tr" and self.cell is None:
                self.rows.append([])
            if tag in ("th", "td"):
                self.cell = []

        def handle_endtag(self, tag) -> None:
            if tag in ("th", "td") and self.cell is not None:
                (self.header if tag == "th" else self.rows[-1]).append("".join(self.cell))
                self.cell = None

        def handle_data(self, data) -> None:
            if self.cell is not None:
                self.cell.append(data)

    out = []
    for element in at.get("html"):
        if f'class="{TABLE_CLASS}"' not in element.value:
            continue
        cells = Cells()
        cells.feed(element.value)
        out.append(pd.DataFrame([r for r in cells.rows if r], columns=cells.header))
    return out


@pytest.fixture
def open_page():
    return run_page


@pytest.fixture(autouse=True)
def _fresh_sweep_parts():
    """Each test computes its own sweeps (core.views.PARTS keeps them by what they ran with), so a
    test that makes a sweep fail is not answered from an earlier test's rows."""
    views = sys.modules.get("core.views")
    if views is not None:
        views.PARTS.clear()
    yield


@pytest.fixture(autouse=True)
def _altair_as_the_app_sets_it():
    """Altair's debug mode off once pages.ui.chart.figure is loaded, as the app's start switches it off for
    its process (pages/ui/app_start.py): a test that builds charts without running app.py builds them
    as the app does, whichever test ran before it in its worker."""
    figure = sys.modules.get("pages.ui.chart.figure")
    if figure is not None:
        figure.altair_without_debug_mode()
    yield


@pytest.fixture(autouse=True, scope="session")
def _streamlit_components_scanned_once():
    """Every AppTest scans all installed distributions for Streamlit v2 components on its first run
    (0.3 s, most of a short page's test); what is installed cannot change during a run of the suite,
    so the scan runs once per test process and its answer is handed to every AppTest. A real server
    (the server tier) scans as it always does. Streamlit 1.67.0's name, pinned in
    test_st_internals.py."""
    from streamlit.components.v2 import manifest_scanner

    real = manifest_scanner.scan_component_manifests
    found = real()
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(found)
    yield
    manifest_scanner.scan_component_manifests = real
