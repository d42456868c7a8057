"""The server's start: what it loads before the first page asks, and when.

`streamlit run app.py` finds the `st.App` that app.py builds and serves it; that App's lifespan
calls `WARM_UP.start()` once, as the server starts, and its middleware (`Prefetch`) sees each HTTP
request before Streamlit answers it. On a fresh server the first page costs its libraries' imports
on top of its own work, and the browser spends most of a second loading the app's code between
asking for the page and opening the session whose script imports them:

- `FIRST_MODULES`, which every page imports, are loaded in the background from the start;
- torch (0.9 s on a 2-core server) is loaded as soon as a view that needs it is asked for
  (`TORCH_VIEWS`, by URL), so its import runs while the browser loads the code; otherwise only
  once the server has served a page and then been quiet for `TORCH_QUIET_S`, so that it does not
  compete for the interpreter with a page that does not need it;
- after each group, if no session has run yet, the objects alive (the libraries') are frozen out
  of the garbage collector's walks (freeze_libraries); once a session has run they are not, since
  its objects would be frozen with them and never freed.

The lifespan also turns off Nagle's algorithm on the server's listening sockets
(`no_delay_on_listeners`), which the connections it accepts inherit.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from pages.ui.shared_work import RUNS, RunRegistry, freeze_libraries, torch_threads

FIRST_MODULES: tuple[str, ...] = ("altair", "pandas", "core.views", "pages.ui.charts", "pages.ui.layout")
TORCH_QUIET_S = 1.5  # without such a request, torch waits until no script has run for this long

# The views that import torch as they open: (url_path, query key, value); every page opens without
# it, and its link asks for it with key=value.
# tests/test_hosting.py opens each on a server without torch (each must say why it cannot
# compute) and the other pages' default views (each must work).
TORCH_VIEWS: tuple[tuple[str, str, str], ...] = (
    ("gradients", "grad_check", "1"),
    ("q-vs-k", "qk_grad", "1"),
    ("beyond", "beyond_part", "init"),
    ("cost", "cost_run", "1"),
    ("training", "train_run", "1"),
    ("real-model", "rm_run", "1"),
)

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                   Awaitable[None]]


def opens_with_torch(path: str, query: str) -> bool:
    """Whether the page at URL `path` (its last segment is the page's url_path, after any base
    path) with query string `query` imports torch as it opens (TORCH_VIEWS)."""
    page = path.rstrip("/").rsplit("/", 1)[-1]
    params: dict[str, list[str]] | None = None
    for view, key, value in TORCH_VIEWS:
        if view != page:
            continue
        if params is None:
            params = parse_qs(query)
        if value in params.get(key, ()):
            return True
    return False


def no_delay_on_listeners(fd_dir: str = "/dev/fd") -> int:
    """Set TCP_NODELAY on every listening TCP socket of this process; return how many.

    Streamlit binds its listening socket itself, as `socket.socket(family)`, whose protocol number
    is 0, and asyncio disables Nagle's algorithm only on sockets whose protocol is IPPROTO_TCP. So
    on every connection after a response's first write (its headers) the body waited for the
    browser's delayed ACK: about 40 ms per file on a reused connection, for each of the hundred
    files of the app's code. On Linux a connection takes its listener's TCP_NODELAY as it is
    established (tests/test_serving.py); elsewhere, where it does not, nothing is lost.
    Where `fd_dir` cannot be listed nothing is changed (0)."""
    try:
        fds = [int(name) for name in os.listdir(fd_dir) if name.isdigit()]
    except OSError:
        return 0
    done = 0
    for fd in fds:
        try:
            sock = socket.socket(fileno=os.dup(fd))  # family and type read from the descriptor
        except OSError:  # not a socket, or closed since the listing
            continue
        with sock:
            try:
                if (sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM
                        and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    done += 1
            except OSError:
                continue
    return done


class WarmUp:
    """Loads `first` in a background thread, then `late`: at once after `hurry()`, otherwise once
    `runs` has seen a script run end and none for `quiet_s` seconds; then sets torch's intra-op
    pool to one thread (torch_threads). After each group, while no script has run yet, the
    libraries' objects are set aside from garbage collection (`freeze`: freeze_libraries); once a
    session has run they are not, as that session's objects would be frozen with them. A module
    that fails to import is skipped: the pages that need it say why they cannot compute."""

    def __init__(self, first: tuple[str, ...] = FIRST_MODULES, late: tuple[str, ...] = ("torch",),
                 runs: RunRegistry = RUNS, quiet_s: float = TORCH_QUIET_S,
                 load: Callable[[str], object] = importlib.import_module,
                 freeze: Callable[[], object] = freeze_libraries) -> None:
        self.first, self.late, self.runs, self.quiet_s, self._load = first, late, runs, quiet_s, load
        self._freeze = freeze
        self.frozen = 0  # how many times the libraries were frozen
        self.soon = threading.Event()
        self.loaded: list[str] = []
        self.done = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    def hurry(self) -> None:
        """A view that needs the late modules was asked for: load them as soon as `first` is."""
        self.soon.set()

    def start(self) -> bool:
        """Start the background thread, once per server; True when this call started it."""
        with self._lock:
            if self._started:
                return False
            self._started = True
        threading.Thread(target=self.run, name="warm-up", daemon=True).start()
        return True

    def run(self) -> None:
        """The thread's body: both groups in turn, each followed by a freeze before any run."""
        try:
            self._import(self.first)
            self._freeze_if_no_run()
            self.runs.wait_quiet(self.quiet_s, until=self.soon)
            self._import(self.late)
            torch_threads()
            self._freeze_if_no_run()
        finally:
            self.done.set()

    def _freeze_if_no_run(self) -> None:
        if self.runs.started == 0:
            self._freeze()
            self.frozen += 1

    def _import(self, names: tuple[str, ...]) -> None:
        for name in names:
            try:
                self._load(name)
            except Exception:  # the page that needs it reports it, translated
                continue
            self.loaded.append(name)


class Prefetch:
    """ASGI middleware: a request for a view that needs torch (`opens_with_torch`) hurries the
    warm-up; every request goes on to the app unchanged."""

    def __init__(self, app: ASGIApp, warm_up: WarmUp | None = None,
                 wants: Callable[[str, str], bool] = opens_with_torch) -> None:
        self.app, self.wants = app, wants
        self.warm_up = WARM_UP if warm_up is None else warm_up

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if (scope.get("type") == "http" and not self.warm_up.soon.is_set()
                and self.wants(scope.get("path", ""), scope.get("query_string", b"").decode("latin-1"))):
            self.warm_up.hurry()
        await self.app(scope, receive, send)


WARM_UP = WarmUp()
