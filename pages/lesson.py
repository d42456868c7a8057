"""Lesson: why attention divides by √d_k in eight projector-sized steps — one claim, one live chart,
at most one control, and a question the class answers before the measurement is revealed.

URL: `?step=K` opens step K; `?lock=1` is the students' view (no sidebar, only this step's control).
"""

import hashlib

import altair as alt
import pandas as pd
import streamlit as st

from core import lesson
from pages.ui import class_end, classroom, live_class
from pages.ui.charts import layered, show_chart
from pages.ui.compute import cached
from pages.ui.controls import page_select, page_slider, page_toggle
from pages.ui.figure import Figure, figure, figure_cache
from pages.ui.format import OKABE_ITO, SCALE_COLOURS, fmt_num, fmt_pct, scale_label
from pages.ui.i18n import t
from pages.ui.lesson_words import choice_label, method_label
from pages.ui.sidebar import POWERS_OF_TWO, settings
from pages.ui.url_state import page_value, parse_flag, parse_int, url_params
from server.room_state import Question
from server.shared import ROOMS

LAST = len(lesson.STEPS)
N_OPTIONS: tuple[int, ...] = lesson.N_GRID
CHART_HEIGHT = 180  # the plot area; axes and the legend below it add about 120 px
REFERENCE_SERIES = ("theory_dk", "uniform", "all_keys", "uniform_n", "theory_rho")  # dashed, no points
BLUE, VERMILLION, GREEN, ORANGE, PURPLE = (OKABE_ITO[i] for i in range(5))
REFERENCE_GREY = "#777777"  # 4.5:1 on white, as the other pages' references
SERIES_COLOURS = {"measured": VERMILLION, "theory_dk": "#000000", "uniform": REFERENCE_GREY,
                  "all_keys": REFERENCE_GREY, "uniform_n": REFERENCE_GREY, "log-n": GREEN, "rho0": BLUE,
                  "rho": VERMILLION, "theory_rho": "#000000", "grown": VERMILLION, "qk-norm": GREEN,
                  "cosine": PURPLE, "softcap": ORANGE}
# The measured series' markers: the second channel beside colour (a grayscale print, a washed-out
# projector or a colour-blind student still tells the series apart); references are dashed lines.
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge", "stroke")
# Line widths and type (px): as on a laptop, and in projector mode (lines at least 3 px).
STYLE = {False: {"line": 3, "reference": 2, "point": 60, "axis": 11, "title": 12, "legend": 12},
         True: {"line": 5, "reference": 3, "point": 140, "axis": 16, "title": 18, "legend": 17}}


def parse_lock(raw: str | None) -> tuple[int, str | None]:
    """?lock=1 / 0 (also true/false, yes/no, on/off), kept as 1 / 0 so the link reads lock=1."""
    on, problem = parse_flag(raw)
    return int(on), problem


def move(delta: int) -> None:
    st.session_state["step"] = min(LAST, max(1, int(st.session_state["step"]) + delta))


def series_label(series: str, args: dict) -> str:
    if series in SCALE_COLOURS:
        return scale_label(series)
    if series in lesson.NORM_REMEDIES:
        return method_label(series, formula=True)
    return t(f"lesson.series.{series}", **args)


def mirror_control(shared_key: str, options: tuple[int, ...], label_key: str, container) -> None:
    """A powers-of-two slider on the page that moves a shared sidebar setting (d_k or n), so the
    setting stays one value, in one URL parameter, whether moved here or in the sidebar."""
    ctl = f"lesson_{shared_key}"
    st.session_state[ctl] = min(options, key=lambda o: (abs(o - st.session_state[shared_key]), o))

    def copy() -> None:
        st.session_state[shared_key] = st.session_state[ctl]

    container.select_slider(t(label_key), options=options, key=ctl, on_change=copy)


@figure_cache
def step_chart(chart: dict, revealed: bool, projector: bool = False) -> Figure:
    """The step's figure at its container's width: context rows always, answer rows once revealed;
    in projector mode with heavier lines and larger type. Built once per (data, revealed, projector,
    language) for every session."""
    px = STYLE[projector]
    args = chart["series_args"]
    df = pd.DataFrame(chart["rows"], columns=["x", "y", "series", "stage"])
    order = list(dict.fromkeys(df["series"]))
    labels = {name: series_label(name, args) for name in order}
    colours = [SERIES_COLOURS.get(name, SCALE_COLOURS.get(name, OKABE_ITO[i % len(OKABE_ITO)]))
               for i, name in enumerate(order)]
    if not revealed:
        df = df[df["stage"] == "context"]
    df = df.assign(label=df["series"].map(labels), reference=df["series"].isin(REFERENCE_SERIES))
    y_scale = alt.Scale(type="log") if chart["y_log"] else alt.Scale(zero=False)
    if chart["y_domain"]:
        y_scale = alt.Scale(type="log" if chart["y_log"] else "linear", domain=chart["y_domain"])
    palette = alt.Scale(domain=[labels[n] for n in order], range=colours)
    legend = alt.Legend(orient="bottom", direction="vertical", labelLimit=320, rowPadding=2,
                        symbolSize=px["point"] + 10, labelFontSize=px["legend"], padding=0,
                        symbolStrokeWidth=px["reference"])
    colour = alt.Color("label:N", title=None, scale=palette, legend=legend)
    measured = [labels[n] for n in order if n not in REFERENCE_SERIES]
    shapes = [SHAPES[i % len(SHAPES)] for i in range(len(measured))]
    shape = alt.Shape("label:N", title=None, legend=legend, scale=alt.Scale(domain=measured, range=shapes))
    ticks = sorted({r["x"] for r in chart["rows"]})
    x = alt.X("x:Q", title=t(f"lesson.axis.{chart['x']}"), scale=alt.Scale(type="log", base=2),
              axis=alt.Axis(values=ticks, format="~g", labelOverlap=True))
    tiny = chart["y_log"] and bool(len(df)) and df["y"].min() < 1e-4  # 1e-7, not 0.0000001
    y = alt.Y("y:Q", title=t(f"lesson.axis.{chart['y']}"), scale=y_scale,
              axis=alt.Axis(format=".0e" if tiny else "~g", labelOverlap=True))
    tips = [alt.Tooltip("label:N", title=t("lesson.legend")), alt.Tooltip("x:Q", format="~g"),
            alt.Tooltip("y:Q", format=".4g")]
    base = alt.Chart(df).encode(x=x, y=y, color=colour, tooltip=tips)
    layers = [  # references last, so a measurement lying on its theory leaves the theory visible
        base.transform_filter("!datum.reference").mark_line(strokeWidth=px["line"]),
        base.transform_filter("!datum.reference").mark_point(filled=True, size=px["point"])
        .encode(shape=shape),
        base.transform_filter("datum.reference").mark_line(strokeDash=[6, 4], strokeWidth=px["reference"]),
    ]
    if chart["current"] is not None:
        here = pd.DataFrame({"x": [chart["current"]]})
        rule = alt.Chart(here).mark_rule(color="#555555", strokeDash=[2, 3], strokeWidth=px["reference"])
        layers.append(rule.encode(x=alt.X("x:Q")))
    # fit-x: the width follows the container (a phone's 360 px or a projector's half screen), the
    # plot keeps its height, and the axes and legend are added below it instead of squeezing it.
    drawn = layered(*layers).properties(height=CHART_HEIGHT,
                                        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    if projector:
        black = "#000000"
        drawn = drawn.configure_axis(labelFontSize=px["axis"], titleFontSize=px["title"], labelColor=black,
                                     titleColor=black, domainColor=black, tickColor=black
                                     ).configure_legend(labelColor=black)
    return figure(drawn, df.drop(columns=["reference"]))


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
    measured = fmt_pct(q["value"]) if kind == "pct" else fmt_num(q["value"])
    right_answer = shown and guess in q["correct"]
    verdict = (t("lesson.result.right") if right_answer
               else t("lesson.result.wrong", answer=labels[q["correct"][0]]))
    if not shown:
        st.button(t("lesson.reveal"), key="lesson_reveal", type="primary", icon=":material/visibility:",
                  on_click=reveal, args=(sig,), disabled=guess is None,
                  help=t("lesson.reveal.help") if guess is None else None)
        return t("lesson.announce.waiting", k=st.session_state["step"])
    line = f"{t('lesson.result.guess')}: **{labels[guess]}** · {t('lesson.result.measured')}: **{measured}**"
    if right_answer:
        st.success(f"{line}  \n{verdict}", icon=":material/check_circle:")
    else:
        st.info(f"{line}  \n{verdict}", icon=":material/lightbulb:")
    return t("lesson.announce.result", guess=labels[guess], measured=measured, verdict=verdict)


# ---------------------------------------------------------------- the page

s = settings()
cls = live_class.resolve()  # a live class: this session's room and role (pages/ui/live_class.py)
locked = bool(page_value("lock", parse_lock, 0)) or cls.role == "student"
if cls.following:
    st.session_state["step"] = cls.room.step  # the teacher's step
step = page_value("step", lambda raw: parse_int(raw, 1, LAST, 1), 1)
spec = lesson.STEPS[step - 1]

if cls.role == "gone":
    live_class.gone(cls)
nav = st.container(horizontal=True, vertical_alignment="center", key="lesson_nav")
if not cls.following:
    nav.button(t("lesson.prev"), icon=":material/arrow_back:", key="lesson_prev", on_click=move, args=(-1,),
               disabled=step == 1, help=t("lesson.keys_hint"))
    nav.button(t("lesson.next"), icon=":material/arrow_forward:", key="lesson_next", on_click=move, args=(1,),
               disabled=step == LAST, help=t("lesson.keys_hint"))
nav.markdown(f"**{t('lesson.step_of', k=step, total=LAST, name=t(f'lesson.{spec.name}.name'))}**")
if cls.role != "student":
    nav.button(t("lesson.share"), icon=":material/qr_code_2:", key="lesson_share", on_click=open_share)
# Drawn for the teacher; a locked link keeps it without the toggle (students' screens show the step only).
projector = page_toggle("lesson_projector", "lesson.projector", container=nav, shown=not locked,
                        help_key="lesson.projector.help")
if locked and cls.role != "student":
    nav.markdown(f":material/lock: {t('lesson.locked')}", help=t("lesson.lock.what"))
if cls.role is None and not locked:
    live_class.entry()
classroom.page_style(locked, projector)
class_end.ended_notice()
if cls.teacher:
    live_class.teacher_bar(cls, st.context.url)
elif cls.role == "student":
    live_class.student_bar(cls)

with st.container(key="lesson_claim"):
    st.title(t(f"lesson.{spec.name}.claim"), anchor=False)

left, right = st.columns(2, gap="large")

# The step's one control (on the page, so the locked view keeps it); in a class, the room's
# settings when the step's question is the room's (pages/ui/live_class.py).
values = {"dk": s.dk, "n": s.n, "trials": s.trials, "seed": s.seed, "backend": s.backend, "dtype": s.dtype}
fixed = cls.fixed_inputs(step)
if fixed is not None:
    if cls.teacher:
        shown = ", ".join(f"{k.replace('dk', 'd_k')} = {v}" for k, v in fixed.items()
                          if k == spec.control or k in ("dk", "n"))
        right.caption(t("class.fixed", values=shown))
elif spec.control == "dk":
    mirror_control("dk", POWERS_OF_TWO, "lesson.control.dk", right)
elif spec.control == "n":
    mirror_control("n", N_OPTIONS, "lesson.control.n", right)
elif spec.control == "scale":
    usable = [x for x in lesson.OTHER_SCALES if x != "log" or s.dk >= 2]
    values["scale"] = page_select("lesson_scale", "lesson.control.scale", usable, usable[0], container=right,
                                  option_prefix="lesson.scale")
elif spec.control == "rho":
    values["rho"] = page_slider("lesson_rho", "lesson.control.rho", *lesson.RHO_RANGE, 0.5, step=0.1,
                                container=right)
elif spec.control == "method":
    values["method"] = page_select("lesson_method", "lesson.control.method", lesson.NORM_REMEDIES,
                                   lesson.NORM_REMEDIES[0], container=right, format_func=method_label)

inputs = fixed if fixed is not None else lesson.step_inputs(spec, values)
data = cached(spec.compute, container=right, **inputs)
if data is not None:
    q = data["question"]
    kind = q.get("format", "num")
    sig = hashlib.sha1(repr((spec.name, sorted(inputs.items()))).encode()).hexdigest()[:12]
    revealed = sig in st.session_state.get("lesson_revealed", set())
    labels = [choice_label(c, kind) for c in q["choices"]]
    fmt = {"dk": inputs.get("dk", s.dk), "n": inputs.get("n", s.n),
           "scale": scale_label(inputs.get("scale", "sqrt")),
           "rho": f"{inputs.get('rho', 0):g}", "method": method_label(inputs.get("method", "qk-norm")),
           "alpha": f"{lesson.ALPHA_ASKED:g}"}
    asked = cls.question(step) if cls.role is not None else None
    if cls.teacher:  # the room follows the teacher's step and question
        mine = Question(dict(inputs), tuple(q["choices"]), tuple(q["correct"]), float(q["value"]), kind)
        room, status = ROOMS.show(cls.code, cls.secret, step, mine)
        asked = room.questions.get(step) if room is not None else None
    in_class = asked is not None and (cls.teacher or cls.following)
    if in_class:
        revealed = asked.revealed
    with left.container(key="lesson_question"):
        st.markdown(f"**{t(f'lesson.{spec.name}.question', **fmt)}**")
        if in_class and cls.teacher:
            live_class.teacher_question(cls, step, asked, projector)
            said = t("lesson.announce.waiting", k=step)
        elif in_class:
            said = live_class.student_answer(cls, step, asked) or \
                t("class.announce.step", k=step, claim=t(f"lesson.{spec.name}.claim"))
        else:
            said = local_question(spec.name, sig, q, labels, kind, revealed)
        # A live region, at the same place on every run, so a screen reader announces the result
        # when Reveal replaces the question's state (and the next step's state on Next).
        classroom.announce("lesson_announce", said)
        if revealed:
            st.caption(t(f"lesson.{spec.name}.takeaway"))
    show_chart(step_chart(data["chart"], revealed, projector), name=f"lesson-{spec.name}", container=right,
               downloads=False)
    waiting = "" if revealed else f"{t('lesson.chart.waiting')} "
    right.caption(waiting + t("lesson.trials", seed=inputs.get("seed", s.seed), count=data["draws"]))
elif cls.following:
    left.caption(t("class.student.wait"))

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
