"""Charts, cached compute and notices: the pieces every page uses between its controls and its text.

- `show_chart(chart, data, name)`: the Altair chart at its fixed size, plus CSV / PNG / SVG downloads
  (PNG and SVG rendered by vl-convert only when clicked).
- Colour-blind-safe colours: Okabe–Ito for categories (one fixed colour per scale), viridis for heatmaps.
- `cached(fn, **kwargs)` / `run_with_progress(fn, **kwargs)`: a core function computed once for
  every session of the server (pages/ui/compute.py), the second with a progress bar; both turn
  core's InputError / BudgetError / BackendError into a translated notice and return None.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from core.errors import BackendError, BudgetError, InputError
from core.scales import parse_scale
from pages.ui.compute import shared_call
from pages.ui.i18n import current_lang, t
from pages.ui.user_text import literal

# Okabe & Ito (2008), safe for the common colour-vision deficiencies.
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9",
                              "#000000", "#F0E442")
SCALE_COLOURS: dict[str, str] = {"sqrt": "#0072B2", "none": "#D55E00", "linear": "#009E73",
                                 "log": "#E69F00", "double-sqrt": "#CC79A7", "power": "#56B4E9",
                                 "const": "#000000"}
DTYPE_COLOURS: dict[str, str] = {"float16": "#D55E00", "bfloat16": "#E69F00", "float32": "#0072B2",
                                 "float64": "#009E73"}
HEATMAP_SCHEME = "viridis"
# Fonts with CJK glyphs first, so Chinese renders in the browser and in PNG/SVG exports alike.
FONT = "Noto Sans CJK SC, Noto Sans SC, Source Han Sans SC, Noto Sans, DejaVu Sans, sans-serif"

WIDTH, HEIGHT = 400, 260        # one chart in a two-column row (plot area; axes and legend add ~90 px)
WIDE_WIDTH = 900                # one chart across the page
SMALL_WIDTH, SMALL_HEIGHT = 280, 200



# ---------------------------------------------------------------- labels and colours


def scale_label(name: str) -> str:
    """A canonical scale name ("sqrt", "power:0.75") as a translated legend label."""
    s = parse_scale(name)
    if s.kind == "power":
        return t("common.scale.power_a", a=f"{s.param:g}")
    if s.kind == "const":
        return t("common.scale.const", c=f"{s.param:g}")
    return t(f"common.scale.{s.kind}")


def scale_colours(names: list[str]) -> alt.Scale:
    """Colour scale over the translated labels of `names`, one fixed colour per scale kind."""
    domain = [scale_label(n) for n in names]
    colours = [SCALE_COLOURS.get(parse_scale(n).kind, "#000000") for n in names]
    return alt.Scale(domain=domain, range=colours)


def dtype_colours(names: list[str]) -> alt.Scale:
    return alt.Scale(domain=list(names), range=[DTYPE_COLOURS.get(n, "#000000") for n in names])


def fmt_num(x: float | None, digits: int = 4) -> str:
    """The one number format of metrics on screen (tests compare against it)."""
    if x is None:
        return "—"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def fmt_pct(x: float) -> str:
    return f"{100.0 * float(x):.1f} %"


# ---------------------------------------------------------------- showing charts


def _export_spec(chart: alt.TopLevelMixin) -> str:
    c = chart.configure(font=FONT) if chart.config is alt.Undefined else chart
    return c.to_json()


def _png(spec: str) -> bytes:
    import vl_convert as vlc

    return vlc.vegalite_to_png(spec, scale=2)


def _svg(spec: str) -> str:
    import vl_convert as vlc

    return vlc.vegalite_to_svg(spec)


def show_chart(chart: alt.TopLevelMixin, data: pd.DataFrame, name: str, container: Any = None) -> None:
    """Render `chart` at its own fixed size; offer its data as CSV and itself as PNG / SVG.

    The files are produced only when a button is clicked (callables), so a rerun stays fast.
    `name` is the file stem ("saturation-entropy"); the language is appended.
    """
    where = container or st
    if chart.autosize is alt.Undefined:
        # Streamlit otherwise fits title, axes and legend *inside* width × height, squeezing the plot.
        chart = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    where.altair_chart(chart, width="content")
    stem = f"{name}-{current_lang()}"
    holder = where.popover(t("common.download.label"), icon=":material/download:")
    holder.download_button(t("common.download.csv"), data=lambda: data.to_csv(index=False).encode("utf-8"),
                           file_name=f"{stem}.csv", mime="text/csv", on_click="ignore",
                           key=f"dl-{name}-csv")
    holder.download_button(t("common.download.png"), data=lambda: _png(_export_spec(chart)),
                           file_name=f"{stem}.png", mime="image/png", on_click="ignore",
                           key=f"dl-{name}-png")
    holder.download_button(t("common.download.svg"), data=lambda: _svg(_export_spec(chart)),
                           file_name=f"{stem}.svg", mime="image/svg+xml", on_click="ignore",
                           key=f"dl-{name}-svg")


def dk_rule(dk: int) -> alt.Chart:
    """A dashed vertical rule marking the current d_k on a d_k axis."""
    df = pd.DataFrame({"dk": [dk], "label": [t("common.current_dk")]})
    return alt.Chart(df).mark_rule(strokeDash=[4, 4], color="#777777").encode(
        x="dk:Q", tooltip=[alt.Tooltip("label:N", title=" "), alt.Tooltip("dk:Q", title="d_k")])


def dk_axis(title_key: str = "common.axis.dk") -> alt.X:
    """The log₂ d_k axis used by every sweep."""
    return alt.X("dk:Q", title=t(title_key), scale=alt.Scale(type="log", base=2),
                 axis=alt.Axis(values=[2**i for i in range(13)], format="d"))


# ---------------------------------------------------------------- notices


def show_error(exc: BaseException, container: Any = None) -> None:
    """A core error as a translated notice (never a traceback); the original text as details."""
    where = container or st
    if isinstance(exc, BudgetError):
        where.warning(t("common.error.budget"), icon=":material/hourglass_top:")
    elif isinstance(exc, BackendError):
        where.warning(t("common.error.backend"), icon=":material/memory:")
    elif isinstance(exc, InputError):
        where.warning(t("common.error.input"), icon=":material/info:")
    else:
        where.error(t("common.error.unexpected"), icon=":material/error:")
    where.caption(t("common.error.details", msg=literal(str(exc) or type(exc).__name__, limit=300)))


@contextlib.contextmanager
def notices(container: Any = None) -> Iterator[None]:
    """`with notices(): …` shows core errors raised inside as notices instead of tracebacks."""
    try:
        yield
    except (InputError, ValueError, MemoryError) as exc:
        show_error(exc, container)


def reduced_trials_note(used: int, asked: int, n: int) -> None:
    if used < asked:
        st.caption(t("common.trials_reduced", used=used, asked=asked, n=n))


def what_to_notice(key: str) -> None:
    """The page's "what to notice" box."""
    st.info(f"**{t('common.what_to_notice')}** — {t(key)}", icon=":material/visibility:")


# ---------------------------------------------------------------- shared compute


def cached(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """fn(**kwargs) computed once for every session (pages/ui/compute.py); core errors → translated
    notice and None."""
    try:
        return shared_call(fn, kwargs, container)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


def run_with_progress(fn: Callable[..., Any], container: Any = None, **kwargs: Any) -> Any:
    """Like `cached`, with a progress bar while it computes (fn takes progress=callable); a heavy
    job waits for its turn, its place shown."""
    try:
        return shared_call(fn, kwargs, container, progress=True)
    except (InputError, MemoryError) as exc:
        show_error(exc, container)
        return None


# ---------------------------------------------------------------- common figures


def with_scale_labels(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows from core → DataFrame with a translated `scale_label` column for legends."""
    df = pd.DataFrame(rows)
    if "scale" in df:
        labels = {s: scale_label(s) for s in df["scale"].unique()}
        df["scale_label"] = df["scale"].map(labels)
    return df


def sweep_lines(df: pd.DataFrame, y: str, y_title: str, scales: list[str], dk: int,
                log_y: bool = True, title: str | None = None, width: int = WIDTH, height: int = HEIGHT,
                tooltips: tuple[tuple[str, str], ...] = (), y_domain: tuple[float, float] | None = None,
                ) -> alt.LayerChart:
    """One line (with points) per scale of `y` against d_k on a log₂ axis, the current d_k marked."""
    y_scale = alt.Scale(type="log") if log_y else alt.Scale(zero=False)
    if y_domain is not None:
        y_scale = alt.Scale(type="log" if log_y else "linear", domain=list(y_domain))
    colour = alt.Color("scale_label:N", title=t("common.legend.scale"), scale=scale_colours(scales),
                       legend=alt.Legend(orient="bottom", columns=2, labelLimit=260))
    tips = [alt.Tooltip("scale_label:N", title=t("common.legend.scale")),
            alt.Tooltip("dk:Q", title="d_k"), alt.Tooltip(f"{y}:Q", title=y_title, format=".4g")]
    tips += [alt.Tooltip(f"{f}:Q", title=ttl, format=".4g") for f, ttl in tooltips]
    base = alt.Chart(df).encode(x=dk_axis(), y=alt.Y(f"{y}:Q", title=y_title, scale=y_scale),
                                color=colour, tooltip=tips)
    chart = alt.layer(base.mark_line(strokeWidth=2), base.mark_point(filled=True, size=36), dk_rule(dk))
    props: dict[str, Any] = {"width": width, "height": height}
    if title:
        props["title"] = alt.TitleParams(title, anchor="start", fontSize=14)
    return chart.properties(**props)
