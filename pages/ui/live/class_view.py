"""A session's place in a live class and what every part of the class's page shares: `ClassView`
(who this session is in which room), the status words the room answers as text, a teacher's action
with its refusal kept for the next run, and the pages' timers. pages/ui/live/who.py resolves the view,
pages/ui/live/live_class.py draws the bars, pages/ui/live/class_vote.py the question's
peer-instruction loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from pages.ui.i18n import t
from server import shared
from server.room_state import Question, Room

POLL_S = 1.0          # the projector looks at the room's answers this often
FOLLOW_POLL_S = 10.0  # a phone, woken at once when the room changes, also looks this often
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
        if self.following or (self.teacher and shared.ROOMS.answered(self.room, step)):
            return dict(q.inputs)
        return None


def status_text(status: str) -> str:
    if status == "full":
        return t("class.status.full", n=shared.ROOMS.max_students)
    if status == "rooms_full":
        return t("class.status.rooms_full", n=shared.ROOMS.max_rooms)
    return t(f"class.status.{status}")


def teacher_do(view: ClassView, action: Callable[..., tuple[Room | None, str]]) -> None:
    """A teacher's action, compare-and-set on the room's version this tab last drew ("stale", and
    the room as it is now on the next run, when another tab or device changed it since)."""
    expect = view.room.version if view.room is not None else None
    room, status = action(view.code, view.secret, expect=expect)
    if status != "ok":
        st.session_state["class_problem"] = status
    elif room is not None:
        seen(view, room)


def seen(view: ClassView, room: Room) -> None:
    """This tab drew `room` (or wrote it): its next action expects that version."""
    view.room = room
    st.session_state["class_seen"] = room.version
