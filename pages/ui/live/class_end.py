"""The end of a live class and the teacher's link: the confirmation that deletes the room (with its
summary kept in the teacher's tab), the notice after it, and the teacher link shown on request."""

from __future__ import annotations

import streamlit as st

from pages.ui.i18n import t
from pages.ui.live import class_answers, class_teacher
from pages.ui.live.class_view import ClassView
from pages.ui.live.live_class import room_csv
from pages.ui.live.who import leave
from server import shared


def end_dialog(view: ClassView) -> None:
    """The end's confirmation, when asked; first, the teacher tab's watch (pages/ui/live/class_teacher.py),
    drawn here at the page's end so that it follows the projector's live answers."""
    class_teacher.watch(view)
    if not st.session_state.pop("class_end_open", False):
        return

    @st.dialog(t("class.end.title"))
    def confirm() -> None:
        st.write(t("class.end.what"))
        st.download_button(t("class.csv"), data=room_csv(view.code), file_name=f"class-{view.code}.csv",
                           mime="text/csv", icon=":material/download:", key="class_csv_end",
                           on_click="ignore")
        if st.button(t("class.end.confirm"), type="primary", key="class_end_confirm",
                     icon=":material/delete:"):
            done, status = shared.ROOMS.end(view.code, view.secret)
            if done is not None:
                st.session_state["class_ended"] = (view.code, class_answers.summary_csv(*done))
                leave()
            else:
                st.session_state["class_problem"] = status
            st.rerun()

    confirm()


def ended_notice() -> None:
    """After the end, in the teacher's tab only: the summary, which the server no longer has."""
    ended = st.session_state.get("class_ended")
    if not ended:
        return
    code, text = ended
    box = st.container(horizontal=True, vertical_alignment="center", key="class_ended_box")
    box.success(t("class.ended", code=code), icon=":material/check_circle:")
    box.download_button(t("class.csv"), data=text, file_name=f"class-{code}.csv", mime="text/csv",
                        icon=":material/download:", key="class_csv_after", on_click="ignore")
    box.button(t("class.ended.dismiss"), key="class_ended_done", on_click=st.session_state.pop,
               args=("class_ended", None))


def link_dialog(view: ClassView, base: str | None) -> None:
    if not st.session_state.pop("class_link_open", False):
        return

    @st.dialog(t("class.teacher_link.title"))
    def show() -> None:
        st.warning(t("class.teacher_link.warning"), icon=":material/warning:")
        link = class_teacher.link_text(view, base)
        if link:
            st.code(link, language=None, wrap_lines=True)

    show()
