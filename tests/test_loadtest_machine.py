"""The machine a load test ran on, recorded beside its figures (tools/loadtest/machine.py)."""

from __future__ import annotations

import pytest

from tools.loadtest import machine


def test_the_reference_is_the_fastest_of_its_runs(monkeypatch):
    clock = iter([0.0, 0.030, 1.0, 1.010, 2.0, 2.020])  # three runs: 30, 10 and 20 ms
    monkeypatch.setattr(machine.time, "perf_counter", lambda: next(clock))
    ran = []
    monkeypatch.setattr(machine, "_workload", lambda: ran.append(1) or 0.0)
    assert machine.reference_ms(repeats=3) == pytest.approx(10.0)
    assert len(ran) == 3


def test_the_reference_workload_runs_here():
    assert machine._workload() > 0.0  # its softmax's mean largest weight, and more
    assert 0.0 < machine.reference_ms(repeats=1) < 60_000.0


def test_steal_and_load_are_read_where_the_kernel_has_them():
    steal = machine.steal_seconds()
    assert steal is None or steal >= 0.0
    load = machine.load_average()
    assert load is None or load >= 0.0


def test_a_record_has_its_reference_and_the_steal_over_the_run():
    rec = machine.MachineRecord()
    rec.begin()
    rec.end()
    doc = rec.as_dict()
    assert doc["reference_ms"] > 0.0
    if machine.steal_seconds() is not None:
        assert doc["steal_s"] >= 0.0
    line = machine.machine_line(doc)
    assert line.startswith("machine: reference workload ") and " ms" in line


def test_the_line_says_when_nothing_was_measured():
    assert machine.machine_line({}) == "machine: not measured"
    assert machine.machine_line({"reference_ms": 12.04, "load_before": 0.5, "steal_s": 1.26}) == (
        "machine: reference workload 12.0 ms, load average before 0.50, "
        "1.3 CPU s stolen by the host during the run")
