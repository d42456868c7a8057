"""One translation table for every string on screen, English and Simplified Chinese.

TABLE merges `TEXT` from every module of `pages.ui.text` (auto-discovered); a key defined twice
raises at import, so two pages cannot silently overwrite each other's text.
The language comes from the sidebar (session state "lang"), else `?lang=en|zh`, else the
browser locale (st.context.locale), else English.
"""

from __future__ import annotations

import importlib
import pkgutil

from pages.ui import text as _text_pkg

LANGS: tuple[str, ...] = ("en", "zh")
LANG_NAMES: dict[str, str] = {"en": "English", "zh": "简体中文"}


def _merge() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    origin: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(_text_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_text_pkg.__name__}.{info.name}")
        entries = getattr(module, "TEXT", None)
        if not isinstance(entries, dict):
            raise TypeError(f"pages/ui/text/{info.name}.py must define TEXT: dict[str, dict[str, str]]")
        for key, value in entries.items():
            if key in table:
                raise ValueError(f"duplicate translation key {key!r} in text modules "
                                 f"{origin[key]!r} and {info.name!r}")
            table[key] = value
            origin[key] = info.name
    return table


TABLE: dict[str, dict[str, str]] = _merge()


def locale_lang() -> str:
    """'zh' when the browser asks for Chinese (st.context.locale, e.g. 'zh-CN'), else 'en'."""
    try:
        import streamlit as st

        loc = st.context.locale or ""
    except Exception:
        return "en"
    return "zh" if str(loc).lower().startswith("zh") else "en"


def current_lang() -> str:
    """The language of this run: sidebar choice, then ?lang=, then the browser locale."""
    try:
        import streamlit as st

        lang = st.session_state.get("lang")
        if lang in LANGS:
            return lang
        raw = st.query_params.get("lang")
        if raw in LANGS:
            return raw
    except Exception:
        return "en"
    return locale_lang()


def text_for(key: str, lang: str) -> str:
    """The raw string of `key` in `lang` (no formatting); KeyError names a missing key."""
    try:
        entry = TABLE[key]
    except KeyError:
        raise KeyError(f"missing translation key {key!r} (add it to a module in pages/ui/text/)") from None
    return entry.get(lang) or entry["en"]


def t(key: str, **fmt: object) -> str:
    """The string `key` in the current language, with `str.format(**fmt)` applied when given."""
    raw = text_for(key, current_lang())
    return raw.format(**fmt) if fmt else raw


def has(key: str) -> bool:
    return key in TABLE
