"""Where a formula may break on a phone (pages/ui/layout.py: formula): between its \\qquad parts, at a
top-level comma a space command follows (between clauses, not inside a list), or after a relation
inside a clause with two relations or more (or a long one) — never after a + or inside a group;
every piece keeps to the page's width (a wider one scrolls in its own box)."""

from __future__ import annotations

import pytest

from pages.ui.layout import ALLOW_BREAK, FORMULA_CSS, STRUT, _tokens, unbreakable_between_relations


def _balanced(tex: str) -> bool:
    depth = 0
    for tok in _tokens(tex):
        depth += (tok == "{") - (tok == "}")
        if depth < 0:
            return False
    return depth == 0


def _top_level_breaks(tex: str) -> list[str]:
    """The tokens KaTeX may break after at the top level: relations, binary + and −, \\allowbreak."""
    out, depth = [], 0
    for tok in _tokens(tex):
        depth += (tok == "{") - (tok == "}")
        if depth == 0 and tok in ("=", "+", "-", r"\approx", r"\Rightarrow", r"\allowbreak", r"\iff", ">",
                                  r"\in", ":"):
            out.append(tok)
    return out


@pytest.mark.parametrize(("tex", "breaks"), [
    ("a+b=c+d=e", ["=", "="]),                       # two relations: breaks after each, not after +
    ("a+b=c+d", []),                                 # short, one relation: the clause stays whole
    (r"\operatorname{Attention}(Q,K,V)=\operatorname{softmax}(x)\,V", ["="]),  # long: after = only
    (r"\text{naive}:\; \underbrace{4n^2 d\, d_h}_{\text{per pair}} + 3n^2 d_h", [":"]),
    (r"x=1,\quad y=2", [r"\allowbreak"]),           # clauses: a break after the comma only
    (r"W_1, W_2\in R,\; v\in R", [r"\allowbreak"]),  # a list's comma is no clause's end
    (r"\left(a=b, c=d\right)+e=f=g", ["=", "="]),    # inside \left…\right: nothing
    (r"e^{s}>65504\iff s>\ln 65504\approx 11.09", [">", r"\iff", ">", r"\approx"]),
    (r"x_{a=b, c}", []),                             # inside braces: nothing
])
def test_a_formula_breaks_only_at_commas_and_between_relations(tex, breaks):
    out = unbreakable_between_relations(tex)
    assert _balanced(out), out
    assert _top_level_breaks(out) == breaks, out
    def bare(x: str) -> str:
        return x.replace(ALLOW_BREAK, "").replace("{", "").replace("}", "")

    assert bare(out) == bare(tex)  # only groups and break points added: the same formula


def test_every_piece_keeps_to_the_page_width():
    """The style gives every piece of a formula (the inline math that opens with STRUT's rule) the
    page's width at most and a sideways scroll of its own."""
    assert r"\rule" in STRUT
    assert ".katex:has(> .katex-html .rule)" in FORMULA_CSS
    assert "max-width: 100%" in FORMULA_CSS and "overflow-x: auto" in FORMULA_CSS
