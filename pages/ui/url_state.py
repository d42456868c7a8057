"""A view's state in its URL: every control's value is read from the link once, checked, and written
back at the end of every run, so a copied link reproduces the view.

  1. the first time a key appears in a session, its value is read from the URL (`?dk=256`) and
     checked — out of range → clamped, malformed → default — and a correction is shown as a
     translated notice above the page, the link's own text shown literally (`seed`);
  2. the widget is drawn with that value in session state;
  3. at the end of the run `sync_url()` writes every non-default value back to the URL (`want`), so
     default values keep the link short.

What one run gathers as it goes (the values wanted in the URL, the corrections to show, the sidebar's
settings) is one `Run` in session state, made anew by `begin_run()` at the start of every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from core.errors import InputError
from core.scales import NAMED_SCALES, POWER_RANGE, parse_scale
from pages.ui.i18n import t
from pages.ui.user_text import literal

RUN = "_ase_run"  # the session state key of this run's Run


@dataclass
class Run:
    """What one script run gathers: the parameters wanted in the URL at its end (`wants`), the URL
    corrections to show (`notices`) in the container reserved above the page (`box`), and the
    sidebar's settings (`settings`: pages/ui/sidebar.py). `ended` once the router is done with it: a
    page file that runs without the router finds an ended run and reroutes (pages/ui/legacy_pages.py)."""

    wants: dict[str, str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    box: Any = None
    settings: Any = None
    ended: bool = False


def current_run() -> Run:
    """This session's Run (a new one where none was begun)."""
    run = st.session_state.get(RUN)
    if not isinstance(run, Run):
        run = st.session_state[RUN] = Run()
    return run


def begin_run() -> None:
    """Called by the router before any widget: a new Run for this run."""
    st.session_state[RUN] = Run()


def end_run() -> None:
    """Called by the router after the page: this run's settings are valid for it only."""
    current_run().ended = True


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


def as_text(value: Any) -> str:
    """A value as the URL writes it."""
    if isinstance(value, bool):  # as flags are written in links (parse_flag)
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# ---------------------------------------------------------------- reading and writing the URL


def notice(param: str, raw: str, value: Any, problem: str) -> None:
    """A URL correction; `param=raw` is the link's own text, shown literally (user_text.literal)."""
    msg = t(f"common.url.{problem}", setting=literal(f"{param}={raw}"), value=as_text(value))
    current_run().notices.append(msg)


def from_url(key: str, parse: Callable[[str | None], tuple[Any, str | None]]) -> None:
    """First appearance of a key in this session: take its value from the URL."""
    if key in st.session_state:
        return
    raw = st.query_params.get(key)
    value, problem = parse(raw)
    if problem:
        notice(key, raw or "", value, problem)
    st.session_state[key] = value


def want(key: str, value: Any, default: Any) -> None:
    """Ask for `key=value` in the URL at the end of the run (left out when it equals the default)."""
    if as_text(value) != as_text(default):
        current_run().wants[key] = as_text(value)


def keep(key: str) -> None:
    """A widget this run does not draw (its section is closed): keep its value. Streamlit forgets a
    widget's value after a run that did not draw it, unless the script sets it."""
    st.session_state[key] = st.session_state[key]


def page_value(key: str, parse: Callable[[str | None], tuple[Any, str | None]], default: Any) -> Any:
    """A page setting without a widget of its own (moved by buttons or keys), bound to `?key=`:
    read from the URL the first time this session meets it (a bad value → notice and `parse`'s
    fallback), then kept in session state and written back to the URL at the end of every run."""
    from_url(key, parse)
    value = st.session_state[key]
    want(key, value, default)
    return value


def url_params() -> dict[str, str]:
    """The query parameters this run has asked for so far (what `sync_url` will write): call it
    after every control of the page has been rendered to get the link of the current view."""
    return dict(current_run().wants)


def sync_url() -> None:
    """Write this run's wanted parameters to the URL, only when they differ from it."""
    wants = dict(current_run().wants)
    try:
        current = st.query_params.to_dict()
    except Exception:
        return
    if current != wants:
        st.query_params.from_dict(wants)


def open_notice_area() -> None:
    """Reserve the place above the page where this run's notices will appear."""
    current_run().box = st.container()


def show_url_notices() -> None:
    """This run's URL corrections (shared and page-specific), once, in the reserved area."""
    run = current_run()
    box = run.box or st
    for msg in run.notices:
        box.warning(msg, icon=":material/link:")
    run.notices = []
