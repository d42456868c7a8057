"""The shared store's address, from the app's secrets: a `redis_url` in `.streamlit/secrets.toml` (or
a host's secrets settings). Read by the app's start (pages/ui/app_start.py) and handed to the server
layer in its settings (server.shared.Settings: an `ASE_REDIS_URL` set in the environment wins), as
server/ draws nothing and never reads st.secrets. Nothing is written to the environment.
"""

from __future__ import annotations

import streamlit as st

SECRET = "redis_url"


def secret_store_url() -> str | None:
    """The `redis_url` secret, stripped; None when there are no secrets or it is not a string."""
    if not st.secrets.load_if_toml_exists():
        return None
    url = st.secrets.get(SECRET)
    return (url.strip() or None) if isinstance(url, str) else None
