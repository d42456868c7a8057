"""Additive vs dot-product attention: the cost, modelled and measured (docs/science.md §3f).

Controls → one call to core.cost.explore (cached, with a progress bar) → log–log charts of time
vs n and vs d with fitted exponents, the additive/dot ratio, GFLOP/s against the machine's limits,
and the FLOP/memory model next to the clock.
"""

import math

import altair as alt
import pandas as pd
import streamlit as st

from core import cost
from core.page_claims.cost import judge_prediction
from pages.ui.chart.charts import HEIGHT, WIDTH, layered, show_chart
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import run_when_asked
from pages.ui.controls import asked_work_settings, columns_when, page_select, page_slider, page_toggle
from pages.ui.format import COLOUR_STYLES, OKABE_ITO, fmt_num
from pages.ui.i18n import t
from pages.ui.layout import formula, preload_chart_code, show_table
from pages.ui.notices import what_to_notice
from pages.ui.sidebar import device_text, settings
from pages.ui.url_state import page_value, parse_flag

N_RANGES = ("64-512", "128-1024", "256-2048", "512-4096")
D_RANGES = ("8-64", "16-128", "32-256", "64-512")
DH_OPTIONS = ("d", "16", "32", "64", "128", "256")
# The reader's prediction of time(additive) ÷ time(dot-product) at the largest n ("none": not made).
GUESSES = ("none", "1", "2", "5", "10", "30", "100", "300")
# Streamlit sizes a chart's whole box (legend and axes included) to the spec's height, so charts
# with a legend below get extra height to keep a HEIGHT-tall plot.
CHART_HEIGHT = HEIGHT + 130
APP_TIME_BUDGET_S = 60.0  # estimated seconds (core.budget's model) one sweep may take in the app
# One fixed Okabe–Ito colour per series, torch in the lighter shade of its family.
SERIES_COLOURS = {"dot": OKABE_ITO[0], "additive": OKABE_ITO[1], "additive-naive": OKABE_ITO[3],
                  "dot (torch)": OKABE_ITO[5], "additive (torch)": OKABE_ITO[4]}
# …and one fixed marker shape per series (colour is not the only channel; format.COLOUR_STYLES).
SERIES_SHAPES = {s: COLOUR_STYLES[c.upper()][1] for s, c in SERIES_COLOURS.items()}


CEILING_DASH = [2, 6]  # sparse dots: unlike any series' dash (format.DASHES)
LEGEND = alt.Legend(orient="bottom", columns=2, labelLimit=230, symbolStrokeWidth=3)


def series_label(impl: str, engine: str) -> str:
    name = t(f"cost.impl.{impl}")
    return t("cost.impl.torch", impl=name) if engine == "torch" else name


def colour_scale(df: pd.DataFrame) -> alt.Scale:
    pairs = df[["series", "label"]].drop_duplicates()
    order = [s for s in SERIES_COLOURS if s in set(pairs["series"])]
    labels = dict(zip(pairs["series"], pairs["label"], strict=True))
    return alt.Scale(domain=[labels[s] for s in order], range=[SERIES_COLOURS[s] for s in order])


def shape_scale(df: pd.DataFrame) -> alt.Scale:
    """The series' marker shapes over the same labels as colour_scale."""
    pairs = df[["series", "label"]].drop_duplicates()
    order = [s for s in SERIES_SHAPES if s in set(pairs["series"])]
    labels = dict(zip(pairs["series"], pairs["label"], strict=True))
    return alt.Scale(domain=[labels[s] for s in order], range=[SERIES_SHAPES[s] for s in order])


def log2_x(field: str, title: str, values: list[int]) -> alt.X:
    return alt.X(f"{field}:Q", title=title, scale=alt.Scale(type="log", base=2),
                 axis=alt.Axis(values=values, format="d", labelFlush=True))


def time_chart(df: pd.DataFrame, x: str, x_title: str, values: list[int], title: str) -> alt.LayerChart:
    """Median seconds per series on log–log axes; min–max bars; extrapolated points hollow and dashed.
    Each series has its own marker shape, in the colour's legend."""
    colour = alt.Color("label:N", title=None, scale=colour_scale(df), legend=LEGEND)
    tips = [alt.Tooltip("label:N", title=t("cost.legend.series")), alt.Tooltip("n:Q", title="n"),
            alt.Tooltip("d:Q", title="d"), alt.Tooltip("d_h:Q", title="d_h"),
            alt.Tooltip("seconds:Q", title=t("cost.col.seconds"), format=".3e"),
            alt.Tooltip("seconds_lo:Q", title=t("cost.tip.lo"), format=".3e"),
            alt.Tooltip("seconds_hi:Q", title=t("cost.tip.hi"), format=".3e"),
            alt.Tooltip("repeats:Q", title=t("cost.repeats.label")),
            alt.Tooltip("kind:N", title=t("cost.legend.kind"))]
    base = alt.Chart(df).encode(x=log2_x(x, x_title, values),
                                y=alt.Y("seconds:Q", title=t("cost.axis.seconds"),
                                        scale=alt.Scale(type="log")),
                                color=colour, tooltip=tips)
    solid = base.transform_filter("datum.measured").mark_line(strokeWidth=2)
    dashed = base.transform_filter("!datum.measured || datum.anchor").mark_line(strokeWidth=2,
                                                                              strokeDash=[6, 4])
    # min–max of the repeats; an extrapolation's prediction interval is in its tooltip only (from
    # three noisy points it can span decades and would flatten the chart)
    bars = base.transform_filter("datum.measured").mark_rule(strokeWidth=1.5).encode(
        y=alt.Y("seconds_lo:Q"), y2=alt.Y2("seconds_hi:Q"))
    points = base.mark_point(size=40).encode(
        shape=alt.Shape("label:N", title=None, scale=shape_scale(df), legend=LEGEND),
        fill=alt.condition("datum.measured", "label:N", alt.value("white"), scale=colour_scale(df),
                           legend=None))
    return layered(solid, dashed, bars, points).properties(
        width=WIDTH, height=CHART_HEIGHT, title=alt.TitleParams(title, anchor="start", fontSize=14))


def ratio_chart(df: pd.DataFrame, values: list[int]) -> alt.LayerChart:
    """time(additive)/time(dot) per series vs n, measured (solid) beside the FLOP model (dotted)."""
    long = df.melt(id_vars=["label", "series", "n", "kind"], value_vars=["ratio", "flop_ratio"],
                   var_name="what", value_name="value")
    long["what"] = long["what"].map({"ratio": t("cost.ratio.time"), "flop_ratio": t("cost.ratio.flops")})
    base = alt.Chart(long).encode(
        x=log2_x("n", t("cost.axis.n"), values),
        y=alt.Y("value:Q", title=t("cost.axis.ratio"), scale=alt.Scale(type="log")),
        color=alt.Color("label:N", title=None, scale=colour_scale(df), legend=LEGEND),
        detail=alt.Detail("what:N"),
        tooltip=[alt.Tooltip("label:N", title=t("cost.legend.series")), alt.Tooltip("n:Q", title="n"),
                 alt.Tooltip("what:N", title=t("cost.ratio.kind")),
                 alt.Tooltip("value:Q", title=t("cost.axis.ratio"), format=".3g"),
                 alt.Tooltip("kind:N", title=t("cost.legend.kind"))])
    one = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(color="#777777").encode(y=alt.Y("y:Q"))
    title = alt.TitleParams(t("cost.chart.ratio"), anchor="start", fontSize=14)
    dash = alt.StrokeDash("what:N", title=None,
                          scale=alt.Scale(domain=[t("cost.ratio.time"), t("cost.ratio.flops")],
                                          range=[[1, 0], [2, 3]]),
                          legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=200,
                                            symbolType="stroke", symbolStrokeColor="#555555",
                                            symbolStrokeWidth=2, symbolSize=300))
    lines = base.mark_line(strokeWidth=2).encode(strokeDash=dash)
    return layered(lines, base.mark_point(filled=True, size=30), one).properties(
        width=WIDTH, height=CHART_HEIGHT, title=title)


def gflops_chart(df: pd.DataFrame, peak: dict, values: list[int]) -> alt.LayerChart:
    """Achieved GFLOP/s per series vs n; the measured matmul peak (and datasheet FP32 on GPU) as rules;
    the tanh-bound ceiling of our additive implementation dashed."""
    palette = colour_scale(df)
    colour = alt.Color("label:N", title=None, scale=palette, legend=LEGEND)
    x = log2_x("n", t("cost.axis.n"), values)
    y = alt.Y("gflops_per_s:Q", title=t("cost.axis.gflops"), scale=alt.Scale(type="log"))
    tips = [alt.Tooltip("label:N", title=t("cost.legend.series")), alt.Tooltip("n:Q", title="n"),
            alt.Tooltip("gflops_per_s:Q", title="GFLOP/s", format=".3g"),
            alt.Tooltip("bound_gflops_per_s:Q", title=t("cost.col.of_bound"), format=".3g"),
            alt.Tooltip("kind:N", title=t("cost.legend.kind"))]
    base = alt.Chart(df).encode(x=x, y=y, color=colour, tooltip=tips)
    # the lines' dashes set here (each colour's own, format.COLOUR_STYLES) with no legend of their
    # own: the points' legend names the series, and the ceiling's dash keeps its own scale
    dash_of = alt.Scale(domain=palette.domain,
                        range=[list(COLOUR_STYLES[c.upper()][0]) for c in palette.range])
    lines = base.mark_line(strokeWidth=2).encode(
        strokeDash=alt.StrokeDash("label:N", scale=dash_of, legend=None))
    points = base.mark_point(filled=True, size=30)
    # the ceiling named by a legend entry of its own (a dash), not a label on the plot: where the
    # measured lines run depends on the machine, so a label there could be crossed by one
    name = t("cost.peak.ceiling")
    additive = df[df["series"] == "additive"].assign(ceiling=name)
    dash = alt.StrokeDash("ceiling:N", title=None, scale=alt.Scale(domain=[name], range=[CEILING_DASH]),
                          legend=alt.Legend(orient="bottom", labelLimit=230, symbolStrokeWidth=3,
                                            symbolStrokeColor=OKABE_ITO[1], symbolType="stroke"))
    ceiling = alt.Chart(additive).mark_line(color=OKABE_ITO[1]).encode(
        x=x, y=alt.Y("bound_gflops_per_s:Q"), strokeDash=dash,
        tooltip=[alt.Tooltip("bound_gflops_per_s:Q", title=name, format=".3g")])
    rules = [{"y": peak["gemm_flops_per_s"] / 1e9,
              "text": t("cost.peak.gemm", gflops=fmt_num(peak["gemm_flops_per_s"] / 1e9, 3),
                        n=peak["gemm_size"])}]
    if peak.get("fp32_flops_per_s"):
        rules.append({"y": peak["fp32_flops_per_s"] / 1e9,
                      "text": t("cost.peak.fp32", gflops=fmt_num(peak["fp32_flops_per_s"] / 1e9, 3))})
    rule_df = pd.DataFrame(rules)
    rule = alt.Chart(rule_df).mark_rule(color="#333333", strokeDash=[2, 2]).encode(
        y=alt.Y("y:Q"), tooltip=alt.Tooltip("text:N"))
    label = alt.Chart(rule_df).mark_text(align="left", dx=4, dy=-7, fontSize=11, color="#333333").encode(
        y=alt.Y("y:Q"), text=alt.Text("text:N"), x=alt.value(0))
    title = alt.TitleParams(t("cost.chart.gflops"), anchor="start", fontSize=14)
    return layered(lines, points, ceiling, rule, label).properties(
        width=WIDTH, height=CHART_HEIGHT, title=title).resolve_scale(strokeDash="independent")


def labelled(rows: list[dict]) -> pd.DataFrame:
    """Core's rows with the translated series label and measured / extrapolated kind."""
    df = pd.DataFrame(rows)
    df["label"] = [series_label(i, e) for i, e in zip(df["impl"], df["engine"], strict=True)]
    df["kind"] = [t("cost.kind.measured") if m else t("cost.kind.extrapolated") for m in df["measured"]]
    return df


@figure_cache
def time_figure(rows: list[dict], axis: str, x_title: str, values: list[int], title: str) -> Figure:
    """time_chart of the sweep along `axis` ("n" or "d")."""
    df = labelled(rows)
    part = df[df["axis"] == axis]
    return figure(time_chart(part, axis, x_title, values, title), part.drop(columns=["label", "kind"]))


@figure_cache
def ratio_figure(ratios: list[dict], values: list[int]) -> Figure:
    df = labelled(ratios)
    return figure(ratio_chart(df, values), df.drop(columns=["label", "kind"]))


@figure_cache
def gflops_figure(rows: list[dict], peak: dict, values: list[int]) -> Figure:
    df = labelled(rows)
    by_n = df[df["axis"] == "n"]
    return figure(gflops_chart(by_n, peak, values),
                  by_n[["series", "n", "d", "d_h", "flops", "seconds", "gflops_per_s", "bound_gflops_per_s",
                        "measured"]])


def guess_label(guess: str) -> str:
    return t("cost.guess.none") if guess == "none" else t("cost.guess.times", x=guess)


def guess_verdict(guess: str, measured: float, n: int) -> str:
    """The reader's prediction against the measured ratio, in words (core.page_claims.cost)."""
    kind, off = judge_prediction(None if guess == "none" else float(guess), measured)
    return t(f"cost.guess.result.{kind}", guess=guess, measured=fmt_num(measured, 3), n=n,
             off=fmt_num(off, 2))


def tex(key: str) -> str:
    """A translated phrase inside st.latex."""
    return r"\text{" + t(key) + "}"


def mib(x: float) -> str:
    return f"{fmt_num(x / 2**20, 3)} MiB"


# ---------------------------------------------------------------- page

s = settings()
st.title(t("cost.title"))
preload_chart_code()  # the first chart comes after a live timing
st.markdown(t("cost.claim"))
st.markdown(t("cost.why_sqrt"))

# A link that asks for the timing opens on its results: the model and the settings are folded, each
# drawn only when opened (asked_work_settings).
model, model_open = asked_work_settings("cost_model", "cost.formulas", asked="cost_run")
if model_open:
    with model:
        st.markdown(t("cost.formulas.dot"))
        formula(r"S=\frac{QK^{\top}}{\sqrt{d_k}}:\quad 2n^2 d_k\;(+\,n^2 \exp),"
                r"\qquad O=\operatorname{softmax}(S)\,V:\quad 2n^2 d_v")
        st.markdown(t("cost.formulas.additive"))
        formula(r"s_{ij}=v^{\top}\tanh\!\left(W_1 q_i + W_2 k_j\right),\quad "
                r"W_1, W_2\in\mathbb{R}^{d_h\times d},\; v\in\mathbb{R}^{d_h}")
        formula(tex("cost.tex.naive") + r":\; \underbrace{4\,n^2 d\, d_h}_{" + tex("cost.tex.per_pair")
                + r"} + 3\,n^2 d_h \qquad " + tex("cost.tex.factored")
                + r":\; \underbrace{4\,n\, d\, d_h}_{W_1Q,\,W_2K\;" + tex("cost.tex.once")
                + r"} + 3\,n^2 d_h \qquad (+\,n^2 d_h \tanh)")
        st.markdown(t("cost.formulas.memory"))
        formula(tex("cost.tex.inter") + r":\qquad n^2 d_h\;(" + tex("cost.tex.additive") + r")\qquad"
                + r" n^2\;(" + tex("cost.tex.dot") + ")")
        st.caption(t("cost.formulas.note"))

box, shown = asked_work_settings("cost_set", "cost.controls", asked="cost_run")
with box:
    # the ranges one row each: in a third of the page their options ran past its edge ("64-51")
    n_choice = page_select("cost_n", "cost.n_range.label", N_RANGES, "128-1024", shown=shown)
    d_choice = page_select("cost_d", "cost.d_range.label", D_RANGES, "16-128", shown=shown)
    dh_choice = page_select("cost_dh", "cost.dh.label", DH_OPTIONS, "d", shown=shown)
    c4, c5, c6 = columns_when(shown, 3, gap="medium")
    repeats = page_slider("cost_repeats", "cost.repeats.label", 2, 15, 3, container=c4, shown=shown)
    naive_ms = page_slider("cost_naive_ms", "cost.naive_ms.label", 10, 2000, 100, step=10,
                           help_key="cost.naive_ms.help", container=c5, shown=shown)
    if shown:
        c6.write("")
    torch_ref = page_toggle("cost_torch", "cost.torch.label", default=True, container=c6, shown=shown)

n_lo, n_hi = (int(v) for v in n_choice.split("-"))
d_lo, d_hi = (int(v) for v in d_choice.split("-"))
ns, ds = cost.geometric_sizes(n_lo, n_hi), cost.geometric_sizes(d_lo, d_hi)
d_h = None if dh_choice == "d" else int(dh_choice)

d_at = s.dk if s.dk in ds else None  # the sidebar's d_k when the d range holds it, else its middle
# Predict first: asked before the timing runs; once it is asked for, the choice is kept (and compared).
guess = page_select("cost_guess", "cost.guess.label", GUESSES, "none", format_func=guess_label,
                    shown=not page_value("cost_run", parse_flag, False))
# A live timing of seconds: run on opening only once asked for, or when its result is stored.
res = run_when_asked(cost.explore, "cost_run", "cost.ask", ns=ns, ds=ds, d_h=d_h, d_at=d_at,
                     torch_ref=torch_ref, backend=s.backend, dtype=s.dtype, repeats=repeats, seed=s.seed,
                     naive_max_seconds=naive_ms / 1000.0, time_budget=APP_TIME_BUDGET_S)

if res is not None:
    p = res["params"]
    timer = next((r["timer"] for r in res["rows"] if r["measured"]), "perf_counter")
    dh_text = "d" if p["d_h"] is None else str(p["d_h"])
    st.caption(t("cost.setup", device=device_text(res["backend"]), dtype=p["dtype"], d_at=p["d_at"],
                 n_at=p["n_at"], dh=dh_text, repeats=p["repeats"], timer=t(f"cost.timer.{timer}")))
    threads = p.get("threads")
    if threads:
        st.caption(t("cost.threads", blas=threads["blas"] or "?", torch=threads["torch"] or "—"))
    own = res["backend"]
    at_max = {(r["impl"], r["engine"]): r for r in res["ratios"] if r["n"] == ns[-1]}
    if ("additive", own) in at_max:
        st.markdown(f"**{t('cost.guess.result')}** "
                    + guess_verdict(guess, at_max[("additive", own)]["ratio"], ns[-1]))
    skipped = sorted({(r["axis"], r["n"], r["d"]) for r in res["rows"] if not r["measured"]})
    if skipped:
        st.caption(t("cost.extrapolated_note", count=len(skipped), ms=naive_ms,
                     level=round(100 * p["level"])))

    left, right = st.columns(2, gap="medium")
    with left:
        show_chart(time_figure(res["rows"], "n", t("cost.axis.n"), ns, t("cost.chart.time_n")),
                   name="cost-time-vs-n")
    with right:
        show_chart(time_figure(res["rows"], "d", t("cost.axis.d"), ds, t("cost.chart.time_d")),
                   name="cost-time-vs-d")

    st.subheader(t("cost.fits"))
    level = round(100 * p["level"])
    show_table(pd.DataFrame([{
        t("cost.col.series"): series_label(f["impl"], f["engine"]),
        t("cost.col.axis"): f["axis"],
        t("cost.col.exponent"): fmt_num(f["exponent"], 3),
        t("cost.col.model"): fmt_num(f["model_exponent"], 3),
    } for f in res["fits"]]))
    st.caption(t("cost.fits.short"))
    with st.expander(t("cost.fits.more")):  # the fit's statistics, for the curious
        show_table(pd.DataFrame([{
            t("cost.col.series"): series_label(f["impl"], f["engine"]),
            t("cost.col.axis"): f["axis"],
            # two points fit a line exactly and leave no degree of freedom for an interval
            t("cost.col.ci", level=level): (f"[{fmt_num(f['ci_low'], 3)}, {fmt_num(f['ci_high'], 3)}]"
                                            if math.isfinite(f["ci_low"]) and math.isfinite(f["ci_high"])
                                            else "—"),
            t("cost.col.points"): f["points"],
            t("cost.col.r2"): fmt_num(f["r2"], 3),
        } for f in res["fits"]]))
        st.caption(t("cost.fits.caption", level=level))

    left, right = st.columns(2, gap="medium")
    with left:
        if res["ratios"]:
            show_chart(ratio_figure(res["ratios"], ns), name="cost-ratio")
    with right:
        show_chart(gflops_figure(res["rows"], res["peak"], ns), name="cost-gflops")
    peak = res["peak"]
    gemm, tanh = fmt_num(peak["gemm_flops_per_s"] / 1e9, 3), fmt_num(peak["tanh_per_s"] / 1e9, 3)
    if peak.get("fp32_flops_per_s"):
        st.caption(t("cost.peak.text_gpu", fp32=fmt_num(peak["fp32_flops_per_s"] / 1e9, 3),
                     sfu=fmt_num(peak["sfu_per_s"] / 1e9, 3), gemm=gemm, tanh=tanh))
    else:
        st.caption(t("cost.peak.text_cpu", n=peak["gemm_size"], gemm=gemm, tanh=tanh))

    table = res["table"]
    st.subheader(t("cost.table", n=ns[-1], d=p["d_at"], dh=table[0]["d_h"] if table else "—"))
    show_table(pd.DataFrame([{
        t("cost.col.series"): series_label(r["impl"], r["engine"]),
        t("cost.col.flops"): fmt_num(r["flops"], 4),
        t("cost.col.special"): fmt_num(r["special"], 4),
        t("cost.col.inter"): mib(r["intermediate_bytes"]),
        t("cost.col.seconds"): f"{fmt_num(r['seconds'], 3)} s",
        t("cost.col.kind"): t("cost.kind.measured") if r["measured"] else t("cost.kind.extrapolated"),
        t("cost.col.gflops"): fmt_num(r["gflops_per_s"], 3),
        t("cost.col.of_bound"): f"{fmt_num(100 * r['gflops_per_s'] / r['bound_gflops_per_s'], 3)} %",
        t("cost.col.check"): fmt_num(r["max_abs_diff"], 2),
    } for r in table]))
    st.caption(t("cost.check.caption"))

    tab = {(r["impl"], r["engine"]): r for r in table}
    fit_d = {(f["impl"], f["engine"]): f for f in res["fits"] if f["axis"] == "d"}
    if ("additive", own) in at_max and ("additive", own) in tab and ("dot", own) in tab:
        notice = t("cost.notice", n=ns[-1], ratio=fmt_num(at_max[("additive", own)]["ratio"], 3),
                   flop_ratio=fmt_num(at_max[("additive", own)]["flop_ratio"], 3),
                   dot_gflops=fmt_num(tab[("dot", own)]["gflops_per_s"], 3),
                   add_gflops=fmt_num(tab[("additive", own)]["gflops_per_s"], 3))
        if ("additive-naive", own) in fit_d and ("additive", own) in fit_d:
            naive = fit_d[("additive-naive", own)]
            notice += " " + t("cost.notice.naive", naive_d_b=fmt_num(naive["exponent"], 2),
                              add_d_b=fmt_num(fit_d[("additive", own)]["exponent"], 2),
                              naive_model=fmt_num(naive["model_exponent"], 2))
        st.info(f"**{t('common.what_to_notice')}** — {notice} {t('cost.notice.end')}",
                icon=":material/visibility:")
    else:
        what_to_notice("cost.notice.short")

    st.caption(t("cost.cli"))
    cmd = (f"python -m core cost --fit --n {' '.join(map(str, ns))} --d {' '.join(map(str, ds))}"
           f"{'' if d_h is None else f' --d-h {d_h}'} --d-at {p['d_at']} --repeats {repeats}"
           f" --backend {res['backend']}"
           f" --dtype {p['dtype']} --seed {s.seed} --naive-max-seconds {naive_ms / 1000:g}"
           f"{'' if torch_ref else ' --no-torch'}")
    # Inline code, not st.code: its syntax highlighter is a 1.5 MB script that every new tab would
    # fetch and compile before the page's charts are drawn (about 0.15 s here; more on a phone).
    # The command holds numbers and fixed words only.
    st.markdown(f"`{cmd}`")
    st.caption(t("cost.cached"))
