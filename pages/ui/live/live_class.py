"""What a live class draws around the lesson's step (pages/ui/live/; who is who is who.py): the
sidebar's way in (`entry`), the notice of a room that is gone or cannot be reached (`gone`), the
teacher's bar above the step (code, free/lock, teacher link, *Our votes*, CSV, end), and the two sides
of the room's question, whose peer-instruction loop is class_vote.py.

- A phone's page (`phone_view()`, class_phone.py): the room's bar and the slow poll, drawn by whole
  runs, then the step inside one fragment that the room's wake reruns alone (`listen`;
  server/room_bus.py, wake.py). The fragment says when it has drawn the change (`drawn`), which lets
  the bus wake the next phone, and reruns the whole page itself where the phone's place changed
  (left, removed, the class ended or explores freely). A phone's answer and confidence rerun that
  fragment.
- Should a wake be lost, `poll()` reruns every `FOLLOW_POLL_S` seconds, reads the room's version (one
  store read) and reruns the page when the view does not show it — unless this phone's wake is
  still to come in a wave under way (docs/live-class.md, "Where a move's time goes").
- The question's side, the peer-instruction loop (the projector's count, discussion countdown,
  histogram and hint, rerun every `POLL_S` seconds; a phone's answer and confidence), is
  class_vote.py; the closing *Our votes* slide, class_end.py. No student text exists: answers are
  choice indices, checked by the server.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from pages.ui.i18n import t
from pages.ui.live import class_answers, class_teacher, class_vote
from pages.ui.live.class_follow import follow
from pages.ui.live.class_view import ClassView, status_text, teacher_do
from pages.ui.live.who import join_typed, leave, start
from pages.ui.user_text import literal
from server import shared
from server.room_auth import passphrase_needed
from server.room_state import Question

RETRY_S = 1.0  # a tab that cannot reach its room tries again this often


# ---------------------------------------------------------------- bars above the step


def entry() -> None:
    """Start a class (the teacher) or join one (a student without the QR code): in the sidebar, so
    that a step stays one projector screen."""
    box = st.sidebar.container(key="class_entry")
    box.markdown(f"**{t('class.sidebar')}**")
    if passphrase_needed():
        with box.popover(t("class.start"), icon=":material/groups:", width="stretch",
                         help=t("class.start.help")):
            st.text_input(t("class.passphrase"), key="class_passphrase", type="password", max_chars=128)
            st.button(t("class.start"), key="class_start", on_click=start, type="primary")
    else:
        box.button(t("class.start"), icon=":material/groups:", key="class_start", on_click=start,
                   help=t("class.start.help"), width="stretch")
    with box.popover(t("class.join"), icon=":material/login:", width="stretch"):
        st.text_input(t("class.join.code"), key="class_typed", max_chars=16, placeholder="ACD347")
        st.button(t("class.join.go"), key="class_join", on_click=join_typed, type="primary")
    problem = st.session_state.pop("class_problem", None)
    if problem:
        st.warning(status_text("rooms_full" if problem == "full" else problem), icon=":material/block:")


def gone(view: ClassView) -> None:
    """A code that names no live room (ended, expired, mistyped), a room that refused, a teacher's
    tab that cannot reach its room or was revoked, a teacher link being read: say so, and offer the
    lesson on one's own. A tab that cannot reach its room tries again every `RETRY_S` seconds."""
    if view.status == "taking":
        st.info(t("class.teacher.taking", code=view.code), icon=":material/key:")
        return
    if view.status == "bad_link":
        st.button(t("class.join.go"), key="class_join_student", on_click=_join_code, args=(view.code,))
        return
    text = t("class.ended.student") if view.status == "unknown" and st.session_state.get("class_joined") \
        else (t("class.status.unknown", code=literal(view.code)) if view.status == "unknown"
              else status_text(view.status))
    st.warning(text, icon=":material/info:")
    st.button(t("class.alone"), key="class_alone", on_click=leave, icon=":material/person:")
    if view.status == "unavailable":
        follow(view.code, -1, RETRY_S)


def _join_code(code: str) -> None:
    st.session_state.update(class_code=code, class_held=False, class_taking=False, class_secret="")


def where(base: str | None) -> str:
    """host/path of the lesson, as a student types it (no scheme)."""
    parts = urlsplit(base or "")
    return f"{parts.netloc}{parts.path}" if parts.netloc else "/lesson"


def teacher_bar(view: ClassView, base: str | None) -> None:
    room = view.room
    bar = st.container(horizontal=True, vertical_alignment="center", key="class_bar")
    spaced = " ".join(view.code)
    bar.markdown(f"### {t('class.teacher.bar', code=f'`{view.code}`', where=where(base))}",
                 help=t("class.teacher.code_alt", spelled=spaced))
    free = bool(room and room.free)
    bar.button(t("class.call_back") if free else t("class.free"), key="class_free",
               icon=":material/undo:" if free else ":material/explore:",
               on_click=teacher_do,
               args=(view, lambda c, s, expect=None: shared.ROOMS.set_free(c, s, not free, expect=expect)))
    class_teacher.lock_button(bar, view)
    bar.button(t("class.teacher_link"), key="class_link", icon=":material/key:", on_click=_flag,
               args=("class_link_open",))
    bar.button(t("class.our_votes"), key="class_votes", icon=":material/leaderboard:", on_click=_flag,
               args=("class_votes_open",), help=t("class.our_votes.help"))
    bar.download_button(t("class.csv"), key="class_csv", icon=":material/download:", help=t("class.csv.help"),
                        data=lambda: room_csv(view.code), file_name=f"class-{view.code}.csv",
                        mime="text/csv", on_click="ignore")
    bar.button(t("class.end"), key="class_end", icon=":material/stop_circle:", on_click=_flag,
               args=("class_end_open",))
    if free:
        st.info(t("class.free.on"), icon=":material/explore:")
    if room and room.locked:
        st.info(t("class.locked.on"), icon=":material/lock:")
    problem = st.session_state.pop("class_problem", None)
    if problem:
        st.warning(status_text(problem), icon=":material/block:")
    class_vote.votes_dialog(view)
    class_teacher.phones_dialog(view)


def _flag(name: str) -> None:
    st.session_state[name] = True


# ---------------------------------------------------------------- the question (pages/ui/live/class_vote.py)


def teacher_question(view: ClassView, step: int, q: Question, projector: bool) -> None:
    """The projector's side of the room's question: the peer-instruction loop's buttons, count,
    countdown, answers and hint (pages/ui/live/class_vote.py)."""
    class_vote.teacher_question(view, step, q, projector)


def student_answer(view: ClassView, step: int, q: Question) -> str | None:
    """A phone's answer and confidence; after the reveal, what screen readers announce
    (pages/ui/live/class_vote.py)."""
    return class_vote.student_answer(view, step, q)


def room_csv(code: str) -> str:
    """The live room's summary as CSV (an empty text once the room is gone)."""
    room, _ = shared.ROOMS.get(code)
    return "" if room is None else class_answers.summary_csv(room, shared.ROOMS.tally(room))
