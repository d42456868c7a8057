"""A note's quote cleaned for display; the verbatim quote stays in the claim tables as provenance.

The notes were copied from rendered web pages, and a formula rendered by KaTeX / MathJax copies as
three runs one after the other: its visible glyphs spaced out, its TeX source, and its accessible
text run together. "方差为 $d_k$" on the page becomes

    方差为 d k d_k dk,            (glyphs "d k", TeX "d_k", text "dk")
    标准差为 d k \\sqrt{d_k} dk    (the √ is drawn, not typed: it copies as nothing)

Some formulas kept only their glyphs ("Var ( q i ( m ) k j ( m ) ) = …"), and some notes write TeX
between \\( \\) or alone on a line, which the app's Markdown does not render. `clean_quote` keeps
each formula once, as maths: in a plain quote as text in the app's own notation (d_k, √d_k, q_i^(m)),
in a Markdown quote as `$…$` (KaTeX). A printed-output quote ("code") is kept as printed.

A triplicate is recognised, not guessed: its glyph run, with spaces removed, must equal the glyphs its
TeX draws (`glyphs`), and its text run must follow. A glyph run without its TeX is replaced only when
it draws exactly one of the formulas in GLYPH_FORMULAS, the TeX the notes themselves give for it.
"""

from __future__ import annotations

import re
from functools import lru_cache

FORMATS = ("plain", "markdown", "code")

# TeX commands by what a copy of the rendered formula holds for them.
SYMBOLS = {
    "cdot": "⋅", "sim": "∼", "dots": "…", "ldots": "…", "cdots": "⋯", "times": "×", "approx": "≈",
    "infty": "∞", "sum": "∑", "rightarrow": "→", "to": "→", "neq": "≠", "leq": "≤", "geq": "≥",
    "pm": "±", "in": "∈", "alpha": "α", "beta": "β", "delta": "δ", "sigma": "σ", "mu": "μ", "rho": "ρ",
    "tau": "τ", "lambda": "λ", "partial": "∂", "max": "max", "log": "log", "ln": "ln", "exp": "exp",
}
TEXT_SYMBOLS = {**SYMBOLS, "cdot": "·", "sim": "~"}  # the app's own notation in plain text
SPACING = {"quad", "qquad", ",", ";", "!", " ", ":", "left", "right", "big", "Big", "bigl", "bigr"}
# Glyphs that a page's accessible text may leave out (the notes' copies drop ∼ and … there).
DROPPABLE = "∼…⋅⋯"

# Formulas of the notes that were copied as glyphs alone, as TeX: the TeX the note gives beside the
# same glyphs, or (d_k) the symbol the notes write everywhere else.
GLYPH_FORMULAS = (
    r"\text{Var}(q_i^{(m)} k_j^{(m)}) = \text{Var}(q_i^{(m)}) \cdot \text{Var}(k_j^{(m)}) + "
    r"[E(q_i^{(m)})]^2 \cdot \text{Var}(k_j^{(m)}) + [E(k_j^{(m)})]^2 \cdot \text{Var}(q_i^{(m)}) = 1",
    "d_k",
)

_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_TOKEN = re.compile(r"\S+")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef“”‘’]")
_TEX_MARK = re.compile(r"[\\_^{}]")
_MAX_GLYPHS, _MAX_TEX = 80, 24  # tokens a formula's glyph run / TeX source may span


def glyphs(tex: str) -> str:
    """The characters a rendered `tex` shows, in order, without spaces: what its copy holds.

    \\sqrt and \\frac draw their sign and bar (nothing to copy); fonts (\\mathcal, \\text) keep their
    letters; sub- and superscripts sit in line: glyphs(r"\\sqrt{d_k}") == "dk".
    """
    out = _COMMAND.sub(lambda m: SYMBOLS.get(m.group(1), ""), tex)
    return re.sub(r"[{}_^\s]", "", out)


def _same_glyphs(a: str, b: str) -> bool:
    """Equal, or equal once the glyphs a page's text may leave out are left out of both."""
    if a == b:
        return True
    drop = str.maketrans("", "", DROPPABLE)
    return bool(a) and a.translate(drop) == b.translate(drop)


def _text_run(g: str) -> re.Pattern[str]:
    """The accessible text of glyphs `g`: the same characters run together, DROPPABLE ones optional."""
    return re.compile("".join(f"(?:{re.escape(c)})?" if c in DROPPABLE else re.escape(c) for c in g))


def _glyph_token(tok: str) -> bool:
    return not (_CJK.search(tok) or _TEX_MARK.search(tok) or "$" in tok)


def _tex_source(tex: str) -> bool:
    """Could be TeX: no Markdown maths or code marks, no Chinese outside \\text{…}."""
    bare = _COMMAND.sub("", re.sub(r"\\text\{[^{}]*\}", "", tex))
    return "$" not in tex and "`" not in tex and not _CJK.search(bare)


def segments(text: str) -> list[tuple[str, str]]:
    """`text` as ("text", …) and ("math", TeX) pieces: each copied formula (its glyphs, its TeX, its
    text; or its glyphs alone, for GLYPH_FORMULAS) replaced by its TeX, once."""
    toks = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    out: list[tuple[str, str]] = []
    done = i = 0
    while i < len(toks):
        hit = _formula_at(text, toks, i)
        if hit is None:
            i += 1
            continue
        start, end, tex, i = hit
        if start > done:
            out.append(("text", text[done:start]))
        out.append(("math", tex))
        done = end
    if done < len(text):
        out.append(("text", text[done:]))
    return out


def _formula_at(text: str, toks: list[tuple[int, int, str]], i: int) -> tuple[int, int, str, int] | None:
    """The copied formula whose glyph run starts at token i: (start, end, TeX, next token), or None.
    The longest glyph run with its TeX and text wins; a glyph run alone only where none has them."""
    runs: list[tuple[int, str]] = []
    g = ""
    for k in range(i, min(i + _MAX_GLYPHS, len(toks))):
        if not _glyph_token(toks[k][2]):
            break
        g += toks[k][2]
        runs.append((k, g))
    for k, g in reversed(runs):
        for m in range(k + 1, min(k + 1 + _MAX_TEX, len(toks))):
            tex = text[toks[k + 1][0]:toks[m][1]]
            if not _tex_source(tex):
                break
            drawn = glyphs(tex)
            if len(drawn) > len(g) + len(DROPPABLE):  # a longer TeX only draws more: none will fit
                break
            # the TeX must draw exactly the glyph run; without TeX marks it must differ from it
            # (three runs of "1/4" are a formula, "a a a" three words)
            if not _same_glyphs(drawn, g) or (not _TEX_MARK.search(tex) and k == i):
                continue
            gap = toks[m][1] + 1
            after = _text_run(g).match(text, gap) if text[toks[m][1]:gap] == " " else None
            if after and after.end() > gap:
                nxt = next((j for j in range(m + 1, len(toks)) if toks[j][0] >= after.end()), len(toks))
                return toks[i][0], after.end(), tex, nxt
    for k, g in reversed(runs[1:]):
        for formula in GLYPH_FORMULAS:
            if glyphs(formula) == g and _ends_word(text, toks[i][0], toks[k][1]):
                return toks[i][0], toks[k][1], formula, k + 1
    return None


def _ends_word(text: str, start: int, end: int) -> bool:
    """The glyph run text[start:end] is not part of a longer Latin word or formula."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum())


def _group(tex: str, at: int) -> tuple[str, int]:
    """The argument starting at tex[at]: a {…} group (without its braces) or one character."""
    if at >= len(tex):
        return "", at
    if tex[at] != "{":
        if tex[at] == "\\":
            m = _COMMAND.match(tex, at)
            assert m is not None
            return m.group(), m.end()
        return tex[at], at + 1
    depth = 0
    for j in range(at, len(tex)):
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        if depth == 0:
            return tex[at + 1:j], j + 1
    return tex[at + 1:], len(tex)


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _wrap(x: str) -> str:
    """x as one factor: parenthesised unless it is a single symbol or subscripted letter (d_k)."""
    return x if re.fullmatch(r"√?(\w(_\w+)?|\d+|\(.*\))", x) else f"({x})"


def tex_text(tex: str) -> str:
    """A formula as plain text in the app's notation: d_k, √d_k, q_i^(m), x², 1/d_k, N(0,1)."""
    out, j = [], 0
    while j < len(tex):
        c = tex[j]
        if c == "\\":
            m = _COMMAND.match(tex, j)
            assert m is not None
            name, j = m.group(1), m.end()
            if name == "sqrt":
                arg, j = _group(tex, j)
                out.append("√" + _wrap(tex_text(arg)))
            elif name == "frac":
                num, j = _group(tex, j)
                den, j = _group(tex, j)
                out.append(f"{_wrap(tex_text(num))}/{_wrap(tex_text(den))}")
            elif name in SPACING:
                out.append(" " if name in {"quad", "qquad", " "} else "")
            else:  # a font (\mathcal, \text) keeps its argument; a symbol becomes its character
                out.append(TEXT_SYMBOLS.get(name, ""))
        elif c in "_^":
            arg, j = _group(tex, j + 1)
            inner = tex_text(arg)
            if c == "^" and inner.isdigit():
                out.append(inner.translate(_SUPERSCRIPTS))
            else:
                out.append(c + (inner if len(inner) == 1 or inner.startswith("(") else f"({inner})"))
        elif c in "{}":
            j += 1
        else:
            out.append(c)
            j += 1
    return re.sub(r" {2,}", " ", "".join(out))


_DELIMITED = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


def _markdown_maths(text: str) -> str:
    r"""A Markdown quote's TeX in the delimiters KaTeX reads here: \( … \) → $…$, \[ … \] → $$…$$,
    and a line of bare TeX (no Chinese outside \text{…}, no $) → $$…$$."""
    text = _DELIMITED.sub(
        lambda m: f"${m.group(1).strip()}$" if m.group(1) else f"$${m.group(2).strip()}$$", text
    )
    lines = []
    for line in text.split("\n"):
        body = line.strip()
        bare = body and "$" not in body and re.search(r"\\[A-Za-z]+", body) and _tex_source(body)
        lines.append(line[: len(line) - len(line.lstrip())] + f"$${body}$$" if bare else line)
    return "\n".join(lines)


@lru_cache(maxsize=512)  # the quotes are a fixed set of about a hundred: each is cleaned once
def clean_quote(text: str, fmt: str = "plain") -> str:
    """A quote as shown to the reader (module docstring): each copied formula once, as maths.

    fmt "plain": maths as text in the app's notation (shown literally); "markdown": maths as $…$ for
    KaTeX, the note's own Markdown kept; "code": printed output, unchanged. Idempotent; the Chinese
    text is kept character for character.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown quote format {fmt!r}; one of {FORMATS}")
    if fmt == "code":
        return text
    if fmt == "plain":
        return "".join(tex_text(s) if kind == "math" else s for kind, s in segments(text))
    return _markdown_maths("".join(f"${s}$" if kind == "math" else s for kind, s in segments(text)))
