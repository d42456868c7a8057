"""Fact-check: every statement of the five notes quoted, re-measured under its own assumptions, and judged;
what cannot be checked is listed with the reason. Doubles as an interview drill with a score.

A card measures nothing until it is opened and asked (drill: answered or skipped); results are cached
by (claim, seed). Verdicts come from core.factcheck: functions of the measured numbers and a stated tolerance.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from core import factcheck as fc
from core.factcheck.quote_text import clean_quote
from pages.ui.chart.charts import dk_axis, layered, show_chart
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import run_with_progress
from pages.ui.controls import page_select, page_toggle
from pages.ui.format import OKABE_ITO, fmt_num, fmt_pct
from pages.ui.i18n import current_lang, t
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import settings
from pages.ui.words import fact_text, point_line, summary_line, unchecked_format

VERDICT_BOX = {"holds": st.success, "partly": st.warning, "fails": st.error}
VERDICT_ICON = {"holds": ":material/check_circle:", "partly": ":material/rule:", "fails": ":material/cancel:"}
RESULTS, DRILL = "fc_results", "fc_drill_answers"  # session: {(seed, id): result}, {id: answer record}

s = settings()
results: dict[tuple[int, str], dict[str, Any]] = st.session_state.setdefault(RESULTS, {})
drill: dict[str, dict[str, Any]] = st.session_state.setdefault(DRILL, {})


def quote(text: str, fmt: str, box: Any) -> None:
    """A quote as the reader sees it: the copy's artefacts removed, its maths shown as maths
    (core.factcheck.quote_text.clean_quote); "plain" and "code" are shown literally."""
    shown = clean_quote(text, fmt)
    if fmt == "code":
        box.code(shown, language=None, wrap_lines=True)
    elif fmt == "plain":
        box.text(shown)
    else:
        box.markdown(shown)


def verbatim(texts: list[str], box: Any) -> None:
    """The quotes exactly as copied from the note, character for character (provenance)."""
    box.caption(t("factcheck.verbatim.caption"))
    for text in texts:
        box.code(text, language=None, wrap_lines=True)


def cleaned(texts: list[tuple[str, str]]) -> list[str]:
    """The quotes among (text, format) that cleaning changes: those whose verbatim text is offered."""
    return [text for text, fmt in texts if clean_quote(text, fmt) != text]


def show_points(r: dict[str, Any]) -> None:
    parts: dict[str, list[str]] = {}
    for p in r["points"]:
        parts.setdefault(p["part"], []).append(point_line(p))
    for part, lines in parts.items():
        if len(parts) > 1:
            st.markdown(f"*{t(f'factcheck.part.{part}', rho=f'{fc.RHO_TRAINED:g}')}*")
        st.markdown("\n".join(f"- {x}" for x in lines))


@figure_cache
def grad_figure(f: dict[str, Any]) -> Figure:
    """Measured median ‖∂L/∂q‖ against the claimed 1/d_k line through the first point."""
    series = (
        (t("factcheck.grad.measured"), f["median"]["none"]),
        (t("factcheck.grad.claimed"), f["claimed_line"]),
        (t("factcheck.grad.scaled"), f["median"]["sqrt"]),
    )
    df = pd.DataFrame(
        [{"series": name, "dk": int(d), "median": v} for name, vals in series for d, v in vals.items()]
    )
    colour = alt.Color(
        "series:N",
        title=t("factcheck.grad.series"),
        legend=alt.Legend(orient="bottom", columns=1, labelLimit=240),
        scale=alt.Scale(domain=[n for n, _ in series], range=[OKABE_ITO[1], "#777777", OKABE_ITO[0]]),
    )
    base = alt.Chart(df).encode(
        x=dk_axis(),
        color=colour,
        y=alt.Y("median:Q", title=t("factcheck.grad.y"), scale=alt.Scale(type="log")),
        tooltip=[
            alt.Tooltip("series:N", title=t("factcheck.grad.series")),
            alt.Tooltip("dk:Q", title="d_k"),
            alt.Tooltip("median:Q", format=".3g"),
        ],
    )
    chart = layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=40)).properties(
        height=240
    )
    return figure(chart, df)


def grad_chart(f: dict[str, Any]) -> None:
    st.markdown(f"**{t('factcheck.grad.chart')}**")  # markdown wraps on a phone; a chart title does not
    show_chart(grad_figure(f), name="factcheck-gradient")


@figure_cache
def qk_figure(f: dict[str, Any], what: str) -> Figure:
    """‖W_Q − W_K‖ (relative, what="rel") or the loss ("loss") over training steps, W_K = W_Q at
    step 0 vs independent."""
    rows = []
    for key, curves in f["curves"].items():
        task, init = key.split("/")
        label = f"{t(f'factcheck.qk.task.{task}')} · {t(f'factcheck.qk.init.{init}')}"
        rows += [{"run": label, "step": i, "what": what, "value": v} for i, v in enumerate(curves[what])]
    part = pd.DataFrame(rows)
    runs = sorted(part["run"].unique())
    chart = (
        alt.Chart(part)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("step:Q", title=t("factcheck.qk.step")),
            y=alt.Y("value:Q", title=t(f"factcheck.qk.{what}")),
            color=alt.Color(
                "run:N",
                title=None,
                scale=alt.Scale(domain=runs, range=list(OKABE_ITO[:4])),
                legend=alt.Legend(orient="bottom", columns=1, labelLimit=240),
            ),
            tooltip=[alt.Tooltip("run:N"), alt.Tooltip("step:Q"), alt.Tooltip("value:Q", format=".3g")],
        )
        .properties(height=170)
    )
    return figure(chart, part)


def qk_chart(f: dict[str, Any]) -> None:
    st.markdown(f"**{t('factcheck.qk.chart')}**")  # markdown wraps on a phone; a chart title does not
    for what in ("rel", "loss"):
        show_chart(qk_figure(f, what), name=f"factcheck-qk-{what}")


CHARTS = {"grad_inverse_dk": grad_chart, "n2_qk_amplified": qk_chart}


def measure(claim: fc.Claim) -> dict[str, Any] | None:
    r = run_with_progress(fc.check, claim_id=claim.id, seed=s.seed)
    if r is not None:
        results[(s.seed, claim.id)] = r
    return r


def drill_form(claim: fc.Claim) -> bool:
    """The reader answers first: a verdict, and a number where the card has one; or skips.
    True once answered or skipped (the form is then cleared and the measurement shown in this run)."""
    slot = st.empty()
    with slot.form(f"fc_form_{claim.id}", border=True):
        st.markdown(f"**{t('factcheck.drill.your_answer')}**")
        labels = {
            v: t(f"factcheck.verdict.{v}") for v in fc.VERDICTS
        }  # formatted now, in this run's language
        choice = st.radio(
            t("factcheck.drill.verdict"),
            fc.VERDICTS,
            index=None,
            key=f"fc_ans_v_{claim.id}",
            format_func=labels.__getitem__,
            horizontal=True,
        )
        number = None
        if claim.answer:
            prompt = claim.answer_zh if current_lang() == "zh" else claim.answer_en
            number = st.number_input(prompt, value=None, format="%g", key=f"fc_ans_n_{claim.id}")
        left, right = st.columns(2)
        answered = left.form_submit_button(t("factcheck.drill.submit"), type="primary")
        skipped = right.form_submit_button(t("factcheck.drill.skip"))
    if answered and choice is None:
        st.warning(t("factcheck.drill.pick"))
        return False
    if not (answered or skipped):
        return False
    drill[claim.id] = {"verdict": choice if answered else None, "number": number if answered else None}
    slot.empty()
    return True


def drill_feedback(claim: fc.Claim, r: dict[str, Any]) -> None:
    """Score the reader's answer once, against this measurement, and say how it went."""
    rec = drill.get(claim.id)
    if not rec or rec.get("verdict") is None:
        return
    if "verdict_ok" not in rec:
        rec["verdict_ok"] = rec["verdict"] == r["verdict"]
        if claim.answer and rec.get("number") is not None:
            rec.update({f"number_{k}": v for k, v in fc.grade(claim.id, r["facts"], rec["number"]).items()})
    ok = rec["verdict_ok"]
    text = t(
        "factcheck.drill.verdict_fb", yours=t(f"factcheck.verdict.{rec['verdict']}"), mark="✓" if ok else "✗"
    )
    if "number_correct" in rec:
        tol = claim.answer_tol
        tol_text = (
            t("factcheck.drill.tol_rel", pct=f"{100 * tol:g}")
            if tol <= 1
            else t("factcheck.drill.tol_factor", f=f"{tol:g}")
        )
        text += " " + t(
            "factcheck.drill.number_fb",
            yours=fmt_num(rec["number"]),
            truth=fmt_num(rec["number_truth"], 3),
            mark="✓" if rec["number_correct"] else "✗",
            tol=tol_text,
        )
    (st.success if ok and rec.get("number_correct", True) else st.info)(text, icon=":material/school:")


def show_result(claim: fc.Claim, r: dict[str, Any]) -> None:
    verdict = t(f"factcheck.verdict.{r['verdict']}")
    if r["kind"] == "measured":
        st.markdown(f"**{t('factcheck.measured_title')}**")
        show_points(r)
        if claim.id in CHARTS:
            CHARTS[claim.id](r["facts"])
        VERDICT_BOX[r["verdict"]](
            t("factcheck.verdict.measured", verdict=verdict), icon=VERDICT_ICON[r["verdict"]]
        )
    else:
        st.info(t("factcheck.verdict.literature", verdict=verdict), icon=":material/menu_book:")
    drill_feedback(claim, r)
    st.markdown(t(f"factcheck.{claim.id}.explain", **fact_text(r["facts"])))
    st.markdown(f"**{t('factcheck.sources')}**")
    st.markdown(
        "\n".join(
            f"- {src.cite} — {src.where} ([arXiv:{src.arxiv}]({src.url}))"
            if src.arxiv
            else f"- {src.cite}" + (f" — {src.where}" if src.where else "")
            for src in claim.sources
        )
    )
    if r["kind"] == "measured":
        params = ", ".join(f"{k} = {v}" for k, v in r["params"].items())
        st.caption(t("factcheck.experiment", call=r["experiment"], params=params, seed=s.seed))


def card(i: int, claim: fc.Claim) -> None:
    box = st.expander(
        f"**{i}.** {t(f'factcheck.{claim.id}.question')}", key=f"fc_card_{claim.id}", on_change="rerun"
    )
    if not box.open:
        return
    with box:
        st.caption(t("factcheck.source", file=claim.note))
        cols = [st, st] if claim.quote_format == "code" else st.columns(2, gap="medium")
        for col, title, text in (
            (cols[0], t("factcheck.original"), claim.quote_zh),
            (cols[1], t("factcheck.english"), claim.quote_en),
        ):
            col.markdown(f"**{title}**")
            quote(text, claim.quote_format, col.container(border=True))
        also_fmt = "plain" if claim.quote_format == "plain" else "markdown"
        if claim.also_zh:
            st.markdown(f"**{t('factcheck.also')}**")
            for zh, en in zip(claim.also_zh, claim.also_en, strict=True):
                quote(zh, also_fmt, st)
                st.caption(en)
        changed = cleaned([(claim.quote_zh, claim.quote_format), *((zh, also_fmt) for zh in claim.also_zh)])
        if changed and st.toggle(t("factcheck.verbatim"), key=f"fc_verbatim_{claim.id}",
                                 help=t("factcheck.verbatim.help")):
            verbatim(changed, st)
        if drill_on and claim.id not in drill and not drill_form(claim):
            return
        r = measure(claim) if claim.kind == "measured" else fc.check(claim.id, s.seed)
        if r is not None:
            show_result(claim, r)


st.title(t("factcheck.title"))
st.markdown(t("factcheck.notes_are"))
with st.expander(t("factcheck.notes_list.title"), icon=":material/description:"):
    st.markdown("\n".join(
        t("factcheck.notes_list.line", note=t(f"factcheck.note.{n.file[:3]}"), zh=n.title_zh, en=n.title_en,
          claims=len(fc.claims_of(n.file[:3])), unchecked=len(fc.unchecked_of(n.file[:3])))
        for n in fc.NOTES))
    st.caption(t("factcheck.notes_list.caption"))
st.markdown(t("factcheck.intro"))
tol = fc.tolerances()
with st.expander(t("factcheck.rules.title"), icon=":material/balance:"):
    st.markdown(
        t(
            "factcheck.rules",
            **{k: f"{v:g}" for k, v in tol.items()},
            uniform_pct=fmt_pct(tol["uniform"]),
            plausible_pct=fmt_pct(tol["plausible"]),
            partly_pct=fmt_pct(tol["partly"]),
        )
    )

note = page_select(
    "fc_note",
    "factcheck.note",
    [n.file[:3] for n in fc.NOTES],
    "000",
    format_func=lambda k: t(f"factcheck.note.{k}"),
)
drill_on = page_toggle("fc_drill", "factcheck.drill.mode", default=True)

score_box = st.container()
st.subheader(t("factcheck.summary.title"))
st.caption(t("factcheck.summary.caption", seed=s.seed))
summary_box = st.container()
if st.button(
    t("factcheck.summary.measure_all", note=note), icon=":material/play_arrow:", key="fc_measure_all"
):
    for c in fc.claims_of(note):
        if c.kind == "measured":
            measure(c)

meta = fc.get_note(note)
st.subheader(t(f"factcheck.note.{note}"))
st.caption(t("factcheck.note.title", zh=meta.title_zh, en=meta.title_en, file=meta.file))
for i, claim in enumerate(fc.claims_of(note), start=1):
    card(i, claim)

st.subheader(t("factcheck.unchecked.title"))
u_fmt = unchecked_format(note)
for u in fc.unchecked_of(note):
    with st.container(border=True):
        quote(u.quote_zh, u_fmt, st)
        st.caption(u.quote_en)
        st.markdown(t("factcheck.unchecked.why", why=u.why_zh if current_lang() == "zh" else u.why_en))
        if changed := cleaned([(u.quote_zh, u_fmt)]):
            verbatim(changed, st.expander(t("factcheck.verbatim")))

what_to_notice("factcheck.notice")
with st.expander(t("factcheck.engineers.title"), icon=":material/terminal:"):
    st.markdown(t("factcheck.engineers.text"))
    st.code(f"python -m core factcheck --note {note} --seed {s.seed} --json", language="bash")

# Filled last, so they count what this run measured and answered too.
scored = [rec for rec in drill.values() if "verdict_ok" in rec]
with score_box:
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.markdown(
        t(
            "factcheck.drill.score",
            right=sum(r["verdict_ok"] + r.get("number_correct", False) for r in scored),
            asked=sum(1 + ("number_correct" in r) for r in scored),
            cards=len(scored),
        )
    )
    right.button(t("factcheck.drill.reset"), disabled=not drill, on_click=drill.clear)
seen = [r for (seed, _), r in results.items() if seed == s.seed]
summary_box.markdown("\n".join(f"- {summary_line(row)}" for row in fc.note_summary(seen)))
