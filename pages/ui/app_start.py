"""The app's start-up: `start()`, which app.py calls as `streamlit run` imports it and at the top of
every script run (AppTest runs it with no server), once per process.

It is server.startup.start (the order: its module docstring, docs/architecture.md#start-up) given
what the app adds to the server layer, which never imports Streamlit nor the pages:
- the settings: the environment and the app's `redis_url` secret (pages/ui/store_url.py);
- the evictors of the pages' own caches, which the janitor empties once the server is quiet: the
  sweeps' parts (core.views.PARTS, reached through pages/ui/compute.py) and the built charts
  (pages/ui/chart/figure.py's FIGURES);
- the process-wide setting of a library: Altair's debug mode off (pages/ui/chart/figure.py).
"""

from __future__ import annotations

from core.views import PARTS
from pages.ui.chart.figure import FIGURES, altair_without_debug_mode
from pages.ui.store_url import secret_store_url
from server import startup
from server.shared import Settings


def settings() -> Settings:
    """The server layer's settings: the environment's, with the `redis_url` secret as the store's
    address when `ASE_REDIS_URL` names none."""
    return Settings.from_env(secret_url=secret_store_url())


def start() -> bool:
    """Start the process once (server.startup.start); True when this call did. A later call, every
    script run's, returns False after one flag read."""
    if startup.started():
        return False
    return startup.start(settings, evictors=(PARTS.drop_unused, FIGURES.drop_unused),
                         configure=(altair_without_debug_mode,))
