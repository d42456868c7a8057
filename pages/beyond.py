"""Beyond √d_k: correlated q and k (μP's 1/d), growing norms (QK-norm, cosine, soft-cap), many keys
(log-n, SSMax) and real initialisations — one section at a time (?beyond_part=), each: controls → one
call into core.beyond → charts."""

import altair as alt
import pandas as pd
import streamlit as st

from core import beyond
from pages.ui.beyond_charts import init_figure
from pages.ui.chart.charts import WIDTH, dk_axis, dk_rule, layered, show_chart
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.compute import run_with_progress
from pages.ui.controls import keep_page_value, page_select, page_slider
from pages.ui.format import OKABE_ITO, REFERENCE_GREY, fmt_num, scale_label
from pages.ui.i18n import t
from pages.ui.layout import formula, show_table
from pages.ui.notices import reduced_trials_note, what_to_notice
from pages.ui.sidebar import settings
from pages.ui.words import rho_overlap_words, sentences

DKS = [2**i for i in range(1, 11)]  # 2 … 1024
RHO_CURVES = (0.0, 0.25, 0.5)
N_CORR_MAX = 64  # the correlated sweep is n² per trial and per ρ: keep it interactive
ALPHAS = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0]
NS = [16, 64, 256, 1024, 4096, 16384]
D_MODELS = ("256", "512", "768", "1024", "2048", "4096")
PARTS = ("corr", "norm", "len", "init")  # the sections, shown one at a time (?beyond_part=)
RHO_DEFAULT, TAU_DEFAULT, CAP_DEFAULT, S_DEFAULT, D_MODEL_DEFAULT = 0.3, 0.1, 50.0, 0.5, "768"
SECTION_CONTROLS = {  # each section control: (default, the sections that draw it)
    "beyond_rho": (RHO_DEFAULT, ("corr", "norm", "len")),
    "beyond_tau": (TAU_DEFAULT, ("norm",)),
    "beyond_cap": (CAP_DEFAULT, ("norm",)),
    "beyond_s": (S_DEFAULT, ("len",)),
    "beyond_dmodel": (D_MODEL_DEFAULT, ("init",)),
}
LEN_TRIALS = 200
Z95 = 1.96  # the length section draws each entropy with its 95 % band (mean ± 1.96 standard errors)
METHOD_COLOURS = {
    "sqrt": OKABE_ITO[1],
    "softcap": OKABE_ITO[3],
    "cosine": OKABE_ITO[2],
    "qk-norm": OKABE_ITO[0],
}
LENGTH_COLOURS = {"none": OKABE_ITO[1], "log-n": OKABE_ITO[2], "ssmax": OKABE_ITO[0]}

FORMULAS = {  # each section's formula, shown under its header and text
    "corr": (
        r"k=\rho q+\sqrt{1-\rho^2}\,z\;\Rightarrow\;\mathbb{E}[q\cdot k]=\rho\,d_k,\qquad "
        r"\sqrt{\mathbb{E}[(q\cdot k)^2]}=\sqrt{\rho^2 d_k^2+d_k(1+\rho^2)}\;\sim\;\rho\,d_k"
    ),
    "norm": (
        r"s^{\text{QK-norm}}_{ij}=\frac{\mathrm{LN}(q_i)\cdot\mathrm{LN}(k_j)}{\sqrt{d_k}},\qquad "
        r"s^{\cos}_{ij}=\frac{q_i\cdot k_j}{\tau\,\lVert q_i\rVert\,\lVert k_j\rVert},\qquad "
        r"s^{\text{cap}}_{ij}=\text{cap}\cdot\tanh\!\Big(\frac{q_i\cdot k_j}{\text{cap}\,\sqrt{d_k}}\Big)"
    ),
    "len": (
        r"H\;\xrightarrow{\,n\to\infty\,}\;\ln n-\tfrac{\sigma^2}{2},\qquad "
        r"p=\operatorname{softmax}\!\Big(\lambda(n)\,\frac{K q}{\sqrt{d_k}}\Big),\quad "
        r"\lambda(n)\in\{1,\;\ln n,\;s\ln n\}"
    ),
    "init": (
        r"\operatorname{Var}(q)=d_{\text{model}}\operatorname{Var}(w)\;(+\operatorname{Var}(b)),\qquad "
        r"\operatorname{Var}\!\Big(\frac{q_i\cdot k_j}{\sqrt{d_k}}\Big)="
        r"\operatorname{Var}(q)\operatorname{Var}(k)"
    ),
}


def section_intro(part: str) -> None:
    """A section's header, its text, the terms it uses (defined before they are used), its formula,
    and the research behind it under "More"."""
    st.header(t(f"beyond.{part}.header"))
    st.markdown(t(f"beyond.{part}.text"))
    st.markdown(t(f"beyond.{part}.terms"))
    formula(FORMULAS[part])
    with st.expander(t("beyond.more"), icon=":material/menu_book:"):
        st.markdown(t(f"beyond.{part}.more"))


@figure_cache
def rms_figure(rows: list[dict], rho: float, dk: int) -> Figure:
    """RMS of the raw score vs d_k at this ρ, against √d_k and ρ·d_k."""
    df = pd.DataFrame(rows)
    at_rho = df[(df["rho"] == round(rho, 2)) & (df["scale"] == "sqrt")]
    names = [t("beyond.corr.measured"), t("beyond.corr.sqrt_ref"), t("beyond.corr.linear_ref")]
    long = pd.concat(
        [
            pd.DataFrame({"dk": at_rho["dk"], "value": at_rho[col], "series": name})
            for col, name in zip(("rms_raw", "sqrt_dk", "rho_dk"), names, strict=True)
        ]
    )
    long = long[long["value"] > 0]
    colour = alt.Color(
        "series:N",
        title=t("beyond.corr.series"),
        scale=alt.Scale(domain=names, range=[OKABE_ITO[0], REFERENCE_GREY, OKABE_ITO[1]]),
        legend=alt.Legend(orient="bottom"),
    )
    base = alt.Chart(long).encode(
        x=dk_axis(),
        color=colour,
        y=alt.Y("value:Q", title=t("beyond.corr.rms.y"), scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip("series:N"), alt.Tooltip("dk:Q"), alt.Tooltip("value:Q", format=".4g")],
    )
    # The measurement solid, the two references each with a dash of its own (not colour alone).
    dash = alt.StrokeDash("series:N", title=t("beyond.corr.series"), legend=alt.Legend(orient="bottom"),
                          scale=alt.Scale(domain=names, range=[[1, 0], [5, 4], [2, 2]]))
    chart = layered(
        base.mark_line(strokeWidth=2).encode(strokeDash=dash),
        base.mark_point(filled=True, size=36).transform_filter(f"datum.series == '{names[0]}'"),
        dk_rule(dk),
    ).properties(
        width=WIDTH,
        height=280,
        title=alt.TitleParams(t("beyond.corr.rms.title", rho=f"{rho:g}"), anchor="start"),
    )
    return figure(chart, long)


@figure_cache
def corr_entropy_figure(rows: list[dict], rhos: list[float], scale: str, n: int) -> Figure:
    """Mean entropy vs d_k, one line per ρ, for one scale."""
    df = pd.DataFrame(rows)
    part = df[df["scale"] == scale].assign(rho_label=lambda d: d["rho"].map("ρ = {:g}".format))
    labels = [f"ρ = {r:g}" for r in rhos]
    base = alt.Chart(part).encode(
        x=dk_axis(),
        y=alt.Y("entropy_mean:Q", title=t("beyond.corr.entropy.y")),
        color=alt.Color(
            "rho_label:N",
            title=t("beyond.corr.legend"),
            sort=labels,
            # one palette colour per ρ, in order (viridis's light end is too faint on white for a line)
            scale=alt.Scale(domain=labels, range=[OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(labels))]),
            legend=alt.Legend(orient="bottom"),
        ),
        tooltip=[
            alt.Tooltip("rho_label:N"),
            alt.Tooltip("dk:Q"),
            alt.Tooltip("entropy_mean:Q", format=".3f"),
            alt.Tooltip("entropy_se:Q", format=".2g"),
        ],
    )
    ln_n = (
        alt.Chart(pd.DataFrame({"y": [part["ln_n"].iloc[0]]}))
        .mark_rule(strokeDash=[4, 4], color="#777777")
        .encode(y=alt.Y("y:Q"))
    )
    chart = layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=30), ln_n).properties(
        width=WIDTH,
        height=260,
        title=alt.TitleParams(t("beyond.corr.entropy.title", n=n, scale=scale_label(scale)), anchor="start"),
    )
    data = part.drop(columns=["rho_label"])
    # lines on top of one another cannot be told apart: the text alternative says so, and why
    said = sentences(figure(chart, data).description, rho_overlap_words(rows, scale))
    return figure(chart, data, description=said)


@figure_cache
def norm_figure(rows: list[dict], y: str, dk: int, n: int, rho: float) -> Figure:
    """Entropy or the largest |logit| vs the norm growth α, one line per method."""
    df = pd.DataFrame(rows)
    df["method_label"] = df["method"].map(lambda m: t(f"beyond.method.{m}"))
    labels = [t(f"beyond.method.{m}") for m in beyond.NORM_METHODS]
    colour = alt.Color(
        "method_label:N",
        title=t("beyond.norm.legend"),
        sort=labels,
        scale=alt.Scale(domain=labels, range=[METHOD_COLOURS[m] for m in beyond.NORM_METHODS]),
        legend=alt.Legend(orient="bottom", columns=2, labelLimit=260),
    )
    x = alt.X(
        "alpha:Q", title=t("beyond.norm.alpha"), scale=alt.Scale(type="log", domain=[ALPHAS[0], ALPHAS[-1]])
    )
    if y == "entropy_mean":
        y_title, title, log_y = (t("beyond.norm.entropy.y"),
                                 t("beyond.norm.entropy.title", dk=dk, n=n, rho=f"{rho:g}"), False)
    else:
        y_title, title, log_y = t("beyond.norm.logit.y"), t("beyond.norm.logit.title"), True
    base = alt.Chart(df).encode(
        x=x,
        y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log" if log_y else "linear")),
        color=colour,
        tooltip=[alt.Tooltip("method_label:N"), alt.Tooltip("alpha:Q"), alt.Tooltip(f"{y}:Q", format=".4g")],
    )
    chart = layered(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=30)).properties(
        width=WIDTH, height=260, title=alt.TitleParams(title, anchor="start")
    )
    return figure(chart, df.drop(columns=["method_label"]))


@figure_cache
def length_figure(rows: list[dict], which: str, dk: int, rho: float, s_param: float) -> Figure:
    """Entropy ("entropy") or the target key's weight ("target") vs the number of keys n, per method."""
    df = pd.DataFrame(rows)
    df["method_label"] = df["method"].map(lambda m: t(f"beyond.length.{m}", s=f"{s_param:g}"))
    labels = [t(f"beyond.length.{m}", s=f"{s_param:g}") for m in beyond.LENGTH_METHODS]
    colour = alt.Color(
        "method_label:N",
        title=t("beyond.len.legend"),
        sort=labels,
        scale=alt.Scale(domain=labels, range=[LENGTH_COLOURS[m] for m in beyond.LENGTH_METHODS]),
        legend=alt.Legend(orient="bottom", columns=2, labelLimit=260),
    )
    x = alt.X(
        "n:Q",
        title=t("common.axis.n"),
        scale=alt.Scale(type="log", base=2),
        axis=alt.Axis(values=NS, format="d"),
    )
    refs = df[df["method"] == "none"]
    base = alt.Chart(df).encode(x=x, color=colour)
    if which == "entropy":
        ref_rows = [pd.DataFrame({"n": refs["n"], "y": refs["ln_n"], "ref": t("beyond.len.ln_n")})]
        if refs["theory_entropy"].notna().all():
            ref_rows.append(
                pd.DataFrame({"n": refs["n"], "y": refs["theory_entropy"], "ref": t("beyond.len.theory")})
            )
        ref = (
            alt.Chart(pd.concat(ref_rows))
            .mark_line(strokeDash=[4, 4], color="#777777")
            .encode(x=x, y=alt.Y("y:Q"), detail=alt.Detail("ref:N"),
                    tooltip=[alt.Tooltip("ref:N"), alt.Tooltip("n:Q"), alt.Tooltip("y:Q", format=".3f")])
        )
        band = base.transform_calculate(
            lo=f"datum.entropy_mean - {Z95} * datum.entropy_se",
            hi=f"datum.entropy_mean + {Z95} * datum.entropy_se",
        ).mark_area(opacity=0.18).encode(y=alt.Y("lo:Q"), y2=alt.Y2("hi:Q"))
        chart = layered(
            ref,
            band,
            base.mark_line(strokeWidth=2).encode(y=alt.Y("entropy_mean:Q", title=t("beyond.len.entropy.y"))),
            base.mark_point(filled=True, size=30).encode(
                y=alt.Y("entropy_mean:Q"),
                tooltip=[alt.Tooltip("method_label:N"), alt.Tooltip("n:Q"),
                         alt.Tooltip("entropy_mean:Q", format=".3f")],
            ),
        ).properties(
            width=WIDTH,
            height=260,
            title=alt.TitleParams(t("beyond.len.entropy.title", dk=dk, rho=f"{rho:g}"), anchor="start"),
        )
    else:
        uni = (
            alt.Chart(refs.assign(ref=t("beyond.len.uniform")))
            .mark_line(strokeDash=[4, 4], color="#777777")
            .encode(
                x=x, y=alt.Y("uniform_weight:Q"),
                tooltip=[alt.Tooltip("ref:N"), alt.Tooltip("n:Q"),
                         alt.Tooltip("uniform_weight:Q", format=".3g")],
            )
        )
        y_t = alt.Y("target_weight_mean:Q", title=t("beyond.len.target.y"), scale=alt.Scale(type="log"))
        chart = layered(
            uni,
            base.mark_line(strokeWidth=2).encode(y=y_t),
            base.mark_point(filled=True, size=30).encode(
                y=y_t, tooltip=[alt.Tooltip("method_label:N"), alt.Tooltip("n:Q"),
                                alt.Tooltip("target_weight_mean:Q", format=".3g")]
            ),
        ).properties(
            width=WIDTH, height=260, title=alt.TitleParams(t("beyond.len.target.title"), anchor="start")
        )
    return figure(chart, df.drop(columns=["method_label"]))


s = settings()
st.title(t("beyond.title"))
st.markdown(t("beyond.intro"))
st.markdown(t("beyond.terms"))
# One section at a time: each computes its own sweep (up to a figure's budget) and draws two or
# three charts, so showing all four made every move of d_k recompute and redraw eight charts.
part = page_select("beyond_part", "beyond.part", PARTS, PARTS[0], help_key="beyond.part_help",
                   format_func=lambda p: t(f"beyond.{p}.pick"))  # short: one line on a phone
for key, (default, shown_in) in SECTION_CONTROLS.items():
    if part not in shown_in:
        keep_page_value(key, default)
if part in SECTION_CONTROLS["beyond_rho"][1]:
    rho = page_slider("beyond_rho", "beyond.rho", 0.0, 0.9, RHO_DEFAULT, step=0.05,
                      help_key="beyond.rho_help")

# ---------------------------------------------------------------- 1. correlated q and k
if part == "corr":
    section_intro("corr")
    n_corr = min(s.n, N_CORR_MAX)
    rhos = sorted({*RHO_CURVES, round(rho, 2)})
    corr = run_with_progress(
        beyond.correlated_sweep, dks=DKS, rhos=rhos, n=n_corr, trials=s.trials, seed=s.seed, fit=True
    )
    if corr is not None:
        reduced_trials_note(corr["params"]["trials"], corr["params"]["trials_asked"], n_corr)
        show_chart(rms_figure(corr["rows"], rho, s.dk), name="beyond-correlated-rms")
        cols = st.columns(2, gap="medium")
        for col, scale in zip(cols, ("sqrt", "linear"), strict=True):
            with col:
                show_chart(corr_entropy_figure(corr["rows"], rhos, scale, n_corr),
                           name=f"beyond-correlated-entropy-{scale}")
        st.markdown("\n".join(f"- {rho_overlap_words(corr['rows'], scale)}" for scale in ("sqrt", "linear")))
        st.caption(t("beyond.corr.caption", trials=corr["params"]["trials"]))

# ---------------------------------------------------------------- 2. growing norms
if part == "norm":
    section_intro("norm")
    c1, c2 = st.columns(2)
    tau = page_slider("beyond_tau", "beyond.tau", 0.01, 1.0, TAU_DEFAULT, step=0.01, container=c1,
                      help_key="beyond.tau_help")
    cap = page_slider("beyond_cap", "beyond.cap", 5.0, 100.0, CAP_DEFAULT, step=5.0, container=c2,
                      help_key="beyond.cap_help")
    norm = run_with_progress(
        beyond.norm_growth_sweep,
        d_k=s.dk,
        n=s.n,
        alphas=ALPHAS,
        rho=rho,
        tau=tau,
        cap=cap,
        trials=s.trials,
        seed=s.seed,
        fit=True,
    )
    if norm is not None:
        reduced_trials_note(norm["params"]["trials"], norm["params"]["trials_asked"], s.n)
        cols = st.columns(2, gap="medium")
        with cols[0]:
            show_chart(norm_figure(norm["rows"], "entropy_mean", s.dk, s.n, rho), name="beyond-norm-entropy")
        with cols[1]:
            show_chart(norm_figure(norm["rows"], "max_abs_logit", s.dk, s.n, rho), name="beyond-norm-logit")
        st.caption(t("beyond.norm.caption", cap=f"{cap:g}"))

# ---------------------------------------------------------------- 3. many keys
if part == "len":
    section_intro("len")
    s_param = page_slider("beyond_s", "beyond.s", 0.1, 2.0, S_DEFAULT, step=0.05, help_key="beyond.s_help")
    length = run_with_progress(
        beyond.length_sweep,
        ns=NS,
        d_k=s.dk,
        rho=rho,
        s_param=s_param,
        trials=min(s.trials, LEN_TRIALS),
        seed=s.seed,
    )
    if length is not None:
        cols = st.columns(2, gap="medium")
        with cols[0]:
            show_chart(length_figure(length["rows"], "entropy", s.dk, rho, s_param),
                       name="beyond-length-entropy")
        with cols[1]:
            show_chart(length_figure(length["rows"], "target", s.dk, rho, s_param),
                       name="beyond-length-target")
        st.caption(t("beyond.len.caption", trials=length["params"]["trials"]))
        if rho == 0:
            st.caption(t("beyond.len.rho0"))

# ---------------------------------------------------------------- 4. real initialisations
if part == "init":
    section_intro("init")
    d_model = int(page_select("beyond_dmodel", "beyond.d_model", D_MODELS, D_MODEL_DEFAULT,
                              help_key="beyond.d_model_help"))
    dk_init = min(s.dk, d_model)
    if dk_init < s.dk:
        st.info(t("beyond.init.dk_clamped", dk=s.dk, used=dk_init), icon=":material/tune:")
    init = run_with_progress(beyond.init_variance, d_model=d_model, d_k=dk_init, seed=s.seed)
    if init is not None:
        df = pd.DataFrame(init["rows"])
        df["scheme_label"] = df["scheme"].map(lambda m: t(f"beyond.scheme.{m}"))
        show_table(
            pd.DataFrame(
                {
                    t("beyond.init.col.scheme"): df["scheme_label"],
                    t("beyond.init.col.var_q"): df["var_q"].map(fmt_num),
                    t("beyond.init.col.se"): df["var_q_se"].map(lambda v: fmt_num(v, 2)),
                    t("beyond.init.col.var_q_theory"): df["theory_var_q"].map(fmt_num),
                    t("beyond.init.col.var_logit"): df["var_logit"].map(fmt_num),
                    t("beyond.init.col.var_logit_theory"): df["theory_var_logit"].map(fmt_num),
                }
            )
        )
        show_chart(init_figure(init["rows"], d_model, dk_init), name="beyond-init")
        st.caption(
            t("beyond.init.caption", instances=init["params"]["instances"], tokens=init["params"]["tokens"])
        )

what_to_notice("beyond.notice")
