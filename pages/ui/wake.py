"""Wake another session: have it rerun as if its browser had asked, from any thread.

A live class's phones rerun when the teacher moves (server/room_bus.py). Streamlit has no public API
for a server-side rerun of a session; this uses the one its runtime uses for a browser's request
(`AppSession.request_rerun` with the session's last client state: the same page, query and widget
values), scheduled on the server's event loop, where that call normally runs — the approach of the
public streamlit-server-state package. A wake may name a fragment (`fragment_id()` inside it): the
session then reruns that fragment alone, as a fragment's own timer would, and the whole page only
where the fragment is gone. Checked against Streamlit 1.67 (requirements.txt pins it);
tests/test_browser_class.py and tests/test_loadtest_class.py fail if it stops waking phones, and a
phone's own slow poll still finds the change.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx


def session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def fragment_id() -> str:
    """The fragment this code runs in ("" outside any): what `waker` reruns."""
    try:
        return ThreadState.get().fragment_id or ""
    except RuntimeError:  # not in a script run
        return ""


def waker(sid: str, fragment: str = "") -> Callable[[], bool]:
    """A callable that reruns session `sid` — its `fragment` alone where it names one the session
    still holds — and answers whether the session still exists (False: forget it)."""

    def wake() -> bool:
        if not Runtime.exists():
            return False
        manager = getattr(Runtime.instance(), "_session_mgr", None)  # none under AppTest's mock runtime
        info = manager.get_active_session_info(sid) if manager is not None else None
        if info is None:
            return False
        session = info.session
        state = ClientState()
        state.CopyFrom(session._client_state)  # the last request: page, query, every widget's value
        state.fragment_id = fragment if fragment and session.has_fragment(fragment) else ""
        state.is_auto_rerun = bool(state.fragment_id)  # as a fragment's timer asks: no widget moved
        session._event_loop.call_soon_threadsafe(session.request_rerun, state)
        return True

    return wake
