"""Wake another session: have it rerun as if its browser had asked, from any thread.

A live class's phones rerun when the teacher moves (server/room_bus.py). Streamlit has no public API
for a server-side rerun of a session; this uses the one its runtime uses for a browser's request
(`AppSession.request_rerun` with the session's last client state: the same page, query and widget
values), scheduled on the server's event loop, where that call normally runs — the approach of the
public streamlit-server-state package. Checked against Streamlit 1.67 (requirements.txt pins it);
tests/test_browser_class.py and tests/test_loadtest_class.py fail if it stops waking phones, and a
phone's own slow poll still finds the change.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx


def session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def waker(sid: str) -> Callable[[], bool]:
    """A callable that reruns session `sid` and answers whether it still exists (False: forget it)."""

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
        state.fragment_id = ""
        state.is_auto_rerun = False
        session._event_loop.call_soon_threadsafe(session.request_rerun, state)
        return True

    return wake
