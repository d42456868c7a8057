"""A fragment's rerun that arrives as a whole run ends waits for that run's last messages.

Streamlit 1.67 (`AppSession.request_rerun`, `_handle_scriptrunner_event_on_event_loop`): a run's
elements, its `script_finished` and its runner's shutdown travel from the script thread to the
server's event loop as queued events, and the session ignores every event of a runner that is no
longer its current one. When a fragment's rerun request (a phone's answer, its slow poll, the
projector's live count) is handled after the run has ended but before those queued events, the
stopped runner cannot take it, a new runner starts, and the rest of the whole run never reaches
the browser: a phone keeps the previous question (or half of the new one), and nothing repairs it
until the next move, because its slow poll compares the room with the version that lost run read.
A whole run's request is not affected: it redraws everything. Measured with a teacher and 16 phones
answering as the teacher moves (`python -m tools.loadtest.crossing`, docs/live-class.md): 15 and 18
of 576 phone-moves lost before, 0 and 0 after.

`install()`, once per server (app.py), wraps `AppSession.request_rerun`: a fragment's request that
finds the session's runner stopped is handled again on the event loop's next turn, after the events
already queued, and then every `RETRY_S` until the session has taken the runner's shutdown (at most
`MAX_WAIT_S`). The order of one session's requests is kept. The internals it reads and the patch
itself are in server/st_internals.py (checked against Streamlit 1.67.0, tests/test_st_internals.py);
tests/test_run_order.py fails if the session stops dropping a stopped runner's events this way.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from server import st_internals

MAX_WAIT_S = 1.0  # a runner that never reports its shutdown holds a request back no longer than this
RETRY_S = 0.005   # after the first look (behind the events queued then), look again this often


def ordered(original: Callable[[Any, Any], None], wait_s: float = MAX_WAIT_S) -> Callable[[Any, Any], None]:
    """`original` (AppSession.request_rerun), with a fragment's request held back while the session's
    runner has stopped and its shutdown has not been handled."""

    def request_rerun(session: Any, client_state: Any) -> None:
        if not st_internals.requested_fragment(client_state) or not st_internals.runner_stopped(session):
            original(session, client_state)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the event loop: nothing queued behind us to wait for
            original(session, client_state)
            return
        deadline = time.monotonic() + wait_s

        def again() -> None:
            if st_internals.runner_stopped(session) and time.monotonic() < deadline:
                loop.call_later(RETRY_S, again)
            else:
                original(session, client_state)

        loop.call_soon(again)

    return request_rerun


def install() -> bool:
    """Wrap AppSession.request_rerun with `ordered` once per process; True when this call did."""
    return st_internals.wrap_request_rerun(ordered)
