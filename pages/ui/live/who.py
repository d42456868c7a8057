"""Who this session is in a live class (pages/ui/live/): the teacher, a phone, or no one, and in which
room. The server, never the link, says who is who (server/rooms.py keeps the rooms):

- `resolve()` at the top of the lesson page: from `?room=CODE` a student, whose token the server signs
  at its join and the link keeps as `?me=`, so a reload answers as the same phone; or the teacher, from
  the secret of *Start a class*, from the browser's HttpOnly cookie (a reload, another replica:
  teacher_key.py), or from the teacher link's fragment (`take=1`), which takes the room back with a
  new secret and revokes every other tab.
- `start()` and `join_typed()` are the sidebar's two ways in; `leave()` the way out.
- `phone()` and `teaching()` tell the router what this run is (app.py): a phone's page has no
  sidebar, and a teacher's runs go first on this server (server/runs.py).

What the page draws with the answer is live_class.py (the bars, the gone notice) and the modules
beside it (docs/live-class.md).
"""

from __future__ import annotations

import streamlit as st

from core import lesson
from pages.ui.i18n import t
from pages.ui.live import teacher_key, wake
from pages.ui.live.class_view import ClassView
from pages.ui.url_state import want
from pages.ui.user_text import literal
from server import client_address, shared
from server.room_auth import passphrase_needed, passphrase_ok
from server.room_state import CODE_LENGTH, Room, normalise_code, room_digest, valid_code


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
