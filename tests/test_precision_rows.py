"""The precision sweep at large n: fewer query rows per trial, and the non-finite row check in one pass."""

from __future__ import annotations

import pytest
import torch

from core import experiments as ex
from core import views
from core.errors import InputError
from core.experiments.low_precision import _frac_rows
from core.figure_budget import PRECISION_MIN_QUERIES, precision_queries, sweep_dks


def _elementwise(a: torch.Tensor) -> float:
    return float((~torch.isfinite(a)).any(dim=-1).float().mean())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_one_pass_row_check_matches_the_elementwise_one(dtype):
    g = torch.Generator().manual_seed(0)
    a = (torch.randn(64, 200, generator=g) * 30).to(dtype)
    a[3, 7] = float("inf")
    a[10, 0] = float("-inf")
    a[11, 5], a[11, 6] = float("inf"), float("-inf")  # inf − inf in the sum is NaN: still counted
    a[20, 199] = float("nan")
    expected = _elementwise(a)
    assert expected == pytest.approx(4 / 64)
    assert _frac_rows(a, 2.0 * 30 * 6) == expected


def test_row_check_falls_back_where_a_float32_sum_could_overflow():
    a = torch.full((4, 8), 3e38, dtype=torch.float32)  # finite, but eight of them overflow a float32 sum
    assert _frac_rows(a, 3.4e38) == 0.0
    assert _elementwise(a) == 0.0


def test_queries_default_to_every_query_and_are_checked():
    full = ex.precision([16, 256], n=24, scales=["none", "sqrt"], trials=3, seed=2)
    same = ex.precision([16, 256], n=24, scales=["none", "sqrt"], trials=3, seed=2, queries=24)
    assert full["rows"] == same["rows"] and full["params"]["queries"] == 24
    fewer = ex.precision([16, 256], n=24, scales=["none", "sqrt"], trials=3, seed=2, queries=5)
    assert fewer["params"]["queries"] == 5 and fewer["rows"] != full["rows"]
    for bad in (0, 25):
        with pytest.raises(InputError):
            ex.precision([16], n=24, trials=1, queries=bad)


def test_large_n_takes_fewer_queries_and_the_view_says_how_many():
    dks = sweep_dks(64)
    assert precision_queries(32, dks, 2) == 32
    many = precision_queries(1024, dks, 2)
    assert PRECISION_MIN_QUERIES <= many < 1024
    view = views.precision_view(dks, 1024, ["none", "sqrt"], 100)
    assert view["queries"] == many and view["trials"] == 1
    unscaled = [r for r in view["rows"] if r["scale"] == "none" and r["dtype"] == "float16"]
    assert unscaled[-1]["naive_nonfinite_fraction"] > 0.5  # d_k = 4096 unscaled: most rows overflow
