"""The peer-instruction loop of a live class on the lesson page (its rules: server/room_votes.py).

- The teacher: *Show answers*, *Close vote*, *Vote again* and *Reveal to the room* above the
  question; under it `live_answers()`, a fragment rerun every `base.POLL_S` seconds: how many
  answered, the discussion's prompt and countdown during a second vote (its start is kept in the
  room, so every screen and a reload show the same time left), the room's answers once shown or
  closed (split by confidence once closed), and the teacher's hint from the share correct, on this
  screen only while *Hint on this screen* is on (never on a phone).
- A phone: `student_answer()`, inside the phone's view fragment: the answer pills, then an optional
  one-tap confidence (sure / guessing); a closed vote disables the pills and says so, and an answer that
  arrives after the close is refused with the room's message.
- The closing slide, `votes_dialog()`: *Our votes*, each answered step's share correct per vote.
"""

from __future__ import annotations

import time

import streamlit as st

from pages.ui.chart.charts import show_chart
from pages.ui.i18n import t
from pages.ui.live import class_answers
from pages.ui.live import class_view as base
from pages.ui.live.class_view import ClassView, status_text, teacher_do
from server import shared
from server.room_state import DISCUSS_RANGE, Question, Room
from server.room_votes import (
    CONFIDENCE_CODE,
    clock_text,
    hint,
    histogram_shown,
    our_votes,
    remaining_s,
    share_correct,
    vote_closed,
)

DISCUSS_STEP_S = 30   # the teacher's −/+ buttons change the discussion's length by this
HINT_KEY = "class_hint_on"      # the switch; its value outlives the runs that do not draw it in:
HINT_PREF = "class_hint_pref"


def teacher_question(view: ClassView, step: int, q: Question, projector: bool) -> None:
    """The projector's side of a question: the vote buttons (above the chart, so they stay on a
    720-pixel screen), the hint's switch, then the live count, countdown, answers and hint. The room
    is read again first: the page's own step may have just changed it, and the buttons expect the
    version this tab wrote."""
    room, _ = shared.ROOMS.get(view.code)
    if room is not None and shared.ROOMS.is_teacher(room, view.secret):
        base.seen(view, room)
    if not q.revealed:
        row = st.container(horizontal=True, key="class_vote_row")
        do = teacher_do
        row.button(t("class.show_answers"), key="class_show", icon=":material/bar_chart:",
                   disabled=histogram_shown(q), help=t("class.show_answers.help"), on_click=do,
                   args=(view, shared.ROOMS.show_answers))
        row.button(t("class.close"), key="class_close", icon=":material/lock:", disabled=vote_closed(q),
                   help=t("class.close.help"), on_click=do, args=(view, shared.ROOMS.close_vote))
        row.button(t("class.vote_again"), key="class_vote2", icon=":material/replay:", disabled=q.vote == 2,
                   help=t("class.vote_again.help"), on_click=do, args=(view, shared.ROOMS.vote_again))
        row.button(t("class.reveal"), key="class_reveal", type="primary", icon=":material/visibility:",
                   on_click=do, args=(view, shared.ROOMS.reveal))
        st.session_state.setdefault(HINT_PREF, not projector)  # off on a projector until switched on
        st.session_state.setdefault(HINT_KEY, st.session_state[HINT_PREF])
        row.toggle(t("class.hint.toggle"), key=HINT_KEY, help=t("class.hint.toggle.help"),
                   on_change=_keep_hint)
    live_answers(view, step, projector)


def live_answers(view: ClassView, step: int, projector: bool) -> None:
    @st.fragment(run_every=base.POLL_S)
    def panel() -> None:
        room, status = shared.ROOMS.get(view.code)
        if room is None or room.questions.get(step) is None:
            if status == "unavailable":
                st.warning(status_text(status), icon=":material/cloud_off:")
            return
        q = room.questions[step]
        if time.monotonic() - st.session_state.get("class_touched", 0.0) > base.KEEP_ALIVE_S:
            shared.ROOMS.keep_alive(room)
            st.session_state["class_touched"] = time.monotonic()
        tally = shared.ROOMS.tally(room)
        st.markdown(f"**{t('class.answered', n=tally.answered, joined=tally.joined)}** · "
                    f"{t(f'class.vote.{q.vote}')} · {t('class.joined', n=tally.joined)}")
        left = remaining_s(q, room.discuss_s, shared.ROOMS.clock())
        if left is not None:
            discussion(view, room, left)
        if histogram_shown(q):
            held = range(1, q.vote + 1)
            votes = tuple(tuple(tally.counts.get((step, v), [0] * len(q.choices))) for v in held)
            split = None
            if vote_closed(q):
                none = [(0, 0)] * len(q.choices)
                split = tuple(tuple(tally.confidence.get((step, v), none)) for v in held)
            value = class_answers.measured_text(q) if q.revealed else ""
            correct = q.correct if q.revealed else ()
            chart = class_answers.answers_chart(tuple(class_answers.labels_of(q)), votes, tuple(correct),
                                                value, projector, split)
            show_chart(chart, name="class-answers", downloads=False)
            if split:
                labels = tuple(class_answers.labels_of(q))
                st.caption("  \n".join([t("class.hist.key"), *class_answers.split_lines(labels, split)]))
        else:
            st.caption(t("class.hidden"))
        share = share_correct(tally.counts.get((step, q.vote)), q.correct)
        move = hint(share)
        if move and share is not None and not q.revealed and st.session_state.get(HINT_PREF):
            with st.container(key="class_hint"):
                st.info(t(f"class.hint.{move}", share=class_answers.pct_text(share),
                          vote=t(f"class.vote.{q.vote}")), icon=":material/tips_and_updates:")

    panel()


def discussion(view: ClassView, room: Room, left: float) -> None:
    """The discussion's prompt and countdown (as text and as a bar), and the teacher's −/+ 30 s."""
    box = st.container(key="class_discuss", border=True)
    box.markdown(f"#### {t('class.discuss.title')}")
    said = t("class.discuss.left", time=clock_text(left)) if left > 0 else t("class.discuss.over")
    box.progress(min(1.0, left / room.discuss_s), text=f"**{said}**")
    row = box.container(horizontal=True, vertical_alignment="center")
    lo, hi = DISCUSS_RANGE
    for key, delta, label in (("class_discuss_less", -DISCUSS_STEP_S, "class.discuss.less"),
                              ("class_discuss_more", DISCUSS_STEP_S, "class.discuss.more")):
        row.button(t(label), key=key, disabled=not lo <= room.discuss_s + delta <= hi,
                   help=t("class.discuss.length", time=clock_text(room.discuss_s)),
                   on_click=teacher_do,
                   args=(view, lambda c, s, expect=None, d=delta:
                         shared.ROOMS.set_discussion(c, s, room.discuss_s + d, expect=expect)))


def student_answer(view: ClassView, step: int, q: Question) -> str | None:
    """A student's answer to the room's question: sent on every change while the vote is open, with
    an optional confidence; after the reveal, the measurement beside the student's own answer,
    which is also returned for screen readers to announce (None before the reveal)."""
    labels = class_answers.labels_of(q)
    measured = class_answers.measured_text(q)

    # Drawn inside the phone's view fragment (pages/ui/live/class_phone.py `phone_view`): an answer or a
    # confidence reruns that fragment, never the whole page. Not a fragment of its own: a fragment
    # inside a fragment gets another id at each rerun of the outer one, and a tap that arrives with
    # the old id just as the room wakes the phone would be dropped.
    def answer() -> None:
        closed = vote_closed(q)
        key = f"class_pick_{view.code}_{step}_{q.vote}"
        if key not in st.session_state:
            st.session_state[key] = shared.ROOMS.answer_of(view.code, view.student, step, q.vote, view.room)
        first = shared.ROOMS.answer_of(view.code, view.student, step, 1, view.room) if q.vote == 2 else None
        if q.vote == 2:
            if not closed:
                st.info(t("class.student.vote2"), icon=":material/forum:")
            if first is not None:
                st.caption(t("class.student.before", label=labels[first]))
        pick = st.pills(t("lesson.guess"), range(len(labels)), format_func=labels.__getitem__, key=key,
                        disabled=closed, label_visibility="collapsed", on_change=_send,
                        args=(view, step, q.vote, key))
        problem = st.session_state.pop("class_sent_problem", None)
        if problem:
            st.warning(status_text(problem), icon=":material/block:")
        elif pick is not None and not closed:
            st.caption(f"{base.SENT_MARK} {t('class.student.sent', label=labels[pick])}")
            confidence(view, step, q.vote)
        if q.revealed:
            pick = pick if pick is not None else first  # no second answer: the first one stands
            line = f"{t('lesson.result.guess')}: **{labels[pick] if pick is not None else '—'}** · " \
                   f"{t('lesson.result.measured')}: **{measured}**"
            if pick is None:
                st.info(f"{line}  \n{t('class.student.none')}", icon=":material/lightbulb:")
            elif pick in q.correct:
                st.success(f"{line}  \n{t('lesson.result.right')}", icon=":material/check_circle:")
            else:
                st.info(f"{line}  \n{t('lesson.result.wrong', answer=labels[q.correct[0]])}",
                        icon=":material/lightbulb:")
        elif closed:
            mine = t("class.student.yours", label=labels[pick]) if pick is not None \
                else t("class.student.none")
            st.info(f"{t('class.student.closed')}  \n{mine}", icon=":material/lock:")

    answer()
    if not q.revealed:
        return None
    mine = shared.ROOMS.answer_of(view.code, view.student, step, q.vote, view.room)
    if mine is None and q.vote == 2:  # no second answer: the first one stands
        mine = shared.ROOMS.answer_of(view.code, view.student, step, 1, view.room)
    if mine is None:
        return f"{t('lesson.result.measured')}: {measured}. {t('class.student.none')}"
    verdict = t("lesson.result.right") if mine in q.correct else \
        t("lesson.result.wrong", answer=labels[q.correct[0]])
    return t("lesson.announce.result", guess=labels[mine], measured=measured, verdict=verdict)


def confidence(view: ClassView, step: int, vote: int) -> None:
    """One tap: sure or guessing (tap again to take it back), kept with the answer."""
    key = f"class_conf_{view.code}_{step}_{vote}"
    if key not in st.session_state:
        st.session_state[key] = shared.ROOMS.mine(view.code, view.student, step, vote, view.room)[1]
    names = {level: t(f"class.conf.{level}") for level in CONFIDENCE_CODE}
    st.pills(t("class.conf.label"), tuple(names), format_func=names.__getitem__, key=key,
             on_change=_send_confidence, args=(view, step, vote, key))


def _keep_hint() -> None:
    st.session_state[HINT_PREF] = bool(st.session_state.get(HINT_KEY))


def _send(view: ClassView, step: int, vote: int, key: str) -> None:
    choice = st.session_state.get(key)
    status = shared.ROOMS.answer(view.code, view.student, step, vote, choice)
    st.session_state.pop(f"class_conf_{view.code}_{step}_{vote}", None)  # a new answer: confidence anew
    if status != "ok":
        st.session_state["class_sent_problem"] = status
        st.session_state[key] = shared.ROOMS.answer_of(view.code, view.student, step, vote, view.room)


def _send_confidence(view: ClassView, step: int, vote: int, key: str) -> None:
    status = shared.ROOMS.confidence(view.code, view.student, step, vote, st.session_state.get(key))
    if status != "ok":
        st.session_state["class_sent_problem"] = status
        st.session_state[key] = shared.ROOMS.mine(view.code, view.student, step, vote, view.room)[1]


def votes_dialog(view: ClassView) -> None:
    """*Our votes*, a slide for the projector: per step the room answered, the share of correct
    answers in the first and the second vote, as bars with their numbers and a text alternative."""
    if not st.session_state.pop("class_votes_open", False):
        return

    @st.dialog(t("class.our_votes"), width="large")
    def slide() -> None:
        room, status = shared.ROOMS.get(view.code)
        if room is None:
            st.warning(status_text(status), icon=":material/cloud_off:")
            return
        rows = our_votes(room, shared.ROOMS.tally(room))
        if not rows:
            st.info(t("class.our_votes.none"), icon=":material/info:")
            return
        st.markdown(t("class.our_votes.lead"))
        steps = tuple((t("class.our_votes.step", k=r["step"],
                         name=t(f"lesson.{class_answers.step_name(r['step'])}.name")),
                       r["first"], r["answers_first"], r["second"], r["answers_second"]) for r in rows)
        with st.container(key="class_our_votes"):
            show_chart(class_answers.our_votes_chart(steps), name="class-our-votes", downloads=False)

    slide()
