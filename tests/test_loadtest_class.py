"""The live-class load scenario (tools/loadtest/classroom.py) at a small size on a fresh server: one
teacher, a few phones and light sessions beside them, through the CLI as the docs run it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, StreamlitServer

from tools.loadtest.__main__ import UsageError, parse_args
from tools.loadtest.classroom import Move, matches


@pytest.mark.server
def test_a_small_class_beside_light_sessions_follows_the_teacher_and_counts_every_answer():
    with StreamlitServer(log_name="loadtest-class-server.log") as srv:
        out = subprocess.run([sys.executable, "-m", "tools.loadtest", "--url", srv.url, "--sessions", "3",
                              "--class-students", "6", "--class-steps", "2", "--class-step-seconds", "8",
                              "--think", "1", "3", "--json"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    doc = json.loads(out.stdout)
    c = doc["class"]
    # the teacher's moves: step 1 revealed, Next, step 2's second vote, its reveal, the end
    assert c["moves"] == ["reveal", "step", "vote2", "reveal", "end"], c
    assert c["problems"] == [] and c["exceptions"] == 0 and c["timeouts"] == 0 and c["disconnects"] == 0, c
    assert c["missed"] == 0 and c["arrivals"] == c["expected"] == 5 * 6, c  # every phone saw every move
    assert c["answers"] >= 6, c                           # each phone answered something
    # the projector's count caught up with every answer that stayed current for 2 s
    assert c["count_lags"] + c["count_superseded"] == c["answers"], c
    assert c["runs"]["student:woken"]["runs"] >= 6         # the room woke its phones (server/room_bus.py)
    assert c["runs"]["student:poll"]["runs"] >= 6          # and each still polled now and then
    light = doc["phases"][0]
    assert light["runs_ok"] >= 3 and light["exceptions"] == 0 and light["disconnects"] == 0, light


def test_a_phone_shows_a_move_only_in_the_state_the_move_leads_to():
    step2, vote2, reveal2, end = Move("step", 2, 0.0), Move("vote2", 2, 0.0), Move("reveal", 2, 0.0), \
        Move("end", 2, 0.0)
    assert matches(step2, (2, 1, False)) and not matches(step2, (1, 1, False))
    assert not matches(step2, (2, None, True)) and not matches(vote2, (2, 1, False))
    assert matches(vote2, (2, 2, False)) and matches(reveal2, (2, None, True))
    assert matches(end, ("end",)) and not matches(reveal2, ("end",))


@pytest.mark.parametrize("args", [["--class-students", "-1"], ["--class-students", "1", "--matrix"],
                                  ["--class-students", "1", "--class-steps", "9"],
                                  ["--class-students", "1", "--class-step-seconds", "1"],
                                  ["--sessions", "0"]])
def test_a_class_run_is_bounded(args):
    with pytest.raises(UsageError):
        parse_args(args)
