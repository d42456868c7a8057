"""Importing a product module starts nothing (docs/architecture.md#start-up): every module of
pages/ui and server, imported in a fresh interpreter, leaves no thread, no store or shared object, no
janitor evictor, no environment variable, no log record factory and Altair's debug mode as they were.
The process is started by one explicit call (server.startup.start, for the app
pages.ui.app_start.start), which the second test checks does all of that, once.

pages/*.py and app.py are scripts that Streamlit runs, not modules to import: they are left out.
`core` sets OMP_WAIT_POLICY as it loads (core/__init__.py: before torch, for every user of the
library, the command line included) and Streamlit sets MPLBACKEND as it loads, so both are imported
before the environment is read.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

SNAPSHOT = """
import json, logging, os, sys, threading
sys.path.insert(0, os.getcwd())
import core  # noqa: F401 (its OMP_WAIT_POLICY default, see the module docstring)
import streamlit  # noqa: F401 (which sets MPLBACKEND as it loads)
from altair.utils import schemapi

def state():
    import server.shared as shared
    import server.startup as startup
    return {
        "threads": sorted(t.name for t in threading.enumerate()),
        "env": dict(os.environ),
        "altair_debug": schemapi.DEBUG_MODE,
        "log_factory": logging.getLogRecordFactory() is logging.LogRecord,
        "built": getattr(shared, "built", lambda: True)(),  # (today's names or none)
        "shared_names": sorted(n for n in getattr(shared, "OBJECTS", ("STORE", "ROOMS"))
                               if n in vars(shared)),
        "started": getattr(startup, "started", lambda: None)(),
    }

before_env, before_debug = dict(os.environ), schemapi.DEBUG_MODE
before_threads = sorted(t.name for t in threading.enumerate())
import pkgutil, importlib, pages.ui, server
names = sorted(m.name for pkg in (pages.ui, server)
               for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."))
for name in names:
    importlib.import_module(name)
print(json.dumps({"names": names, "before_env": before_env, "before_debug": before_debug,
                  "before_threads": before_threads, "after_import": state()}), flush=True)
from pages.ui import app_start
first, second = app_start.start(), app_start.start()
import server.shared as shared
evictors = [getattr(f, "__qualname__", repr(f)) for f in shared.JANITOR.evictors]
after_start = dict(state(), first=first, second=second)
print(json.dumps({"after_start": after_start, "evictors": evictors}))
"""


@pytest.fixture(scope="module")
def seen() -> dict:
    """What a fresh interpreter saw: before the imports and after them (its first line), after
    start() twice (its second)."""
    out = subprocess.run([sys.executable, "-c", SNAPSHOT], cwd=ROOT, capture_output=True, text=True,
                         timeout=240, check=False)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines, out.stderr[-3000:]
    return dict(lines[0], **(lines[1] if len(lines) > 1 else {}), returncode=out.returncode,
                stderr=out.stderr[-3000:])


def test_importing_every_module_of_pages_ui_and_server_starts_nothing(seen):
    after = seen["after_import"]
    assert "pages.ui.chart.figure" in seen["names"] and "server.shared" in seen["names"]
    assert after["threads"] == seen["before_threads"] == ["MainThread"]
    assert after["env"] == seen["before_env"], "an import wrote the environment"
    assert after["altair_debug"] is seen["before_debug"] is True, "an import changed Altair's debug mode"
    assert after["log_factory"], "an import installed a log record factory"
    # no store, no result cache, no rooms, no janitor (so no evictor registered with one)
    assert not after["built"] and after["shared_names"] == [], "an import built the shared objects"
    assert not after["started"]


def test_start_does_the_process_start_up_once(seen):
    assert seen["returncode"] == 0, seen["stderr"]
    after = seen["after_start"]
    assert after["first"] is True and after["second"] is False
    assert after["built"] and {"STORE", "RESULTS", "ROOMS", "JANITOR"} <= set(after["shared_names"])
    assert after["started"] and not after["altair_debug"] and not after["log_factory"]
    assert "ase-idle-janitor" in after["threads"]
    assert seen["evictors"] == ["ResultStore.drop_unused", "Memo.drop_unused", "SharedCache.drop_unused"]
    assert after["env"].get("OMP_NUM_THREADS") == "1" or "OMP_NUM_THREADS" in seen["before_env"]
