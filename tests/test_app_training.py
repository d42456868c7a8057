"""AppTest for the training page: it renders, in both languages, and validates its URL input.

Runs are kept tiny through the page's own URL parameters (few steps, one or two d_k).
"""

from __future__ import annotations

import json

from conftest import run_page, tables
from streamlit.testing.v1 import AppTest

from pages.ui.i18n import text_for

SMALL = {"train_steps": "20", "train_n": "8", "train_dk16": "0", "train_dk256": "0"}


def _open(params: dict[str, str]) -> AppTest:
    at = run_page("training", {"train_run": "1", **params}, timeout=180)  # a deep link: /<page>?k=v
    assert not at.exception, [e.value for e in at.exception]
    return at


def _charts(at: AppTest) -> list:
    return at.main.get("vega_lite_chart")


def _formulas(at: AppTest) -> list:
    return [m for m in at.markdown if "\\displaystyle" in m.value]


def test_training_page_renders_curves_and_summary():
    at = _open(SMALL)
    assert at.title[0].value == text_for("training.title", "en")
    # the chosen quantity (loss by default), one panel per d_k (64 and 1024)
    assert len(_charts(at)) == 2
    assert all(json.loads(c.proto.spec)["title"] in ("d_k = 64", "d_k = 1024") for c in _charts(at))
    table = tables(at)[0]
    assert len(table) == 2 * 3  # d_k 64 and 1024 × (none, sqrt from the sidebar + linear)
    assert any(text_for("common.what_to_notice", "en") in m.value for m in at.info)
    assert len(_formulas(at)) >= 2


def test_each_quantity_is_one_click_or_one_link_away():
    at = _open({**SMALL, "train_metric": "max_logit"})
    assert at.radio(key="train_metric").value == "max_logit"
    assert len(_charts(at)) == 2
    at.radio(key="train_metric").set_value("entropy").run()
    assert not at.exception
    titles = [m.value.replace("\\", "") for m in at.markdown]  # the title, Markdown-escaped
    assert any(text_for("training.metric.entropy", "en") in v for v in titles)


def test_training_page_in_chinese():
    at = _open({**SMALL, "lang": "zh"})
    assert at.title[0].value == text_for("training.title", "zh")
    assert any(text_for("common.what_to_notice", "zh") in m.value for m in at.info)
    assert at.toggle(key="train_linear").label == text_for("training.linear", "zh")


def test_bad_url_values_are_corrected_with_a_notice():
    at = _open({**SMALL, "train_n": "999", "train_opt": "lion"})
    warnings = " ".join(w.value for w in at.warning)
    assert "train_n" in warnings and "train_opt" in warnings
    assert at.slider(key="train_n").value == 64  # clamped to the page's maximum
    assert at.radio(key="train_opt").value == "adam"  # malformed → default


def test_dropping_linear_and_switching_optimizer_reruns():
    at = _open({**SMALL, "train_dk64": "0"})
    assert len(tables(at)[0]) == 3  # only d_k = 1024
    at.toggle(key="train_linear").set_value(False)
    at.radio(key="train_opt").set_value("sgd")
    at.run()
    assert not at.exception
    table = tables(at)[0]
    assert len(table) == 2  # none and sqrt
    assert at.radio(key="train_opt").value == "sgd"
