"""The server CPU of a nothing-shared move, page by page (tools/loadtest/unique_cost.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, StreamlitServer

from tools.loadtest import unique_cost


def test_this_process_cpu_clock_advances_with_work():
    before = unique_cost.cpu_seconds(os.getpid())
    sum(i * i for i in range(3_000_000))
    assert unique_cost.cpu_seconds(os.getpid()) > before


@pytest.mark.parametrize("args", [["--pid", "1", "--moves", "0"], ["--pid", "999999999"], ["--moves", "3"],
                                  ["--pid", "1", "--pages", "cost"]])
def test_its_arguments_are_checked(args):
    with pytest.raises(SystemExit) as exc:
        unique_cost.main(args)
    assert exc.value.code == 2


@pytest.mark.server
def test_each_page_reports_the_servers_cpu_per_move():
    with StreamlitServer(log_name="unique-cost-server.log") as srv:
        out = subprocess.run([sys.executable, "-m", "tools.loadtest.unique_cost", "--url", srv.url,
                              "--pid", str(srv.proc.pid), "--moves", "2", "--pages", "variance", "q-vs-k",
                              "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    doc = json.loads(out.stdout)
    assert [r["page"] for r in doc["rows"]] == ["variance", "q-vs-k"]
    for row in doc["rows"]:
        assert row["moves"] == 2 and row["exceptions"] == 0, row
        assert 0.0 < row["cpu_per_move"] < 30.0 and row["wall_mean"] > 0.0, row
    assert doc["mean_cpu_per_move"] > 0.0
