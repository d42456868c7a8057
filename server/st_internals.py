"""Every use of Streamlit's private internals and of its frontend's protocol, behind one door.

Streamlit has no public API for these; each one below says why the app needs it and which public
API would replace it. Nothing else in the product (pages/, server/, app.py, core/) imports a private
Streamlit module, reaches into Streamlit's objects or writes the frontend's globals: its callers
(pages/ui/live/wake.py, pages/ui/run_order.py, server/page_base.py) keep their own logic and come here for
the touch. The frontend's DOM, which the app's CSS selects, has a door of its own: pages/ui/st_dom.py.
This is the one module of server/ that imports Streamlit (tests/test_layers.py), and it never draws.

Checked against Streamlit 1.67.0 (requirements.txt pins it). tests/test_st_internals.py pins that
version, so an upgrade fails there until each use here has been re-checked, and it exercises every
name read here, so it fails on its own when one is gone.

Relied on without a private name (so not here): Streamlit's legacy multipage discovery of a `pages/`
folder beside app.py, and that st.navigation switches it off (pages/ui/legacy_pages.py, public API
only; tests/test_hosting.py opens deep links on fresh servers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

RequestRerun = Callable[[Any, Any], None]  # AppSession.request_rerun(session, client_state)

# ---------------------------------------------------------------- this thread's script run (wake.py)


def session_id() -> str | None:
    """The id of the session this thread runs a script for (None outside a script run), from the
    script-run context Streamlit binds to each script thread."""
    # Why: a room's bus wakes a phone's session by its id. Public: none (st.context has no session id).
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def fragment_id() -> str:
    """The fragment this code runs in ("" outside any, or outside a script run), from the
    per-thread fragment state Streamlit sets for each (fragment) run."""
    # Why: a wake reruns the listening fragment alone. Public: none (st.fragment exposes no id).
    try:
        return ThreadState.get().fragment_id or ""
    except RuntimeError:  # not in a script run
        return ""


# ---------------------------------------------------------------- another session (wake.py)


def active_session(sid: str) -> Any | None:
    """Session `sid`'s AppSession while it is active; None where it has gone, where no runtime runs,
    or under AppTest's mock runtime (which has no session manager): the runtime's session manager."""
    # Why: a server-side rerun of another session needs the session. Public: none (no session API).
    if not Runtime.exists():
        return None
    manager = getattr(Runtime.instance(), "_session_mgr", None)  # none under AppTest's mock runtime
    info = manager.get_active_session_info(sid) if manager is not None else None
    return info.session if info is not None else None


def holds_fragment(session: Any, fragment: str) -> bool:
    """Whether `session` (an AppSession) still holds fragment `fragment` (its fragment storage)."""
    # Why: a wake for a fragment that is gone reruns the whole page. Public: none (as above).
    return bool(session.has_fragment(fragment))


def request_rerun_soon(session: Any, fragment: str = "") -> None:
    """Have `session` rerun as if its browser had asked: a copy of its last client state (the same
    page, query and widget values) naming `fragment` as a fragment's own timer does (an auto rerun:
    no widget moved), or the whole page for "", handed to `AppSession.request_rerun` on the server's
    event loop, where a browser's request is handled (the approach of streamlit-server-state)."""
    # Why: phones follow the teacher without polling. Public: none (st.rerun reruns only this session).
    state = ClientState()
    state.CopyFrom(session._client_state)  # the last request: page, query, every widget's value
    state.fragment_id = fragment
    state.is_auto_rerun = bool(fragment)
    session._event_loop.call_soon_threadsafe(session.request_rerun, state)


# ---------------------------------------------------------------- a session's rerun requests (run_order.py)


def requested_fragment(client_state: Any) -> str:
    """The fragment a rerun request (a ClientState, or None) names; "" for a whole run."""
    # Why: only a fragment's request is held back. Public: none (the request is protocol, not API).
    return client_state.fragment_id if client_state is not None else ""


def runner_stopped(session: Any) -> bool:
    """Whether `session` (an AppSession) still holds a script runner that has been asked to stop (its
    last events may still be queued): the runner's request state is `ScriptRequestType.STOP`."""
    # Why: a fragment's request then goes to a runner that drops it. Public: none (a Streamlit fix would).
    runner = getattr(session, "_scriptrunner", None)
    requests = getattr(runner, "_requests", None)
    return getattr(requests, "_state", None) is ScriptRequestType.STOP


def wrap_request_rerun(wrap: Callable[[RequestRerun], RequestRerun]) -> bool:
    """Replace `AppSession.request_rerun` by `wrap(original)`, once per process (the replacement
    carries the original as `__wrapped__`, which marks it installed); True when this call did."""
    # Why: run_order's ordering of a session's requests. Public: none (no hook on a session's requests).
    return _wrap_once(AppSession, "request_rerun", wrap)


def _wrap_once(owner: Any, name: str, wrap: Callable[[Any], Any]) -> bool:
    """Replace `owner.name` by `wrap(original)` unless it carries `__wrapped__` (installed already)."""
    original = getattr(owner, name)
    if hasattr(original, "__wrapped__"):
        return False
    wrapped = wrap(original)
    wrapped.__wrapped__ = original
    setattr(owner, name, wrapped)
    return True


def fragment_finishes(queue: Any) -> list[tuple[Any, frozenset[str]]]:
    """The `script_finished` messages of fragment runs that `queue` (a session's ForwardMsgQueue)
    still holds, unsent, each with the fragments its run ran (the run's identity in its metadata)."""
    # Why: such a finish survives another fragment's start. Public: none (the queue is internal).
    done = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    return [(msg, frozenset(msg.metadata.run.fragment_ids)) for msg in queue._queue
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished == done]


def mark_fragment_finished(msg: Any) -> None:
    """Give a `script_finished` message back its status: a fragment's run that ended successfully."""
    msg.script_finished = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


QueueClear = Callable[..., None]  # ForwardMsgQueue.clear(queue, retain_lifecycle_msgs, fragment_ids_this_run)


def wrap_queue_clear(wrap: Callable[[QueueClear], QueueClear]) -> bool:
    """Replace `ForwardMsgQueue.clear` by `wrap(original)`, once per process (marked, as above, by
    `__wrapped__`); True when this call did."""
    # Why: run_order keeps a fragment run's finish. Public: none (a Streamlit fix would).
    return _wrap_once(ForwardMsgQueue, "clear", wrap)


# ---------------------------------------------------------------- the frontend's globals (page_base.py)

# The frontend reads the server's base URL from `window.__streamlit.BACKEND_BASE_URL` where the page
# defines it (the global through which hosts that embed Streamlit configure it). This script sets it
# to the browser's URL less its last segment where that segment is `{page}` (a JSON string), and never
# replaces a value already set. A `str.format` template: braces of the script itself are doubled.
# Why: a page's link connects at the first try. Public: none (no server option names the base URL).
BACKEND_BASE_URL_SCRIPT = (
    "<script>(function(){{var p=location.pathname.replace(/\\/+$/,''),i=p.lastIndexOf('/');"
    "if(p.slice(i+1)!=={page})return;window.__streamlit=Object.assign("
    "{{BACKEND_BASE_URL:location.origin+p.slice(0,i+1)}},window.__streamlit)}})()</script>")
