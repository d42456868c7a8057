"""A chart's data as a real HTML table (WCAG 1.1.1, 2.1.1): what a screen reader or a keyboard user
reads instead of the picture, built from what the chart draws (pages/ui/chart/describe.py: Panel).

- a heat map as its matrix: a row per y value, a column per x value, the colour's value in the cells,
  one row and one column in k kept when the grid is wider than MAX_COLUMNS (32), with a note;
- lines, points and bars with one number per series and x: a row per x, a column per series;
- anything else (several numbers per point, scatters): a row per point with the series, x, y and the
  other numbers the chart draws from the same table;
- more than MAX_ROWS rows: one row in k kept (the first and the last included), with a note.

Headers are the chart's own axis and legend titles (translated as the chart is), numbers written as
every table of the app writes them (pages/ui/layout.py: table_cell), every cell escaped. The table
has a caption naming the chart and its first column as row headers.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import pandas as pd

from pages.ui.chart.describe import Panel, series_groups
from pages.ui.i18n import t
from pages.ui.layout import is_number, table_box, table_cell

MAX_ROWS = 60
MAX_COLUMNS = 32


def _every(n: int, limit: int) -> tuple[list[int], int]:
    """Row numbers keeping one in k of n (the first and the last included) so at most about `limit`
    remain; (rows, k)."""
    step = max(1, math.ceil(n / limit))
    rows = list(range(0, n, step))
    if rows and rows[-1] != n - 1:
        rows.append(n - 1)
    return rows, step


def _html(header: list[str], rows: list[list[Any]], caption: str) -> str:
    """An HTML table: `caption`, the header as column headers, each row's first cell as its row
    header; numbers right-aligned by column (as show_table aligns them)."""
    cells = [[table_cell(v) for v in row] for row in rows]
    num = [bool(cells) and all(is_number(r[j]) for r in cells) for j in range(len(header))]
    head = "".join(f'<th scope="col"{" class=num" if n else ""}>{escape(h)}</th>'
                   for h, n in zip(header, num, strict=True))
    body = "".join("<tr>" + "".join(
        (f'<th scope="row"{" class=num" if n else ""}>{escape(v)}</th>' if j == 0
         else f'<td{" class=num" if n else ""}>{escape(v)}</td>')
        for j, (v, n) in enumerate(zip(row, num, strict=True))) + "</tr>" for row in cells)
    return (table_box(caption) + f"<table><caption>{escape(caption)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def _matrix(panel: Panel) -> tuple[list[str], list[list[Any]], str | None]:
    x, y, value = panel.x, panel.y, panel.value
    grid = panel.data.pivot_table(index=y.name, columns=x.name, values=value.name, aggfunc="first")
    ny, nx = grid.shape
    step = max(1, math.ceil(max(nx, ny) / MAX_COLUMNS))
    note = t("charts.table.thinned_matrix", step=step, nx=nx, ny=ny) if step > 1 else None
    grid = grid.iloc[::step, ::step]
    header = [t("charts.table.matrix_corner", y=y.title, x=x.title), *(table_cell(c) for c in grid.columns)]
    return header, [[idx, *row] for idx, row in zip(grid.index, grid.to_numpy().tolist(), strict=True)], note


def panel_rows(panel: Panel) -> tuple[list[str], list[list[Any]], str | None]:
    """(header, rows, note) of a panel's table (see the module's docstring)."""
    df = panel.data
    if panel.kind == "heatmap":
        return _matrix(panel)
    if not panel.kind or panel.x is None or panel.y is None:
        header, rows = [str(c) for c in df.columns], df.to_numpy().tolist()
    else:
        x, y = panel.x, panel.y
        groups = series_groups(panel)
        wide = (panel.series and not panel.extra and panel.kind != "scatter"
                and all(rows[x.name].is_unique for _, rows in groups))
        if wide:
            columns = [rows.set_index(x.name)[y.name].rename(label) for label, rows in groups]
            table = pd.concat(columns, axis=1)
            if pd.api.types.is_numeric_dtype(table.index):
                table = table.sort_index()
            header = [x.title, *(f"{label} — {y.title}" if len(groups) > 1 else y.title
                                 for label, _ in groups)]
            rows = [[idx, *("—" if pd.isna(v) else v for v in vals)]
                    for idx, vals in zip(table.index, table.to_numpy().tolist(), strict=True)]
        else:
            fields = [*panel.series, x, y, *panel.extra]
            header = [f.title for f in fields]
            ordered = pd.concat([rows for _, rows in groups]) if panel.series else df
            rows = ordered[[f.name for f in fields]].to_numpy().tolist()
    keep, step = _every(len(rows), MAX_ROWS)
    note = t("charts.table.thinned", step=step, total=len(rows)) if step > 1 else None
    return header, [rows[i] for i in keep], note


def panel_table(panel: Panel, chart_title: str | None) -> str:
    """The HTML of one panel's table, its note (rows left out) after it."""
    header, rows, note = panel_rows(panel)
    axes = f"{panel.y.title} — {panel.x.title}" if panel.x and panel.y else ""
    title = panel.title or chart_title or axes
    html = _html(header, rows, t("charts.table.caption", title=title))
    return html + (f"<p><small>{escape(note)}</small></p>" if note else "")
