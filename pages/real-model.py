"""A real model: per-head q·k statistics of all-MiniLM-L6-v2 on the user's sentence."""

import altair as alt
import pandas as pd
import streamlit as st

from core import real_model as rm
from core.errors import InputError
from pages.ui.chart.charts import WIDTH, layered, show_chart
from pages.ui.chart.figure import Figure, figure, figure_cache
from pages.ui.chart.vega import FONT
from pages.ui.compute import ask_first
from pages.ui.controls import page_expander, page_slider
from pages.ui.format import HEATMAP_SCHEME, OKABE_ITO, fmt_num, fmt_pct
from pages.ui.i18n import current_lang, t
from pages.ui.layout import formula, metric_row, preload_chart_code
from pages.ui.notices import show_error, what_to_notice
from pages.ui.sidebar import settings
from pages.ui.url_state import want
from pages.ui.user_text import literal

TEXT_KEY = "rm_text"
GRID_STATS = ("logit_std", "entropy_over_ln_n", "saturated_fraction")
HEAT_MIN, HEAT_MAX, HEAT_CELL = 300, 760, 24  # attention heat map side (px): cells of ~24 px
GRID_WIDTH = 250  # one layer × head grid in a third of the page
LABEL_ALL_MAX = 40  # up to this many tokens every one is labelled; beyond, Vega thins the labels


@st.cache_resource(max_entries=1, show_spinner=False)
def _model() -> tuple:
    model = rm.load_model()
    _model_state()["loaded"] = True
    return model


@st.cache_resource(show_spinner=False)
def _model_state() -> dict[str, bool]:
    """Whether this server has loaded the model (its first load takes seconds: ask_first)."""
    return {"loaded": False}


@st.cache_data(max_entries=16, show_spinner=False)
def _analyse(text: str) -> dict:
    return rm.analyse(text, _model())


@figure_cache
def spread_figure(text: str) -> Figure:
    """Measured q·k spread per head against the iid prediction √d_k σ_q σ_k, coloured by layer."""
    result = _analyse(text)
    df = pd.DataFrame(result["rows"])
    ends = df[["raw_std", "iid_pred"]].stack()
    line = pd.DataFrame({"x": [float(ends.min()), float(ends.max())],
                         "label": [t("real_model.equal_line")] * 2})
    layers = result["params"]["layers"]
    layer_colours = alt.Scale(domain=list(range(1, layers + 1)), range=list(OKABE_ITO[:layers]))
    points = alt.Chart(df).mark_circle(size=60, opacity=0.85).encode(
        x=alt.X("iid_pred:Q", title=t("real_model.axis.pred"), scale=alt.Scale(type="log")),
        y=alt.Y("raw_std:Q", title=t("real_model.axis.raw"), scale=alt.Scale(type="log")),
        color=alt.Color("layer:O", title=t("real_model.legend.layer"), scale=layer_colours,
                        legend=alt.Legend(orient="right")),
        tooltip=[alt.Tooltip("layer:O", title=t("real_model.axis.layer")),
                 alt.Tooltip("head:O", title=t("real_model.axis.head")),
                 alt.Tooltip("raw_std:Q", title=t("real_model.axis.raw"), format=".3g"),
                 alt.Tooltip("iid_pred:Q", title=t("real_model.axis.pred"), format=".3g"),
                 alt.Tooltip("raw_over_pred:Q", title=t("real_model.metric.ratio"), format=".3g")])
    diag = alt.Chart(line).mark_line(strokeDash=[4, 4], color="#777777").encode(
        x=alt.X("x:Q", scale=alt.Scale(type="log")), y=alt.Y("x:Q", scale=alt.Scale(type="log")),
        tooltip=alt.Tooltip("label:N", title=" "))
    chart = layered(diag, points).properties(
        width=WIDTH, height=WIDTH - 60,
        title=alt.TitleParams(t("real_model.spread_title"), anchor="start", fontSize=14))
    return figure(chart, df[["layer", "head", "sigma_q", "sigma_k", "raw_std", "iid_pred", "raw_over_pred"]],
                  max_width=WIDTH + 160)


@figure_cache
def grid_figure(text: str, stat: str) -> Figure:
    """One statistic over the layer × head grid."""
    df = pd.DataFrame(_analyse(text)["rows"])
    title = t(f"real_model.grid.{stat}")
    base = alt.Chart(df).encode(
        x=alt.X("head:O", title=t("real_model.axis.head")),
        y=alt.Y("layer:O", title=t("real_model.axis.layer")))
    legend = alt.Legend(orient="bottom", gradientLength=GRID_WIDTH // 2)  # end label within the grid
    rect = base.mark_rect().encode(
        color=alt.Color(f"{stat}:Q", title=None, scale=alt.Scale(scheme=HEATMAP_SCHEME), legend=legend),
        tooltip=[alt.Tooltip("layer:O", title=t("real_model.axis.layer")),
                 alt.Tooltip("head:O", title=t("real_model.axis.head")),
                 alt.Tooltip(f"{stat}:Q", title=title, format=".3g")])
    chart = rect.properties(width=GRID_WIDTH, height=150,
                            title=alt.TitleParams(title, anchor="start", fontSize=13))
    return figure(chart, df[["layer", "head", stat]])


@figure_cache
def attention_figure(text: str, layer: int, head: int) -> Figure:
    """One head's attention weights over the sentence's tokens."""
    result = _analyse(text)
    n = result["params"]["n"]
    heat = pd.DataFrame(rm.attention_rows(result, layer, head))
    order = rm.token_labels(result["tokens"])
    side = min(HEAT_MAX, max(HEAT_MIN, HEAT_CELL * n))
    every_label = n <= LABEL_ALL_MAX
    chart = alt.Chart(heat).mark_rect().encode(
        x=alt.X("key:N", sort=order, title=t("real_model.axis.key"),
                axis=alt.Axis(labelAngle=-60, labelLimit=120, labelFont=FONT,
                              labelOverlap=not every_label)),
        y=alt.Y("query:N", sort=order, title=t("real_model.axis.query"),
                axis=alt.Axis(labelLimit=120, labelFont=FONT, labelOverlap=not every_label)),
        color=alt.Color("weight:Q", title=t("real_model.legend.weight"),
                        scale=alt.Scale(scheme=HEATMAP_SCHEME, domain=[0, 1])),
        tooltip=[alt.Tooltip("query:N", title=t("real_model.axis.query")),
                 alt.Tooltip("key:N", title=t("real_model.axis.key")),
                 alt.Tooltip("weight:Q", title=t("real_model.legend.weight"), format=".3f")],
    ).properties(width=side, height=side, title=alt.TitleParams(
        t("real_model.heatmap_title", layer=layer, head=head), anchor="start", fontSize=14))
    return figure(chart, heat, max_width=side + 200)


def _set_example(lang: str) -> None:
    st.session_state[TEXT_KEY] = t(f"real_model.default_{lang}")


def _seed_text(default: str) -> None:
    """First run of the session: the sentence from ?rm_text= (cut to the limit, with a notice)."""
    if TEXT_KEY in st.session_state:
        return
    raw = st.query_params.get(TEXT_KEY)
    if raw is None:
        st.session_state[TEXT_KEY] = default
        return
    if len(raw) > rm.MAX_CHARS:
        st.warning(t("real_model.url_long", got=len(raw), limit=rm.MAX_CHARS), icon=":material/link:")
    st.session_state[TEXT_KEY] = raw[: rm.MAX_CHARS]


settings()  # the shared sidebar ran (or a fresh server's deep link is rerouted via app.py)
st.title(t("real_model.title"))
preload_chart_code()  # the first chart comes after the model's forward pass
st.markdown(t("real_model.intro"))
formula(r"\sigma(q\cdot k) \overset{\text{iid}}{=} \sqrt{d_k}\,\sigma_q\,\sigma_k,\qquad "
        r"s_{ij} = \frac{q_i\cdot k_j}{\sqrt{d_k}},\qquad p_i = \operatorname{softmax}_j(s_{ij}),\qquad "
        r"H(p_i) \le \ln n")
st.caption(t("real_model.formula_caption"))

missing = rm.missing_modules()
if missing:  # module names only: the sentence around them is translated
    st.warning(t("real_model.missing", reason=", ".join(missing)), icon=":material/extension_off:")
    st.code("pip install -r requirements-model.txt", language="bash")
else:
    default_text = t(f"real_model.default_{'zh' if current_lang() == 'zh' else 'en'}")
    _seed_text(default_text)
    st.text_area(t("real_model.sentence"), key=TEXT_KEY, max_chars=rm.MAX_CHARS, height=80,
                 help=t("real_model.sentence_help", chars=rm.MAX_CHARS, tokens=rm.MAX_TOKENS))
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button(t("real_model.example_en"), on_click=_set_example, args=("en",), key="rm_ex_en")
    b2.button(t("real_model.example_zh"), on_click=_set_example, args=("zh",), key="rm_ex_zh")
    text = st.session_state[TEXT_KEY]
    want(TEXT_KEY, text, default_text)
    layer_col, head_col = st.columns(2)
    layer = page_slider("rm_layer", "real_model.layer", 1, 6, 1, step=1, container=layer_col)
    head = page_slider("rm_head", "real_model.head", 1, 12, 3, step=1, container=head_col)

    result = None
    if not text.strip():
        st.info(t("real_model.empty"))
    elif ask_first("rm_run", "real_model.ask", lambda: _model_state()["loaded"]):
        try:
            with st.spinner(t("real_model.loading")):
                result = _analyse(text)
        except (InputError, OSError, ValueError) as exc:
            show_error(exc)
        except ImportError as exc:  # installed, but torch or the model package fails to load
            st.warning(t("real_model.missing", reason=literal(f"{type(exc).__name__}: {exc}")),
                       icon=":material/extension_off:")

    if result is not None:
        p, summary, rows = result["params"], result["summary"], result["rows"]
        st.markdown(f"**{t('real_model.your_sentence')}**")
        st.text(p["text"])  # the user's text: plain text only, never HTML or markdown
        st.caption(t("real_model.tokens", n=p["n"]))
        # Plain text, not st.code: its syntax highlighter is a 1.5 MB script a new tab would load.
        st.text(" ".join(result["tokens"]))
        if p["truncated"]:
            st.warning(t("real_model.truncated", total=p["tokens_total"], n=p["n"]))
        if p["unk_tokens"]:
            st.info(t("real_model.unk", unk=p["unk_tokens"], n=p["n"]), icon=":material/translate:")
        if p["library_max_abs_diff"] < 1e-5:
            st.success(t("real_model.verified", diff=f"{p['library_max_abs_diff']:.1e}"),
                       icon=":material/verified:")
        else:
            st.error(t("real_model.verify_failed", diff=f"{p['library_max_abs_diff']:.1e}"))

        st.subheader(t("real_model.summary", heads=summary["heads"]))
        row = metric_row()
        # Medians across heads; for saturation the share of all rows (most heads have none).
        for stat, key, centre in (("raw_over_pred", "ratio", "median"), ("logit_std", "logit_std", "median"),
                                  ("entropy_over_ln_n", "entropy", "median"),
                                  ("saturated_fraction", "saturated", "mean")):
            col = row.container()
            v = summary[stat]
            show = fmt_pct if stat == "saturated_fraction" else fmt_num
            col.metric(t(f"real_model.metric.{key}"), show(v[centre]),
                       help=t(f"real_model.metric.{key}_help"))
            col.caption(t("real_model.range", lo=show(v["min"]), hi=show(v["max"])))
        sq, sk = summary["sigma_q"], summary["sigma_k"]
        st.caption(t("real_model.sigma_line", sq=fmt_num(sq["median"], 3), sq_lo=fmt_num(sq["min"], 3),
                     sq_hi=fmt_num(sq["max"], 3), sk=fmt_num(sk["median"], 3),
                     sk_lo=fmt_num(sk["min"], 3), sk_hi=fmt_num(sk["max"], 3)))

        show_chart(spread_figure(text), name="real-model-spread")

        st.subheader(t("real_model.grid_title"))
        for col, stat in zip(st.columns(len(GRID_STATS)), GRID_STATS, strict=True):
            show_chart(grid_figure(text, stat), name=f"real-model-{stat}", container=col)

        st.subheader(t("real_model.heatmap"))
        hrow = rows[(layer - 1) * p["heads"] + (head - 1)]
        st.caption(t("real_model.head_stats", sq=fmt_num(hrow["sigma_q"], 3), sk=fmt_num(hrow["sigma_k"], 3),
                     raw=fmt_num(hrow["raw_std"], 3), pred=fmt_num(hrow["iid_pred"], 3),
                     ls=fmt_num(hrow["logit_std"], 3), h=fmt_num(hrow["entropy_mean"], 3),
                     ln_n=fmt_num(hrow["ln_n"], 3), sat=fmt_pct(hrow["saturated_fraction"])))
        show_chart(attention_figure(text, layer, head), name=f"real-model-attention-l{layer}h{head}")

        # Every layer and head as a sortable grid: drawn only while open, so a new tab does not load the
        # grid's code for a table most readers never open.
        box, table_open = page_expander("rm_table", "real_model.table")
        if table_open:
            box.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")

        what_to_notice("real_model.notice")
        st.caption(t("real_model.caveat"))
