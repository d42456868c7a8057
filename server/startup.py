"""The process's start-up, in one place: `start()`, and the lifespan of the `st.App` app.py builds.

Importing a module of server/ or pages/ui starts nothing (tests/test_import_side_effects.py).
`start(settings, evictors, configure)` does it, once per process, in this order
(docs/architecture.md#start-up):

1. passwords masked in every log line (`server.log_mask.install`), before any is read;
2. glibc's allocator (server.memory) and the numerical libraries' thread pools (server.threads) set
   for the whole process, before the sessions' threads allocate much and before torch loads;
3. the configuration read (`settings()`: the environment, and for the app its `redis_url` secret) and
   the shared objects built from it: the store, the result cache, the gates, the rooms
   (server.shared.build);
4. the caches' evictors registered with the janitor (`evictors`), the process-wide settings of other
   libraries made (`configure`: Altair's debug mode off, pages/ui/chart/figure.py), the janitor started.

app.py calls it (pages/ui/app_start.py: the app's settings, evictors and library settings) as
`streamlit run` imports it and at the top of every script run, which is how AppTest, with no
server, is started too: after the first call each costs one flag read. The server's own start,
which needs it listening, is the lifespan's (`lifespan`), run once as the server starts:

- passwords masked in every log line (`server.log_mask.install`, once per process);
- `no_delay_on_listeners()`: the listening sockets send without Nagle's delay, which every
  connection they accept inherits (a reused connection waited for the browser's delayed ACK on each
  of the app's hundred code files; what it earned: docs/hosting.md#sending-the-apps-code);
- a `WarmUp`: on a fresh server the first page would pay its libraries' imports on top of its own work,
  so the modules every page imports (app.py's `FIRST_MODULES`) load in a background thread from the
  start, while the browser loads the app's code (what it earned: docs/hosting.md#starting). Then, while
  no session has run yet, those objects are frozen out of the garbage collector's walks
  (`server.memory.freeze_libraries`; never once a session has run, whose objects would be frozen with
  them for good). torch (about a second) loads only once the server has served a page and then been quiet
  for `TORCH_QUIET_S`, so that it does not compete for the interpreter with a page that does not need it;
  a view that needs it sooner imports it from its own script. What each of these gains:
  docs/hosting.md#starting.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from server import log_mask, shared
from server.memory import configure_allocator, freeze_libraries
from server.runs import RunRegistry
from server.shared import Settings
from server.threads import configure_threads, torch_threads, torch_threads_at_load

TORCH_QUIET_S = 1.5  # torch waits until a page has run and none has for this long

_start_lock = threading.Lock()
_started: list[bool] = []  # [True] once start() has run: one read for every later script run


def start(settings: Callable[[], Settings] = Settings.from_env,
          evictors: tuple[Callable[[float], object], ...] = (),
          configure: tuple[Callable[[], object], ...] = ()) -> bool:
    """Start this process (see the module docstring for the order); True when this call did it.
    Idempotent and safe from many sessions' threads at once: every later call returns False at once."""
    if _started:
        return False
    with _start_lock:
        if _started:
            return False
        log_mask.install()
        configure_allocator()
        configure_threads()
        torch_threads_at_load()
        shared.build(settings())
        shared.JANITOR.evictors.extend(evictors)
        for step in configure:
            step()
        shared.JANITOR.start()
        _started.append(True)
        return True


def started() -> bool:
    """Whether start() has run in this process."""
    return bool(_started)


def no_delay_on_listeners(fd_dir: str = "/dev/fd") -> int:
    """Set TCP_NODELAY on every listening TCP socket of this process; return how many.

    Streamlit binds its listening socket itself, as `socket.socket(family)`, whose protocol number is 0,
    and asyncio disables Nagle's algorithm only on sockets whose protocol is IPPROTO_TCP. So on every
    connection after a response's first write (its headers) the body waited for the browser's delayed
    ACK, on a reused connection, for each of the hundred files of the app's code (what that cost:
    docs/hosting.md#sending-the-apps-code). On Linux a connection takes its listener's TCP_NODELAY as it
    is established (tests/test_startup.py); elsewhere, where it does not, nothing is lost.
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
    """Loads `first` in a background thread and, if no script has run yet, freezes what is alive
    (`freeze`); then loads `late` once `runs` has seen a script run end and none for `quiet_s`
    seconds, and sets torch's intra-op pool to one thread (torch_threads). `runs` defaults to the
    server's (server.shared.RUNS, read as the thread starts). A module that fails to import is
    skipped: the pages that need it say why they cannot compute."""

    def __init__(self, first: tuple[str, ...], late: tuple[str, ...] = ("torch",),
                 runs: RunRegistry | None = None, quiet_s: float = TORCH_QUIET_S,
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
        """The thread's body: `first`, frozen if no run has started, then (after a run and a quiet
        spell) `late`."""
        runs = shared.RUNS if self.runs is None else self.runs
        try:
            self._import(self.first)
            if runs.started == 0:
                self._freeze()
            runs.wait_quiet(self.quiet_s)
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


def lifespan(first: tuple[str, ...], at_start: tuple[Callable[[], object], ...] = ()
             ) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """The server's lifespan: no Nagle's delay on its listening sockets, a warm-up of `first`
    (frozen, then torch) started, and each of `at_start` called once in a thread of its own (work
    for the whole server, such as compiling GPU kernels, that no script run should pay for)."""
    warm_up = WarmUp(first)

    @contextlib.asynccontextmanager
    async def serving(_app: Any) -> AsyncIterator[None]:
        log_mask.install()  # done already by start(), which app.py called as it was imported; never twice
        no_delay_on_listeners()
        warm_up.start()
        for job in at_start:
            threading.Thread(target=job, name=f"start-{getattr(job, '__name__', 'job')}", daemon=True).start()
        yield

    return serving
