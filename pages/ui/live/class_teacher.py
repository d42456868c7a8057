"""The teacher's controls of the room itself (pages/ui/live/live_class.py draws the bar they sit in):
locking the room once everyone has joined, the list of phones with *Remove*, the teacher link shown
on request, and the watch that keeps a teacher tab the room's.

- `watch()`: a fragment rerun every `WATCH_S` seconds (and the room's wake, as the phones have): it
  reruns the page when another tab or device moved the room (this tab then shows the room's step),
  when the room no longer takes this tab's secret (taken back elsewhere: the tab says it was revoked)
  or when the room ended. A store that cannot be reached changes nothing: the tab keeps its secret.
- `link_text()`: `…/lesson?room=CODE&take=1#key=SECRET`. The secret is in the fragment, which the
  browser never sends (no request line, no balancer's log); the page that opens it reads it and
  removes it from the address bar and the history (pages/ui/live/teacher_key.py). Opening it takes the room
  back: the secret changes, and this tab is revoked.
"""

from __future__ import annotations

import streamlit as st

from pages.ui.i18n import t
from pages.ui.live import wake
from pages.ui.live.class_view import ClassView, teacher_do
from server import shared
from server.room_state import room_digest

WATCH_S = 2.0


def lock_button(bar, view: ClassView) -> None:
    """*Lock the room* (no new phone joins) / *Unlock*."""
    locked = bool(view.room and view.room.locked)
    bar.button(t("class.unlock") if locked else t("class.lock"), key="class_lock",
               icon=":material/lock_open:" if locked else ":material/lock:", help=t("class.lock.help"),
               on_click=teacher_do,
               args=(view, lambda c, s, expect=None: shared.ROOMS.set_locked(c, s, not locked,
                                                                             expect=expect)))
    bar.button(t("class.phones"), key="class_phones", icon=":material/smartphone:",
               on_click=st.session_state.__setitem__, args=("class_phones_open", True))


def phones_dialog(view: ClassView) -> None:
    """The phones in the room, each with its short label (its own screen shows it) and its number
    of answers, and *Remove*."""
    if not st.session_state.pop("class_phones_open", False) or view.room is None:
        return

    @st.dialog(t("class.phones"))
    def show() -> None:
        room, _ = shared.ROOMS.get(view.code)
        phones = shared.ROOMS.members(room) if room is not None else []
        st.caption(t("class.phones.lead"))
        if not phones:
            st.info(t("class.phones.none"), icon=":material/info:")
        for student, answers in phones:
            row = st.container(horizontal=True, vertical_alignment="center")
            row.markdown(t("class.phone.label", tag=phone_tag(student), n=answers))
            row.button(t("class.phone.remove"), key=f"class_remove_{student}",
                       icon=":material/person_remove:", on_click=_remove, args=(view, student))

    show()


def _remove(view: ClassView, student: str) -> None:
    teacher_do(view, lambda c, s, expect=None: shared.ROOMS.remove(c, s, student))
    st.session_state["class_phones_open"] = True  # the list stays open for the next one


def phone_tag(student: str) -> str:
    """A phone's short label, shown on the phone and in the teacher's list: its id's first 4 digits."""
    return student[:4].upper()


def watch(view: ClassView) -> None:
    seen = view.room.version if view.room is not None else -1

    @st.fragment(run_every=WATCH_S)
    def check() -> None:
        sid = wake.session_id()
        if sid is not None:  # the room's wake reruns this fragment alone (pages/ui/live/wake.py)
            shared.ROOMS.bus.listen(room_digest(view.code), sid, wake.waker(sid, wake.fragment_id()))
            shared.ROOMS.bus.drawn(room_digest(view.code), sid)  # read below at once: the next may be woken
        room, status = shared.ROOMS.get(view.code)
        if room is None:
            if status == "unknown":
                st.rerun(scope="app")
            return  # unreachable: keep everything, look again
        if room.version != seen or not shared.ROOMS.is_teacher(room, view.secret):
            st.rerun(scope="app")

    check()


def link_text(view: ClassView, base: str | None) -> str | None:
    if not base:
        return None
    return f"{base}?room={view.code}&take=1#key={view.secret}"
