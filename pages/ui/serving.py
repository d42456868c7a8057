"""The server's start: what it loads before the first page asks, and when.

`streamlit run app.py` finds the `st.App` that app.py builds and serves it; that App's lifespan
calls `WARM_UP.start()` once, as the server starts. On a fresh server the first page costs its
libraries' imports on top of its own work:

- `FIRST_MODULES`, which every page imports, are loaded in the background from the start, while
  the browser loads the app's code;
- torch (1.1 s on a 2-core server) is loaded only once the server has served a page and then been
  quiet for `TORCH_QUIET_S`, so that it does not compete for the interpreter with a page that does
  not need it. A view that needs it sooner (an autograd link on a fresh server) imports it from its
  own script, after the rest of the page has been sent: started as the link is requested instead,
  the import held the interpreter while the server handed the browser the app's code, and such a
  link took longer (README, Benchmarks);
- after `FIRST_MODULES`, if no session has run yet, the objects alive (the libraries') are frozen
  out of the garbage collector's walks (freeze_libraries); once a session has run they are not,
  since its objects would be frozen with them and never freed (so torch's never are).

The lifespan also turns off Nagle's algorithm on the server's listening sockets
(`no_delay_on_listeners`), which the connections it accepts inherit.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
from collections.abc import Callable

from pages.ui.shared_work import RUNS, RunRegistry, freeze_libraries, torch_threads

FIRST_MODULES: tuple[str, ...] = ("altair", "pandas", "core.views", "pages.ui.charts", "pages.ui.layout")
TORCH_QUIET_S = 1.5  # torch waits until a page has run and none has for this long


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
    """Loads `first` in a background thread, then `late` once `runs` has seen a script run end and
    none for `quiet_s` seconds; then sets torch's intra-op pool to one thread (torch_threads).
    After `first`, while no script has run yet, the libraries' objects are set aside from garbage
    collection (`freeze`: freeze_libraries); once a session has run they are not, as that session's
    objects would be frozen with them. A module that fails to import is skipped: the pages that
    need it say why they cannot compute."""

    def __init__(self, first: tuple[str, ...] = FIRST_MODULES, late: tuple[str, ...] = ("torch",),
                 runs: RunRegistry = RUNS, quiet_s: float = TORCH_QUIET_S,
                 load: Callable[[str], object] = importlib.import_module,
                 freeze: Callable[[], object] = freeze_libraries) -> None:
        self.first, self.late, self.runs, self.quiet_s, self._load = first, late, runs, quiet_s, load
        self._freeze = freeze
        self.loaded: list[str] = []
        self.done = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> bool:
        """Start the background thread, once per server; True when this call started it."""
        with self._lock:
            if self._started:
                return False
            self._started = True
        threading.Thread(target=self.run, name="warm-up", daemon=True).start()
        return True

    def run(self) -> None:
        """The thread's body: `first`, frozen if no run has started, then (after a run) `late`."""
        try:
            self._import(self.first)
            if self.runs.started == 0:
                self._freeze()
            self.runs.wait_quiet(self.quiet_s)
            self._import(self.late)
            torch_threads()
        finally:
            self.done.set()

    def _import(self, names: tuple[str, ...]) -> None:
        for name in names:
            try:
                self._load(name)
            except Exception:  # the page that needs it reports it, translated
                continue
            self.loaded.append(name)


WARM_UP = WarmUp()
