"""What a class's answers look like: the projector's histogram of the room's answers (one bar per
answer and vote), the labels of a room's question, and the class's summary as CSV."""

from __future__ import annotations

import csv
import io

import altair as alt
import pandas as pd

from pages.ui.figure import Figure, figure, figure_cache
from pages.ui.format import OKABE_ITO, fmt_num, fmt_pct
from pages.ui.i18n import t
from pages.ui.lesson_words import choice_label
from server.room_state import Question, Room, Tally
from server.rooms import summary_rows

VOTE_COLOURS = (OKABE_ITO[0], OKABE_ITO[1])


def labels_of(q: Question) -> list[str]:
    return [choice_label(c, q.format) for c in q.choices]


def measured_text(q: Question) -> str:
    return fmt_pct(q.value) if q.format == "pct" else fmt_num(q.value)


@figure_cache
def answers_chart(labels: tuple[str, ...], votes: tuple[tuple[int, ...], ...], correct: tuple[int, ...],
                  measured: str, projector: bool = False) -> Figure:
    """The room's answers as horizontal bars, one per answer and vote; the vote is told by position,
    colour and the text at the bar's end; once revealed, the correct answer's label says so with the
    measured value."""
    names = [t("class.hist.measured", label=lab, value=measured) if i in correct else lab
             for i, lab in enumerate(labels)]
    short = [t(f"class.vote.short.{v + 1}") for v in range(len(votes))]
    rows = [{"answer": names[i], "vote": t(f"class.vote.{v + 1}"), "count": n,
             "text": f"{n}" if len(votes) == 1 else t("class.hist.bar", n=n, vote=short[v])}
            for v, counts in enumerate(votes) for i, n in enumerate(counts)]
    df = pd.DataFrame(rows, columns=["answer", "vote", "count", "text"])
    size = 17 if projector else 12
    room = 1.3 if len(votes) == 1 else 1.6  # the axis leaves room for the label at a bar's end
    vote_names = [t(f"class.vote.{v + 1}") for v in range(len(votes))]
    y = alt.Y("answer:N", title=None, sort=names, axis=alt.Axis(labelLimit=360, labelFontSize=size))
    x = alt.X("count:Q", title=t("class.hist.count"),
              scale=alt.Scale(domain=[0, max(1, int(df["count"].max() if len(df) else 1)) * room]),
              axis=alt.Axis(tickMinStep=1, format="d", labelFontSize=size, titleFontSize=size))
    colour = alt.Color("vote:N", title=None, scale=alt.Scale(domain=vote_names, range=list(VOTE_COLOURS)),
                       legend=alt.Legend(orient="bottom", labelFontSize=size) if len(votes) > 1 else None)
    tips = [alt.Tooltip("answer:N"), alt.Tooltip("vote:N"), alt.Tooltip("count:Q")]
    base = alt.Chart(df).encode(y=y, x=x, yOffset=alt.YOffset("vote:N", sort=vote_names), color=colour,
                                tooltip=tips)
    bars = base.mark_bar(height={"band": 0.9})
    text = base.mark_text(align="left", dx=4, fontSize=size, color="#000000").encode(text=alt.Text("text:N"))
    per_bar = (30 if projector else 26) if len(votes) == 1 else (22 if projector else 18)
    drawn = alt.layer(bars, text).properties(height=max(100, per_bar * len(labels) * len(votes)),
                                             autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    described = " ".join(
        t("class.hist.text", vote=vote_names[v],
          counts=", ".join(t("class.hist.item", label=names[i], n=n) for i, n in enumerate(counts)))
        for v, counts in enumerate(votes))
    return figure(drawn, df.drop(columns=["text"]), description=f"{t('class.hist.title')}: {described}")


def summary_csv(room: Room, tally: Tally) -> str:
    """The class's per-step summary as CSV text: counts per answer, whether it is correct, and the
    share correct, for each vote."""
    rows = summary_rows(room, tally, lambda step, q, i: labels_of(q)[i],
                        lambda step: t(f"lesson.{_step_name(step)}.name"))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["step", "name", "vote", "answer", "count", "correct", "answers",
                                             "share_correct"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _step_name(step: int) -> str:
    from core import lesson

    return lesson.STEPS[step - 1].name if 1 <= step <= len(lesson.STEPS) else "step"
