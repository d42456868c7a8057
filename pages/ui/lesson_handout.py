"""The lesson's handout: one self-contained HTML file (no script, no network: every chart an inline
SVG rendered here) holding each chosen step's setup, question, choices, chart, answer and take-away,
with print CSS for a PDF from the browser. Built when the teacher asks (*Handout*), in the language of
the page, with the page's settings."""

from __future__ import annotations

from html import escape
from typing import Any

import streamlit as st

from core import lesson
from pages.ui.i18n import current_lang, t
from pages.ui.lesson_chart import step_chart
from pages.ui.lesson_words import choice_label, facts_text, measured_text, method_label

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
@media print { body { margin: 0; max-width: none; } section { break-inside: avoid; page-break-inside: avoid; }
               h2 { break-after: avoid; } a { color: inherit; text-decoration: none; } }
"""


def _fmt(spec: lesson.Step, inputs: dict[str, Any], data: dict[str, Any]) -> dict[str, str]:
    return {"dk": str(inputs.get("dk", "")), "n": str(inputs.get("n", "")),
            "scale": t(f"lesson.scale.{inputs.get('scale', 'log')}"), "rho": f"{inputs.get('rho', 0):g}",
            "method": method_label(inputs.get("method", "qk-norm")), "alpha": f"{lesson.ALPHA_ASKED:g}",
            "factor": f"{inputs.get('factor', 2):g}", "tau": f"{lesson.COSINE_TAU:g}",
            "cap": f"{lesson.SOFTCAP:g}", **facts_text(data["facts"])}


def _section(k: int, spec: lesson.Step, inputs: dict[str, Any]) -> str:
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
            f"<h3>{escape(t(f'lesson.{spec.name}.claim'))}</h3><p>{escape(t(takeaway, **fmt))}</p></section>")


def handout_html(plan: tuple[int, ...], values: dict[str, Any]) -> str:
    """The handout of `plan` (indices into lesson.STEPS) measured with `values` (the page's settings),
    in the current language: one HTML document, every chart an inline SVG."""
    lang = current_lang()
    parts = [_section(k, lesson.STEPS[i], lesson.step_inputs(lesson.STEPS[i], values))
             for k, i in enumerate(plan, start=1)]
    title = escape(t("lesson.handout.title"))
    settings = escape(t("lesson.handout.settings", dk=values.get("dk"), n=values.get("n"),
                        seed=values.get("seed")))
    return (f'<!DOCTYPE html><html lang="{"zh-Hans" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
            f"<style>{CSS}</style></head><body><h1>{title}</h1><p>{settings}</p>{''.join(parts)}</body></html>")


def _prepare(plan: tuple[int, ...], values: dict[str, Any]) -> None:
    st.session_state[HANDOUT_KEY] = ((plan, tuple(sorted(values.items())), current_lang()),
                                     handout_html(plan, values))


def download(plan: tuple[int, ...], values: dict[str, Any], container: Any) -> None:
    """*Handout*: builds the file for this plan and settings (seconds: every step measured and
    rendered), then offers it for download; a changed plan or setting asks again."""
    kept = st.session_state.get(HANDOUT_KEY)
    wanted = (plan, tuple(sorted(values.items())), current_lang())
    if kept is not None and kept[0] == wanted:
        container.download_button(t("lesson.handout"), data=kept[1].encode("utf-8"),
                                  file_name=f"lesson-handout-{current_lang()}.html", mime="text/html",
                                  on_click="ignore", key="lesson_handout_download",
                                  icon=":material/download:", help=t("lesson.handout.help"))
    else:
        container.button(t("lesson.handout"), key="lesson_handout_prepare", icon=":material/description:",
                         on_click=_prepare, args=(plan, values), help=t("lesson.handout.help"))
