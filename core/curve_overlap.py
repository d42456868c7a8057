"""Where a sweep's curves lie on top of one another, so that a page can say so in words: a chart cannot
show several identical lines apart, and a reader who sees one line where the legend names four needs
to be told that they coincide, and over which range.

    overlap(rows, x="dk", y="entropy_mean", series="rho", span=ln_n)

Curves coincide at an x when their spread there (largest y minus smallest y) is under COINCIDE of the
y-axis span: on the app's 260-px charts, 1 % is two or three pixels, less than a line's width and
marker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

COINCIDE = 0.01  # of the y-axis span: curves closer than this are drawn on top of one another


def spread_by_x(rows: Sequence[Mapping[str, Any]], x: str, y: str, series: str) -> dict[Any, float]:
    """max − min of `y` over the series, at each `x` held by at least two series (in order of x)."""
    at: dict[Any, dict[Any, float]] = {}
    for r in rows:
        at.setdefault(r[x], {})[r[series]] = float(r[y])
    return {k: max(v.values()) - min(v.values()) for k, v in sorted(at.items()) if len(v) > 1}


def overlap(rows: Sequence[Mapping[str, Any]], x: str, y: str, series: str, span: float,
            tol: float = COINCIDE) -> dict[Any, Any]:
    """How far a sweep's curves coincide: spread_by_x against tol·span.

    Returns curves (how many), spread_max and x_at_max (the largest spread and where), limit (tol·span),
    all (every x coincides), up_to (the largest x such that the curves coincide at it and at every
    smaller x; None when they differ already at the first), apart_from (the first x where they differ).
    """
    spreads = spread_by_x(rows, x, y, series)
    if not spreads or span <= 0:
        raise ValueError("overlap needs at least two curves sharing an x, and a positive span")
    limit = tol * span
    x_at_max = max(spreads, key=spreads.__getitem__)
    up_to, apart_from = None, None
    for k, v in spreads.items():
        if v >= limit:
            apart_from = k
            break
        up_to = k
    return {
        "curves": len({r[series] for r in rows}),
        "spread_max": spreads[x_at_max],
        "x_at_max": x_at_max,
        "limit": limit,
        "all": apart_from is None,
        "up_to": up_to,
        "apart_from": apart_from,
    }
