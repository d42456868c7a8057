"""Layout that fits a 360-px phone and still reads as before on a desktop or a projector.

- `metric_row()`: a row of metrics that wraps (four side by side on a desktop, two per line on a
  phone) where st.columns would stack them one per line or squash them;
- `show_table(frame)`: a small static table, as HTML (no table or grid code for the browser to
  load), whose cells may break anywhere on a phone, so six columns fit 360 px instead of scrolling
  sideways;
- `formula(tex)`: a display formula that wraps between its parts on a narrow screen where
  st.latex would cut it off at the right edge, and inside a part only after a relation (=, ≈, ⇒):
  never after a + or inside a group; a part wider than the screen scrolls sideways in its own box;
- `preload_chart_code()`: a hidden one-point chart in the sidebar, sent by a page whose first chart
  comes late, so a new tab loads the browser's chart code while the page still computes.
"""

from __future__ import annotations

import numbers
import re
from html import escape
from typing import Any

import streamlit as st

from pages.ui import st_dom as dom
from pages.ui.format import fmt_num
from pages.ui.i18n import t

SEPARATOR = r"\qquad"
# An invisible strut (1.6 em above the baseline, 1 em below) opening each part of a formula: inline
# math sizes a line to its own content, so a wrapped line of tall fractions would touch the next.
STRUT = r"\rule[-1em]{0pt}{2.6em}"
# A metric in a row is at least this wide, so a 360-px phone fits two per line (three would squash
# their numbers) while a desktop still spreads four or five across the page.
METRIC_MIN_WIDTH = "8rem"
# (a metric directly in the row, or a metric with its caption in a small container in the row)
METRIC_CSS = (f'<style>{dom.HORIZONTAL_BLOCK} > {dom.ELEMENT}:has(> {dom.METRIC}), '
              f'{dom.HORIZONTAL_BLOCK} > {dom.LAYOUT_WRAPPER}:has(> {dom.VERTICAL_BLOCK} {dom.METRIC}) '
              f'{{ min-width: {METRIC_MIN_WIDTH}; }}</style>')
# A table as Streamlit's st.table draws it (a rounded box, a thin rule after every cell, headers in a
# lighter colour), in the theme's own text colour, so it reads the same in a light or dark theme.
# The box scrolls sideways when the table is wider than the page (the cost page's nine columns on a
# phone). On a narrow screen the cells take smaller type (each column at least 3.5 em, so a short
# header is not broken a character a line), and the first column (labels, not numbers; at least
# 6.5 em wide) may break inside a long name ("nn.Multihead-Attention"), so a table of up to seven
# columns fits the screen.
TABLE_CLASS = "ase-table"


def table_box(label: str) -> str:
    """The opening tag of a table's box: it scrolls sideways on a narrow screen, so it takes the
    keyboard's focus (arrow keys scroll it; WCAG 2.1.1, axe's scrollable-region-focusable) and is a
    region named `label` for screen readers."""
    return f'<div class="{TABLE_CLASS}" tabindex="0" role="region" aria-label="{escape(label, quote=True)}">'



TABLE_CSS = (
    f"<style>.{TABLE_CLASS} {{ overflow-x: auto; margin-bottom: 1rem; border-radius: 0.5rem; "
    "border: 1px solid color-mix(in srgb, currentColor 12%, transparent); font-size: 0.875rem; } "
    f".{TABLE_CLASS} table {{ border-collapse: separate; border-spacing: 0; min-width: 100%; "
    "margin: 0; } "
    f".{TABLE_CLASS} :is(th, td) {{ padding: 0.25rem 0.375rem; text-align: left; "
    "vertical-align: middle; line-height: 1.5; border: 0; "
    "border-right: 1px solid color-mix(in srgb, currentColor 12%, transparent); "
    "border-bottom: 1px solid color-mix(in srgb, currentColor 12%, transparent); } "
    f".{TABLE_CLASS} th {{ font-weight: 400; color: color-mix(in srgb, currentColor 70%, transparent); }} "
    f".{TABLE_CLASS} .num {{ text-align: right; font-variant-numeric: tabular-nums; }} "
    f".{TABLE_CLASS} td.num {{ white-space: nowrap; }} "
    f".{TABLE_CLASS} tr > :last-child {{ border-right: 0; }} "
    f".{TABLE_CLASS} tbody tr:last-child > * {{ border-bottom: 0; }} "
    f"@media (max-width: 640px) {{ .{TABLE_CLASS} :is(th, td) {{ font-size: 0.75rem; "
    "padding: 0.25rem 0.3rem; min-width: 3.5em; } "
    f".{TABLE_CLASS} td:first-child:not(.num) {{ min-width: 6.5em; overflow-wrap: anywhere; }} }}</style>")


# The browser loads its Vega code (about 0.8 MB to fetch and compile) only once the first chart of
# a page arrives. On the cost and real-model pages that comes late (after the controls, a live
# timing or a model's forward pass): a hidden chart sent at the top of the page starts the load
# early (new tabs 0.12-0.13 s sooner, docs/performance.md). On pages whose charts come early it gained nothing
# (the browser compiles the code on the same cores as the server), so only those two send it.
PRELOAD_KEY = "ase_chart_code"
PRELOAD_CSS = f"<style>.st-key-{PRELOAD_KEY} {{ display: none; }}</style>"
PRELOAD_SPEC = {"data": {"values": [{"x": 0}]}, "mark": "point",
                "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def preload_chart_code() -> None:
    """A hidden one-point Vega-Lite chart in the sidebar (see PRELOAD_KEY): the browser's chart
    code loads while the page computes. Not shown, not read by screen readers (display: none), no
    space taken; the page's own charts are those in the main area. Call it near the top of a page."""
    st.sidebar.html(PRELOAD_CSS)  # a style, nothing drawn
    st.sidebar.container(key=PRELOAD_KEY).vega_lite_chart(PRELOAD_SPEC)  # the key names the box


def metric_row(container: Any = None, title: str | None = None) -> Any:
    """A row for metrics: call .metric(...) on it. Spread across the width like st.columns on a
    desktop; on a phone the metrics wrap two per line instead of stacking one per line. `title`
    (a scale's name, say) is drawn in bold above the row."""
    where = container or st
    if title is not None:
        where.markdown(f"**{title}**")
    where.html(METRIC_CSS)  # the same rule every time: a style, nothing drawn
    return where.container(horizontal=True, gap="small")


TABLE_DIGITS = 6  # significant digits of a float cell the caller left unformatted


def table_cell(value: Any) -> str:
    """A cell's text: a float to TABLE_DIGITS significant digits (as the app's numbers are shown),
    anything else as it is (pages pass cells they formatted themselves)."""
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):  # NumPy's too
        return fmt_num(value, TABLE_DIGITS)
    return str(value)


UNIT = re.compile(r"(?<=\d)\s?(%|[A-Za-z]{1,4})$")  # "0.116 s", "4 MiB", "99.9 %"


def is_number(text: str) -> bool:
    """Whether a cell reads as a number (then its column is right-aligned, as st.table aligns
    numbers, and kept on one line): digits with a sign, point or exponent, with or without a short
    unit after them, "—" (none) and "∞" included."""
    text = UNIT.sub("", text.replace("−", "-").strip())
    if text in ("—", "NaN", "∞", "-∞"):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def table_html(frame: Any) -> str:
    """`frame`'s header and cells as an HTML table (every value as text, escaped; no index); a
    column whose every cell is a number is right-aligned."""
    cells = [[table_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    attr = [' class="num"' if cells and all(is_number(r[j]) for r in cells)
            and not all(r[j] == "—" for r in cells) else "" for j in range(len(frame.columns))]
    head = "".join(f'<th scope="col"{a}>{escape(str(c))}</th>'
                   for a, c in zip(attr, frame.columns, strict=True))
    rows = "".join("<tr>" + "".join(f"<td{a}>{escape(v)}</td>" for a, v in zip(attr, row, strict=True))
                   + "</tr>" for row in cells)
    return (table_box(t("common.table.region")) + f"<table><thead><tr>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table></div>")


def show_table(frame: Any, container: Any = None) -> None:
    """`frame` (a small DataFrame of cells the page formatted, or floats: table_cell) as a static
    table without its index.
    Plain HTML (st.html, whose code every page already loads for its styles) rather than st.table,
    whose cell-formatting code (0.74 MB) a new tab would fetch and compile for a few rows, or
    st.dataframe's interactive grid (1.2 MB). A table wider than a phone scrolls sideways inside
    its own box, as theirs do."""
    (container or st).html(TABLE_CSS + table_html(frame))


def formula_parts(tex: str) -> list[str]:
    r"""`tex` cut at its top-level \qquad separators (not inside braces), each part stripped."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        ch = tex[i]
        end = i + len(SEPARATOR)
        if depth == 0 and tex.startswith(SEPARATOR, i) and not tex[end:end + 1].isalpha():
            parts.append(tex[start:i])
            i = start = end
            continue
        if ch == "\\":
            i += 2  # an escaped character (\{, \\) never opens or closes a group
            continue
        depth += (ch == "{") - (ch == "}")
        i += 1
    parts.append(tex[start:])
    return [p.strip() for p in parts if p.strip()]


# Relations after which a formula may break on a narrow screen (KaTeX breaks inline math after a
# top-level relation or binary operator; the parts between relations are made groups, so a + or a
# − never ends a line).
RELATIONS = frozenset({"=", ":", "<", ">", r"\approx", r"\le", r"\leq", r"\ge", r"\geq", r"\ne", r"\neq",
                       r"\sim", r"\propto", r"\equiv", r"\Rightarrow", r"\Leftarrow", r"\iff",
                       r"\implies", r"\to", r"\mapsto", r"\ll", r"\gg", r"\in"})
ALLOW_BREAK = r"\allowbreak "
SHORT_CLAUSE = 32  # TeX characters of a clause with one relation that is never broken
CLAUSE_SPACES = frozenset({r"\quad", r"\qquad", r"\;", r"\:", r"\,", "\\ "})
# A formula's piece (the only inline math that opens with the STRUT's rule) keeps to the page's width:
# wider than the screen, it scrolls sideways in its own box instead of pushing the page wider.
FORMULA_CSS = (f'<style>{dom.MARKDOWN} .katex:has(> .katex-html .rule) '
               '{ display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden; '
               'vertical-align: middle; padding: 0 0.25em; }</style>')


def _tokens(tex: str) -> list[str]:
    r"""`tex` as TeX tokens: a command (rac, \{), or one character."""
    out, i = [], 0
    while i < len(tex):
        if tex[i] == "\\":
            j = i + 1
            while j < len(tex) and tex[j].isalpha():
                j += 1
            j = max(j, i + 2)  # \{, \, : an escaped character
            out.append(tex[i:j])
            i = j
        else:
            out.append(tex[i])
            i += 1
    return out


def _top_level(tokens: list[str], stops: frozenset[str] | set[str]) -> list[list[str]]:
    r"""`tokens` cut before and after each top-level token in `stops` (outside braces and
    \left…\right): [run, stop, run, stop, run]."""
    runs, current, depth = [], [], 0
    for tok in tokens:
        if tok in ("{", r"\left"):
            depth += 1
        elif tok in ("}", r"\right"):
            depth -= 1
        if depth == 0 and tok in stops:
            runs += [current, [tok]]
            current = []
        else:
            current.append(tok)
    return [*runs, current]


def _group(tokens: list[str]) -> str:
    text = "".join(tokens)
    return "{" + text + "}" if text.strip() else text


def _clauses(tokens: list[str]) -> list[list[str]]:
    r"""`tokens` cut at each top-level comma that a space command follows ("…,\quad m = …"): the
    commas between clauses, not those of a list ("W_1, W_2"); each clause keeps its comma."""
    runs = _top_level(tokens, {","})
    clauses: list[list[str]] = [runs[0]]
    for comma, run in zip(runs[1::2], runs[2::2], strict=True):
        first = next((tok for tok in run if not tok.isspace()), "")
        if first in CLAUSE_SPACES:
            clauses[-1] = clauses[-1] + comma
            clauses.append(run)
        else:
            clauses[-1] = clauses[-1] + comma + run
    return clauses


def unbreakable_between_relations(part: str) -> str:
    r"""`part` made of groups so that KaTeX breaks a line only between clauses (at a top-level comma
    a space command follows, where \allowbreak is put) or, inside a clause with two relations or
    more or longer than SHORT_CLAUSE, after a relation (=, :, ≈, ⇒) — never after a + or inside a
    group: "a+b=c+d=e,\quad m=f" → "{a+b}={c+d}={e,}\allowbreak {\quad m=f}" (a short clause with one
    relation stays whole)."""
    out = []
    for clause in _clauses(_tokens(part)):
        pieces = _top_level(clause, RELATIONS)
        if len(pieces) <= 3 and len("".join(clause)) <= SHORT_CLAUSE:  # "m = \max_l s_l": one line
            out.append(_group(clause))
        else:
            out.append("".join(p[0] if len(p) == 1 and p[0] in RELATIONS else _group(p) for p in pieces))
    return ALLOW_BREAK.join(out)


def formula(tex: str, container: Any = None) -> None:
    r"""Show `tex` centred in display style, as st.latex would, but free to wrap: each part between
    top-level \qquad separators is its own piece of math, which breaks only after a relation such
    as = or ⇒ (unbreakable_between_relations), so a phone shows the formula on several lines instead
    of cutting it or splitting a sum; a piece wider than the screen scrolls in its own box."""
    where = container or st
    pieces = [f"$\\displaystyle {STRUT}{unbreakable_between_relations(p)}$" for p in formula_parts(tex)]
    where.html(FORMULA_CSS)  # a style, nothing drawn
    where.markdown(" \u2003 ".join(pieces), text_alignment="center")
