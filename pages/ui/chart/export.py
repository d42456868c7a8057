"""A chart's downloads: its data as CSV and the chart as PNG / SVG, rendered by vl-convert at its fixed
desktop size only when a button is clicked."""

from __future__ import annotations

import json
import pickle
from typing import Any

import altair as alt
import pandas as pd

from pages.ui.chart.channels import add_second_channels
from pages.ui.chart.vega import FONT, name_data


class Export:
    """What a chart's three download buttons render (CSV, PNG, SVG), kept as one pickled blob of
    (chart, table) and unpickled only when a button is clicked.

    Streamlit keeps a tab's download callables until it drops the session, and it drops a closed
    tab's session only once server.disconnectedSessionTTL has passed and another tab connects.
    Callables holding the Figure kept each closed tab's last charts alive, after the shared cache
    had let them go, as thousands of small objects spread over the interpreter's 1 MiB arenas (an
    arena is given back only once it is empty). A blob is one block, freed whole. Pickling costs
    about a millisecond once per Figure; a chart that cannot be pickled is kept as it is.
    """

    __slots__ = ("_blob", "_parts", "description")

    def __init__(self, chart: Any, data: pd.DataFrame | None, description: str = "") -> None:
        self.description = description  # the chart's text alternative, the SVG's accessible name
        try:
            self._blob: bytes | None = pickle.dumps((chart, data), protocol=pickle.HIGHEST_PROTOCOL)
            self._parts: tuple[Any, pd.DataFrame | None] | None = None
        except (pickle.PicklingError, TypeError, AttributeError):
            self._blob, self._parts = None, (chart, data)

    @property
    def nbytes(self) -> int:
        return len(self._blob) if self._blob is not None else 0

    def parts(self) -> tuple[Any, pd.DataFrame | None]:
        """(chart, table), unpickled afresh (a copy each time) or as kept."""
        return pickle.loads(self._blob) if self._blob is not None else self._parts

    def csv(self) -> bytes:
        return self.parts()[1].to_csv(index=False).encode("utf-8")

    def png(self) -> bytes:
        return _png(export_spec(self.parts()[0], self.description))

    def svg(self) -> str:
        return _svg(export_spec(self.parts()[0], self.description))


def export_spec(chart: Any, description: str = "") -> str:
    """The Vega-Lite JSON a download renders: the chart at its fixed desktop size, its data inline,
    the CJK-capable font (as the PNG / SVG exports always were), a second channel beside colour
    (pages/ui/chart/channels.py) and the chart's text alternative as its description (the SVG's label)."""
    if chart._get("autosize") is alt.Undefined:
        chart = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    if chart._get("config") is alt.Undefined:
        chart = chart.configure(font=FONT)
    frames: dict[str, tuple[pd.DataFrame, bytes]] = {}
    spec = add_second_channels(name_data(chart, frames).to_dict(validate=False))
    if description:
        spec["description"] = description
    spec["datasets"] = {**spec.get("datasets", {}),
                        **{name: alt.to_values(df)["values"] for name, (df, _) in frames.items()}}
    return json.dumps(spec)


def _png(spec: str) -> bytes:
    import vl_convert as vlc

    return vlc.vegalite_to_png(spec, scale=2)


def _svg(spec: str) -> str:
    import vl_convert as vlc

    return vlc.vegalite_to_svg(spec)
