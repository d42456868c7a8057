"""Notices around a page's figures: a core error as a translated notice (never a traceback), the
trials a figure could afford, and the page's "what to notice" box."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.errors import BackendError, BudgetError, InputError
from pages.ui.i18n import t
from pages.ui.user_text import literal


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


def reduced_trials_note(used: int, asked: int, n: int) -> None:
    """A caption when a figure ran fewer trials than asked (the budget of core.figure_budget)."""
    if used < asked:
        st.caption(t("common.trials_reduced", used=used, asked=asked, n=n))


def what_to_notice(key: str) -> None:
    """The page's "what to notice" box."""
    st.info(f"**{t('common.what_to_notice')}** — {t(key)}", icon=":material/visibility:")
