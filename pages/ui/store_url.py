"""The shared store's address, from the app's secrets: a `redis_url` in `.streamlit/secrets.toml` (or
a host's secrets settings) is handed to the server layer as `ASE_REDIS_URL`, which server.shared
reads when it is first imported (server/ never draws or reads st.secrets). An `ASE_REDIS_URL` already set in
the environment wins. Called by this package's `__init__`, so it runs before any page module imports
server.shared.
"""

from __future__ import annotations

import os

import streamlit as st

from server.store import REDIS_URL_ENV

SECRET = "redis_url"


def export_store_url() -> str | None:
    """Put the `redis_url` secret into ASE_REDIS_URL unless that is set; the URL now in effect."""
    current = os.environ.get(REDIS_URL_ENV, "").strip()
    if current or not st.secrets.load_if_toml_exists():
        return current or None
    url = st.secrets.get(SECRET)
    if isinstance(url, str) and url.strip():
        os.environ[REDIS_URL_ENV] = url.strip()
        return url.strip()
    return None
