"""The two doors to what Streamlit does not publish: server/st_internals.py (its private runtime
names and its frontend's globals) and pages/ui/st_dom.py (its frontend's DOM, for the app's CSS).

The uses were checked against one Streamlit version, pinned here. Each test exercises one use: the
private names exist with the attributes and signatures the door reads (it fails when one is gone or
changes shape), and every selector and global occurs in the frontend bundle that Streamlit serves.
Last, the product (pages/, server/, app.py, core/) touches none of them outside the two doors.
"""

from __future__ import annotations

import ast
import inspect
import re
import threading
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import pytest
import streamlit
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests, ScriptRequestType
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    FragmentThreadState,
    ScriptRunContext,
    ThreadState,
)
from streamlit.runtime.session_manager import ActiveSessionInfo, SessionManager
from streamlit.testing.v1 import AppTest

from pages.ui import run_order, st_dom
from server import st_internals
from server.static_gzip import streamlit_static_dir

ROOT = Path(__file__).resolve().parents[1]
CHECKED = "1.67.0"
DOORS = {"server/st_internals.py", "pages/ui/st_dom.py"}


def test_streamlit_is_the_version_the_uses_were_checked_against():
    assert streamlit.__version__ == CHECKED, (
        f"Streamlit is {streamlit.__version__}, the uses of its internals were checked against {CHECKED}: "
        "re-check each use listed in server/st_internals.py and pages/ui/st_dom.py against the new "
        "version (this file's tests say what each reads), then change CHECKED here")


def _params(func) -> list[str]:
    return list(inspect.signature(func).parameters)


# ---------------------------------------------------------------- this thread's script run


def _in_a_script_run() -> None:
    import streamlit as st

    from server import st_internals

    st.session_state["sid"] = st_internals.session_id()
    st.session_state["outside"] = st_internals.fragment_id()
    st.session_state["session"] = st_internals.active_session(st.session_state["sid"] or "")

    @st.fragment
    def part() -> None:
        st.session_state["inside"] = st_internals.fragment_id()

    part()


def test_the_suites_one_scan_of_components_is_the_scan_apptest_makes():
    """tests/conftest.py hands every AppTest one scan of the installed v2 components: the scan is
    the function AppTest's component manager calls (Streamlit 1.67.0's names)."""
    from streamlit.components.v2 import manifest_scanner
    from streamlit.components.v2.component_manager import BidiComponentManager

    discover = BidiComponentManager.discover_and_register_components
    assert "scan_component_manifests" in inspect.getsource(discover)
    assert "discover_and_register_components" in inspect.getsource(AppTest._run)
    assert manifest_scanner.scan_component_manifests() == manifest_scanner.scan_component_manifests()


def test_the_session_and_fragment_of_a_script_run_are_read():
    assert "session_id" in ScriptRunContext.__dataclass_fields__
    assert "fragment_id" in FragmentThreadState.__dataclass_fields__
    assert callable(ThreadState.get)
    at = AppTest.from_function(_in_a_script_run).run(timeout=30)
    assert not at.exception
    assert isinstance(at.session_state["sid"], str) and at.session_state["sid"]
    assert at.session_state["outside"] == "" and at.session_state["inside"]
    assert at.session_state["session"] is None  # AppTest's mock runtime has no session manager


def _in_a_fresh_thread(func):
    """What `func()` answers or raises in a thread that has never run a script."""
    out: list[object] = []

    def call() -> None:
        try:
            out.append(func())
        except Exception as exc:  # handed back to the test
            out.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    return out[0]


def test_outside_a_script_run_there_is_no_session_or_fragment():
    assert _in_a_fresh_thread(st_internals.session_id) is None
    assert _in_a_fresh_thread(st_internals.fragment_id) == ""
    assert isinstance(_in_a_fresh_thread(ThreadState.get), RuntimeError)  # what fragment_id() catches


# ---------------------------------------------------------------- another session


def test_the_runtime_keeps_its_sessions_where_the_door_looks():
    assert callable(Runtime.exists) and callable(Runtime.instance)
    assert "self._session_mgr" in inspect.getsource(Runtime.__init__)
    assert _params(SessionManager.get_active_session_info) == ["self", "session_id"]
    assert "session" in ActiveSessionInfo.__dataclass_fields__
    init = inspect.getsource(AppSession.__init__)
    assert "self._client_state = ClientState()" in init and "self._event_loop = " in init
    assert _params(AppSession.has_fragment) == ["self", "fragment_id"]
    assert _params(getattr(AppSession.request_rerun, "__wrapped__", AppSession.request_rerun)) == [
        "self", "client_state"]
    assert {"fragment_id", "is_auto_rerun", "page_script_hash"} <= set(ClientState.DESCRIPTOR.fields_by_name)


def test_a_session_is_found_by_its_id(monkeypatch):
    session = object()
    manager = SimpleNamespace(get_active_session_info=lambda sid: SimpleNamespace(session=session)
                              if sid == "here" else None)
    runtime = SimpleNamespace(_session_mgr=manager)
    fake = SimpleNamespace(exists=lambda: True, instance=lambda: runtime)
    monkeypatch.setattr(st_internals, "Runtime", fake)
    assert st_internals.active_session("here") is session
    assert st_internals.active_session("gone") is None
    monkeypatch.setattr(st_internals, "Runtime", SimpleNamespace(exists=lambda: False, instance=None))
    assert st_internals.active_session("here") is None


def test_a_rerun_is_the_sessions_last_request_again_on_its_event_loop():
    last = ClientState()
    last.page_script_hash, last.fragment_id = "page", "old"
    scheduled: list[tuple] = []
    loop = SimpleNamespace(call_soon_threadsafe=lambda *a: scheduled.append(a))
    session = SimpleNamespace(_client_state=last, request_rerun=object(), _event_loop=loop,
                              has_fragment=lambda f: f == "frag")
    st_internals.request_rerun_soon(session, "frag")
    st_internals.request_rerun_soon(session)
    (call, state), (_, whole) = scheduled
    assert call is session.request_rerun and state is not last
    assert (state.page_script_hash, state.fragment_id, state.is_auto_rerun) == ("page", "frag", True)
    assert (whole.page_script_hash, whole.fragment_id, whole.is_auto_rerun) == ("page", "", False)
    assert st_internals.holds_fragment(session, "frag") and not st_internals.holds_fragment(session, "x")


# ---------------------------------------------------------------- a session's rerun requests


def _session(stopped: bool) -> SimpleNamespace:
    requests = ScriptRequests()
    if stopped:
        requests.request_stop()
    return SimpleNamespace(_scriptrunner=SimpleNamespace(_requests=requests))


def test_a_stopped_runner_is_read_from_its_request_state():
    assert "self._scriptrunner" in inspect.getsource(AppSession.__init__)
    assert "self._requests = ScriptRequests()" in inspect.getsource(ScriptRunner.__init__)
    assert ScriptRequests()._state is ScriptRequestType.CONTINUE
    assert ScriptRequestType.STOP.value == "STOP"
    assert st_internals.runner_stopped(_session(stopped=True))
    assert not st_internals.runner_stopped(_session(stopped=False))
    assert not st_internals.runner_stopped(SimpleNamespace(_scriptrunner=None))
    state = ClientState()
    assert st_internals.requested_fragment(None) == st_internals.requested_fragment(state) == ""
    state.fragment_id = "f"
    assert st_internals.requested_fragment(state) == "f"


def test_the_patch_is_installed_once_by_the_explicit_install(monkeypatch):
    original = getattr(AppSession.request_rerun, "__wrapped__", AppSession.request_rerun)
    monkeypatch.setattr(AppSession, "request_rerun", original)  # restored afterwards
    assert not hasattr(AppSession.request_rerun, "__wrapped__")
    assert run_order.install() is True
    patched = AppSession.request_rerun
    assert patched.__wrapped__ is original and patched.__module__ == "pages.ui.run_order"
    assert run_order.install() is False and st_internals.wrap_request_rerun(lambda f: f) is False
    assert AppSession.request_rerun is patched

    calls: list[str] = []
    monkeypatch.setattr(AppSession, "request_rerun", lambda self, state: calls.append(state.fragment_id))
    assert st_internals.wrap_request_rerun(run_order.ordered) is True  # the wrapper gets the original
    AppSession.request_rerun(_session(stopped=False), ClientState())
    assert calls == [""]


def test_a_queues_unsent_fragment_finishes_are_read_and_marked():
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    queue = ForwardMsgQueue()
    for status, ids in ((ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, ["view", "inner"]),
                        (ForwardMsg.FINISHED_SUCCESSFULLY, []),
                        (ForwardMsg.FINISHED_EARLY_FOR_RERUN, ["poll"])):
        msg = ForwardMsg()
        msg.script_finished = status
        msg.metadata.run.fragment_ids.extend(ids)
        queue.enqueue(msg)
    found = st_internals.fragment_finishes(queue)
    assert [ran for _, ran in found] == [frozenset({"view", "inner"})]
    cut = queue._queue[2]
    st_internals.mark_fragment_finished(cut)
    assert cut.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


# ---------------------------------------------------------------- the frontend's bundle


@cache
def bundle() -> str:
    """Every script of the frontend Streamlit serves, as one text."""
    static = streamlit_static_dir()  # the folder Streamlit serves under /static/
    assert static is not None, "Streamlit's static folder is gone"
    js = static / "js"
    files = sorted(js.glob("*.js"))
    assert files, f"no frontend bundle under {js}"
    return "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)


@cache
def bundle_words() -> frozenset[str]:
    """Every maximal run of word characters and hyphens in the bundle: a name is in it exactly when
    the bundle holds the name with neither a word character nor a hyphen on either side."""
    return frozenset(re.findall(r"[\w-]+", bundle()))


# A testid the frontend builds from a template: the template's fixed part, and the value filled in
# (a member of the button kinds' enum, which has the borderless icon kind beside it).
TEMPLATED = {
    "stBaseButton-primary": ("`stBaseButton-${", "PRIMARY=`primary`", "BORDERLESS_ICON=`borderlessIcon`"),
}


def _dom_name(selector: str) -> str:
    match = re.fullmatch(r'\[data-testid="([\w-]+)"\]|\.([\w-]+)', selector)
    assert match, f"{selector!r}: neither a testid nor a class"
    return match.group(1) or match.group(2)


@pytest.mark.parametrize("constant", sorted(st_dom.SELECTORS))
def test_each_selector_names_an_element_of_the_frontend(constant: str):
    name = _dom_name(st_dom.SELECTORS[constant])
    if name in TEMPLATED:
        assert all(part in bundle() for part in TEMPLATED[name]), name
    else:
        assert name in bundle_words(), (
            f"{constant}: {name} is not in Streamlit {streamlit.__version__}'s frontend")


def test_the_frontend_reads_the_base_url_global_the_script_sets():
    assert "window.__streamlit" in bundle() and ".BACKEND_BASE_URL" in bundle()
    script = st_internals.BACKEND_BASE_URL_SCRIPT.format(page='"lesson"')
    assert "window.__streamlit=Object.assign({BACKEND_BASE_URL:" in script


# ---------------------------------------------------------------- nothing outside the doors


PUBLIC_MODULES = ("streamlit", "streamlit.components.v1", "streamlit.components.v2", "streamlit.testing.v1")
PRIVATE_SUBMODULES = ("runtime", "web", "proto", "elements")
PRIVATE_TEXT = re.compile(r"data-testid|__streamlit|\._(session_mgr|client_state|scriptrunner|event_loop)\b"
                          r"|\bst\.(runtime|web|proto|elements)\b")


def product_files(root: Path) -> list[Path]:
    return sorted([*(root / "pages").rglob("*.py"), *(root / "server").rglob("*.py"),
                   *(root / "core").rglob("*.py"), root / "app.py"])


def outside_the_doors(root: Path) -> list[str]:
    """'file:line: what' for every private Streamlit import, DOM selector, frontend global or private
    attribute of Streamlit's in the product's files but the two doors."""
    found = []
    for path in product_files(root):
        rel = path.relative_to(root).as_posix()
        if rel in DOORS or not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, filename=rel)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if isinstance(node, ast.ImportFrom) and node.module == "streamlit":  # from streamlit import web
                names = [f"streamlit.{a.name}" for a in node.names if a.name in PRIVATE_SUBMODULES]
            found += [f"{rel}:{node.lineno}: import {n}" for n in names
                      if n.split(".")[0] == "streamlit" and n not in PUBLIC_MODULES]
        found += [f"{rel}:{i}: {m.group(0)}" for i, line in enumerate(text.splitlines(), 1)
                  for m in PRIVATE_TEXT.finditer(line)]
    return found


def test_the_product_touches_streamlits_internals_only_through_the_doors():
    found = outside_the_doors(ROOT)
    assert found == [], "move these behind server/st_internals.py or pages/ui/st_dom.py:\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for(tmp_path: Path):
    (tmp_path / "pages" / "ui").mkdir(parents=True)
    (tmp_path / "server").mkdir()
    (tmp_path / "core").mkdir()
    (tmp_path / "app.py").write_text("import streamlit as st\nfrom streamlit.components.v1 import html\n")
    (tmp_path / "pages" / "ui" / "bad.py").write_text(
        "from streamlit.runtime import Runtime\nimport streamlit.proto.ClientState_pb2\n"
        "CSS = '[data-testid=\"stMain\"] p {}'\n")
    (tmp_path / "server" / "bad.py").write_text(
        "from streamlit import runtime, column_config\n"
        "def f(s):\n    return s._client_state, st.runtime.exists()\n")
    (tmp_path / "pages" / "ui" / "st_dom.py").write_text("MAIN = '[data-testid=\"stMain\"]'\n")
    assert outside_the_doors(tmp_path) == [
        "pages/ui/bad.py:1: import streamlit.runtime",
        "pages/ui/bad.py:2: import streamlit.proto.ClientState_pb2",
        "pages/ui/bad.py:3: data-testid",
        "server/bad.py:1: import streamlit.runtime",
        "server/bad.py:3: ._client_state",
        "server/bad.py:3: st.runtime",
    ]
