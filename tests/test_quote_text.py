"""The notes' quotes cleaned for display (core.factcheck.quote_text): every quote of the fact-check loses
its copy-paste artefacts, keeps every Chinese character, and cleaning twice changes nothing."""
# ruff: noqa: E501  (a table of the notes' quotes: lines are as long as the quotes)

import re
from pathlib import Path

import pytest

from core import factcheck as fc
from core.factcheck.quote_text import GLYPH_FORMULAS, clean_quote, glyphs, segments, tex_text
from pages.ui.words import unchecked_format

SEEDS = [Path(__file__).resolve().parents[1] / "seeds", Path("/work/shared/seeds")]
CJK = re.compile(r"[\u4e00-\u9fff]")
# what a copied KaTeX formula leaves: "d k d_k dk" (glyphs, TeX, text), TeX source, spaced glyphs
TRIPLICATE = re.compile(r"(?<![A-Za-z])(\w) (\w) (?:\\\w+\{)?\1_\{?\2\}?\}? \1\2")
TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
SPACED_DK = re.compile(r"(?<![A-Za-z])d k(?![A-Za-z])")


def _quotes() -> list[tuple[str, str, str]]:
    """(where, format, verbatim text) for every quote the fact-check page shows."""
    out = []
    for c in fc.CLAIMS:
        out += [(c.id, c.quote_format, q) for q in (c.quote_zh, *c.also_zh)]
        also = "plain" if c.quote_format == "plain" else "markdown"  # how the page shows the repeats
        out += [(f"{c.id}/also", also, q) for q in c.also_zh]
    out += [(f"unchecked {u.note[:3]}", unchecked_format(u.note[:3]), u.quote_zh) for u in fc.UNCHECKED]
    return out


QUOTES = _quotes()


@pytest.mark.parametrize(("where", "fmt", "text"), QUOTES, ids=[f"{w}-{i}" for i, (w, _, _) in enumerate(QUOTES)])
def test_every_quote_is_clean_idempotent_and_keeps_its_chinese(where, fmt, text):
    out = clean_quote(text, fmt)
    assert not TRIPLICATE.search(out), (where, out)
    assert all(kind == "text" for kind, _ in segments(out)), (where, out)  # no copied formula left
    assert not SPACED_DK.search(out), (where, out)
    if fmt == "plain":
        assert not TEX_COMMAND.search(out), (where, out)  # maths as text, no TeX source
    if fmt == "markdown":
        assert "\\(" not in out and "\\[" not in out, (where, out)  # delimiters the page's KaTeX reads
    assert clean_quote(out, fmt) == out, where
    assert CJK.findall(out) == CJK.findall(text), where


def test_some_quotes_of_every_kind_of_artefact_are_changed():
    """The property above would hold for a function that changes nothing: the notes do hold artefacts."""
    changed = {w for w, fmt, text in QUOTES if clean_quote(text, fmt) != text}
    assert {"n0_var", "n0_product", "n0_overflow", "n1_training", "n4_std", "n4_sigma"} <= changed
    assert any(w.startswith("unchecked 000") for w in changed)


CASES = [  # (format, verbatim from the notes, shown)
    ("plain", r"因此,点积的方差为 d k d_k dk,标准差为 d k \sqrt{d_k} dk", "因此,点积的方差为 d_k,标准差为 √d_k"),
    ("plain", "若点积的绝对值随 d k d_k dk增大而显著增大(例如 d k = 64 d_k=64 dk=64时标准差为8),",
     "若点积的绝对值随 d_k增大而显著增大(例如 d_k=64时标准差为8),"),
    ("plain", "除以 d k d_k dk:方差将缩小为 1 / d k 1/d_k 1/dk,导致Softmax输入过小",
     "除以 d_k:方差将缩小为 1/d_k,导致Softmax输入过小"),
    ("plain", r"除以 2 d k 2\sqrt{d_k} 2dk :方差将缩小为 1 / 4 1/4 1/4,输入量级过小",
     "除以 2√d_k :方差将缩小为 1/4,输入量级过小"),
    ("plain", r"此时,点积的分布被标准化 N ( 0 , 1 ) \mathcal{N}(0,1) N(0,1)", "此时,点积的分布被标准化 N(0,1)"),
    ("plain", "假设查询向量 q i q_i qi和键向量 k j k_j kj的每个分量", "假设查询向量 q_i和键向量 k_j的每个分量"),
    ("plain", "Var ( q i ( m ) k j ( m ) ) = Var ( q i ( m ) ) ⋅ Var ( k j ( m ) ) + [ E ( q i ( m ) ) ] 2 ⋅ "
     "Var ( k j ( m ) ) + [ E ( k j ( m ) ) ] 2 ⋅ Var ( q i ( m ) ) = 1",
     "Var(q_i^(m) k_j^(m)) = Var(q_i^(m)) · Var(k_j^(m)) + [E(q_i^(m))]² · Var(k_j^(m)) + "
     "[E(k_j^(m))]² · Var(q_i^(m)) = 1"),
    ("markdown", "我们在点积结果上除以 d k 的平方根，相当于做标准化", "我们在点积结果上除以 $d_k$ 的平方根，相当于做标准化"),
    ("markdown", r"  - 点积标准差：\(\sqrt{512} \approx 22.6\)  ", r"  - 点积标准差：$\sqrt{512} \approx 22.6$  "),
    ("markdown", r"\text{Var}(Q \cdot K^T) = \text{dim} \quad (\text{若} \ \sigma=1)",
     r"$$\text{Var}(Q \cdot K^T) = \text{dim} \quad (\text{若} \ \sigma=1)$$"),
    ("markdown", r"$$ W^Q(W^K)^T \neq W^K(W^Q)^T $$原因:矩阵乘法不满足交换律", None),  # already KaTeX: kept
    ("code", "输入: [-3, -1, 0, 1, 3]\n输出: [0.012, 0.089, 0.243, 0.661, 0.995]", None),  # printed: kept
    ("plain", "方差∝dk，用 1 2 3 和 a a a 举例", None),  # the notes' own "dk", and words: not formulas
]


@pytest.mark.parametrize(("fmt", "before", "after"), CASES)
def test_representative_quotes_of_the_notes_before_and_after(fmt, before, after):
    assert clean_quote(before, fmt) == (before if after is None else after)


def test_each_case_is_taken_from_a_quote_of_the_notes():
    """The table above is the notes' text, not invented: each before (but the counter-examples) is
    part of a quote the page shows."""
    texts = [text for _, _, text in QUOTES]
    for _fmt, before, _after in CASES[:-1]:
        piece = before.strip().split("\n")[0][:20]
        assert any(piece in text for text in texts), piece


def test_glyphs_are_what_a_rendered_formula_copies_as():
    assert glyphs(r"\sqrt{d_k}") == "dk"
    assert glyphs(r"\mathcal{N}(0,1)") == "N(0,1)"
    assert glyphs(r"q_i^{(m)}, k_j^{(m)} \sim \mathcal{N}(0,1) \quad (m=1,2,\dots,d_k)") == \
        "qi(m),kj(m)∼N(0,1)(m=1,2,…,dk)"


def test_formulas_become_text_in_the_apps_notation():
    assert tex_text(r"\sqrt{d_k}") == "√d_k"
    assert tex_text(r"\frac{1}{\sqrt{d_k}}") == "1/√d_k"
    assert tex_text(r"\sqrt{a+b}") == "√(a+b)"
    assert tex_text(r"x^{2} + q_i^{(m)} + e^{-15}") == "x² + q_i^(m) + e^(-15)"


def test_every_formula_recognised_from_glyphs_alone_is_the_notes_own_tex():
    """GLYPH_FORMULAS: the TeX stands in the notes (where they are at hand), and draws its glyphs."""
    seeds = next((d for d in SEEDS if d.is_dir()), None)
    if seeds is None:
        pytest.skip("the notes are not at hand (seeds/)")
    notes = "\n".join(p.read_text(encoding="utf-8") for p in sorted(seeds.glob("*.txt")))
    for formula in GLYPH_FORMULAS:
        assert formula in notes, formula


def test_a_text_run_must_follow_a_triplicate_and_the_format_must_be_known():
    assert clean_quote(r"方差为 d k d_k", "plain") == "方差为 d_k d_k"  # glyphs without their text run: only "d k"
    with pytest.raises(ValueError):
        clean_quote("x", "html")
