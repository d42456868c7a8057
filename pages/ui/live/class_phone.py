"""A phone's page in a live class: the room's bar and the slow poll, drawn by whole runs, then the
step inside one fragment that the room's wake reruns alone, with what changes at a move only
(pages/ui/live/class_follow.py; docs/live-class.md, "Where a move's time goes")."""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from pages.ui import url_state
from pages.ui.i18n import t
from pages.ui.live import class_teacher, classroom
from pages.ui.live.class_follow import WHOLE, drawn, listen, poll
from pages.ui.live.class_view import ClassView
from pages.ui.live.who import leave, resolve

PRE = "class_view_pre"  # the view the whole run resolved, handed to the phone's fragment once
FREE_DRAWN = "class_view_free"  # whether the phone's bar was drawn for a room exploring freely
VERSION_DRAWN = "class_view_version"  # the room's version the phone's view shows


def phone_view(draw: Callable[[ClassView], None], first: ClassView) -> None:
    """A phone's page: the room's bar (its code, the phone's tag, the language and *Leave*, whose
    clicks rerun the whole page) and the styles, then the step, drawn by `draw(view)` inside one
    fragment that the room's wake reruns alone (`follow`), with what changes at a move only. `first`
    is the view the whole run resolved (used once, by the fragment's run within it); each later run
    of the fragment resolves the room again. Where this session is no longer a phone following the
    room as its bar says (it left, the teacher removed it, the class ended or explores freely, the
    store answered "unavailable"), the whole page is drawn again. At the end the room's bus is told
    this phone has drawn the room as it is: the bus then wakes the next one (server/room_bus.py)."""
    ss = st.session_state
    ss[PRE], ss[FREE_DRAWN] = first, bool(first.room and first.room.free)
    ss[VERSION_DRAWN] = first.room.version if first.room else -1
    classroom.page_style(True, bool(ss.get("lesson_projector")))
    student_bar(first)
    poll(first.code, lambda: ss.get(VERSION_DRAWN, -1))  # outside the view: a wake's run leaves it be

    @st.fragment
    def view() -> None:
        began = time.thread_time()  # this run's own CPU, for the wave's timings
        code, whole = ss.get("class_code") or "", False
        try:
            cls = ss.pop(PRE, None) or resolve()
            if cls.role != "student" or bool(cls.room and cls.room.free) != ss.get(FREE_DRAWN):
                # the page this wake's run goes on with (`woken_whole`): that whole run says `drawn`
                # when it ends, so the wave's pace holds for a change every phone redraws whole
                ss[WHOLE], whole = code, True
                st.rerun(scope="app")
            listen(cls.code)
            draw(cls)
            ss[VERSION_DRAWN] = cls.room.version if cls.room else -1
            url_state.sync_url()  # the step the room moved to, in this phone's link
        finally:
            if not whole:
                drawn(code, time.thread_time() - began)

    view()


def student_bar(view: ClassView) -> None:
    bar = st.container(horizontal=True, vertical_alignment="center", key="class_bar")
    key = "class.student.free" if view.room and view.room.free else "class.student.bar"
    bar.markdown(f"**{t(key, code=view.code)}**")
    bar.caption(t("class.student.me", tag=class_teacher.phone_tag(view.student)))
    for lang, name in (("en", "English"), ("zh", "中文")):
        bar.button(name, key=f"class_lang_{lang}", type="tertiary", on_click=_set_lang, args=(lang,),
                   disabled=st.session_state.get("lang") == lang)
    bar.button(t("class.leave"), key="class_leave", type="tertiary", on_click=leave, icon=":material/logout:")


def _set_lang(lang: str) -> None:
    st.session_state["lang"] = lang
