"""What a class's answers look like: the projector's histogram of the room's answers (one bar per
answer and vote; once the vote is closed, each bar split by the students' confidence), the closing
*Our votes* chart (the share correct per step and vote), the labels of a room's question, and the
class's summary as CSV."""

from __future__ import annotations

import csv
import io

import altair as alt
import pandas as pd

from pages.ui import words
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.format import OKABE_ITO, REFERENCE_GREY
from pages.ui.i18n import t
from pages.ui.words import labels_of, pct_text
from server.room_state import Question, Room, Tally
from server.room_votes import summary_rows

VOTE_COLOURS = (OKABE_ITO[0], OKABE_ITO[1])
PARTS = ("sure", "guessing", "unrated")  # a bar's segments once split by confidence
PART_DASH = {"sure": [1, 0], "guessing": [6, 3], "unrated": [2, 2]}  # the outline: a channel beside fill
WHITE = "#FFFFFF"
Split = tuple[tuple[tuple[int, int], ...], ...]  # per vote, per choice: (sure, guessing)


def measured_text(q: Question) -> str:
    """The room's measured value as the lesson shows it after the reveal."""
    return words.measured_text(q.value, q.format)


@figure_cache
def answers_chart(labels: tuple[str, ...], votes: tuple[tuple[int, ...], ...], correct: tuple[int, ...],
                  measured: str, projector: bool = False, split: Split | None = None) -> Figure:
    """The room's answers as horizontal bars, one per answer and vote; the vote is told by position,
    colour and the text at the bar's end; once revealed, the correct answer's label says so with the
    measured value. With `split` (the vote closed), each bar is cut into the answers marked sure
    (filled), guessing (outlined, dashed) and not rated (outlined, dotted); the key to the segments
    and their numbers are lines of text under the chart (`split_lines`), and in its text alternative."""
    names = [t("class.hist.measured", label=lab, value=measured) if i in correct else lab
             for i, lab in enumerate(labels)]
    short = [t(f"class.vote.short.{v + 1}") for v in range(len(votes))]
    vote_names = [t(f"class.vote.{v + 1}") for v in range(len(votes))]
    size = 17 if projector else 12
    rows, parts = [], []
    for v, counts in enumerate(votes):
        for i, n in enumerate(counts):
            sure, guess = split[v][i] if split else (0, 0)
            text = f"{n}" if len(votes) == 1 else t("class.hist.bar", n=n, vote=short[v])
            rows.append({"answer": names[i], "vote": vote_names[v], "count": n, "sure": sure,
                         "guessing": guess, "text": text})
            for rank, (part, m) in enumerate(zip(PARTS, (sure, guess, n - sure - guess), strict=True)):
                parts.append({"answer": names[i], "vote": vote_names[v], "part": t(f"class.hist.part.{part}"),
                              "count": m, "rank": rank, "fill": VOTE_COLOURS[v] if part == "sure" else WHITE,
                              "stroke": VOTE_COLOURS[v] if part != "unrated" else REFERENCE_GREY})
    df = pd.DataFrame(rows, columns=["answer", "vote", "count", "sure", "guessing", "text"])
    room = 1.3 if len(votes) == 1 else 1.6
    y = alt.Y("answer:N", title=None, sort=names, axis=alt.Axis(labelLimit=360, labelFontSize=size))
    x = alt.X("count:Q", title=t("class.hist.count"), stack="zero",
              scale=alt.Scale(domain=[0, max(1, int(df["count"].max() if len(df) else 1)) * room]),
              axis=alt.Axis(tickMinStep=1, format="d", labelFontSize=size, titleFontSize=size))
    offset = alt.YOffset("vote:N", sort=vote_names)
    if split:
        part_names = [t(f"class.hist.part.{p}") for p in PARTS]
        dash = alt.StrokeDash("part:N", title=t("class.hist.part"), sort=part_names, legend=None,
                              scale=alt.Scale(domain=part_names, range=[PART_DASH[p] for p in PARTS]))
        tips = [alt.Tooltip("answer:N"), alt.Tooltip("vote:N"), alt.Tooltip("part:N"), alt.Tooltip("count:Q")]
        bars = alt.Chart(pd.DataFrame(parts)).mark_bar(height={"band": 0.9}, strokeWidth=2).encode(
            y=y, x=x, yOffset=offset, fill=alt.Fill("fill:N", scale=None),
            stroke=alt.Stroke("stroke:N", scale=None), strokeDash=dash, order=alt.Order("rank:Q"),
            tooltip=tips)
        text = alt.Chart(df).mark_text(align="left", dx=4, fontSize=size, color="#000000").encode(
            y=y, x=alt.X("count:Q"), yOffset=offset, text=alt.Text("text:N"))
    else:
        colour = alt.Color("vote:N", title=None, scale=alt.Scale(domain=vote_names, range=list(VOTE_COLOURS)),
                           legend=alt.Legend(orient="bottom", labelFontSize=size) if len(votes) > 1 else None)
        tips = [alt.Tooltip("answer:N"), alt.Tooltip("vote:N"), alt.Tooltip("count:Q")]
        base = alt.Chart(df).encode(y=y, x=x, yOffset=offset, color=colour, tooltip=tips)
        bars = base.mark_bar(height={"band": 0.9})
        text = base.mark_text(align="left", dx=4, fontSize=size, color="#000000").encode(
            text=alt.Text("text:N"))
    per_bar = (30 if projector else 26) if len(votes) == 1 else (22 if projector else 18)
    drawn = alt.layer(bars, text).properties(height=max(100, per_bar * len(labels) * len(votes)),
                                             autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    item = "class.hist.item_split" if split else "class.hist.item"
    described = " ".join(
        t("class.hist.text", vote=vote_names[v],
          counts=", ".join(t(item, label=names[i], n=n, sure=split[v][i][0] if split else 0,
                             guessing=split[v][i][1] if split else 0) for i, n in enumerate(counts)))
        for v, counts in enumerate(votes))
    table = df.drop(columns=["text"] + ([] if split else ["sure", "guessing"]))
    return figure(drawn, table, description=f"{t('class.hist.title')}: {described}")


def split_lines(labels: tuple[str, ...], split: Split) -> list[str]:
    """The split bars in words, one line per vote: each answer someone rated, with how many were
    sure and how many guessing ("2nd vote: about 1/4 — 1 sure, 1 guessing")."""
    lines = []
    for v, per_choice in enumerate(split):
        items = []
        for label, (sure, guess) in zip(labels, per_choice, strict=True):
            tail = "both" if sure and guess else ("sure" if sure else ("guessing" if guess else None))
            if tail:
                items.append(t("class.hist.rated", label=label,
                               tail=t(f"class.hist.tail.{tail}", sure=sure, guessing=guess)))
        if items:
            lines.append(t("class.hist.rated_line", vote=t(f"class.vote.{v + 1}"), items="; ".join(items)))
    return lines


@figure_cache
def our_votes_chart(steps: tuple[tuple[str, float | None, int, float | None, int], ...],
                    projector: bool = True) -> Figure:
    """*Our votes*: per step (label, 1st share correct, its answers, 2nd share, its answers) a bar
    per vote held, the share of its answers that were correct; the vote is told by position, colour
    and the text at the bar's end ("1st 40 %")."""
    vote_names = [t("class.vote.1"), t("class.vote.2")]
    short = [t("class.vote.short.1"), t("class.vote.short.2")]
    rows, said = [], []
    for label, first, n1, second, n2 in steps:
        parts = []
        for v, (share, n) in enumerate(((first, n1), (second, n2))):
            if share is None:
                parts.append(t("class.our_votes.not_held", vote=vote_names[v]))
                continue
            rows.append({"step": label, "vote": vote_names[v], "correct_pct": round(100 * share, 1),
                         "answers": n, "text": t("class.our_votes.bar", vote=short[v], pct=pct_text(share))})
            parts.append(t("class.our_votes.item", vote=vote_names[v], pct=pct_text(share), n=n))
        said.append(t("class.our_votes.text", step=label, votes=", ".join(parts)))
    df = pd.DataFrame(rows, columns=["step", "vote", "correct_pct", "answers", "text"])
    size = 18 if projector else 12
    labels = [s[0] for s in steps]
    y = alt.Y("step:N", title=None, sort=labels, axis=alt.Axis(labelLimit=420, labelFontSize=size))
    x = alt.X("correct_pct:Q", title=t("class.our_votes.axis"), scale=alt.Scale(domain=[0, 125]),
              axis=alt.Axis(values=[0, 25, 50, 75, 100], labelFontSize=size, titleFontSize=size))
    colour = alt.Color("vote:N", title=None, scale=alt.Scale(domain=vote_names, range=list(VOTE_COLOURS)),
                       legend=alt.Legend(orient="bottom", labelFontSize=size))
    base = alt.Chart(df).encode(y=y, x=x, yOffset=alt.YOffset("vote:N", sort=vote_names), color=colour,
                                tooltip=[alt.Tooltip("step:N"), alt.Tooltip("vote:N"),
                                         alt.Tooltip("correct_pct:Q"), alt.Tooltip("answers:Q")])
    bars = base.mark_bar(height={"band": 0.9})
    text = base.mark_text(align="left", dx=4, fontSize=size, color="#000000").encode(text=alt.Text("text:N"))
    drawn = alt.layer(bars, text).properties(height=max(120, (34 if projector else 24) * 2 * len(steps)),
                                             autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    return figure(drawn, df.drop(columns=["text"]),
                  description=f"{t('class.our_votes.title_text')}: {' '.join(said)}")


def summary_csv(room: Room, tally: Tally) -> str:
    """The class's per-step summary as CSV text: counts per answer (with how many were sure or
    guessing), whether it is correct, the vote's share correct, and the step's share correct in the
    first and second vote (*Our votes*)."""
    rows = summary_rows(room, tally, lambda step, q, i: labels_of(q)[i],
                        lambda step: t(f"lesson.{step_name(step)}.name"))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["step", "name", "vote", "answer", "count", "sure", "guessing",
                                             "correct", "answers", "share_correct", "share_correct_1st",
                                             "share_correct_2nd"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def step_name(step: int) -> str:
    from core import lesson

    return lesson.STEPS[step - 1].name if 1 <= step <= len(lesson.STEPS) else "step"
