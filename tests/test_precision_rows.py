"""The precision sweep: its float16 / bfloat16 arithmetic against torch's own dtypes, fewer query rows
per trial at large n, and the non-finite row check in one pass."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core import experiments as ex
from core import views
from core.errors import InputError
from core.experiments.low_precision import DTYPE_LIMITS, MASK_VALUE, _frac_rows, raw_scores, to_dtype
from core.figure_budget import PRECISION_MIN_QUERIES, precision_queries, sweep_dks
from core.sampling import sub_seed
from core.scales import parse_scale, scale_factor

LOW = ("float16", "bfloat16")
EDGES = [0.0, -0.0, 1e-45, -1e-45, 2.0 ** -26, 2.0 ** -25, -(2.0 ** -25), 3 * 2.0 ** -25, 2.0 ** -24,
         2.0 ** -14 * (1 - 2.0 ** -12), 2.0 ** -14, 6.1e-5, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11,
         1.0 + 2.0 ** -8, 65504.0, 65519.99, 65520.0, -65520.0, 65536.0, 3.3895e38, 3.4e38, -3.4e38,
         math.inf, -math.inf, math.nan]


def _torch_round(x: np.ndarray, name: str) -> np.ndarray:
    return torch.from_numpy(np.ascontiguousarray(x)).to(getattr(torch, name)).float().numpy()


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("name", LOW)
def test_rounding_to_the_dtype_is_torchs_cast_bit_for_bit(name):
    """Every float32 word class: random bit patterns (NaNs, infs, subnormals included), magnitudes
    from 1e-12 to 1e40, float16's subnormal range, ties and the overflow edges."""
    rng = np.random.default_rng(7)
    words = rng.integers(0, 2 ** 32, 400_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore"):
        spread = (rng.standard_normal(400_000) * 10.0 ** rng.uniform(-12, 40, 400_000)).astype(np.float32)
    tiny = rng.uniform(-(2.0 ** -13), 2.0 ** -13, 200_000).astype(np.float32)
    edges = np.array(EDGES, dtype=np.float32)
    for x in (words, spread, tiny, edges, spread.reshape(400, 1000)[:, ::7]):
        ours = to_dtype(x, name)
        assert ours.shape == x.shape and ours.dtype == np.float32
        assert _same_bits(ours, _torch_round(x, name)).all()
    assert to_dtype(edges, "float32") is edges


def _torch_rows(dks, n, scales, trials, seed):
    """The sweep as torch computes it in the dtypes themselves: the same draws, float32 logits
    rounded by torch's cast, then exp, the row sum and the division on float16 / bfloat16 tensors."""
    rows = []
    for d in dks:
        rng = np.random.default_rng(sub_seed(seed, 4, d, n))
        raw = torch.from_numpy(raw_scores(rng, trials, n, n, d, "normal")).reshape(-1, n)
        for s in scales:
            logits32 = raw * scale_factor(parse_scale(s), d)
            for name in ex.PRECISION_DTYPES:
                x = logits32.to(getattr(torch, name))
                naive = torch.exp(x)
                naive = naive / naive.sum(dim=-1, keepdim=True)
                if name == "float32":
                    stable = torch.softmax(x, dim=-1)
                else:
                    e = (x - x.max(dim=-1, keepdim=True).values).exp()
                    stable = e / e.sum(dim=-1, keepdim=True)
                rows.append({
                    "max_logit": float(logits32.abs().max()),
                    "naive": float((~torch.isfinite(naive)).any(dim=-1).double().mean()),
                    "stable": float((~torch.isfinite(stable)).any(dim=-1).double().mean()),
                    "mask": float(torch.tensor(MASK_VALUE).to(getattr(torch, name)).float()),
                    "max": float(torch.finfo(getattr(torch, name)).max),
                    "eps": float(torch.finfo(getattr(torch, name)).eps)})
    return rows


@pytest.mark.parametrize("dks, n, scales, trials, seed", [
    ([2, 16, 128, 1024, 4096], 64, ["none", "sqrt", "linear"], 12, 0),
    ([512], 32, ["none", "sqrt"], 16, 1),
    ([2048, 4096], 256, ["none", "sqrt", "log", "double-sqrt"], 3, 5),
])
def test_the_sweep_counts_the_rows_torch_counts_in_its_own_dtypes(dks, n, scales, trials, seed):
    ours = ex.precision(dks, n=n, scales=scales, trials=trials, seed=seed)["rows"]
    ref = _torch_rows(dks, n, scales, trials, seed)
    assert len(ours) == len(ref)
    assert any(r["naive_nonfinite_fraction"] > 0 for r in ours)  # each case reaches overflow
    for row, want in zip(ours, ref, strict=True):
        assert row["max_logit"] == want["max_logit"]
        assert row["naive_nonfinite_fraction"] == pytest.approx(want["naive"], abs=1e-12), row
        assert row["stable_nonfinite_fraction"] == pytest.approx(want["stable"], abs=1e-12), row
        assert row["mask_value"] == want["mask"] and row["dtype_max"] == want["max"]
        assert row["dtype_max"] == DTYPE_LIMITS[row["dtype"]][0]
        assert DTYPE_LIMITS[row["dtype"]][1] == want["eps"]


def _elementwise(a: np.ndarray) -> float:
    return float((~np.isfinite(a)).any(axis=-1).mean())


@pytest.mark.parametrize("name", [*LOW, "float32"])
def test_one_pass_row_check_matches_the_elementwise_one(name):
    rng = np.random.default_rng(0)
    a = to_dtype((rng.standard_normal((64, 200)) * 30).astype(np.float32), name)
    a[3, 7] = np.inf
    a[10, 0] = -np.inf
    a[11, 5], a[11, 6] = np.inf, -np.inf  # inf − inf in the sum is NaN: still counted
    a[20, 199] = np.nan
    expected = _elementwise(a)
    assert expected == pytest.approx(4 / 64)
    assert _frac_rows(a, 2.0 * 30 * 6) == expected


def test_row_check_falls_back_where_a_float32_sum_could_overflow():
    a = np.full((4, 8), 3e38, dtype=np.float32)  # finite, but eight of them overflow a float32 sum
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
