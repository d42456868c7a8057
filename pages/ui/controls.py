"""A page's own controls, each bound to the URL (`?var_rho=0.5`; pages/ui/url_state.py): sliders, one-of
choices as pills, toggles, expanders whose contents are drawn only while open. A page key carries the
page's short name as a prefix ("var_rho", "sat_query").

Widgets whose option labels are translated are remembered (`translated`), so that a change of
language gives them their values again in the new labels (`relabel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from pages.ui.i18n import current_lang, t, text_for
from pages.ui.url_state import (
    from_url,
    keep,
    page_value,
    parse_choice,
    parse_flag,
    parse_float,
    parse_int,
    want,
)

_TRANSLATED = "_ase_translated"  # keys of widgets whose option labels are translated
SHARED_KEYS = ("dk", "n", "scales", "power_a", "trials", "seed", "backend", "dtype", "lang")


def translated(*keys: str) -> None:
    """Remember widgets whose option labels are translated (see relabel)."""
    st.session_state.setdefault(_TRANSLATED, set()).update(keys)


def relabel() -> None:
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


def _check_page_key(key: str) -> None:
    if "_" not in key or key in SHARED_KEYS:
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
        from_url(key, lambda raw: parse_int(raw, min_value, max_value, default))
    else:
        from_url(key, lambda raw: parse_float(raw, float(min_value), float(max_value), float(default)))
    if shown:
        (container or st).slider(t(label_key, **fmt), min_value=min_value, max_value=max_value, step=step,
                                 key=key, help=t(help_key) if help_key else None)
    else:
        keep(key)
    value = st.session_state[key]
    want(key, value, default)
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
    from_url(key, lambda raw: parse_choice(raw, options, default))
    if st.session_state[key] not in options:  # options depend on other settings
        st.session_state[key] = default
    if shown:
        _draw_choice(key, label_key, options, option_prefix, container or st, help_key, format_func)
    else:
        keep(key)
    value = st.session_state[key]
    want(key, value, default)
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
        translated(key)
    fmt = labels.__getitem__  # precomputed: Streamlit may format outside this run
    where.pills(t(label_key), options, key=key, format_func=fmt, selection_mode="single", required=True,
                help=t(help_key) if help_key else None)


def _flag_widget(key: str, default: bool, draw: Callable[[], Any]) -> tuple[Any, bool]:
    """A widget holding a flag bound to `?key=1|0`: seeded from the URL, drawn by `draw()` (which
    gives it `key`), written back; (what draw returned, the flag)."""
    _check_page_key(key)
    from_url(key, lambda raw: parse_flag(raw, default))
    drawn = draw()
    value = bool(st.session_state[key])
    want(key, value, default)
    return drawn, value


def page_toggle(key: str, label_key: str, default: bool = False, container: Any = None,
                shown: bool = True, help_key: str | None = None) -> bool:
    """A toggle bound to `?key=1|0`. With `shown` false nothing is drawn and the value is kept."""
    where = container or st
    help_text = t(help_key) if help_key else None
    return _flag_widget(key, default, lambda: where.toggle(t(label_key), key=key, help=help_text)
                        if shown else keep(key))[1]


def page_expander(key: str, label_key: str, default: bool = False, container: Any = None
                  ) -> tuple[Any, bool]:
    """An expander bound to `?key=1|0`: (its container, open). Opening or closing it reruns the
    page, so what a page draws inside only while it is open costs nothing while it is closed."""
    where = container or st
    translated(key)  # its label is its identity: a new language would close it
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


def keep_page_value(key: str, default: Any) -> None:
    """A page control this run does not draw (its section is not shown): keep its value in the
    session and in the URL, so that the section finds it again and a link still reproduces the view.
    Streamlit forgets a widget's value after a run that did not draw it, unless the script sets it."""
    _check_page_key(key)
    if key in st.session_state:
        keep(key)
        want(key, st.session_state[key], default)
    elif (raw := st.query_params.get(key)) is not None:
        want(key, raw, default)  # checked when its section is shown
