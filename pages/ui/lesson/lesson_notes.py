"""The lesson's speaker notes, for the teacher's screen only (never a phone, never the locked view):
minutes per phase, the wrong answer the notes lead a room to and the note it comes from, each other
wrong choice's misconception, and what to say at the reveal."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core import lesson
from pages.ui.i18n import t
from pages.ui.words import choice_label


def _why(key: str, spec: lesson.Step) -> str:
    note = spec.wrong.get(key, "")
    why = t(f"lesson.wrong.{key}")
    return f"{why} {t('lesson.notes.source', note=note)}" if note else why


def speaker_notes(spec: lesson.Step, plan: tuple[int, ...], q: dict[str, Any], kind: str) -> None:
    """The notes of step `spec` in the sidebar, in a closed expander (the projector shows the page)."""
    labels = {c["key"]: choice_label(c, kind) for c in q["choices"]}
    minutes = {name: f"{m:g}" for name, m in lesson.PHASES}
    with st.sidebar.expander(t("lesson.notes.title"), icon=":material/speaker_notes:"):
        st.caption(t("lesson.notes.phases", **minutes, total=f"{lesson.plan_minutes(plan):g}", k=len(plan)))
        if spec.expected in labels:
            why = _why(spec.expected, spec)
            st.markdown(t("lesson.notes.expected", choice=labels[spec.expected], why=why))
        for key in spec.wrong:
            if key != spec.expected and key in labels:
                st.markdown("- " + t("lesson.notes.wrong", choice=labels[key], why=_why(key, spec)))
        st.markdown(t("lesson.notes.say", say=t(f"lesson.{spec.name}.say")))
