"""AppTest for /training's section "Why modern models bound the logits": it waits to be asked, then shows
the sweep, the collapse and the length comparison in both languages, every chart with a text
alternative, its data as tables (?tables=1) and more than colour to tell its series apart.

The sweep is kept short through the section's own URL parameter (stab_steps=10)."""

from __future__ import annotations

import re
from html import escape

import pytest
from conftest import count_calls, run_page, tables

from core.stability import sweep as stab_sweep
from pages.ui.chart import charts
from pages.ui.chart.channels import colour_only_fields
from pages.ui.chart.chart_text import SR_CLASS, tables_html
from pages.ui.i18n import text_for

SHORT = {"stab_steps": "10"}
NAMES = ["training-lr-sweep", "training-collapse", "training-ssmax"]


def test_the_sweep_waits_to_be_asked(monkeypatch):
    calls = count_calls(monkeypatch, stab_sweep, "sweep")
    at = run_page("training", {**SHORT, "seed": "5757"}, timeout=240)  # a seed nothing has stored
    assert not at.exception, [e.value for e in at.exception]
    assert calls == []
    button = [b for b in at.button if b.key == "stab_run_ask"]
    assert button and button[0].label == text_for("training.stab.ask.button", "en")
    assert any(m.value == text_for("training.stab.title", "en") for m in at.header)
    button[0].click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert calls == ["sweep"]
    assert at.query_params.get("stab_run") == "1", "the link keeps the request"


@pytest.fixture(scope="module")
def shown():
    """{lang: (AppTest, [(name, Figure)])} for the asked-for section in both languages, tables on."""
    original = charts.show_chart
    out = {}
    for lang in ("en", "zh"):
        seen: list = []

        def show(fig, name="chart", *args, _seen=seen, **kwargs):
            _seen.append((name, fig))
            original(fig, name, *args, **kwargs)

        charts.show_chart = show
        try:
            at = run_page("training", {**SHORT, "stab_run": "1", "tables": "1", "lang": lang}, timeout=300)
        finally:
            charts.show_chart = original
        assert not at.exception, [e.value for e in at.exception]
        out[lang] = (at, [(n, f) for n, f in seen if n in NAMES])
    return out


def test_section_shows_the_sweep_the_collapse_and_the_length_case(shown):
    assert [n for n, _ in shown["en"][1]] == NAMES
    at = run_page("training", {**SHORT, "stab_run": "1"}, timeout=300)  # the page's own tables only
    assert not at.exception, [e.value for e in at.exception]
    sensitivity = text_for("training.stab.col.sensitivity", "en")
    variant_table = next(tb for tb in tables(at) if sensitivity in tb.columns)
    assert len(variant_table) == 4
    toy = next(tb for tb in tables(at) if text_for("training.stab.col.softmax_max", "en") in tb.columns)
    assert list(toy[text_for("training.stab.col.softmax_max", "en")]) == ["0.94", "0.6", "0.13", "0.015"]
    text = " ".join(m.value for m in at.markdown)
    assert text_for("training.stab.compare", "en") in text
    assert any(text_for("training.stab.collapse_head", "en") == h.value for h in at.subheader)


def test_section_in_chinese(shown):
    at, figs = shown["zh"]
    assert any(m.value == text_for("training.stab.title", "zh") for m in at.header)
    assert [n for n, _ in figs] == NAMES
    for _, fig in figs:
        assert re.search(r"[\u4e00-\u9fff]", fig.description)


def test_every_chart_has_a_text_alternative_a_table_and_a_second_channel(shown):
    for lang, (at, figs) in shown.items():
        html = [h.value for h in at.get("html")]
        for name, fig in figs:
            assert re.search(r"\d", fig.description), (lang, name)
            assert all(v.get("description") for v in fig.views), (lang, name)
            assert any(SR_CLASS in h and escape(fig.description) in h for h in html), (lang, name)
            table = tables_html(fig)
            assert table.count("<table>") == len(fig.views) and any(table in h for h in html), (lang, name)
            for spec in fig.views:
                assert colour_only_fields(spec) == set(), (lang, name)
