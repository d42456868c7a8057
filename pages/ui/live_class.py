"""A live class on the lesson page: the teacher starts a room, students join by its code, follow the
teacher's step, answer, and see the measurement when the teacher reveals it (server/rooms.py keeps
the room; this module draws it).

- `resolve()` at the top of the page: who this session is in which room — from `?room=CODE` (a
  student, who gets a random id kept in the link as `?me=`, so a reload answers as the same
  student), or a teacher's secret held in this session (from "Start a class", or from `?teacher=`,
  the teacher link, which is read once and never written back to the address bar).
- Phones learn of the teacher's moves from `follow()`: woken at once by the room's bus (a change
  reruns every phone in the room, server/room_bus.py), and by a fragment that reruns every
  `FOLLOW_POLL_S` seconds, reads the room's version (one store read) and reruns the page only when
  it changed, should a wake be lost.
- The projector's count and histogram are `live_answers()`, a fragment rerun every `POLL_S`
  seconds; a student's answer is `student_answer()`, a fragment of its own, so answering reruns
  only it. No student text exists: answers are choice indices, checked by the server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from pages.ui import class_answers, wake
from pages.ui.charts import show_chart
from pages.ui.i18n import t
from pages.ui.url_state import want
from pages.ui.user_text import literal
from server.room_state import (
    CODE_LENGTH,
    STUDENT_RE,
    Question,
    Room,
    new_student_id,
    normalise_code,
    room_digest,
    valid_code,
)
from server.shared import ROOMS

POLL_S = 1.0          # the projector looks at the room's answers this often
FOLLOW_POLL_S = 4.0   # a phone, woken at once when the room changes, also looks this often
SENT_MARK = ":material/check:"  # before "Answer sent" (tools/loadtest/classroom.py looks for it)
KEEP_ALIVE_S = 30.0   # the teacher's open page keeps the room from expiring, touched this often


@dataclass
class ClassView:
    """This session in a class: `role` "teacher", "student", "gone" (a code that names no live room)
    or None (not in a class)."""

    role: str | None = None
    code: str = ""
    room: Room | None = None
    secret: str = ""
    student: str = ""
    status: str = "ok"

    @property
    def teacher(self) -> bool:
        return self.role == "teacher"

    @property
    def following(self) -> bool:
        """A student whose step and settings are the teacher's (not while the room explores freely)."""
        return self.role == "student" and self.room is not None and not self.room.free

    def question(self, step: int) -> Question | None:
        return self.room.questions.get(step) if self.room is not None else None

    def fixed_inputs(self, step: int) -> dict | None:
        """The step's inputs when they are the room's: a following student's always, the teacher's
        once the room answered the step (the question must not change under the answers)."""
        q = self.question(step)
        if q is None or self.room is None or self.room.step != step:
            return None
        if self.following or (self.teacher and ROOMS.answered(self.room, step)):
            return dict(q.inputs)
        return None


# ---------------------------------------------------------------- who is who


def _client() -> str:
    try:
        return st.context.ip_address or ""
    except Exception:
        return ""


def phone() -> bool:
    """Whether this run is a student's phone in a class (a room in the link or in this session, no
    teacher's secret): the router then leaves the sidebar out, as the room sets step and settings."""
    ss = st.session_state
    if "class_code" in ss:
        return bool(ss["class_code"]) and not ss.get("class_secret")
    return bool(st.query_params.get("room")) and not st.query_params.get("teacher")


def teaching() -> bool:
    """Whether this session holds a class's teacher secret (checked by `resolve`, which drops a wrong
    one): its runs go first on this server (app.py, server/runs.py)."""
    ss = st.session_state
    return bool(ss.get("class_code")) and bool(ss.get("class_secret"))


def resolve() -> ClassView:
    """This session's place in a class, joining the room named by the link when needed."""
    ss = st.session_state
    if "class_code" not in ss:  # the session's first run: read the link once
        raw = st.query_params.get("room")
        ss["class_code"] = normalise_code(raw) if raw else ""
        ss["class_secret"] = st.query_params.get("teacher") or ""
        me = st.query_params.get("me") or ""
        ss["class_student"] = me if STUDENT_RE.fullmatch(me) else ""
        ss["class_checked"] = not ss["class_secret"]
    code = ss["class_code"]
    if not code:
        return ClassView()
    if not valid_code(code):
        ss["class_code"] = ""
        st.warning(t("class.join.format", n=CODE_LENGTH, code=literal(code)), icon=":material/key_off:")
        return ClassView()
    room, status = ROOMS.get(code)
    if room is not None and ROOMS.is_teacher(room, ss["class_secret"]):
        if not ss["class_checked"]:  # taken back by the teacher link: at the room's step
            ss["class_checked"] = True
            ss["step"] = room.step
            st.toast(t("class.teacher.taken_back", code=code), icon=":material/co_present:")
        want("room", code, "")
        return ClassView("teacher", code, room, secret=ss["class_secret"])
    if room is None:  # ended, expired or mistyped (a teacher link too: it has nothing to take back)
        ss["class_secret"], ss["class_checked"] = "", True
        return ClassView("gone", code, status=status)
    if ss["class_secret"]:
        ss["class_secret"], ss["class_checked"] = "", True
        st.warning(t("class.teacher.bad_link", code=code), icon=":material/key_off:")
    student = ss["class_student"] = ss["class_student"] or new_student_id()
    if ss.get("class_joined") != (code, student):
        joined, status = ROOMS.join(code, student, _client())
        if joined is None:
            return ClassView("gone", code, status=status)
        ss["class_joined"] = (code, student)
    want("room", code, "")
    want("me", student, "")
    return ClassView("student", code, room, student=student)


def leave() -> None:
    code, sid = st.session_state.get("class_code"), wake.session_id()
    if code and sid is not None and valid_code(code):
        ROOMS.bus.forget(room_digest(code), sid)
    for key in ("class_code", "class_secret", "class_student", "class_joined"):
        st.session_state[key] = ""
    st.session_state["class_checked"] = True


def start() -> None:
    room, secret, status = ROOMS.create(_client())
    if room is None:
        st.session_state["class_problem"] = status
        return
    st.session_state.update(class_code=room.code, class_secret=secret, class_checked=True)


def join_typed() -> None:
    code = normalise_code(st.session_state.get("class_typed") or "")
    st.session_state.update(class_code=code, class_secret="", class_checked=True, class_joined="")


def status_text(status: str) -> str:
    if status == "full":
        return t("class.status.full", n=ROOMS.max_students)
    if status == "rooms_full":
        return t("class.status.rooms_full", n=ROOMS.max_rooms)
    return t(f"class.status.{status}")


# ---------------------------------------------------------------- bars above the step


def entry() -> None:
    """Start a class (the teacher) or join one (a student without the QR code): in the sidebar, so
    that a step stays one projector screen."""
    box = st.sidebar.container(key="class_entry")
    box.markdown(f"**{t('class.sidebar')}**")
    box.button(t("class.start"), icon=":material/groups:", key="class_start", on_click=start,
               help=t("class.start.help"), width="stretch")
    with box.popover(t("class.join"), icon=":material/login:", width="stretch"):
        st.text_input(t("class.join.code"), key="class_typed", max_chars=16, placeholder="ACD347")
        st.button(t("class.join.go"), key="class_join", on_click=join_typed, type="primary")
    problem = st.session_state.pop("class_problem", None)
    if problem:
        st.warning(status_text("rooms_full" if problem == "full" else problem), icon=":material/block:")


def gone(view: ClassView) -> None:
    """A code that names no live room (ended, expired, mistyped) or a room that refused: say so,
    and offer the lesson on one's own."""
    text = t("class.ended.student") if view.status == "unknown" and st.session_state.get("class_joined") \
        else (t("class.status.unknown", code=literal(view.code)) if view.status == "unknown"
              else status_text(view.status))
    st.warning(text, icon=":material/info:")
    st.button(t("class.alone"), key="class_alone", on_click=leave, icon=":material/person:")
    if view.status == "unavailable":
        follow(view.code, -1)


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
               on_click=_teacher_do, args=(view, lambda c, s: ROOMS.set_free(c, s, not free)))
    bar.button(t("class.teacher_link"), key="class_link", icon=":material/key:", on_click=_flag,
               args=("class_link_open",))
    bar.download_button(t("class.csv"), key="class_csv", icon=":material/download:", help=t("class.csv.help"),
                        data=lambda: room_csv(view.code), file_name=f"class-{view.code}.csv",
                        mime="text/csv", on_click="ignore")
    bar.button(t("class.end"), key="class_end", icon=":material/stop_circle:", on_click=_flag,
               args=("class_end_open",))
    if free:
        st.info(t("class.free.on"), icon=":material/explore:")
    problem = st.session_state.pop("class_problem", None)
    if problem:
        st.warning(status_text(problem), icon=":material/block:")


def student_bar(view: ClassView) -> None:
    bar = st.container(horizontal=True, vertical_alignment="center", key="class_bar")
    key = "class.student.free" if view.room and view.room.free else "class.student.bar"
    bar.markdown(f"**{t(key, code=view.code)}**")
    for lang, name in (("en", "English"), ("zh", "中文")):
        bar.button(name, key=f"class_lang_{lang}", type="tertiary", on_click=_set_lang, args=(lang,),
                   disabled=st.session_state.get("lang") == lang)
    bar.button(t("class.leave"), key="class_leave", type="tertiary", on_click=leave, icon=":material/logout:")
    follow(view.code, view.room.version if view.room else -1)


def _set_lang(lang: str) -> None:
    st.session_state["lang"] = lang


def _flag(name: str) -> None:
    st.session_state[name] = True


def _teacher_do(view: ClassView, action: Callable[[str, str], tuple[Room | None, str]]) -> None:
    _, status = action(view.code, view.secret)
    if status != "ok":
        st.session_state["class_problem"] = status


def follow(code: str, seen: int) -> None:
    """Rerun the page when the room changed (the teacher moved, revealed, opened a vote, ended): at
    once, woken by the room's bus (server/room_bus.py, pages/ui/wake.py); and, should a wake be lost,
    by a slow poll that reads the room's version every FOLLOW_POLL_S seconds."""
    sid = wake.session_id()
    if sid is not None and valid_code(code):
        ROOMS.bus.listen(room_digest(code), sid, wake.waker(sid))

    @st.fragment(run_every=FOLLOW_POLL_S)
    def poll() -> None:
        room, status = ROOMS.get(code)
        version = room.version if room is not None else (-1 if status == "unavailable" else -2)
        if version != seen:
            st.rerun(scope="app")

    poll()


# ---------------------------------------------------------------- the question

labels_of, measured_text = class_answers.labels_of, class_answers.measured_text


def teacher_question(view: ClassView, step: int, q: Question, projector: bool) -> None:
    """The projector's side of a question: the vote and reveal buttons (above the chart, so they stay
    on a 720-pixel screen), then the live count and histogram."""
    if not q.revealed:
        row = st.container(horizontal=True)
        row.button(t("class.reveal"), key="class_reveal", type="primary", icon=":material/visibility:",
                   on_click=_teacher_do, args=(view, ROOMS.reveal))
        row.button(t("class.vote_again"), key="class_vote2", icon=":material/replay:", disabled=q.vote == 2,
                   help=t("class.vote_again.help"), on_click=_teacher_do, args=(view, ROOMS.vote_again))
    live_answers(view.code, step, projector)


def live_answers(code: str, step: int, projector: bool) -> None:
    @st.fragment(run_every=POLL_S)
    def panel() -> None:
        room, status = ROOMS.get(code)
        if room is None or room.questions.get(step) is None:
            if status == "unavailable":
                st.warning(status_text(status), icon=":material/cloud_off:")
            return
        q = room.questions[step]
        if time.monotonic() - st.session_state.get("class_touched", 0.0) > KEEP_ALIVE_S:
            ROOMS.keep_alive(room)
            st.session_state["class_touched"] = time.monotonic()
        tally = ROOMS.tally(room)
        votes = tuple(tuple(tally.counts.get((step, v), [0] * len(q.choices))) for v in range(1, q.vote + 1))
        st.markdown(f"**{t('class.answered', n=tally.answered, joined=tally.joined)}** · "
                    f"{t(f'class.vote.{q.vote}')} · {t('class.joined', n=tally.joined)}")
        correct = q.correct if q.revealed else ()
        value = measured_text(q) if q.revealed else ""
        show_chart(class_answers.answers_chart(tuple(labels_of(q)), votes, tuple(correct), value, projector),
                   name="class-answers", downloads=False)

    panel()


def student_answer(view: ClassView, step: int, q: Question) -> str | None:
    """A student's answer to the room's question: sent on every change until the reveal; after it,
    the measurement beside the student's own answer, which is also returned for screen readers to
    announce (None before the reveal)."""

    @st.fragment
    def answer() -> None:
        labels = labels_of(q)
        key = f"class_pick_{view.code}_{step}_{q.vote}"
        if key not in st.session_state:
            st.session_state[key] = ROOMS.answer_of(view.code, view.student, step, q.vote)
        first = ROOMS.answer_of(view.code, view.student, step, 1) if q.vote == 2 else None
        if q.vote == 2:
            if not q.revealed:
                st.info(t("class.student.vote2"), icon=":material/replay:")
            if first is not None:
                st.caption(t("class.student.before", label=labels[first]))
        pick = st.pills(t("lesson.guess"), range(len(labels)), format_func=labels.__getitem__, key=key,
                        disabled=q.revealed, label_visibility="collapsed", on_change=_send,
                        args=(view, step, q.vote, key))
        problem = st.session_state.pop("class_sent_problem", None)
        if problem:
            st.warning(status_text(problem), icon=":material/block:")
        elif pick is not None and not q.revealed:
            st.caption(f"{SENT_MARK} {t('class.student.sent', label=labels[pick])}")
        if q.revealed:
            pick = pick if pick is not None else first  # no second answer: the first one stands
            line = f"{t('lesson.result.guess')}: **{labels[pick] if pick is not None else '—'}** · " \
                   f"{t('lesson.result.measured')}: **{measured_text(q)}**"
            if pick is None:
                st.info(f"{line}  \n{t('class.student.none')}", icon=":material/lightbulb:")
            elif pick in q.correct:
                st.success(f"{line}  \n{t('lesson.result.right')}", icon=":material/check_circle:")
            else:
                st.info(f"{line}  \n{t('lesson.result.wrong', answer=labels[q.correct[0]])}",
                        icon=":material/lightbulb:")

    answer()
    if not q.revealed:
        return None
    labels = labels_of(q)
    mine = ROOMS.answer_of(view.code, view.student, step, q.vote)
    mine = mine if mine is not None or q.vote == 1 else ROOMS.answer_of(view.code, view.student, step, 1)
    if mine is None:
        return f"{t('lesson.result.measured')}: {measured_text(q)}. {t('class.student.none')}"
    verdict = t("lesson.result.right") if mine in q.correct else \
        t("lesson.result.wrong", answer=labels[q.correct[0]])
    return t("lesson.announce.result", guess=labels[mine], measured=measured_text(q), verdict=verdict)


def _send(view: ClassView, step: int, vote: int, key: str) -> None:
    choice = st.session_state.get(key)
    status = ROOMS.answer(view.code, view.student, step, vote, choice)
    if status != "ok":
        st.session_state["class_sent_problem"] = status
        st.session_state[key] = ROOMS.answer_of(view.code, view.student, step, vote)


def room_csv(code: str) -> str:
    """The live room's summary as CSV (an empty text once the room is gone)."""
    room, _ = ROOMS.get(code)
    return "" if room is None else class_answers.summary_csv(room, ROOMS.tally(room))
