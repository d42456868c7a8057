"""Heavy pages (cost's live timing, training, the real model) run their work on opening only once
asked for (pages.ui.compute.ask_first): the button, `?<page>_run=1` in the link, or a stored result.

A cold server's first page, or a link opened before anyone computed it, is thus drawn at once; the
work, its progress bar and its charts follow the click, and the link then carries the request.
"""

from __future__ import annotations

import importlib

import pytest
from conftest import count_calls, run_page

from core import real_model as rm
from pages.ui.i18n import text_for

# page, its flag, the core function behind it, settings small enough for a test
HEAVY = {
    "cost": ("cost_run", "core.cost", "explore",
             {"cost_n": "64-512", "cost_d": "8-64", "cost_repeats": "2", "cost_naive_ms": "10",
              "cost_torch": "0"}),
    "training": ("train_run", "core.training", "training",
                 {"train_steps": "20", "train_n": "8", "train_dk16": "0", "train_dk256": "0"}),
}
ASK_KEY = {"cost": "cost.ask", "training": "training.ask", "real-model": "real_model.ask"}


@pytest.fixture
def calls(monkeypatch):
    """Counts calls of the heavy pages' core functions (still computing them)."""
    seen: list[str] = []
    for _, module, name, _ in HEAVY.values():
        count_calls(monkeypatch, importlib.import_module(module), name, seen)
    return seen


def ask_button(at, flag: str):
    found = [b for b in at.button if b.key == f"{flag}_ask"]
    return found[0] if found else None


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", list(HEAVY))
def test_a_heavy_page_asks_first_then_runs_and_the_link_keeps_the_request(page, lang, calls):
    flag, _, name, small = HEAVY[page]
    settings = {**small, "seed": "4242" if lang == "en" else "4243", "lang": lang}  # nothing stored yet
    at = run_page(page, settings, timeout=240)
    assert not at.exception, [e.value for e in at.exception]
    assert calls == [], "the work ran before anyone asked"
    assert not at.main.get("vega_lite_chart")
    button = ask_button(at, flag)
    assert button is not None and button.label == text_for(f"{ASK_KEY[page]}.button", lang)
    assert any(m.value == text_for(ASK_KEY[page], lang) for m in at.markdown)
    assert flag not in at.query_params

    button.click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert calls == [name]
    assert at.main.get("vega_lite_chart")
    assert ask_button(at, flag) is None
    assert at.query_params[flag] == "1"  # a copied link runs it

    again = run_page(page, settings, timeout=240)  # another reader, the same view: it is stored
    assert again.main.get("vega_lite_chart") and ask_button(again, flag) is None
    assert calls == [name]
    other = run_page(page, {**settings, "seed": str(int(settings["seed"]) + 100)}, timeout=240)
    assert ask_button(other, flag) is not None and not other.main.get("vega_lite_chart")
    assert calls == [name]


def test_once_asked_a_session_runs_new_settings_at_once(calls):
    flag, _, name, small = HEAVY["training"]
    at = run_page("training", {**small, "seed": "5151", flag: "1", "train_set": "1"}, timeout=240)
    assert calls == [name] and at.main.get("vega_lite_chart")
    at.slider(key="train_steps").set_value(40).run()
    assert not at.exception
    assert calls == [name, name] and at.main.get("vega_lite_chart") and ask_button(at, flag) is None


def test_a_malformed_request_in_the_link_is_corrected_with_a_notice(calls):
    flag, _, _, small = HEAVY["cost"]
    at = run_page("cost", {**small, "seed": "6161", flag: "[go](https://example.com)"}, timeout=240)
    assert not at.exception
    assert calls == [] and ask_button(at, flag) is not None
    (notice,) = [w.value for w in at.warning if flag in w.value]
    assert "default 0" in notice


@pytest.mark.skipif(rm.availability() is not None, reason=f"optional model package: {rm.availability()}")
@pytest.mark.slow  # the model's first load: about 7 s a language
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_real_model_page_asks_before_its_first_load(lang):
    import streamlit as st

    st.cache_resource.clear()  # a server that has not loaded the model yet, nor analysed a sentence
    st.cache_data.clear()
    at = run_page("real-model", {"lang": lang}, timeout=240)
    assert not at.exception
    button = ask_button(at, "rm_run")
    assert button is not None and button.label == text_for("real_model.ask.button", lang)
    assert not at.main.get("vega_lite_chart")
    button.click()
    at.run()
    assert not at.exception and at.main.get("vega_lite_chart")
    assert at.query_params["rm_run"] == "1"
    loaded = run_page("real-model", {"lang": lang, "rm_text": "Another sentence."}, timeout=240)
    assert ask_button(loaded, "rm_run") is None and loaded.main.get("vega_lite_chart")  # loaded: at once
