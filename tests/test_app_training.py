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
    assert at.pills(key="train_metric").value == "max_logit"
    assert len(_charts(at)) == 2
    at.pills(key="train_metric").set_value("entropy").run()
    assert not at.exception
    titles = [m.value.replace("\\", "") for m in at.markdown]  # the title, Markdown-escaped
    assert any(text_for("training.metric.entropy", "en") in v for v in titles)


def test_training_page_in_chinese():
    at = _open({**SMALL, "lang": "zh"})
    assert at.title[0].value == text_for("training.title", "zh")
    assert any(text_for("common.what_to_notice", "zh") in m.value for m in at.info)
    assert text_for("training.controls", "zh") in [e.label for e in at.expander]
    at = _open({**SMALL, "lang": "zh", "train_set": "1"})  # its settings opened
    assert at.toggle(key="train_linear").label == text_for("training.linear", "zh")


def test_bad_url_values_are_corrected_with_a_notice():
    at = _open({**SMALL, "train_n": "999", "train_opt": "lion"})
    warnings = " ".join(w.value for w in at.warning)
    assert "train_n" in warnings and "train_opt" in warnings
    assert at.session_state["train_n"] == 64  # clamped to the page's maximum
    assert at.session_state["train_opt"] == "adam"  # malformed → default
    assert at.session_state["_ase_run"].wants["train_n"] == "64", "the link says the value used"


def test_dropping_linear_and_switching_optimizer_reruns():
    at = _open({**SMALL, "train_dk64": "0", "train_set": "1"})
    assert len(tables(at)[0]) == 3  # only d_k = 1024
    at.toggle(key="train_linear").set_value(False)
    at.pills(key="train_opt").set_value("sgd")
    at.run()
    assert not at.exception
    table = tables(at)[0]
    assert len(table) == 2  # none and sqrt
    assert at.pills(key="train_opt").value == "sgd"


def test_a_link_that_asks_for_the_run_opens_on_the_results_with_its_settings_folded():
    """Asked for in the link, the page shows the curves first; the nine settings fold into one
    expander drawn only when opened (each control costs a new tab browser time), their values kept
    in the session and the link."""
    at = _open({**SMALL, "train_opt": "sgd"})
    assert text_for("training.controls", "en") in [e.label for e in at.main.expander]
    drawn = [w.key for kind in ("toggle", "slider", "pills") for w in getattr(at.main, kind)]
    assert drawn == ["train_metric"], drawn
    assert _charts(at)
    at.pills(key="train_metric").set_value("accuracy").run()  # a rerun keeps the folded values
    assert {"train_opt": "sgd", "train_steps": "20", "train_dk16": "0"}.items() <= \
        at.session_state["_ase_run"].wants.items()
    assert at.session_state["train_opt"] == "sgd"

    at.session_state["train_set"] = True  # opened
    at.run()
    assert not at.exception
    assert at.pills(key="train_opt").value == "sgd" and at.slider(key="train_steps").value == 20
    assert at.toggle(key="train_dk16").value is False
    assert at.session_state["_ase_run"].wants["train_set"] == "1"


def test_before_the_run_is_asked_for_the_settings_are_open():
    at = run_page("training", {**SMALL, "train_steps": "40"})  # not asked for, nothing stored
    assert not at.exception
    assert at.slider(key="train_steps").value == 40
    assert at.toggle(key="train_linear").value is True
    assert at.button(key="train_run_ask")
