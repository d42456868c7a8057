"""A live class on the lesson page: the teacher starts a room, students join by its code, follow the
teacher's step, answer, and see the measurement when the teacher reveals it (server/rooms.py keeps
the room; this module draws it).

- `resolve()` at the top of the page: who this session is in which room — from `?room=CODE` (a
  student, whose token the server signs at its join and the link keeps as `?me=`, so a reload
  answers as the same phone), or the teacher: the secret from *Start a class*, from the browser's
  HttpOnly cookie (a reload, another replica: pages/ui/teacher_key.py), or from the teacher link's
  fragment (`take=1`), which takes the room back with a new secret. The teacher's bar, lock, phones
  and watch are pages/ui/class_teacher.py.
- A phone's page (`phone_view()`): the room's bar and the slow poll, drawn by whole runs, then the
  step inside one fragment that the room's wake reruns alone (`listen`; server/room_bus.py,
  pages/ui/wake.py). The fragment says when it has drawn the change (`drawn`), which lets the bus
  wake the next phone, and reruns the whole page itself where the phone's place changed (left,
  removed, the class ended or explores freely). A phone's answer and confidence rerun that fragment.
- Should a wake be lost, `poll()` reruns every `FOLLOW_POLL_S` seconds, reads the room's version (one
  store read) and reruns the page when the view does not show it — unless this phone's wake is
  still to come in a wave under way (docs/live-class.md, "Where a move's time goes").
- The question's side, the peer-instruction loop (the projector's count, discussion countdown,
  histogram and hint, rerun every `POLL_S` seconds; a phone's answer and confidence), is
  pages/ui/class_vote.py; the closing *Our votes* slide, pages/ui/class_end.py. No
  student text exists: answers are choice indices, checked by the server.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from core import lesson
from pages.ui import class_answers, class_teacher, class_vote, teacher_key, wake
from pages.ui.class_follow import follow
from pages.ui.class_view import ClassView, status_text, teacher_do
from pages.ui.i18n import t
from pages.ui.url_state import want
from pages.ui.user_text import literal
from server import client_address, shared
from server.room_auth import passphrase_needed, passphrase_ok
from server.room_state import CODE_LENGTH, Question, Room, normalise_code, room_digest, valid_code

RETRY_S = 1.0  # a tab that cannot reach its room tries again this often

# ---------------------------------------------------------------- who is who


def _client() -> str:
    """The reader's address as the limits count it: the balancer's X-Forwarded-For where the peer
    is a trusted balancer (server/client_address.py), else the peer's own."""
    try:
        found = client_address.from_context(st.context)
    except Exception:
        found = None
    return found if isinstance(found, str) else ""


def phone() -> bool:
    """Whether this run is a student's phone in a class (a room in the link or in this session, no
    teacher's secret held): the router then leaves the sidebar out, as the room sets step and
    settings."""
    ss = st.session_state
    if "class_code" in ss:
        return bool(ss["class_code"]) and not ss.get("class_held") and not ss.get("class_taking")
    code = normalise_code(st.query_params.get("room") or "")
    return bool(code) and not st.query_params.get("take") and not teacher_key.cookie(code)


def teaching() -> bool:
    """Whether this session holds a class's teacher secret (checked by `resolve`): its runs go first
    on this server (app.py, server/runs.py)."""
    ss = st.session_state
    return bool(ss.get("class_code")) and bool(ss.get("class_secret"))


def _first_run() -> None:
    """The session's first run: read the link once. The secret never comes from the query: a
    teacher link carries it in the fragment (`take=1` says to wait for it, teacher_key.py)."""
    ss = st.session_state
    raw = st.query_params.get("room")
    ss.update(class_code=normalise_code(raw) if raw else "", class_secret="", class_student="",
              class_joined="", class_token=st.query_params.get("me") or "",
              class_taking=bool(raw and st.query_params.get("take")), class_held=False, class_checked=True,
              class_seen=-1)


def resolve() -> ClassView:
    """This session's place in a class, joining the room named by the link when needed.

    A tab that holds, or held, the room's teacher secret (from *Start a class*, the browser's cookie
    or the teacher link) never becomes a student: while the store cannot be reached it says so and
    retries, keeping the secret; it drops the secret only when the room is unknown (ended, expired);
    when the room no longer takes the secret (taken back on another device) it says it was revoked."""
    ss = st.session_state
    if "class_code" not in ss:
        _first_run()
    code = ss["class_code"]
    if not code:
        return ClassView()
    if not valid_code(code):
        ss["class_code"] = ""
        st.warning(t("class.join.format", n=CODE_LENGTH, code=literal(code)), icon=":material/key_off:")
        return ClassView()
    if ss.get("class_taking"):
        return _taking(code)
    secret = ss["class_secret"] or teacher_key.cookie(code)
    ss["class_held"] = ss["class_held"] or bool(secret)
    joined = ss.get("class_joined") and ss["class_joined"][:2] == (code, ss["class_student"])
    rooms = shared.ROOMS
    room, status = rooms.get(code) if ss["class_held"] or joined else rooms.lookup(code, _client())
    if room is None:
        if status == "unknown" and ss["class_held"]:  # ended or expired: the secret is no use any more
            ss.update(class_secret="", class_held=False)
            teacher_key.forget(code)
        return ClassView("gone", code, status=status)
    if secret and shared.ROOMS.is_teacher(room, secret):
        return _teacher(code, room, secret)
    if ss["class_held"]:  # this tab's secret was the room's: the room was taken back elsewhere
        ss["class_secret"] = ""
        return ClassView("gone", code, status="revoked")
    return _student(code, room)


def _teacher(code: str, room: Room, secret: str) -> ClassView:
    ss = st.session_state
    if not ss["class_secret"]:  # the browser's cookie: a reload, or another replica
        ss["class_secret"] = secret
        st.toast(t("class.teacher.taken_back", code=code), icon=":material/co_present:")
    if room.version != ss["class_seen"]:  # moved elsewhere (another tab, another device) or new here
        _follow_room(room)
    ss["class_seen"] = room.version
    teacher_key.keep(code, secret)
    want("room", code, "")
    return ClassView("teacher", code, room, secret=secret)


def _follow_room(room: Room) -> None:
    """This teacher tab shows the room's step (a plan's position for it, when the plan has it)."""
    plan, _ = lesson.parse_plan(st.session_state.get("steps") or st.query_params.get("steps"))
    if room.step - 1 in plan:
        st.session_state["step"] = plan.index(room.step - 1) + 1


def _taking(code: str) -> ClassView:
    """A teacher link: wait for the component to hand over the fragment's secret, then take the room
    back with it (a new secret: every other tab is revoked)."""
    ss = st.session_state
    key = teacher_key.link_key()
    if key is not None:
        ss["class_link_secret"] = key
    key = ss.get("class_link_secret")
    if key is None:
        teacher_key.read_link()
        want("room", code, "")
        want("take", "1", "")
        return ClassView("gone", code, status="taking")
    room, fresh, status = shared.ROOMS.take_back(code, key) if key else (None, None, "denied")
    if fresh is None:
        if status == "unavailable":  # keep the link's secret and try again
            want("room", code, "")
            want("take", "1", "")
            return ClassView("gone", code, status="unavailable")
        ss.update(class_taking=False, class_link_secret=None)
        st.warning(t("class.teacher.bad_link", code=code), icon=":material/key_off:")
        return ClassView("gone", code, status="bad_link")
    ss.update(class_taking=False, class_link_secret=None, class_secret=fresh, class_held=True)
    st.toast(t("class.teacher.taken_back", code=code), icon=":material/co_present:")
    return _teacher(code, room, fresh)


def _student(code: str, room: Room) -> ClassView:
    """A phone: its server-signed token from the link, or a new one from the room. A token this
    server did not sign for this room names no phone: the link is refused and a new phone joins."""
    ss = st.session_state
    if not ss["class_student"] and ss["class_token"]:
        ss["class_student"] = shared.ROOMS.phone(code, ss["class_token"]) or ""
        if not ss["class_student"]:
            ss["class_token"] = ""
            st.warning(t("class.phone.bad_token"), icon=":material/key_off:")
    if not ss["class_student"]:
        room, token, status = shared.ROOMS.enter(code, _client())
        if room is None:
            return ClassView("gone", code, status=status)
        ss.update(class_student=token.partition("-")[0], class_token=token,
                  class_joined=(code, token.partition("-")[0], room.version))
    elif ss.get("class_joined") != (code, ss["class_student"], room.version):  # checked at each change
        joined, status = shared.ROOMS.join(code, ss["class_student"], _client())
        if joined is None:
            return ClassView("gone", code, status=status)
        ss["class_joined"] = (code, ss["class_student"], room.version)
    want("room", code, "")
    want("me", ss["class_token"], "")
    return ClassView("student", code, room, student=ss["class_student"])


def leave() -> None:
    code, sid = st.session_state.get("class_code"), wake.session_id()
    if code and sid is not None and valid_code(code):
        shared.ROOMS.bus.forget(room_digest(code), sid)
    for key in ("class_code", "class_secret", "class_student", "class_joined", "class_token"):
        st.session_state[key] = ""
    st.session_state.update(class_checked=True, class_held=False, class_taking=False, class_seen=-1)


def start() -> None:
    """*Start a class*: with `ASE_CLASS_PASSPHRASE` set, only after the passphrase (a wrong one
    spends the address's wrong-code allowance, server/rooms.py)."""
    ss = st.session_state
    if passphrase_needed():
        typed = ss.get("class_passphrase") or ""
        ss["class_passphrase"] = ""
        if not shared.ROOMS.wrong.allow(_client()):
            ss["class_problem"] = "slow"
            return
        if not passphrase_ok(typed):
            ss["class_problem"] = "passphrase"
            return
    room, secret, status = shared.ROOMS.create(_client())
    if room is None:
        ss["class_problem"] = status
        return
    ss.update(class_code=room.code, class_secret=secret, class_checked=True, class_held=True,
              class_taking=False, class_seen=-1)


def join_typed() -> None:
    code = normalise_code(st.session_state.get("class_typed") or "")
    st.session_state.update(class_code=code, class_secret="", class_checked=True, class_joined="",
                            class_held=False, class_taking=False, class_student="", class_token="")


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


# ---------------------------------------------------------------- the question (pages/ui/class_vote.py)

labels_of, measured_text = class_answers.labels_of, class_answers.measured_text


def teacher_question(view: ClassView, step: int, q: Question, projector: bool) -> None:
    """The projector's side of the room's question: the peer-instruction loop's buttons, count,
    countdown, answers and hint (pages/ui/class_vote.py)."""
    class_vote.teacher_question(view, step, q, projector)


def student_answer(view: ClassView, step: int, q: Question) -> str | None:
    """A phone's answer and confidence; after the reveal, what screen readers announce
    (pages/ui/class_vote.py)."""
    return class_vote.student_answer(view, step, q)


def room_csv(code: str) -> str:
    """The live room's summary as CSV (an empty text once the room is gone)."""
    room, _ = shared.ROOMS.get(code)
    return "" if room is None else class_answers.summary_csv(room, shared.ROOMS.tally(room))
