"""How a class's tabs learn that their room changed: woken by the room's bus at once (`listen`), and,
should a wake be lost, a slow poll (`poll`); a woken run says when it has drawn the change
(`drawn`), so that the bus wakes the next session (server/room_bus.py, pages/ui/live/wake.py;
docs/live-class.md, "Where a move's time goes"). `woken_whole()` tells the router that this run is
the whole page a woken phone asked for: it is part of the room's wave and does not wait for it."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from pages.ui.live import wake
from pages.ui.live.class_view import FOLLOW_POLL_S
from server import shared
from server.room_state import room_digest, valid_code

WHOLE = "class_view_whole"  # a phone's view asked for the whole page


def woken_whole() -> str:
    """The room's code when this run is the whole page a phone's view asked for when the room woke
    it (the class ended, the phone was removed…), else "": such a run is part of the room's wave, so
    it does not wait for that wave as the other sessions' runs do (server/runs.py), and says `drawn`
    when it ends (app.py)."""
    code = st.session_state.pop(WHOLE, "")
    return code if isinstance(code, str) else ""


def drawn(code: str, cpu_s: float | None = None) -> None:
    """This session's run has drawn room `code` as it is now: the room's bus may wake the next
    session (server/room_bus.py); `cpu_s`, the run's CPU seconds, joins the wave's timings."""
    sid = wake.session_id()
    if sid is not None and valid_code(code):
        shared.ROOMS.bus.drawn(room_digest(code), sid, cpu_s)


def follow(code: str, seen: int, every: float = FOLLOW_POLL_S) -> None:
    """Rerun the page when the room changed (the teacher moved, revealed, opened a vote, ended): at
    once, woken by the room's bus (`listen`); and, should a wake be lost, by a slow poll (`poll`)."""
    listen(code)
    poll(code, lambda: seen, every)


def listen(code: str) -> None:
    """Be woken by the room's bus at its changes (server/room_bus.py, pages/ui/live/wake.py): inside a
    fragment (a phone's view), that fragment alone reruns."""
    sid = wake.session_id()
    if sid is not None and valid_code(code):
        shared.ROOMS.bus.listen(room_digest(code), sid, wake.waker(sid, wake.fragment_id()))


def poll(code: str, seen: Callable[[], int], every: float = FOLLOW_POLL_S) -> None:
    """Should a wake be lost: a fragment that reads the room's version every `every` seconds (one
    store read) and reruns the page when it is not `seen()`, the version this page shows — unless
    this session is still to be woken by a wave under way in this process (server/room_bus.py
    `pending`): the wake reruns it anyway."""
    sid = wake.session_id()

    @st.fragment(run_every=every)
    def check() -> None:
        room, status = shared.ROOMS.get(code)
        version = room.version if room is not None else (-1 if status == "unavailable" else -2)
        if version != seen() and not (room is not None and sid is not None
                                      and shared.ROOMS.bus.pending(room_digest(code), sid)):
            st.rerun(scope="app")

    check()
