"""Chinese text names a scale by its Chinese label alone: no URL code ("none", "sqrt", …) in brackets
after it ("不缩放（none）"), and the scale labels in Chinese carry no English code word; the URL codes
themselves stay as they are (docs/science.md §1)."""

from __future__ import annotations

import re

import pytest

from core.scales import parse_scale
from pages.ui.i18n import TABLE, text_for

CODES = ("none", "sqrt", "linear", "log", "double-sqrt", "power", "const")
CODE_IN_BRACKETS = re.compile(r"[（(](?:" + "|".join(re.escape(c) for c in CODES) + r")[）)]")
CODE_WORD = re.compile(r"(?<![A-Za-z\\-])(?:" + "|".join(re.escape(c) for c in CODES) + r")(?![A-Za-z-])")


def test_no_chinese_string_names_a_scale_by_its_url_code_in_brackets():
    found = {key: v["zh"] for key, v in TABLE.items() if CODE_IN_BRACKETS.search(v.get("zh", ""))}
    assert not found, found


@pytest.mark.parametrize("name", ["none", "sqrt", "linear", "log", "double-sqrt", "power:0.75", "const:2"])
def test_a_scale_label_in_chinese_has_no_code_word_and_its_code_is_unchanged(name):
    kind = parse_scale(name).kind
    key = {"power": "common.scale.power_a", "const": "common.scale.const"}.get(kind, f"common.scale.{kind}")
    label = text_for(key, "zh").format(a="0.75", c="2")
    assert not CODE_WORD.search(label), label
    assert re.search(r"[\u4e00-\u9fff]", label), label
    assert parse_scale(name).name == name  # the URL code itself is unchanged
