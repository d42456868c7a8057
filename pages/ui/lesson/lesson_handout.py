"""The lesson's handout: one self-contained HTML file (no script, no network: every chart an inline
SVG rendered here) holding each chosen step's setup, question, choices, chart, answer and take-away,
with print CSS for a PDF from the browser. Built when the teacher asks (*Handout*), in the language of
the page, with the page's settings.

From a live class (the teacher's page of a room), each step the room answered also holds the room's
results, read from the room's stored answers (server.rooms `tally`, server.room_votes `our_votes`):
the share correct of the first and the second vote (correct answers ÷ answers) and the answers per
choice with how many tapped sure or guessing; that step is measured with the room's question's
inputs, so its choices are the ones the room answered. A phone never builds a handout."""

from __future__ import annotations

from html import escape
from typing import Any

import streamlit as st

from core import lesson
from pages.ui.i18n import current_lang, t
from pages.ui.lesson.lesson_chart import step_chart
from pages.ui.words import choice_label, facts_text, labels_of, measured_text, method_label, pct_text
from server import shared
from server.room_state import Room, Tally
from server.room_votes import our_votes

HANDOUT_KEY = "lesson_handout_html"
HANDOUT_CHART_WIDTH = 560  # px of the plot in the file; the page scales it to the paper's width
CSS = """
body { font-family: system-ui, "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; max-width: 52rem;
       margin: 1.5rem auto; padding: 0 1rem; color: #111; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2rem; } h3 { font-size: 1.1rem; }
section { border-top: 1px solid #999; padding-top: .5rem; }
figure { margin: .5rem 0; } figure svg { width: 100%; max-width: 44rem; height: auto; }
figcaption { font-size: .85rem; color: #333; }
.answer { font-weight: 600; }
.room table { border-collapse: collapse; } .room th, .room td { border: 1px solid #999; padding: .2rem .5rem;
                                                               text-align: left; }
.room td.count { text-align: right; font-variant-numeric: tabular-nums; }
@media print { body { margin: 0; max-width: none; } section { break-inside: avoid; page-break-inside: avoid; }
               h2 { break-after: avoid; } a { color: inherit; text-decoration: none; } }
"""


def _fmt(spec: lesson.Step, inputs: dict[str, Any], data: dict[str, Any]) -> dict[str, str]:
    return {"dk": str(inputs.get("dk", "")), "n": str(inputs.get("n", "")),
            "scale": t(f"lesson.scale.{inputs.get('scale', 'log')}"), "rho": f"{inputs.get('rho', 0):g}",
            "method": method_label(inputs.get("method", "qk-norm")), "alpha": f"{lesson.ALPHA_ASKED:g}",
            "factor": f"{inputs.get('factor', 2):g}", "tau": f"{lesson.COSINE_TAU:g}",
            "cap": f"{lesson.SOFTCAP:g}", **facts_text(data["facts"])}


def room_results(room: Room, tally: Tally) -> dict[int, dict[str, Any]]:
    """Per step the room answered (its number in lesson.STEPS, 1-based): the room's question's
    inputs and choices' labels, the correct choices, the first and second vote's share correct and
    number of answers (server.room_votes.our_votes), and per vote the answers per choice with each
    choice's (sure, guessing) split (server.rooms Rooms.tally)."""
    out: dict[int, dict[str, Any]] = {}
    for row in our_votes(room, tally):
        step = row["step"]
        q = room.questions[step]
        votes, none = (1, 2) if q.vote == 2 else (1,), len(q.choices)
        out[step] = {**row, "inputs": dict(q.inputs), "labels": labels_of(q), "correct": tuple(q.correct),
                     "counts": {v: list(tally.counts.get((step, v)) or [0] * none) for v in votes},
                     "split": {v: [tuple(x) for x in tally.confidence.get((step, v)) or [(0, 0)] * none]
                               for v in votes}}
    return out


def _vote_line(result: dict[str, Any]) -> str:
    parts = []
    for v, share, answers in ((1, result["first"], result["answers_first"]),
                              (2, result["second"], result["answers_second"])):
        if v in result["counts"]:
            pct = "–" if share is None else pct_text(share)
            parts.append(t("lesson.handout.room.vote", vote=t(f"lesson.handout.room.vote{v}"), pct=pct,
                           n=answers))
    return " · ".join(parts)


def _count_cell(n: int, split: tuple[int, int]) -> str:
    sure, guessing = split
    if not sure and not guessing:
        return str(n)
    return t("lesson.handout.room.count", n=n, sure=sure, guessing=guessing)


def _results_html(result: dict[str, Any]) -> str:
    """The room's results of one step: the share correct per vote, then a table of answers per choice
    (the correct one marked in words, not by colour)."""
    votes = sorted(result["counts"])
    head = "".join(f"<th>{escape(t(f'lesson.handout.room.vote{v}'))}</th>" for v in votes)
    rows = []
    for i, label in enumerate(result["labels"]):
        mark = f" ({t('lesson.handout.room.correct')})" if i in result["correct"] else ""
        cells = "".join('<td class="count">'
                        f'{escape(_count_cell(result["counts"][v][i], result["split"][v][i]))}</td>'
                        for v in votes)
        rows.append(f"<tr><td>{escape(label + mark)}</td>{cells}</tr>")
    return (f'<div class="room"><h3>{escape(t("lesson.handout.room"))}</h3>'
            f"<p>{escape(_vote_line(result))}</p>"
            f'<table><thead><tr><th>{escape(t("lesson.handout.room.answer"))}</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _section(k: int, spec: lesson.Step, inputs: dict[str, Any], result: dict[str, Any] | None = None) -> str:
    data = spec.compute(**inputs)
    q, fmt = data["question"], _fmt(spec, inputs, data)
    kind = q.get("format", "num")
    labels = [choice_label(c, kind) for c in q["choices"]]
    fig = step_chart(data["chart"], True, False, HANDOUT_CHART_WIDTH)
    svg = fig.export.svg()
    takeaway = "lesson.gradients.takeaway_nocross" if spec.name == "gradients" and \
        data["facts"].get("cross") is None else f"lesson.{spec.name}.takeaway"
    choices = "".join(f"<li>{escape(label)}</li>" for label in labels)
    answer = f"{t('lesson.handout.answer')}: {labels[q['correct'][0]]} · " \
             f"{t('lesson.handout.measured')}: {measured_text(q['value'], kind)}"
    return (f'<section id="step-{k}"><h2>{k}. {escape(t(f"lesson.{spec.name}.name"))}</h2>'
            f"<p>{escape(t(f'lesson.{spec.name}.setup', **fmt))}</p>"
            f"<p><strong>{escape(t(f'lesson.{spec.name}.question', **fmt))}</strong></p>"
            f'<ol type="a">{choices}</ol>'
            f"<figure>{svg}<figcaption>{escape(t('lesson.handout.chart', desc=fig.description))}"
            "</figcaption></figure>"
            f'<p class="answer">{escape(answer)}</p>'
            f"{_results_html(result) if result else ''}"
            f"<h3>{escape(t(f'lesson.{spec.name}.claim'))}</h3><p>{escape(t(takeaway, **fmt))}</p></section>")


def handout_html(plan: tuple[int, ...], values: dict[str, Any],
                 results: dict[int, dict[str, Any]] | None = None) -> str:
    """The handout of `plan` (indices into lesson.STEPS) measured with `values` (the page's settings),
    in the current language: one HTML document, every chart an inline SVG. With a room's `results`
    (`room_results`), each step the room answered is measured with the room's inputs and holds the
    room's numbers."""
    lang = current_lang()
    results = results or {}
    parts = []
    for k, i in enumerate(plan, start=1):
        result = results.get(i + 1)
        inputs = result["inputs"] if result else lesson.step_inputs(lesson.STEPS[i], values)
        parts.append(_section(k, lesson.STEPS[i], inputs, result))
    title = escape(t("lesson.handout.title"))
    settings = escape(t("lesson.handout.settings", dk=values.get("dk"), n=values.get("n"),
                        seed=values.get("seed")))
    return (f'<!DOCTYPE html><html lang="{"zh-Hans" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
            f"<style>{CSS}</style></head><body><h1>{title}</h1><p>{settings}</p>{''.join(parts)}</body></html>")


def class_results(code: str | None) -> dict[int, dict[str, Any]] | None:
    """The live room's results (`room_results`), read from the room's stored answers; None without a
    room (or once it is gone)."""
    if not code:
        return None
    room, _ = shared.ROOMS.get(code)
    return None if room is None else room_results(room, shared.ROOMS.tally(room))


def _prepare(plan: tuple[int, ...], values: dict[str, Any], results: dict[int, dict[str, Any]] | None,
             wanted: tuple) -> None:
    st.session_state[HANDOUT_KEY] = (wanted, handout_html(plan, values, results))


def download(plan: tuple[int, ...], values: dict[str, Any], container: Any, room: str | None = None) -> None:
    """*Handout*: builds the file for this plan and settings (seconds: every step measured and
    rendered), then offers it for download; a changed plan or setting asks again. `room`: the live
    class's code on the teacher's page (its results go in, and a new answer asks again); never a
    phone's."""
    kept = st.session_state.get(HANDOUT_KEY)
    results = class_results(room)
    wanted = (plan, tuple(sorted(values.items())), current_lang(), repr(results))
    help_key = "lesson.handout.help_class" if results is not None else "lesson.handout.help"
    if kept is not None and kept[0] == wanted:
        container.download_button(t("lesson.handout"), data=kept[1].encode("utf-8"),
                                  file_name=f"lesson-handout-{current_lang()}.html", mime="text/html",
                                  on_click="ignore", key="lesson_handout_download",
                                  icon=":material/download:", help=t(help_key))
    else:
        container.button(t("lesson.handout"), key="lesson_handout_prepare", icon=":material/description:",
                         on_click=_prepare, args=(plan, values, results, wanted),
                         help=t(help_key))
