"""A session's runs reach its browser whole: a fragment's rerun that arrives as a whole run ends
waits for that run's last messages, and a fragment run's finish survives another fragment's start.

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

The second (`kept_finishes`): when a run starts, Streamlit 1.67 clears the session's queue of the
messages not yet sent (`ForwardMsgQueue.clear`, on the run's start). For a fragment's run it keeps
the other fragments' elements but turns every fragment run's `script_finished` still queued into
"finished early for rerun". Under load the queue is often a few hundred milliseconds behind. So a
phone's step woken by the room (its own fragment) whose messages are still queued when the
phone's slow poll or the projector's timer starts another fragment reaches the browser with all its
elements, but as a run that was cut short. The browser then never clears what the previous step
left inside that fragment (a revealed answer under the new question, the previous vote's pills),
and the load test, which reads a cut run as drawing nothing, saw the move only at the next one
(10–20 s later). `install()` also wraps `ForwardMsgQueue.clear`: such a finish, of a run whose
fragments are not the ones starting (so its elements were kept), keeps its status. Measured on the
class scenario (docs/live-class.md, "What each mechanism earned").
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


def kept_finishes(original: Callable[..., None]) -> Callable[..., None]:
    """`original` (ForwardMsgQueue.clear), leaving each queued fragment run's finish as it was when
    the run starting is another fragment's, so that the finished run's elements stayed queued."""

    def clear(queue: Any, retain_lifecycle_msgs: bool = False,
              fragment_ids_this_run: list[str] | None = None) -> None:
        kept = []
        if retain_lifecycle_msgs and fragment_ids_this_run is not None:
            starting = set(fragment_ids_this_run)
            kept = [msg for msg, ran in st_internals.fragment_finishes(queue) if ran and not ran & starting]
        original(queue, retain_lifecycle_msgs=retain_lifecycle_msgs,
                 fragment_ids_this_run=fragment_ids_this_run)
        for msg in kept:
            st_internals.mark_fragment_finished(msg)

    return clear


def install() -> bool:
    """Wrap AppSession.request_rerun with `ordered` and ForwardMsgQueue.clear with `kept_finishes`,
    once per process; True when this call did either."""
    requests = st_internals.wrap_request_rerun(ordered)
    return st_internals.wrap_queue_clear(kept_finishes) or requests
