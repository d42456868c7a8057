"""The shared controls in the sidebar (language, d_k, n, the scales; an exact d_k, trials, seed,
backend and dtype in its second section), each bound to the URL, and the `Settings` they give every
page: `render_sidebar()` once per run from the router, `settings()` from a page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.backend import BACKENDS, DTYPES, get_backend
from core.errors import InputError
from core.scales import NAMED_SCALES, POWER_RANGE, parse_scale
from pages.ui.chart.chart_text import tables_toggle
from pages.ui.controls import relabel, translated
from pages.ui.i18n import LANG_NAMES, LANGS, current_lang, locale_lang, t, text_for
from pages.ui.legacy_pages import route_through_app
from pages.ui.url_state import (
    as_text,
    current_run,
    from_url,
    keep,
    notice,
    parse_choice,
    parse_float,
    parse_int,
    parse_scales,
    show_url_notices,
    want,
)

DK_RANGE = (1, 4096)
N_RANGE = (2, 1024)
TRIALS_RANGE = (10, 5000)
SEED_RANGE = (0, 2**31 - 1)
POWERS_OF_TWO: tuple[int, ...] = tuple(2**i for i in range(13))  # 1 … 4096
SCALE_OPTIONS: tuple[str, ...] = (*NAMED_SCALES, "power")

DEFAULTS: dict[str, Any] = {
    "dk": 64, "n": 32, "scales": ("none", "sqrt"), "power_a": 0.75, "trials": 100, "seed": 0,
    "backend": "auto", "dtype": "float32",
}

# The sidebar's second section (exact d_k, sampling, backend): its widgets are drawn only while it is
# open (opening it reruns the page). Every widget costs a new tab about 0.03 s of the browser's time
# on a 2-core machine, and these few are read rarely: closed, the sidebar holds four controls.
MORE_KEY = "ase_more"
MORE = ("trials", "seed", "backend", "dtype")  # with "dk", whose power-of-two slider stays in view


@dataclass(frozen=True)
class Settings:
    """The shared sidebar values, canonical (scales as core.scales names, backend resolved)."""

    dk: int
    n: int
    scales: list[str]
    trials: int
    seed: int
    backend: str
    dtype: str
    lang: str


def nearest_power_of_two(dk: int) -> int:
    return min(POWERS_OF_TWO, key=lambda p: (abs(math.log2(p) - math.log2(max(dk, 1))), p))


def _dk_from_pow2() -> None:
    st.session_state["dk"] = st.session_state["dk_pow2"]


def seed_language() -> str:
    """Resolve the language before anything is translated (URL, then browser locale)."""
    from_url("lang", lambda raw: parse_choice(raw, LANGS, locale_lang()) if raw is not None
          else (locale_lang(), None))
    return st.session_state["lang"]


def quiet_settings() -> Settings:
    """The shared settings without drawing the sidebar: for a phone in a live class, whose step and
    settings are the room's (pages/ui/live/who.py). Values come from the link the first time, as
    with render_sidebar, and are kept for when the phone leaves the class and the sidebar returns;
    only the language goes to the URL."""
    d = DEFAULTS
    read_from_url()
    for key in ("dk", "n", "scales", "power_a", "trials", "seed", "backend", "dtype", MORE_KEY):
        if key in st.session_state:
            keep(key)
    want("lang", st.session_state["lang"], locale_lang())
    backend = st.session_state["backend"] if st.session_state["backend"] == "numpy" else \
        resolve_backend(st.session_state["backend"], st.session_state["dtype"])
    s = Settings(dk=int(st.session_state["dk"]), n=int(st.session_state["n"]), scales=list(d["scales"]),
                 trials=int(st.session_state["trials"]), seed=int(st.session_state["seed"]),
                 backend=backend, dtype=st.session_state["dtype"], lang=st.session_state["lang"])
    current_run().settings = s
    return s


def read_from_url() -> None:
    """Every shared setting's value from the link, the first time this session meets it."""
    d = DEFAULTS
    seed_language()
    from_url("dk", lambda raw: parse_int(raw, *DK_RANGE, d["dk"]))
    from_url("n", lambda raw: parse_int(raw, *N_RANGE, d["n"]))
    if "scales" not in st.session_state:
        raw = st.query_params.get("scales")
        names, a, problem = parse_scales(raw, d["scales"], d["power_a"])
        if problem:
            notice("scales", raw or "", names, problem)
        st.session_state["scales"] = names
        if "power_a" not in st.session_state and st.query_params.get("power_a") is None:
            st.session_state["power_a"] = a
    from_url("power_a", lambda raw: parse_float(raw, *POWER_RANGE, d["power_a"]))
    from_url("trials", lambda raw: parse_int(raw, *TRIALS_RANGE, d["trials"]))
    from_url("seed", lambda raw: parse_int(raw, *SEED_RANGE, d["seed"]))
    from_url("backend", lambda raw: parse_choice(raw, BACKENDS, d["backend"]))
    from_url("dtype", lambda raw: parse_choice(raw, DTYPES, d["dtype"]))


def render_sidebar() -> Settings:
    """The shared controls, in the sidebar; their Settings, also kept as this run's (`Run.settings`).
    Called once per run by the router, after url_state.begin_run()."""
    d = DEFAULTS
    read_from_url()
    sb = st.sidebar
    lang = current_lang()  # format functions may run outside this script run: bind the language now
    # Two choices and six chips rather than a selectbox and a multiselect: one tap each on a phone,
    # and a new tab loads neither of those widgets' code (0.11 s of a new tab on Streamlit's floor).
    sb.segmented_control(t("common.lang.label"), LANGS, key="lang", format_func=LANG_NAMES.__getitem__,
                         required=True, on_change=relabel)
    translated("scales", "backend", MORE_KEY)
    sb.subheader(t("common.sidebar.header"), help=t("common.sidebar.help"))
    st.session_state["dk_pow2"] = nearest_power_of_two(st.session_state["dk"])
    sb.select_slider(t("common.dk.pow2"), options=POWERS_OF_TWO, key="dk_pow2", on_change=_dk_from_pow2)
    if st.session_state["dk"] != st.session_state["dk_pow2"]:  # an exact d_k set in the section below
        sb.caption(t("common.dk.exact_note", dk=st.session_state["dk"]))
    sb.slider(t("common.n.label"), min_value=N_RANGE[0], max_value=N_RANGE[1], step=1, key="n")
    sb.pills(t("common.scales.label"), SCALE_OPTIONS, key="scales", selection_mode="multi",
             format_func=lambda s: text_for(f"common.scale.{s}", lang))
    chosen = list(st.session_state["scales"])
    if "power" in chosen:
        sb.slider(t("common.power_a.label"), min_value=POWER_RANGE[0], max_value=POWER_RANGE[1],
                  step=0.05, key="power_a")
    tables_toggle(sb)  # every chart's data as an HTML table under it, bound to ?tables=1
    if MORE_KEY not in st.session_state:  # a link that sets one of its values opens the section
        st.session_state[MORE_KEY] = any(as_text(st.session_state[k]) != as_text(d[k]) for k in MORE) \
            or st.session_state["dk"] not in POWERS_OF_TWO
    more = sb.expander(t("common.advanced"), key=MORE_KEY, on_change="rerun")
    if st.session_state[MORE_KEY]:
        with more:
            st.number_input(t("common.dk.exact"), min_value=DK_RANGE[0], max_value=DK_RANGE[1], step=1,
                            key="dk")
            st.number_input(t("common.trials.label"), min_value=TRIALS_RANGE[0],
                            max_value=TRIALS_RANGE[1], step=10, key="trials")
            st.number_input(t("common.seed.label"), min_value=SEED_RANGE[0], max_value=SEED_RANGE[1],
                            step=1, key="seed")
            st.selectbox(t("common.backend.label"), BACKENDS, key="backend",
                         format_func=lambda b: text_for(f"common.backend.{b}", lang))
            st.selectbox(t("common.dtype.label"), DTYPES, key="dtype")
            backend = resolve_backend(st.session_state["backend"], st.session_state["dtype"])
            if backend == "cupy":
                st.caption(kernel_status_text())
    else:
        for key in ("dk", *MORE):  # not drawn this run: keep their values
            keep(key)
        with sb:
            backend = resolve_backend(st.session_state["backend"], st.session_state["dtype"])
    sb.caption(t("common.device", device=device_text(backend)))  # in view, the section open or not

    if not chosen:
        sb.warning(t("common.scales.empty"))
        chosen = ["sqrt"]
    a = float(st.session_state.get("power_a", d["power_a"]))
    scales = [parse_scale(f"power:{a:g}").name if s == "power" else s for s in chosen]

    for key in ("lang", "dk", "n", "trials", "seed", "backend", "dtype"):
        default = locale_lang() if key == "lang" else d[key]
        want(key, st.session_state[key], default)
    want("scales", list(st.session_state["scales"]), list(d["scales"]))
    if "power" in st.session_state["scales"]:
        want("power_a", a, d["power_a"])

    s = Settings(dk=int(st.session_state["dk"]), n=int(st.session_state["n"]), scales=scales,
                 trials=int(st.session_state["trials"]), seed=int(st.session_state["seed"]),
                 backend=backend, dtype=st.session_state["dtype"], lang=st.session_state["lang"])
    current_run().settings = s
    return s


def resolve_backend(name: str, dtype: str) -> str:
    """The backend that will really run: 'numpy' or 'cupy' (CuPy asked for but absent → notice, NumPy)."""
    try:
        return get_backend(name, dtype).name
    except InputError:
        st.warning(t("common.backend.unavailable"))
        return "numpy"


def device_text(backend: str) -> str:
    """The device string in the current language."""
    from core.backend import device_info

    info = device_info(backend)
    if backend == "numpy":
        cores = info.rsplit("(", 1)[-1].split()[0] if "(" in info else "?"
        return t("common.device.numpy", cores=cores)
    return t("common.device.cupy", gpu=info.removeprefix("CuPy on "))


def kernel_status_text() -> str:
    """The sidebar's line on our CUDA kernels (GPU backend): which files passed their first-use check."""
    from core import gpu

    checked = gpu.kernel_report()["checked"]
    return t("common.kernels.checked", files=", ".join(checked)) if checked else t("common.kernels.pending")


def kernel_notices(backend: str, report: dict[str, Any]) -> list[str]:
    """Notices for the page on the GPU backend: each of our kernel files that fell back, and why
    (report: core.gpu.kernel_report())."""
    if backend != "cupy":
        return []
    return [t("common.kernels.fallback", source=src, why=why) for src, why in report["failed"].items()]


def show_notices() -> None:
    """Show, in the area reserved above the page: on the GPU backend, which of our kernel files fell
    back and why (a first-use check may have failed during the page); then this run's URL
    corrections, once."""
    run = current_run()
    if run.settings is not None and run.settings.backend == "cupy":
        from core import gpu

        for msg in kernel_notices(run.settings.backend, gpu.kernel_report()):
            (run.box or st).warning(msg, icon=":material/memory:")
    show_url_notices()


def settings() -> Settings:
    """The shared settings of this run (the router rendered the sidebar before the page runs)."""
    run = current_run()
    if run.ended or run.settings is None:
        route_through_app()
    return run.settings
