"""The app's own floor: app.py's router around one_chart.py's chart instead of a page (see
tools/page_floor/__init__.py). Everything a page of the app gets besides its own content runs as
for a page: page config, the sidebar's controls, the navigation, the notices, the URL's sync, and
the same server (app.py's lifespan and middleware)."""

import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `streamlit run` puts this file's folder on the path, not the repository's

import app as router  # noqa: E402
from tools.page_floor.one_chart import draw  # noqa: E402

if __name__ == "__main__":
    router.route(page=draw)
else:
    app = st.App(__file__, lifespan=router.LIFESPAN, middleware=router.MIDDLEWARE)
