"""Student-t quantiles from scipy.stats, and the power-law fit built on them (core/stats.py)."""

from __future__ import annotations

import pytest

from core import cost as C
from core import stats


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999])
def test_scipy_quantiles_agree_with_the_hand_written_ones(level):
    """Every (1 + level)/2 quantile the fits use, df = m − 2 for up to 202 points."""
    p = 0.5 + level / 2
    for df in range(1, 201):
        assert stats.t_quantile(p, df) == pytest.approx(C.t_quantile(p, df), rel=1e-12)
