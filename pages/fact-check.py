"""Fact-check: each claim of the notes quoted, re-measured under its own assumptions, and judged.

The verdict comes from core.factcheck: a function of the measured numbers and a stated tolerance.
"""

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from core import factcheck as fc
from pages.ui.charts import (
    OKABE_ITO,
    WIDTH,
    dk_axis,
    fmt_num,
    fmt_pct,
    run_with_progress,
    scale_label,
    show_chart,
    what_to_notice,
)
from pages.ui.controls import settings
from pages.ui.i18n import t

VERDICT_BOX = {"holds": st.success, "partly": st.warning, "fails": st.error}
VERDICT_ICON = {"holds": ":material/check_circle:", "partly": ":material/rule:", "fails": ":material/cancel:"}

s = settings()
st.title(t("factcheck.title"))
st.markdown(t("factcheck.intro"))

tol = fc.tolerances()
with st.expander(t("factcheck.rules.title"), icon=":material/balance:"):
    st.latex(
        r"\text{agrees} \iff |m-c| \;\le\; z\,\sigma_m \;+\; \tfrac12\,10^{-\#\text{digits}(c)}"
        rf" \;+\; \text{{slack}},\qquad z = {tol['z']:g}"
    )
    st.markdown(
        t(
            "factcheck.rules",
            z=f"{tol['z']:g}",
            slope=f"{tol['slope']:g}",
            exponent=f"{tol['exponent']:g}",
            uniform_pct=fmt_pct(tol["uniform"]),
            time=f"{fc.TIME_TOL:g}",
            plausible_pct=fmt_pct(tol["plausible"]),
            partly_pct=fmt_pct(tol["partly"]),
        )
    )

results = run_with_progress(fc.check_all, seed=s.seed)


def where(p: dict[str, Any]) -> str:
    """The condition a point was measured under, in words."""
    if p["quantity"] == "time_ratio":
        return t("factcheck.where.n_d", n=p["n"], d=p["dk"])
    if p["dk"] is None:
        return t("factcheck.where.n", n=p["n"])
    if p["scale"] is None:
        return t("factcheck.where.dk", dk=p["dk"])
    return t("factcheck.where.dk_scale", dk=p["dk"], scale=scale_label(p["scale"]))


def points_table(r: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for p in r["points"]:
        claimed = fmt_num(p["claimed"])
        if p["relation"] == "below":
            claimed = t("factcheck.below", c=claimed)
        elif p["relation"] == "above":
            claimed = t("factcheck.above", c=claimed)
        tolerance = (
            t("factcheck.interval", lo=fmt_num(p["lo"]), hi=fmt_num(p["hi"]))
            if p["relation"] == "within"
            else fmt_num(p["tolerance"], 3)
        )
        rows.append(
            {
                t("factcheck.col.statement"): t(f"factcheck.part.{p['part']}", rho=f"{fc.RHO_TRAINED:g}"),
                t("factcheck.col.quantity"): t(f"factcheck.qty.{p['quantity']}"),
                t("factcheck.col.where"): where(p),
                t("factcheck.col.claimed"): claimed,
                t("factcheck.col.measured"): fmt_num(p["measured"]),
                t("factcheck.col.error"): fmt_num(p["error"], 2),
                t("factcheck.col.tolerance"): tolerance,
                t("factcheck.col.agrees"): t("factcheck.yes") if p["agrees"] else t("factcheck.no"),
            }
        )
    df = pd.DataFrame(rows)
    if all(p["part"] == "main" for p in r["points"]):
        df = df.drop(columns=[t("factcheck.col.statement")])
    return df


def explanation(cid: str, f: dict[str, Any]) -> str:
    """The claim's explanation, filled with the live measurement."""
    key = f"factcheck.{cid}.explain"
    if cid == "sqrt_optimal":
        return t(key, rho=f"{f['rho']:g}", m=fmt_num(f["trained_max"], 3), dk=f["dk_max"])
    if cid == "linear_log":
        return t(
            key,
            tol=fmt_pct(f["uniform_tol"]),
            ln_n=fmt_num(f["ln_n"], 4),
            n=f["n"],
            dk=f["dk_max"],
            h_log=fmt_num(f["entropy_log_max"], 3),
            h_sqrt=fmt_num(f["entropy_sqrt_max"], 3),
            sat_log=fmt_pct(f["saturated_log_max"]),
            sat_sqrt=fmt_pct(f["saturated_sqrt_max"]),
        )
    if cid == "entropy_table":
        trend = t(
            "factcheck.entropy_table.trend_yes" if f["unscaled_falls"] else "factcheck.entropy_table.trend_no"
        )
        return t(key, ln_n=fmt_num(f["ln_n"], 4), trend=trend)
    if cid == "max_weight_print":
        return t(
            key,
            n=f["n"],
            draws=f["draws"],
            outside=f["outside"],
            total=f["total"],
            pct=fmt_pct(f["plausible"]),
        )
    if cid == "grad_inverse_dk":
        return t(
            key,
            slopes=", ".join(fmt_num(x, 3) for x in f["slopes_unscaled"]),
            dk=f["dk_max"],
            median=fmt_num(f["median_unscaled_max"], 2),
            mean=fmt_num(f["mean_unscaled_max"], 2),
            scaled=fmt_num(f["median_scaled_max"], 2),
        )
    if cid == "additive_cost":
        return t(
            key,
            diff=fmt_num(f["max_abs_diff"], 2),
            exp=fmt_num(f["exponent"], 3),
            n=f["n"],
            naive=fmt_num(f["naive_exponent"], 3),
            ratio=fmt_num(f["ratio"], 3),
            tn=f["time_n"],
            td=f["time_d"],
        )
    if cid == "range_3":
        return t(
            key,
            claimed=fmt_pct(f["claimed_fraction"]),
            dk_min=f["dk_min"],
            f_min=fmt_pct(f["fraction_min_dk"]),
            n=f["n"],
            rows=fmt_pct(f["rows_inside_max"]),
            dk=f["dk_max"],
            long_n=f["long_n"],
            long=fmt_pct(f["rows_inside_long_n"]),
        )
    return t(key)


def grad_chart(f: dict[str, Any]) -> None:
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
        scale=alt.Scale(domain=[n for n, _ in series], range=[OKABE_ITO[1], "#777777", OKABE_ITO[0]]),
        legend=alt.Legend(orient="bottom", labelLimit=260),
    )
    base = alt.Chart(df).encode(
        x=dk_axis(),
        y=alt.Y("median:Q", title=t("factcheck.grad.y"), scale=alt.Scale(type="log")),
        color=colour,
        tooltip=[
            alt.Tooltip("series:N", title=t("factcheck.grad.series")),
            alt.Tooltip("dk:Q", title="d_k"),
            alt.Tooltip("median:Q", format=".3g"),
        ],
    )
    chart = alt.layer(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=40)).properties(
        width=WIDTH, height=260, title=alt.TitleParams(t("factcheck.grad.chart"), anchor="start")
    )
    show_chart(chart, df, "factcheck-gradient")


if results is not None:
    by_id = {r["id"]: r for r in results}
    for i, claim in enumerate(fc.CLAIMS, start=1):
        r = by_id[claim.id]
        with st.expander(f"**{i}.** {t(f'factcheck.{claim.id}.question')}", expanded=False):
            st.caption(t("factcheck.seed", seed=claim.seed))
            # code quotes (printed output) need the full width; prose sits side by side
            places = [st, st] if claim.quote_format == "code" else st.columns(2, gap="medium")
            for col, title, quote in (
                (places[0], t("factcheck.original"), claim.quote_zh),
                (places[1], t("factcheck.english"), claim.quote_en),
            ):
                col.markdown(f"**{title}**")
                box = col.container(border=True)
                if claim.quote_format == "code":
                    box.code(quote, language=None)
                else:
                    box.markdown(quote)
            verdict = t(f"factcheck.verdict.{r['verdict']}")
            if r["kind"] == "measured":
                st.markdown(f"**{t('factcheck.measured_title')}**")
                st.dataframe(points_table(r), hide_index=True, width="stretch")
                if claim.id == "grad_inverse_dk":
                    grad_chart(r["facts"])
                VERDICT_BOX[r["verdict"]](
                    t("factcheck.verdict.measured", verdict=verdict), icon=VERDICT_ICON[r["verdict"]]
                )
            else:
                st.info(t("factcheck.verdict.literature", verdict=verdict), icon=":material/menu_book:")
            st.markdown(explanation(claim.id, r["facts"]))
            st.markdown(f"**{t('factcheck.sources')}**")
            st.markdown(
                "\n".join(
                    f"- {src.cite} — {src.where} ([arXiv:{src.arxiv}]({src.url}))"
                    if src.arxiv
                    else f"- {src.cite} — {src.where}"
                    for src in claim.sources
                )
            )
            if r["kind"] == "measured":
                params = ", ".join(f"{k} = {v}" for k, v in r["params"].items())
                st.caption(t("factcheck.experiment", call=r["experiment"], params=params, seed=s.seed))

    with st.expander(t("factcheck.scorecard"), icon=":material/scoreboard:"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        t("factcheck.scorecard.claim"): t(f"factcheck.{r['id']}.question"),
                        t("factcheck.scorecard.verdict"): t(f"factcheck.verdict.{r['verdict']}"),
                        t("factcheck.scorecard.kind"): t(f"factcheck.kind.{r['kind']}"),
                    }
                    for r in results
                ]
            ),
            hide_index=True,
            width="stretch",
        )

what_to_notice("factcheck.notice")
