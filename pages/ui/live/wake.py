"""Wake another session: have it rerun as if its browser had asked, from any thread.

A live class's phones rerun when the teacher moves (server/room_bus.py). Streamlit has no public API
for a server-side rerun of a session; this uses the one its runtime uses for a browser's request
(`AppSession.request_rerun` with the session's last client state: the same page, query and widget
values), scheduled on the server's event loop, where that call normally runs — the approach of the
public streamlit-server-state package. A wake may name a fragment (`fragment_id()` inside it): the
session then reruns that fragment alone, as a fragment's own timer would, and the whole page only
where the fragment is gone. Its touches of Streamlit's internals are in server/st_internals.py
(checked against Streamlit 1.67.0, tests/test_st_internals.py); tests/test_browser_class.py and
tests/test_loadtest_class.py fail if it stops waking phones, and a phone's own slow poll still finds
the change.
"""

from __future__ import annotations

from collections.abc import Callable

from server import st_internals


def session_id() -> str | None:
    """The id of the session this code runs for (None outside a script run): what `waker` names."""
    return st_internals.session_id()


def fragment_id() -> str:
    """The fragment this code runs in ("" outside any): what `waker` reruns."""
    return st_internals.fragment_id()


def waker(sid: str, fragment: str = "") -> Callable[[], bool]:
    """A callable that reruns session `sid` — its `fragment` alone where it names one the session
    still holds — and answers whether the session still exists (False: forget it)."""

    def wake() -> bool:
        session = st_internals.active_session(sid)
        if session is None:  # gone (or no runtime, or AppTest's mock one)
            return False
        held = fragment if fragment and st_internals.holds_fragment(session, fragment) else ""
        st_internals.request_rerun_soon(session, held)  # its last request again (that fragment alone)
        return True

    return wake
