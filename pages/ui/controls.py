"""Controls bound to the URL: the shared sidebar (rendered by app.py) and page-specific widgets.

Binding works the same way for every control:
  1. the first time a widget key appears in a session, its value is read from the URL
     (`?dk=256`), validated — out of range → clamped, malformed → default — and any
     correction is shown as a translated notice;
  2. the widget is rendered with that value in session state;
  3. at the end of the run `sync_url()` writes every non-default value back to the URL,
     so a copied link restores the exact view and default values keep the URL short.
Page-specific keys carry the page's short name as a prefix ("var_rho", "sat_query").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import streamlit as st

from core.backend import BACKENDS, DTYPES, get_backend
from core.errors import InputError
from core.scales import NAMED_SCALES, POWER_RANGE, parse_scale
from pages.ui.i18n import LANG_NAMES, LANGS, current_lang, locale_lang, t, text_for
from pages.ui.shared_work import JANITOR, RUNS
from pages.ui.user_text import literal

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

_URL = "_ase_url"          # {param: text} wanted in the URL at the end of this run
_NOTICES = "_ase_notices"  # notices raised while reading the URL in this run
_BOX = "_ase_notice_box"   # the container above the page that shows them
_TRANSLATED = "_ase_translated"  # keys of widgets whose option labels are translated
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


# ---------------------------------------------------------------- parsing URL text


def parse_int(raw: str | None, lo: int, hi: int, default: int) -> tuple[int, str | None]:
    """(value, problem): problem is None, "clamped" or "malformed"."""
    if raw is None:
        return default, None
    try:
        x = float(raw.strip())
    except ValueError:
        return default, "malformed"
    if not math.isfinite(x) or not x.is_integer():
        return default, "malformed"
    v = int(x)
    if v < lo or v > hi:
        return min(hi, max(lo, v)), "clamped"
    return v, None


def parse_float(raw: str | None, lo: float, hi: float, default: float) -> tuple[float, str | None]:
    if raw is None:
        return default, None
    try:
        x = float(raw.strip())
    except ValueError:
        return default, "malformed"
    if not math.isfinite(x):
        return default, "malformed"
    if x < lo or x > hi:
        return min(hi, max(lo, x)), "clamped"
    return x, None


def parse_choice(raw: str | None, options: Sequence[str], default: str) -> tuple[str, str | None]:
    if raw is None:
        return default, None
    value = raw.strip().lower()
    return (value, None) if value in options else (default, "malformed")


def parse_scales(raw: str | None, default: Sequence[str], default_a: float
                 ) -> tuple[list[str], float, str | None]:
    """'none,sqrt,power:0.5' → (["none", "sqrt", "power"], a, problem). Unknown names are dropped."""
    if raw is None:
        return list(default), default_a, None
    out: list[str] = []
    a, problem = default_a, None
    for part in raw.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name == "power":
            out.append("power")
            continue
        try:
            s = parse_scale(name)
        except InputError:
            if name.startswith("power:"):
                a, problem = parse_float(name.partition(":")[2], *POWER_RANGE, default_a)
                problem = problem or "clamped"
                out.append("power")
            else:
                problem = "malformed"
            continue
        if s.kind == "power":
            a = float(s.param)
            out.append("power")
        elif s.kind in NAMED_SCALES:
            out.append(s.kind)
        else:
            problem = "malformed"  # const:c is a core scale but not offered in the sidebar
    out = list(dict.fromkeys(out))
    if not out:
        return list(default), default_a, "malformed"
    return out, a, problem


def parse_flag(raw: str | None, default: bool = False) -> tuple[bool, str | None]:
    """'1', 'true', 'yes', 'on' → True; '0', 'false', 'no', 'off' → False (any case); else the default."""
    if raw is None:
        return default, None
    v = raw.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True, None
    if v in ("0", "false", "no", "off"):
        return False, None
    return default, "malformed"


def _to_text(value: Any) -> str:
    if isinstance(value, bool):  # as flags are written in links (parse_flag)
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# ---------------------------------------------------------------- run bookkeeping


def begin_run() -> None:
    """Called by app.py before any widget: reset this run's URL wishes and notices."""
    RUNS.start()
    JANITOR.start()
    st.session_state[_URL] = {}
    st.session_state[_NOTICES] = []


def _notice(param: str, raw: str, value: Any, problem: str) -> None:
    """A URL correction; `param=raw` is the link's own text, shown literally (user_text.literal)."""
    msg = t(f"common.url.{problem}", setting=literal(f"{param}={raw}"), value=_to_text(value))
    st.session_state.setdefault(_NOTICES, []).append(msg)


def open_notice_area() -> None:
    """Reserve the place above the page where this run's URL corrections will appear."""
    st.session_state[_BOX] = st.container()


def show_notices() -> None:
    """Show, in the reserved area above the page: on the GPU backend, which of our kernel files fell
    back and why (a first-use check may have failed during the page); then this run's URL
    corrections (shared and page-specific), once."""
    box = st.session_state.get(_BOX) or st
    s = st.session_state.get("_ase_settings")
    if s is not None and s.backend == "cupy":
        from core import gpu

        for msg in kernel_notices(s.backend, gpu.kernel_report()):
            box.warning(msg, icon=":material/memory:")
    for msg in st.session_state.get(_NOTICES, []):
        box.warning(msg, icon=":material/link:")
    st.session_state[_NOTICES] = []


def _want(key: str, value: Any, default: Any) -> None:
    """Ask for `key=value` in the URL at the end of the run (left out when it equals the default)."""
    wants = st.session_state.setdefault(_URL, {})
    if _to_text(value) != _to_text(default):
        wants[key] = _to_text(value)


def sync_url() -> None:
    """Write this run's wanted parameters to the URL, only when they differ from it."""
    wants = dict(st.session_state.get(_URL, {}))
    try:
        current = st.query_params.to_dict()
    except Exception:
        return
    if current != wants:
        st.query_params.from_dict(wants)


def _seed(key: str, parse: Callable[[str | None], tuple[Any, str | None]]) -> None:
    """First appearance of a widget key in this session: take its value from the URL."""
    if key in st.session_state:
        return
    raw = st.query_params.get(key)
    value, problem = parse(raw)
    if problem:
        _notice(key, raw or "", value, problem)
    st.session_state[key] = value


# ---------------------------------------------------------------- shared sidebar


def nearest_power_of_two(dk: int) -> int:
    return min(POWERS_OF_TWO, key=lambda p: (abs(math.log2(p) - math.log2(max(dk, 1))), p))


def _dk_from_pow2() -> None:
    st.session_state["dk"] = st.session_state["dk_pow2"]


def _translated(*keys: str) -> None:
    """Remember widgets whose option labels are translated (see _relabel)."""
    st.session_state.setdefault(_TRANSLATED, set()).update(keys)


def _relabel() -> None:
    """The language changed: give every widget with translated option labels its value again (and
    every keyed expander its open state: its label is part of its identity, so it would close).

    The browser keeps a choice widget's value as the label it showed; without this it would go on
    sending the old language's labels, which the new run no longer knows, and the next rerun would
    empty the selection (the scales, a page's pills). A value set from session state is sent back
    with the new labels.
    """
    for key in st.session_state.get(_TRANSLATED, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def seed_language() -> str:
    """Resolve the language before anything is translated (URL, then browser locale)."""
    _seed("lang", lambda raw: parse_choice(raw, LANGS, locale_lang()) if raw is not None
          else (locale_lang(), None))
    return st.session_state["lang"]


def render_sidebar() -> Settings:
    """The shared controls, in the sidebar. Call once per run from app.py, after begin_run()."""
    d = DEFAULTS
    seed_language()
    _seed("dk", lambda raw: parse_int(raw, *DK_RANGE, d["dk"]))
    _seed("n", lambda raw: parse_int(raw, *N_RANGE, d["n"]))
    if "scales" not in st.session_state:
        raw = st.query_params.get("scales")
        names, a, problem = parse_scales(raw, d["scales"], d["power_a"])
        if problem:
            _notice("scales", raw or "", names, problem)
        st.session_state["scales"] = names
        if "power_a" not in st.session_state and st.query_params.get("power_a") is None:
            st.session_state["power_a"] = a
    _seed("power_a", lambda raw: parse_float(raw, *POWER_RANGE, d["power_a"]))
    _seed("trials", lambda raw: parse_int(raw, *TRIALS_RANGE, d["trials"]))
    _seed("seed", lambda raw: parse_int(raw, *SEED_RANGE, d["seed"]))
    _seed("backend", lambda raw: parse_choice(raw, BACKENDS, d["backend"]))
    _seed("dtype", lambda raw: parse_choice(raw, DTYPES, d["dtype"]))

    sb = st.sidebar
    lang = current_lang()  # format functions may run outside this script run: bind the language now
    # Two choices and six chips rather than a selectbox and a multiselect: one tap each on a phone,
    # and a new tab loads neither of those widgets' code (0.11 s of a new tab on Streamlit's floor).
    sb.segmented_control(t("common.lang.label"), LANGS, key="lang", format_func=LANG_NAMES.__getitem__,
                         required=True, on_change=_relabel)
    _translated("scales", "backend", MORE_KEY)
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
    if MORE_KEY not in st.session_state:  # a link that sets one of its values opens the section
        st.session_state[MORE_KEY] = any(_to_text(st.session_state[k]) != _to_text(d[k]) for k in MORE) \
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
            _keep(key)
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
        _want(key, st.session_state[key], default)
    _want("scales", list(st.session_state["scales"]), list(d["scales"]))
    if "power" in st.session_state["scales"]:
        _want("power_a", a, d["power_a"])

    return Settings(dk=int(st.session_state["dk"]), n=int(st.session_state["n"]), scales=scales,
                    trials=int(st.session_state["trials"]), seed=int(st.session_state["seed"]),
                    backend=backend, dtype=st.session_state["dtype"], lang=st.session_state["lang"])


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


def end_run() -> None:
    """Called by app.py after the page: settings are valid for one run only, so a page that runs
    without app.py (see _route_through_app) notices it instead of reading stale values."""
    st.session_state["_ase_last_settings"] = st.session_state.get("_ase_settings")
    st.session_state["_ase_settings"] = None
    RUNS.end()


def settings() -> Settings:
    """The shared settings of this run (app.py rendered the sidebar before the page runs)."""
    s = st.session_state.get("_ase_settings")
    if s is None:
        _route_through_app()
    return s


# ---------------------------------------------------------------- the first run of a session
#
# Until some session has called st.navigation, Streamlit treats a pages/ folder beside the entry
# script as a legacy (v1) multipage app, for the whole server: a run that starts then executes the
# file the URL names (/variance → pages/variance.py) without app.py, or app.py itself as one of the
# folder's pages (/). That is every first request of a fresh server, and every tab a class opens
# on a server that just woke up. Widgets drawn in such a run belong to the wrong script (a widget's
# identity includes the script that drew it), so they would lose their values on the next rerun.
# Hence a session's first run declares the app's pages with st.navigation before any widget (which
# switches the folder off for the server, as documented, and registers the URL's page) and, where
# it may have been such a run, reruns: that rerun, and every later one, runs app.py as the entry
# script, whatever other sessions are doing.

_DECLARED = "_ase_pages_declared"
PAGES_DIR = Path(__file__).resolve().parents[1]


def declare_pages_first(sections: dict[str, list[Any]]) -> None:
    """Called by app.py before any widget: on the session's first run, declare `sections`, and
    rerun unless the link named one of them.

    A legacy run executes app.py only for the folder's main page: the root link, or a link that
    names no file in pages/. Both resolve to the default page here too. A link to a named page
    that reaches app.py is therefore already an app.py run, and it goes on without a rerun: a
    class opening links to a warm server costs one run per tab instead of two."""
    if st.session_state.get(_DECLARED):
        return
    st.session_state[_DECLARED] = True
    if st.navigation(sections, position="hidden").url_path:
        return
    st.rerun()


def _route_through_app() -> NoReturn:
    """This page file ran without app.py (see above): declare the folder's files as pages under their
    own names, as Streamlit just resolved the link (app.py's url paths are the file names), and
    rerun through app.py, which routes to this same page. The entry script is the default page, as
    in Streamlit's own legacy navigation: a default page answers only to the root link, so were it
    one of the files (the first, beyond.py), a link to that file would find no page."""
    files = sorted(f for f in PAGES_DIR.glob("*.py") if f.name != "__init__.py")
    st.session_state[_DECLARED] = True
    entry = st.Page(PAGES_DIR.parent / "app.py", default=True)
    st.navigation([entry, *(st.Page(f, url_path=f.stem) for f in files)], position="hidden")
    st.rerun()


# ---------------------------------------------------------------- page-specific controls


def _check_page_key(key: str) -> None:
    if "_" not in key or key in DEFAULTS or key == "lang":
        raise ValueError(f"page control key {key!r} must carry the page prefix, e.g. 'var_rho'")


def page_slider(key: str, label_key: str, min_value: float, max_value: float, default: float,
                step: float | None = None, help_key: str | None = None, container: Any = None,
                shown: bool = True, **fmt: Any) -> Any:
    """A slider bound to `?key=`; ints when min, max and default are ints, else floats. With
    `shown` false (its section is closed) nothing is drawn and the value is kept (_keep)."""
    _check_page_key(key)
    is_int = all(isinstance(v, int) for v in (min_value, max_value, default)) and (
        step is None or isinstance(step, int))
    if is_int:
        _seed(key, lambda raw: parse_int(raw, min_value, max_value, default))
    else:
        _seed(key, lambda raw: parse_float(raw, float(min_value), float(max_value), float(default)))
    if shown:
        (container or st).slider(t(label_key, **fmt), min_value=min_value, max_value=max_value, step=step,
                                 key=key, help=t(help_key) if help_key else None)
    else:
        _keep(key)
    value = st.session_state[key]
    _want(key, value, default)
    return value


def page_select(key: str, label_key: str, options: Sequence[str], default: str,
                option_prefix: str | None = None, container: Any = None,
                help_key: str | None = None, format_func: Callable[[str], str] | None = None,
                shown: bool = True) -> str:
    """One choice among `options` (pills, one always chosen) bound to `?key=`; option labels from
    t(f"{option_prefix}.{option}") or from `format_func` (called now, in this run's language). With
    `shown` false nothing is drawn and the value is kept (_keep)."""
    _check_page_key(key)
    options = list(options)
    if default not in options:
        default = options[0]
    _seed(key, lambda raw: parse_choice(raw, options, default))
    if st.session_state[key] not in options:  # options depend on other settings
        st.session_state[key] = default
    if shown:
        _draw_choice(key, label_key, options, option_prefix, container or st, help_key, format_func)
    else:
        _keep(key)
    value = st.session_state[key]
    _want(key, value, default)
    return value


def _draw_choice(key: str, label_key: str, options: list[str], option_prefix: str | None, where: Any,
                 help_key: str | None, format_func: Callable[[str], str] | None) -> None:
    """Pills rather than a radio: they wrap on a phone, and a new tab loads no radio code (0.04 s
    on Streamlit's floor; the sidebar's scales are pills already)."""
    lang = current_lang()
    if format_func is not None:
        labels = {o: format_func(o) for o in options}
    elif option_prefix:
        labels = {o: text_for(f"{option_prefix}.{o}", lang) for o in options}
    else:
        labels = {o: str(o) for o in options}
    if format_func is not None or option_prefix:
        _translated(key)
    fmt = labels.__getitem__  # precomputed: Streamlit may format outside this run
    where.pills(t(label_key), options, key=key, format_func=fmt, selection_mode="single", required=True,
                help=t(help_key) if help_key else None)


def _flag_widget(key: str, default: bool, draw: Callable[[], Any]) -> tuple[Any, bool]:
    """A widget holding a flag bound to `?key=1|0`: seeded from the URL, drawn by `draw()` (which
    gives it `key`), written back; (what draw returned, the flag)."""
    _check_page_key(key)
    _seed(key, lambda raw: parse_flag(raw, default))
    drawn = draw()
    value = bool(st.session_state[key])
    _want(key, value, default)
    return drawn, value


def page_toggle(key: str, label_key: str, default: bool = False, container: Any = None,
                shown: bool = True) -> bool:
    """A toggle bound to `?key=1|0`. With `shown` false nothing is drawn and the value is kept."""
    where = container or st
    return _flag_widget(key, default, lambda: where.toggle(t(label_key), key=key) if shown else _keep(key))[1]


def page_expander(key: str, label_key: str, default: bool = False, container: Any = None
                  ) -> tuple[Any, bool]:
    """An expander bound to `?key=1|0`: (its container, open). Opening or closing it reruns the
    page, so what a page draws inside only while it is open costs nothing while it is closed."""
    where = container or st
    _translated(key)  # its label is its identity: a new language would close it
    return _flag_widget(key, default, lambda: where.expander(t(label_key), key=key, on_change="rerun"))


def asked_work_settings(key: str, label_key: str, asked: str) -> tuple[Any, bool]:
    """The settings of a page's asked-for work (run_when_asked's flag `asked`) in an expander bound
    to `?key=1|0`: (its container, open). Open until the work is asked for; a link that asks for it
    (`?train_run=1`) opens on the results, the settings folded under one line and drawn only when
    opened (pass `shown=` the flag to the page's controls). Each control costs a new tab about 0.03 s
    of the browser's time on a 2-core machine; the settings of a run stay in its link and caption."""
    return page_expander(key, label_key, default=not page_value(asked, parse_flag, False))


def columns_when(shown: bool, spec: int | Sequence[float], **kwargs: Any) -> list[Any]:
    """st.columns(spec, **kwargs) for a section's controls while it is shown; else as many Nones
    (nothing drawn: the controls take `shown=False` and draw nothing either)."""
    if shown:
        return list(st.columns(spec, **kwargs))
    return [None] * (spec if isinstance(spec, int) else len(spec))


def _keep(key: str) -> None:
    """A widget this run does not draw (its section is closed): keep its value. Streamlit forgets a
    widget's value after a run that did not draw it, unless the script sets it."""
    st.session_state[key] = st.session_state[key]


def keep_page_value(key: str, default: Any) -> None:
    """A page control this run does not draw (its section is not shown): keep its value in the
    session and in the URL, so that the section finds it again and a link still reproduces the view.
    Streamlit forgets a widget's value after a run that did not draw it, unless the script sets it."""
    _check_page_key(key)
    if key in st.session_state:
        _keep(key)
        _want(key, st.session_state[key], default)
    elif (raw := st.query_params.get(key)) is not None:
        _want(key, raw, default)  # checked when its section is shown


def page_value(key: str, parse: Callable[[str | None], tuple[Any, str | None]], default: Any) -> Any:
    """A page setting without a widget of its own (moved by buttons or keys), bound to `?key=`:
    read from the URL the first time this session meets it (a bad value → notice and `parse`'s
    fallback), then kept in session state and written back to the URL at the end of every run."""
    _seed(key, parse)
    value = st.session_state[key]
    _want(key, value, default)
    return value


def url_params() -> dict[str, str]:
    """The query parameters this run has asked for so far (what `sync_url` will write): call it
    after every control of the page has been rendered to get the link of the current view."""
    return dict(st.session_state.get(_URL, {}))
