"""Lesson: why attention divides by √d_k in projector-sized steps. Each step asks first: a neutral
setup, a live chart of context only, at most one control and a question; the claim, the take-away and
the measurement come with the reveal.

URL: `?steps=variance,gradients,…` chooses and orders the steps (names or numbers); `?step=K` opens
the plan's K-th step; `?lock=1` is the students' view (no sidebar, only this step's control).
"""

import hashlib

import streamlit as st

from core import lesson
from pages.ui.chart.charts import show_chart
from pages.ui.compute import cached
from pages.ui.controls import page_select, page_slider, page_toggle
from pages.ui.format import scale_label
from pages.ui.i18n import t
from pages.ui.lesson import lesson_handout
from pages.ui.lesson.lesson_chart import step_chart
from pages.ui.lesson.lesson_notes import speaker_notes
from pages.ui.live import class_end, class_phone, classroom, live_class, who
from pages.ui.live.class_view import ClassView
from pages.ui.sidebar import POWERS_OF_TWO, Settings, quiet_settings, settings
from pages.ui.url_state import page_value, parse_flag, parse_int, url_params
from pages.ui.words import choice_label, facts_text, measured_text, method_label
from server import shared
from server.room_state import Question

N_OPTIONS: tuple[int, ...] = lesson.N_GRID
def parse_lock(raw: str | None) -> tuple[int, str | None]:
    """?lock=1 / 0 (also true/false, yes/no, on/off), kept as 1 / 0 so the link reads lock=1."""
    on, problem = parse_flag(raw)
    return int(on), problem


def parse_steps(raw: str | None) -> tuple[str, str | None]:
    """?steps=… → the plan as its canonical text (names, comma-separated); unknown parts dropped."""
    plan, problem = lesson.parse_plan(raw)
    return lesson.plan_text(plan), problem


def move(delta: int) -> None:
    last = len(lesson.parse_plan(st.session_state.get("steps"))[0])
    st.session_state["step"] = min(last, max(1, int(st.session_state["step"]) + delta))


def mirror_control(shared_key: str, options: tuple[int, ...], label_key: str, container) -> None:
    """A powers-of-two slider on the page that moves a shared sidebar setting (d_k or n), so the
    setting stays one value, in one URL parameter. Drawn only where the sidebar is hidden (the
    locked view): elsewhere the sidebar's own slider is the one control."""
    ctl = f"lesson_{shared_key}"
    st.session_state[ctl] = min(options, key=lambda o: (abs(o - st.session_state[shared_key]), o))

    def copy() -> None:
        st.session_state[shared_key] = st.session_state[ctl]

    container.select_slider(t(label_key), options=options, key=ctl, on_change=copy)


def open_share() -> None:
    # A flag rather than the button's return value: the dialog opens at the end of the run, once
    # every control has put its value into the link.
    st.session_state["lesson_share_open"] = True


def reveal(sig: str) -> None:
    st.session_state.setdefault("lesson_revealed", set()).add(sig)


def local_question(name: str, sig: str, q: dict, labels: list[str], kind: str, revealed: bool) -> str:
    """The question answered on one's own screen: pills, then Reveal, then the measurement beside the
    guess. Returns what the live region should say."""
    guess_key = f"lesson_guess_{sig}"
    # A guess outlives its pills (Streamlit forgets a widget's state on runs that do not draw it).
    guesses = st.session_state.setdefault("lesson_guesses", {})
    st.session_state.setdefault(guess_key, guesses.get(sig))
    guess = st.pills(t("lesson.guess"), range(len(labels)), format_func=labels.__getitem__,
                     key=guess_key, disabled=revealed, label_visibility="collapsed")
    guesses[sig] = guess
    shown = revealed and guess is not None
    measured = measured_text(q["value"], kind)
    right_answer = shown and guess in q["correct"]
    verdict = (t("lesson.result.right") if right_answer
               else t("lesson.result.wrong", answer=labels[q["correct"][0]]))
    if not shown:
        st.button(t("lesson.reveal"), key="lesson_reveal", type="primary", icon=":material/visibility:",
                  on_click=reveal, args=(sig,), disabled=guess is None,
                  help=t("lesson.reveal.help") if guess is None else None)
        if guess is None:  # why Reveal is greyed out, in words
            st.caption(t("lesson.reveal.hint"))
        return t("lesson.announce.waiting", k=st.session_state["step"])
    line = f"{t('lesson.result.guess')}: **{labels[guess]}** · {t('lesson.result.measured')}: **{measured}**"
    if right_answer:
        st.success(f"{line}  \n{verdict}", icon=":material/check_circle:")
    else:
        st.info(f"{line}  \n{verdict}", icon=":material/lightbulb:")
    return t("lesson.announce.result", guess=labels[guess], measured=measured, verdict=verdict)


def setup_text(name: str, fmt: dict[str, str], short: bool) -> None:
    """The step's neutral setup: in full, or with `short` its short form (the full text follows the
    answers' controls, `full_setup`)."""
    st.markdown(t(f"lesson.{name}.setup_short" if short else f"lesson.{name}.setup", **fmt))


def full_setup(name: str, fmt: dict[str, str]) -> None:
    """The full setup one click away, under the question and its answers' controls: on a projector, a
    locked (students') view or in a class the question, its choices and the vote's controls come
    first, so that they stay on one 1280×720 screen."""
    with st.expander(t("lesson.setup.full"), icon=":material/info:"):
        st.markdown(t(f"lesson.{name}.setup", **fmt))


# ---------------------------------------------------------------- the page

def draw(s: Settings, cls: ClassView) -> None:
    """The step: its setup and question, then, once revealed, its claim, take-away and measurement;
    in a class, the room's question and vote (a phone draws this inside its view fragment,
    pages/ui/live/class_phone.py `phone_view`: the room's wake reruns it alone)."""
    locked = bool(page_value("lock", parse_lock, 0)) or cls.role == "student"
    every = lesson.plan_text(tuple(range(len(lesson.STEPS))))
    # A room's step is its index in lesson.STEPS (the phones know no plan); the teacher's plan orders them.
    plan = lesson.parse_plan(every if cls.following else page_value("steps", parse_steps, every))[0]
    if cls.following:
        st.session_state["step"] = cls.room.step  # the teacher's step
    last = len(plan)
    step = page_value("step", lambda raw: parse_int(raw, 1, last, 1), 1)
    step = st.session_state["step"] = min(step, last)
    index = plan[step - 1]
    spec = lesson.STEPS[index]
    room_step = index + 1

    if cls.role == "gone":
        live_class.gone(cls)
    nav = st.container(horizontal=True, vertical_alignment="center", key="lesson_nav")
    if not cls.following:
        nav.button(t("lesson.prev"), icon=":material/arrow_back:", key="lesson_prev", on_click=move,
                   args=(-1,),
                   disabled=step == 1, help=t("lesson.keys_hint"))
        nav.button(t("lesson.next"), icon=":material/arrow_forward:", key="lesson_next", on_click=move,
                   args=(1,),
                   disabled=step == last, help=t("lesson.keys_hint"))
    # filled once projector mode is known (below); a phone's row holds the step's name alone
    step_label = nav if cls.following else nav.empty()
    if cls.role != "student":
        nav.button(t("lesson.share"), icon=":material/qr_code_2:", key="lesson_share", on_click=open_share)
    # Drawn for the teacher; a locked link keeps it without the toggle (students' screens show the step only).
    projector = page_toggle("lesson_projector", "lesson.projector", container=nav, shown=not locked,
                            help_key="lesson.projector.help")
    # On the teacher's projector the label is the count alone (the title names the step), so that the
    # toggle stays on the buttons' row and the question keeps its place in the first screen.
    counted = t("lesson.step_count", k=step, total=last) if projector and not locked else \
        t("lesson.step_of", k=step, total=last, name=t(f"lesson.{spec.name}.name"))
    step_label.markdown(f"**{counted}**")
    if locked and cls.role != "student":
        nav.markdown(f":material/lock: {t('lesson.locked')}", help=t("lesson.lock.what"))
    if cls.role is None and not locked:
        live_class.entry()
    if cls.role != "student":  # a phone's are drawn around its view (class_phone.phone_view)
        classroom.page_style(locked, projector)
        class_end.ended_notice()
    if cls.teacher:
        live_class.teacher_bar(cls, st.context.url)

    head = st.container(key="lesson_claim")  # the step's name before the reveal, its claim after
    # The teacher's page of a room, before the reveal: a wider left column, so the question and the vote's
    # controls stay in the first screen under the class's bar.
    asked_before = cls.question(room_step) if cls.teacher else None
    wide = cls.teacher and not (asked_before is not None and asked_before.revealed)
    left, right = st.columns([3, 2] if wide else [1, 1], gap="large")

    # The step's one control (on the page only where the sidebar is hidden, so the locked view keeps it);
    # in a class, the room's settings when the step's question is the room's (pages/ui/live/live_class.py).
    values = {"dk": s.dk, "n": s.n, "trials": s.trials, "seed": s.seed, "backend": s.backend,
              "dtype": s.dtype}
    fixed = cls.fixed_inputs(room_step)
    if fixed is not None:
        if cls.teacher:
            shown = ", ".join(f"{k.replace('dk', 'd_k')} = {v}" for k, v in fixed.items()
                              if k == spec.control or k in ("dk", "n"))
            right.caption(t("class.fixed", values=shown))
    elif spec.control in ("dk", "n") and locked:
        lo, hi = spec.ranges.get(spec.control, (1, 1 << 20))
        options = tuple(o for o in (POWERS_OF_TWO if spec.control == "dk" else N_OPTIONS) if lo <= o <= hi)
        mirror_control(spec.control, options, f"lesson.control.{spec.control}", right)
    elif spec.control == "scale":
        usable = [x for x in lesson.OTHER_SCALES if x != "log" or s.dk >= 2]
        values["scale"] = page_select("lesson_scale", "lesson.control.scale", usable, usable[0],
                                      container=right,
                                      option_prefix="lesson.scale")
    elif spec.control == "rho":
        values["rho"] = page_slider("lesson_rho", "lesson.control.rho", *lesson.RHO_RANGE, 0.5, step=0.1,
                                    container=right)
    elif spec.control == "factor":
        factors = [f"{f:g}" for f in lesson.FACTORS]
        values["factor"] = float(page_select("lesson_factor", "lesson.control.factor", factors, "2",
                                             container=right,
                                             format_func=lambda o: t("lesson.factor.option", a=o)))
    elif spec.control == "method":
        values["method"] = page_select("lesson_method", "lesson.control.method", lesson.NORM_REMEDIES,
                                       lesson.NORM_REMEDIES[0], container=right, format_func=method_label)

    inputs = fixed if fixed is not None else lesson.step_inputs(spec, values)
    clamped = {k: v for k, v in inputs.items() if k in spec.ranges and values.get(k) != v}
    if clamped:  # the step holds on part of the range only: say so
        what = ", ".join(f"{k.replace('dk', 'd_k')} = {lo:g} … {hi:g}" for k, (lo, hi) in spec.ranges.items())
        right.caption(t("lesson.range", what=what))
    data = cached(spec.compute, container=right, **inputs)
    revealed = False
    if data is not None:
        q = data["question"]
        kind = q.get("format", "num")
        sig = hashlib.sha1(repr((spec.name, sorted(inputs.items()))).encode()).hexdigest()[:12]
        revealed = sig in st.session_state.get("lesson_revealed", set())
        labels = [choice_label(c, kind) for c in q["choices"]]
        fmt = {"dk": inputs.get("dk", s.dk), "n": inputs.get("n", s.n),
               "scale": scale_label(inputs.get("scale", "sqrt")),
               "rho": f"{inputs.get('rho', 0):g}", "method": method_label(inputs.get("method", "qk-norm")),
               "alpha": f"{lesson.ALPHA_ASKED:g}", "factor": f"{inputs.get('factor', 2):g}",
               "tau": f"{lesson.COSINE_TAU:g}", "cap": f"{lesson.SOFTCAP:g}", **facts_text(data["facts"])}
        asked = cls.question(room_step) if cls.role is not None else None
        if cls.teacher:  # the room follows the teacher's step and question
            mine = Question(dict(inputs), tuple(q["choices"]), tuple(q["correct"]), float(q["value"]), kind)
            room, _ = shared.ROOMS.show(cls.code, cls.secret, room_step, mine)
            asked = room.questions.get(room_step) if room is not None else None
        in_class = asked is not None and (cls.teacher or cls.following)
        if in_class:
            revealed = asked.revealed
        short = not revealed and (projector or locked or in_class)
        with left.container(key="lesson_question"):
            if not revealed:  # ask: a neutral setup, then the question
                setup_text(spec.name, fmt, short)
            st.markdown(f"**{t(f'lesson.{spec.name}.question', **fmt)}**")
            if in_class and cls.teacher:
                live_class.teacher_question(cls, room_step, asked, projector)
                said = t("lesson.announce.waiting", k=step)
            elif in_class:
                said = live_class.student_answer(cls, room_step, asked) or \
                    t("class.announce.step", k=step, claim=t(f"lesson.{spec.name}.name"))
            else:
                said = local_question(spec.name, sig, q, labels, kind, revealed)
            if short:
                full_setup(spec.name, fmt)
            # A live region, at the same place on every run, so a screen reader announces the result
            # when Reveal replaces the question's state (and the next step's state on Next).
            classroom.announce("lesson_announce", said)
            if revealed:  # tell: the take-away, a heading one size below the claim
                takeaway = f"lesson.{spec.name}.takeaway"
                if spec.name == "gradients" and data["facts"].get("cross") is None:
                    takeaway = "lesson.gradients.takeaway_nocross"
                st.markdown(f"#### {t(takeaway, **fmt)}")
        show_chart(step_chart(data["chart"], revealed, projector), name=f"lesson-{spec.name}",
                   container=right,
                   downloads=False)
        waiting = "" if revealed else f"{t('lesson.chart.waiting')} "
        right.caption(waiting + t("lesson.trials", seed=inputs.get("seed", s.seed), count=data["draws"]))
        if cls.role != "student" and not locked:
            speaker_notes(spec, plan, q, kind)
    elif cls.following:
        left.caption(t("class.student.wait"))

    with head:  # tell: the claim at title size, once revealed
        if revealed and data is not None:
            st.title(t(f"lesson.{spec.name}.claim"), anchor=False)
        else:
            st.title(t(f"lesson.{spec.name}.name"), anchor=False)

    if cls.role != "student" and not locked:
        # The teacher's page of a room: the room's results go in (read from its stored answers).
        lesson_handout.download(plan, values, st.sidebar, cls.code if cls.teacher else None)

    if cls.teacher:
        class_end.end_dialog(cls)
        class_end.link_dialog(cls, st.context.url)

    if st.session_state.pop("lesson_share_open", False):
        params = url_params()  # every control of this view has been drawn: the link is complete

        @st.dialog(t("lesson.share.title"), width="large")
        def share() -> None:
            if cls.teacher:  # the room's link: no language (each phone its own), no settings (the room's)
                wanted = {"room": cls.code}
                st.markdown(f"## `{cls.code}`")
            else:
                for_students = st.toggle(t("lesson.share.lock"), value=locked, key="lesson_share_lock",
                                         help=t("lesson.lock.what"))
                wanted = {k: v for k, v in params.items() if k != "lock"}
                wanted |= {"lock": "1"} if for_students else {}
            link = classroom.view_link(st.context.url, wanted)
            if link is None:
                st.warning(t("lesson.share.no_url"), icon=":material/link_off:")
                return
            with st.container(key="lesson_qr", horizontal_alignment="center"):
                st.image(classroom.qr_svg(link))
            st.code(link, language=None, wrap_lines=True)
            st.caption(t("class.share.caption") if cls.teacher else t("lesson.share.caption"))

        share()

    if not cls.following:
        classroom.key_navigation("lesson_keys", lambda m: move(1 if m == "next" else -1))


s = settings()
cls = who.resolve()  # a live class: this session's room and role (pages/ui/live/who.py)
if cls.role == "student":
    # a phone's step, rerun alone at the room's wake: its settings read anew at each run of it
    class_phone.phone_view(lambda view: draw(quiet_settings(), view), cls)
else:
    draw(s, cls)
