"""tools/page_floor: the app-shell floor that tools.page_timing times beside Streamlit's own is app.py's
router served with the app's own lifespan and middleware (a rename in app.py must not break it)."""

from __future__ import annotations

import importlib

import streamlit as st

import app


def test_the_app_shell_floor_is_served_as_the_app_is():
    shell = importlib.import_module("tools.page_floor.app_shell")
    assert isinstance(shell.app, st.App)
    assert shell.router is app and callable(app.LIFESPAN) and app.MIDDLEWARE
