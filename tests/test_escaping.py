"""Links cannot inject content: whatever a user typed or put in a link is shown literally.

Every entry point where user text reaches the page is checked on the Markdown the app sends: parsed
as CommonMark (as Streamlit's frontend does), it must hold no link, emphasis, HTML or image, no `$`
(a formula) outside code, and the user's text only inside a code span. The browser test
(test_hosting_browser.py) checks the same link in the rendered page.
"""

from __future__ import annotations

import pytest
from conftest import run_page
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from core import real_model as rm
from pages.ui.user_text import LIMIT, literal

MD = MarkdownIt("commonmark")
FORBIDDEN = {"link_open", "strong_open", "em_open", "html_inline", "image", "html_block"}
HOSTILE = {
    "dtype": "[Session expired - log in here](https://example.com/login)",
    "trials": "**BOLD**",
    "lang": "$$\\int_0^1 x\\,dx$$",
    "scales": "<b>x</b>`code`",
    "seed": ":material/warning: :red[alert] _it_",
}


def inline_tokens(body: str) -> list:
    return [child for block in MD.parse(body) if block.type == "inline" for child in block.children]


def code_spans(body: str) -> list[str]:
    return [tok.content for tok in inline_tokens(body) if tok.type == "code_inline"]


def assert_literal_only(body: str, user_texts: list[str]) -> None:
    """`body` (a notice's Markdown; its template has no markup of its own) renders no link,
    emphasis, HTML or formula, and no user text outside a code span."""
    tokens = inline_tokens(body)
    kinds = {tok.type for tok in tokens}
    assert not kinds & FORBIDDEN, (kinds & FORBIDDEN, body)
    plain = "".join(tok.content for tok in tokens if tok.type == "text")
    assert "$" not in plain, body
    for text in user_texts:
        assert text not in plain, (text, body)


def expected_content(text: str) -> str:
    return "".join(ch if ch.isprintable() else " " for ch in text)[:LIMIT]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=120))
def test_literal_renders_exactly_the_text_as_one_code_span(text):
    tokens = inline_tokens(f"URL value {literal(text)} is not valid.")
    kinds = [tok.type for tok in tokens]
    assert kinds.count("code_inline") == 1 and set(kinds) <= {"text", "code_inline"}, kinds
    content = next(tok.content for tok in tokens if tok.type == "code_inline")
    flat = expected_content(text)
    # CommonMark keeps a code span that is all spaces as it is; otherwise the padding is stripped
    assert content == flat if flat.strip() else content.strip() == ""


@pytest.mark.parametrize("value", [
    "[a](https://example.com)", "**b**", "$$x$$", "`x`", "``", "a\n\n[b](http://e.com)", "<i>x</i>",
    "x" * 500])
def test_literal_of_hostile_values(value):
    assert_literal_only(f"URL value {literal(value)} is not valid.", [value])


@pytest.mark.parametrize("page", ["saturation", "variance"])
def test_shared_url_values_are_echoed_literally(page):
    at = run_page(page, HOSTILE)
    assert not at.exception
    bodies = [w.value for w in at.warning]
    spans = [span for b in bodies for span in code_spans(b)]
    for param, value in HOSTILE.items():
        assert expected_content(f"{param}={value}") in spans, (param, bodies)
    for body in bodies:
        assert_literal_only(body, list(HOSTILE.values()))


def test_page_control_url_values_are_echoed_literally():
    hostile = {"var_dist": "[x](https://example.com)", "var_rho": "**0.5**"}
    at = run_page("variance", hostile)
    assert not at.exception
    bodies = [w.value for w in at.warning]
    spans = [span for b in bodies for span in code_spans(b)]
    for param, value in hostile.items():
        assert expected_content(f"{param}={value}") in spans, (param, bodies)
    for body in bodies:
        assert_literal_only(body, list(hostile.values()))


def test_error_details_quote_the_error_literally():
    def script():
        from core.errors import InputError
        from pages.ui.notices import show_error

        show_error(InputError("got [Session expired](https://example.com) **now** $$x$$"))

    at = AppTest.from_function(script).run()
    assert not at.exception
    message = "got [Session expired](https://example.com) **now** $$x$$"
    assert_literal_only(at.caption[0].value, [message])
    assert message in code_spans(at.caption[0].value)


@pytest.mark.skipif(rm.availability() is not None, reason=f"optional model package: {rm.availability()}")
def test_the_typed_sentence_is_plain_text_everywhere():
    sentence = "[Session expired](https://example.com/login) **bold** $$x^2$$ _it_"
    at = run_page("real-model", {"rm_text": sentence, "rm_run": "1"}, timeout=180)
    assert not at.exception
    assert at.text[0].value == sentence  # st.text: shown verbatim, never parsed
    for el in (*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error, *at.latex):
        assert "example.com" not in el.value, el.value  # echoed nowhere else
