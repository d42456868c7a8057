"""core.memo: parts of figures kept by what they were computed from, and shared between views."""

from __future__ import annotations

import threading
import time

from core import experiments as ex
from core import views
from core.figure_budget import sweep_dks, variance_samples
from core.memo import Memo


def test_memo_computes_once_and_hands_out_copies():
    memo, calls = Memo(), []

    def compute():
        calls.append(1)
        return [{"x": 1.0}]

    first = memo.get_or_compute("k", compute)
    first[0]["x"] = 99.0
    second = memo.get_or_compute("k", compute)
    assert calls == [1] and second == [{"x": 1.0}]
    assert (memo.hits, memo.misses) == (1, 1)


def test_memo_is_bounded_least_recently_used_first_out():
    memo = Memo(max_entries=3)
    for k in "abc":
        memo.get_or_compute(k, lambda k=k: k)
    memo.get_or_compute("a", lambda: "recomputed")  # a is now the most recent
    memo.get_or_compute("d", lambda: "d")
    assert len(memo) == 3
    assert memo.get_or_compute("b", lambda: "b again") == "b again"  # b was the oldest: dropped
    assert memo.get_or_compute("a", lambda: "recomputed") == "a"


def test_memo_drops_what_nobody_asked_for():
    memo = Memo()
    memo.get_or_compute("old", lambda: 1)
    time.sleep(0.05)  # the age is what is tested: older than 0.03 s
    memo.get_or_compute("new", lambda: 2)
    assert memo.drop_unused(0.03) == 1 and len(memo) == 1
    memo.clear()
    assert len(memo) == 0


def test_memo_serves_many_threads():
    memo, errors = Memo(max_entries=8), []

    def work(i):
        try:
            for j in range(200):
                key = (i + j) % 16
                assert memo.get_or_compute(key, lambda key=key: [key]) == [key]
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and len(memo) <= 8


def _counting(monkeypatch, name):
    calls = []
    real = getattr(ex, name)

    def counted(*args, **kwargs):
        calls.append(kwargs.get("trials"))
        return real(*args, **kwargs)

    counted.__module__, counted.__qualname__ = real.__module__, real.__qualname__
    monkeypatch.setattr(ex, name, counted)
    return calls


def test_moving_n_on_the_overview_reuses_the_capped_variance_sweep(monkeypatch):
    variance_calls = _counting(monkeypatch, "variance")
    saturation_calls = _counting(monkeypatch, "saturation")
    dks = sweep_dks(64)
    assert variance_samples(2000, 128, dks) == variance_samples(2000, 256, dks) < 2000 * 128  # capped
    a = views.overview_summary(dks, 128, ["sqrt", "none"], 2000)
    first = (len(variance_calls), len(saturation_calls))
    b = views.overview_summary(dks, 256, ["sqrt", "none"], 2000)
    assert first == (len(dks), len(dks))  # one call per d_k
    assert (len(variance_calls), len(saturation_calls)) == (len(dks), 2 * len(dks))
    assert [r["var_scaled"] for r in a["rows"]] == [r["var_scaled"] for r in b["rows"]]
    assert [r["max_weight_mean"] for r in a["rows"]] != [r["max_weight_mean"] for r in b["rows"]]


def test_the_variance_page_shares_the_overview_sweep_and_its_numbers(monkeypatch):
    dks = sweep_dks(64)
    fresh = views.variance_view(dks, 64, ["sqrt"], 200)
    views.PARTS.clear()
    calls = _counting(monkeypatch, "variance")
    over = views.overview_summary(dks, 64, ["sqrt"], 200)
    shared = views.variance_view(dks, 64, ["sqrt"], 200)
    assert len(calls) == len(dks)
    assert shared == fresh
    assert [r["var_scaled"] for r in over["rows"]] == [r["var_scaled"] for r in fresh["rows"]]


def test_kept_rows_cannot_be_changed_by_a_caller():
    dks = sweep_dks(64)
    first = views.saturation_view(dks, 32, ["sqrt"], 20)
    before = first["rows"][0]["max_weight_mean"]
    first["rows"][0]["max_weight_mean"] = -1.0
    again = views.saturation_view(dks, 32, ["sqrt"], 20)
    assert again["rows"][0]["max_weight_mean"] == before


def test_moving_dk_off_the_grid_computes_one_new_row_per_sweep(monkeypatch):
    calls = {name: _counting(monkeypatch, name) for name in ("variance", "saturation")}
    on_grid = views.overview_summary(sweep_dks(64), 32, ["sqrt", "none"], 200)
    for c in calls.values():
        c.clear()
    off_grid = views.overview_summary(sweep_dks(100), 32, ["sqrt", "none"], 200)
    assert len(calls["variance"]) == 1 and len(calls["saturation"]) == 1  # d_k = 100 only
    assert on_grid["trials"]["variance"] == off_grid["trials"]["variance"]
    assert on_grid["trials"]["saturation"] == off_grid["trials"]["saturation"]
    kept = [r for r in off_grid["rows"] if r["dk"] != 100]
    assert [(r["var_scaled"], r["max_weight_mean"]) for r in kept] == \
        [(r["var_scaled"], r["max_weight_mean"]) for r in on_grid["rows"]]


def test_one_call_per_dk_gives_the_numbers_of_one_call_for_the_sweep():
    dks = [2, 16, 100, 512]
    whole = {
        "variance": ex.variance(dks, ["sqrt", "none"], trials=300, seed=3)["rows"],
        "saturation": ex.saturation(dks, n=24, scales=["sqrt", "none"], trials=5, seed=3)["rows"],
        "precision": ex.precision(dks, n=16, scales=["sqrt", "none"], trials=3, seed=3)["rows"],
    }
    seen = []
    split = {
        "variance": views._grouped(ex.variance, dks, ["sqrt", "none"], seen.append, per_dk=True,
                                   trials=300, seed=3),
        "saturation": views._grouped(ex.saturation, dks, ["sqrt", "none"], None, per_dk=True, n=24,
                                     trials=5, seed=3),
        "precision": views._grouped(ex.precision, dks, ["sqrt", "none"], None, per_dk=True, n=16,
                                    trials=3, seed=3),
    }
    assert split == whole
    assert seen == sorted(seen) and seen[-1] == 1.0  # one bar over the whole sweep, not one per d_k


def test_variance_rows_for_any_scales_come_from_one_part_per_dk(monkeypatch):
    dks = [1, 2, 64, 100]
    scales = ["sqrt", "none", "log", "power:0.25"]
    whole = views._grouped(ex.variance, dks, scales, None, trials=500, seed=5, rho=0.3)
    views.PARTS.clear()
    calls = _counting(monkeypatch, "variance")
    assert views._variance_rows(dks, scales, None, trials=500, seed=5, rho=0.3) == whole
    assert views._variance_rows(dks, ["log"], None, trials=500, seed=5, rho=0.3) == \
        [r for r in whole if r["scale"] == "log"]
    assert len(calls) == len(dks)  # the second set of scales drew nothing new
