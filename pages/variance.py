"""Why the dot product grows: Var(q·k) = d_k, histograms with theory, variance vs d_k, correlated q, k."""

import altair as alt
import pandas as pd
import streamlit as st

from core import figure_budget, views
from core.page_claims import variance as claims
from core.sampling import DISTRIBUTIONS
from core.scales import parse_scale
from pages.ui.chart.charts import (
    SMALL_HEIGHT,
    WIDTH,
    dk_axis,
    dk_rule,
    layered,
    show_chart,
    side_by_side,
    with_scale_labels,
)
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import cached, run_with_progress
from pages.ui.controls import page_expander, page_select, page_slider, page_toggle
from pages.ui.format import OKABE_ITO, SCALE_COLOURS, fmt_num, scale_colours, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, metric_row
from pages.ui.sidebar import settings

HIST_COLUMNS = ["kind", "x0", "x1", "x", "density", "theory"]


@figure_cache
def histogram_figure(rows: list[dict], dk: int, scale: str) -> Figure:
    """Raw and scaled scores side by side, each with its normal approximation."""
    hist = pd.DataFrame(rows, columns=HIST_COLUMNS)
    panels = []
    for kind, x_title in (("raw", t("variance.hist.raw")), ("scaled", t("variance.hist.scaled"))):
        base = alt.Chart(hist[hist["kind"] == kind])
        bars = base.mark_bar(color=OKABE_ITO[5]).encode(
            x=alt.X("x0:Q", title=x_title), x2=alt.X2("x1:Q"),
            y=alt.Y("density:Q", title=t("variance.hist.density")), y2=alt.datum(0),
            tooltip=[alt.Tooltip("x0:Q", format=".3g", title="≥"),
                     alt.Tooltip("x1:Q", format=".3g", title="<"),
                     alt.Tooltip("density:Q", format=".3g", title=t("variance.hist.density")),
                     alt.Tooltip("theory:Q", format=".3g", title=t("variance.hist.theory"))])
        line = base.mark_line(color="#000000", strokeWidth=2).encode(x=alt.X("x:Q"), y=alt.Y("theory:Q"))
        panels.append(layered(bars, line).properties(width=WIDTH - 40, height=SMALL_HEIGHT))
    chart = side_by_side(*panels).properties(
        title=alt.TitleParams(t("variance.hist.title", dk=dk, scale=scale_label(scale)), anchor="start"))
    return figure(chart, hist)


def _colour(scales: list[str]) -> alt.Color:
    return alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                     legend=alt.Legend(orient="bottom", columns=3, labelLimit=260))


def _labelled(rows: list[dict], scales: list[str], reference: str | None) -> tuple[pd.DataFrame, alt.Color]:
    """Rows with their legend labels and the colour channel; the `reference` scale (drawn for comparison,
    not among the sidebar's scales) is labelled as such in the legend, keeping its scale's colour."""
    df = with_scale_labels(rows)
    if reference is None:
        return df, _colour(scales)
    labels = {x: scale_label(x) for x in scales}
    labels[reference] = t("variance.sweep.reference", scale=scale_label(reference))
    df["scale_label"] = df["scale"].map(labels)
    colours = alt.Scale(domain=[labels[x] for x in scales],
                        range=[SCALE_COLOURS.get(parse_scale(x).kind, OKABE_ITO[6]) for x in scales])
    return df, alt.Color("scale_label:N", title=t("common.legend.scale"), scale=colours,
                         legend=alt.Legend(orient="bottom", columns=3, labelLimit=260))


@figure_cache
def variance_sweep_figure(rows: list[dict], scales: list[str], dk: int, reference: str | None = None
                          ) -> Figure:
    """Var of the scaled score vs d_k: measured points, the theory line, a confidence band; `reference`
    a scale drawn for comparison only (labelled so in the legend)."""
    df, colour = _labelled(rows, scales, reference)
    base = alt.Chart(df).encode(x=dk_axis(), color=colour)
    y = alt.Y("var_scaled:Q", title=t("variance.sweep.y"), scale=alt.Scale(type="log"))
    tips = [alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
            alt.Tooltip("dk:Q", title="d_k"),
            alt.Tooltip("var_scaled:Q", format=".4g", title=t("variance.measured")),
            alt.Tooltip("theory_var_scaled:Q", format=".4g", title=t("variance.theory"))]
    chart = layered(
        base.mark_area(opacity=0.18).encode(y=alt.Y("band_lo:Q", title=t("variance.sweep.y"),
                                                    scale=alt.Scale(type="log")), y2=alt.Y2("band_hi:Q")),
        base.mark_line(strokeDash=[5, 4], strokeWidth=1.5).encode(y=alt.Y("theory_var_scaled:Q")),
        base.mark_point(filled=True, size=40).encode(y=y, tooltip=tips),
        dk_rule(dk),
    ).properties(width=WIDTH, height=300, title=alt.TitleParams(t("variance.sweep.title"), anchor="start"))
    return figure(chart, df[["dk", "scale", "var_raw", "var_raw_se", "var_scaled", "theory_var_scaled",
                             "band_lo", "band_hi"]])


@figure_cache
def mean_figure(rows: list[dict], scales: list[str], dk: int, rho: float, reference: str | None = None
                ) -> Figure:
    """Mean of the scaled score vs d_k when q and k are correlated, with its theory line."""
    df, colour = _labelled(rows, scales, reference)
    base = alt.Chart(df).encode(x=dk_axis(), color=colour)
    y = alt.Y("mean_scaled:Q", title=t("variance.mean.y"), scale=alt.Scale(type="log"))
    tips = [alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
            alt.Tooltip("dk:Q", title="d_k"),
            alt.Tooltip("mean_scaled:Q", format=".4g", title=t("variance.measured")),
            alt.Tooltip("theory_mean_scaled:Q", format=".4g", title=t("variance.theory"))]
    chart = layered(
        base.mark_line(strokeDash=[5, 4], strokeWidth=1.5).encode(y=alt.Y("theory_mean_scaled:Q")),
        base.mark_point(filled=True, size=40).encode(y=y, tooltip=tips),
        dk_rule(dk),
    ).properties(width=WIDTH, height=300,
                 title=alt.TitleParams(t("variance.mean.title", rho=f"{rho:g}"), anchor="start"))
    return figure(chart, df[["dk", "scale", "mean_raw", "mean_scaled", "theory_mean_scaled"]])


def figures(statement: claims.Statement) -> dict[str, object]:
    """A statement's measured figures, formatted as the page formats numbers."""
    return {k: fmt_num(x) if isinstance(x, float) else x for k, x in statement.values.items()}


def say(statement: claims.Statement, prefix: str, **extra: object) -> str:
    """A statement's wording (`prefix.kind`) with its figures."""
    return t(f"{prefix}.{statement.kind}", **{**figures(statement), **extra})


def slope_text(x: float) -> str:
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text


s = settings()
head = st.container()  # title and rule, worded once the page has measured (core/page_claims/variance.py)
# Each \qquad part fits a phone's width, so a formula wraps between parts, never inside one.
formula(r"\operatorname{Var}(c\,X)=c^2\operatorname{Var}(X),"
        r"\qquad \operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k,"
        r"\qquad k=\rho\,q+\sqrt{1-\rho^2}\,z:"
        r"\qquad \mathbb{E}[q\cdot k]=\rho\,d_k,"
        r"\qquad \operatorname{Var}(q\cdot k)=d_k(1+\rho^2)")
st.markdown(t("variance.why"))
st.caption(t("variance.symbols"))

c1, c2 = st.columns(2)
rho = page_slider("var_rho", "variance.rho", 0.0, 1.0, 0.0, step=0.05, help_key="variance.rho_help",
                  container=c1)
dist = page_select("var_dist", "variance.dist", DISTRIBUTIONS, "normal", option_prefix="variance.dist",
                   container=c2)

# 1/d_k is always measured: its rows come from the same samples (Var(c·q·k) = c²·Var(q·k), core.views),
# so the √d_k-vs-d_k contrast can be drawn whatever the sidebar's scales; it is labelled as a comparison.
reference = None if "linear" in s.scales else "linear"
view = run_with_progress(views.variance_view, dks=figure_budget.sweep_dks(s.dk),
                         n=s.n, scales=[*s.scales, *([reference] if reference else [])], trials=s.trials,
                         seed=s.seed, rho=rho, dist=dist, backend=s.backend, dtype=s.dtype)
if view is None:
    head.title(t("variance.title"))
else:
    title = claims.title(view)
    head.title(t("variance.title" if title.kind == claims.GROWS else "variance.title.fixed"))
    rule = claims.rule(view, s.dk)
    head.markdown(say(rule, "variance.rule", rho=f"{rho:g}",
                      factor=fmt_num(rule.values["sqrt_theory"])))
    agreement = claims.agreement(view, s.dk)
    sep = "" if s.lang == "zh" else " "  # sentences follow each other without a space in Chinese
    noise = "" if rule.kind == claims.FIXED else \
        sep + say(agreement, "variance", z=fmt_num(agreement.values["z_abs"], 2))
    head.markdown(t("variance.numbers", **figures(rule)) + noise)
    here = views.at_dk(view, s.dk)
    for name in here["skipped"]:
        st.caption(t("common.scale.skipped", scale=scale_label(name), dk=s.dk))
    at = [r for r in here["rows"] if r["scale"] in s.scales]
    if at:
        metrics = metric_row()
        metrics.metric(t("variance.metric.var_raw"), fmt_num(at[0]["var_raw"]))
        metrics.metric(t("variance.metric.theory"), fmt_num(at[0]["theory_var"]))
        for row in at:
            label = t("variance.metric.var_scaled", scale=scale_label(row["scale"]))
            metrics.metric(label, fmt_num(row["var_scaled"]))

    # Histograms: raw and scaled side by side, each with its normal approximation.
    defined = [x for x in s.scales if x in view["scales"] and x not in here["skipped"]] or ["none"]
    hist_scale = "sqrt" if "sqrt" in defined else defined[0]
    samples = cached(views.score_samples, dk=s.dk, scale=hist_scale, samples=min(view["samples"], 20000),
                     seed=s.seed, rho=rho, dist=dist)
    show_chart(histogram_figure(samples["rows"] if samples else [], s.dk, hist_scale),
               name="variance-histogram")
    st.caption(t("variance.hist.caption", samples=min(view["samples"], 20000)))

    left, right = st.columns(2, gap="medium")
    with left:
        sweep_box = st.container()
        compare = page_toggle("var_linear", "variance.linear", default=True, shown=reference is not None,
                              help_key="variance.linear_help")
        shown = [x for x in view["scales"] if x in s.scales or (x == reference and compare)]
        drawn = [r for r in view["rows"] if r["scale"] in shown]
        ref = reference if reference in shown else None
        sweep_box_fig = variance_sweep_figure(drawn, shown, s.dk, ref)
        with sweep_box:
            show_chart(sweep_box_fig, name="variance-sweep")
            st.caption(t("variance.sweep.caption"))
            if ref is not None:
                st.caption(t("variance.sweep.reference_note"))
    with right:
        if rho > 0:
            show_chart(mean_figure(drawn, shown, s.dk, rho, ref), name="variance-mean")
            st.caption(t("variance.mean.caption"))
        else:
            st.info(t("variance.mean.zero"), icon=":material/tune:")
            st.caption(t("variance.mean.caption"))

    items = [t(f"variance.notice.slope.{x.kind}", scale=scale_label(x.values["scale"]),
               slope=slope_text(x.values["slope"]), theory=slope_text(x.values["theory"]))
             for x in claims.slopes(view) if x.values["scale"] in shown]
    notice = [t("variance.notice.slopes", items=t("variance.notice.sep").join(items))] if items else []
    level = claims.scaled_level(view)
    if level.kind != claims.ABSENT and "sqrt" in shown:
        notice.append(say(level, "variance.notice"))
    shape = claims.shape(view)
    notice.append(say(shape, "variance.notice", rho=f"{rho:g}"))
    st.info(f"**{t('common.what_to_notice')}** — {sep.join(notice)}", icon=":material/visibility:")

more, more_open = page_expander("var_more", "variance.more")
if more_open:
    with more:
        for part in ("kappa", "sampling", "band", "mup"):
            st.markdown(t(f"variance.more.{part}"))
