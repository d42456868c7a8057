"""tools.page_profile: its --new-charts reruns really build every chart again (and the warm ones none)."""

from __future__ import annotations

from pages.ui.chart.figure import FIGURES
from tools.page_profile import measure

QUERY = {"lang": "en", "n": "8", "trials": "20"}


def test_new_chart_reruns_build_each_chart_again_and_warm_reruns_build_none():
    measure("overview", 1, QUERY)  # results and charts of this view now cached
    before = FIGURES.computed
    warm = measure("overview", 2, QUERY)
    assert FIGURES.computed == before and not warm["exceptions"]
    out = measure("overview", 2, QUERY, new_charts=True)
    assert out["charts"] >= 2 and not out["exceptions"]
    assert FIGURES.computed - before >= 2 * out["charts"]  # every chart of both reruns built anew
    assert out["new_charts_median_s"] > 0
