"""The server's start: what it loads before the first page asks, and when.

`streamlit run app.py` finds the `st.App` that app.py builds and serves it; that App's lifespan
calls `WARM_UP.start()` once, as the server starts. On a fresh server the first page costs its
libraries' imports on top of its own work:

- `FIRST_MODULES`, which every page imports, are loaded in the background from the start, while
  the browser loads the app's code;
- torch (1.1 s on a 2-core server) is loaded only once the server has served a page and then been
  quiet for `TORCH_QUIET_S`, so that it does not compete for the interpreter with a page that does
  not need it. Its shared libraries are loaded first, outside the interpreter lock
  (`preload_extensions`); then, while its modules load, it steps aside for any page that starts to
  run (`StepAside`: before each module executes, the import waits until no script run is in
  progress and the browser has had time to draw the last one). A view that needs torch sooner (an
  autograd link on a fresh server) imports it from its own script, after the rest of the page has
  been sent: started as the link is requested instead, the import held the interpreter while the
  server handed the browser the app's code, and such a link took longer (README, Benchmarks);
- after `FIRST_MODULES`, if no session has run yet, the objects alive (the libraries') are frozen
  out of the garbage collector's walks (freeze_libraries); once a session has run they are not,
  since its objects would be frozen with them and never freed (so torch's never are).

The lifespan also turns off Nagle's algorithm on the server's listening sockets
(`no_delay_on_listeners`), which the connections it accepts inherit.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.machinery
import importlib.util
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from pages.ui.shared_work import RUNS, RunRegistry, freeze_libraries, torch_threads

FIRST_MODULES: tuple[str, ...] = ("altair", "pandas", "core.views", "pages.ui.charts", "pages.ui.layout")
TORCH_QUIET_S = 1.5  # torch waits until a page has run and none has for this long
# A run still in progress after this long is heavy work, or is itself waiting for the module being
# imported (its lock): the import stops stepping aside (StepAside).
STEP_ASIDE_LONGEST_S = 0.5
STEP_ASIDE_SETTLE_S = 0.4  # after a run, the browser draws what it sent (a rerun: 0.1–0.45 s in all)


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


# Extension modules whose shared libraries are loaded before their package's import, outside the
# interpreter lock (preload_extensions): torch._C brings libtorch_cpu.so and the rest (0.25 s).
PRELOAD: dict[str, tuple[str, ...]] = {"torch": ("_C",)}


def preload_extensions(package: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """Load the shared libraries of `package`'s extension `modules` (default: PRELOAD's) with the C
    library's dlopen, called through ctypes, which releases the interpreter lock for the call;
    the package's import then finds them loaded and only initialises them. Python's own loading of
    an extension (and ctypes.CDLL) holds the lock throughout: for torch's, 0.2–0.25 s in which no
    other thread of the server ran. Nothing is imported: the package is only located. Returns the
    files loaded; where the package, a file or dlopen is missing, nothing is done for it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    try:
        dlopen = ctypes.CDLL(None).dlopen
    except (OSError, AttributeError):
        return []
    dlopen.restype, dlopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_int]
    folder, loaded = Path(spec.origin).parent, []
    for module in PRELOAD.get(package, ()) if modules is None else modules:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"{module}{suffix}"
            if path.is_file():
                if dlopen(os.fsencode(path), sys.getdlopenflags()):
                    loaded.append(str(path))
                break
    return loaded


def import_waiters() -> list[int]:
    """The threads (but this one) waiting for another thread's import of a module to finish: their
    innermost frame is the wait in `_ModuleLock.acquire` of Python's import system. A page that needs
    torch while the warm-up imports it waits there. [] where threads' frames cannot be read."""
    frames = getattr(sys, "_current_frames", None)
    if frames is None:
        return []
    me = threading.get_ident()
    return [tid for tid, frame in frames().items()
            if tid != me and frame.f_code.co_name == "acquire"
            and frame.f_code.co_filename == "<frozen importlib._bootstrap>"]


class StepAside:
    """Runs an import in the background without holding up the pages that run meanwhile.

    An import in another thread takes about half of the interpreter from a page that runs during
    it (Python switches threads every 5 ms), and a core from the browser that draws the page: a
    rerun clicked while torch loaded (1.0–1.3 s here) took up to twice as long. Installed as the
    importing thread's profile function (`load`), this is called as each module of the import
    starts to execute (a `call` event of a `<module>` code object, where only the import locks of
    the modules being loaded are held). There it waits while a script run is in progress and
    until `settle_s` after the last one ended (`runs.quiet_since()`: the browser draws what the run
    sent), polling every `poll_s`. A run still going after `longest_s`
    is heavy work, or waits for this very import: from then on the import goes on without waiting,
    as it does at once when some thread waits for an import lock (`import_waiters`: a page that
    needs the module being imported).
    Only the importing thread is profiled (sys.setprofile is per thread); that makes its import
    about a third longer in CPU time (0.3 s for torch's), which loading torch's libraries outside
    the interpreter lock first (preload_extensions) about pays back. A single long call inside the
    import cannot be cut short: hence that preload (loading torch's libraries within the import held
    the lock for 0.2–0.25 s)."""

    def __init__(self, runs: RunRegistry, settle_s: float = STEP_ASIDE_SETTLE_S,
                 longest_s: float = STEP_ASIDE_LONGEST_S, poll_s: float = 0.005) -> None:
        self.runs, self.settle_s, self.longest_s, self.poll_s = runs, settle_s, longest_s, poll_s
        self.waits = 0  # modules that waited
        self.waited_s = 0.0
        self.gave_up = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.gave_up or event != "call" or frame.f_code.co_name != "<module>":
            return
        start = time.monotonic()
        busy_since: float | None = None  # when the run now in progress was first seen
        while True:
            ended, now = self.runs.quiet_since(), time.monotonic()
            if ended is not None and now - ended >= self.settle_s:
                break
            if import_waiters():  # a page needs a module this import is loading: go on at once
                self.gave_up = True
                break
            if ended is None:  # a run in progress (or none ever ended: the warm-up waits for one first)
                busy_since = now if busy_since is None else busy_since
                if now - busy_since >= self.longest_s:
                    self.gave_up = True
                    break
                time.sleep(self.poll_s)
            else:  # the browser is drawing what the last run sent
                busy_since = None
                time.sleep(min(ended + self.settle_s - now, 10 * self.poll_s))
        waited = time.monotonic() - start
        if waited >= self.poll_s:
            self.waits += 1
            self.waited_s += waited

    def load(self, load: Callable[[str], object], name: str) -> object:
        """load(name) in this thread, stepping aside as above."""
        sys.setprofile(self)
        try:
            return load(name)
        finally:
            sys.setprofile(None)


class WarmUp:
    """Loads `first` in a background thread, then `late` once `runs` has seen a script run end and
    none for `quiet_s` seconds: their shared libraries first, outside the interpreter lock
    (`preload`: preload_extensions), then the modules, stepping aside for the runs that start
    meanwhile (`StepAside`, kept as `stepped`); then sets torch's intra-op pool to one thread
    (torch_threads).
    After `first`, while no script has run yet, the libraries' objects are set aside from garbage
    collection (`freeze`: freeze_libraries); once a session has run they are not, as that session's
    objects would be frozen with them. A module that fails to import is skipped: the pages that
    need it say why they cannot compute."""

    def __init__(self, first: tuple[str, ...] = FIRST_MODULES, late: tuple[str, ...] = ("torch",),
                 runs: RunRegistry = RUNS, quiet_s: float = TORCH_QUIET_S,
                 load: Callable[[str], object] = importlib.import_module,
                 freeze: Callable[[], object] = freeze_libraries,
                 preload: Callable[[str], object] = preload_extensions) -> None:
        self.first, self.late, self.runs, self.quiet_s, self._load = first, late, runs, quiet_s, load
        self._freeze, self._preload = freeze, preload
        self.loaded: list[str] = []
        self.stepped = StepAside(runs)
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
            for name in self.late:
                try:
                    self._preload(name)
                except Exception:  # the import below loads the libraries itself
                    pass
            self._import(self.late, self.stepped)
            torch_threads()
        finally:
            self.done.set()

    def _import(self, names: tuple[str, ...], step: StepAside | None = None) -> None:
        for name in names:
            try:
                if step is None:
                    self._load(name)
                else:
                    step.load(self._load, name)
            except Exception:  # the page that needs it reports it, translated
                continue
            self.loaded.append(name)


WARM_UP = WarmUp()
