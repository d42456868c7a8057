"""A session's runs reach its browser whole (pages/ui/run_order.py): a fragment's rerun that
arrives as a whole run ends waits for that run's last messages, and a fragment run's finish survives
another fragment's start — each wrapper on its own, the reason for it in Streamlit, and phones
answering as the teacher moves on a real server (tools/loadtest/crossing.py)."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest
from conftest import ROOT, StreamlitServer
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests
from waiting import until

from pages.ui import run_order
from tools.loadtest import crossing


def _session(stopped: bool) -> SimpleNamespace:
    requests = ScriptRequests()
    if stopped:
        requests.request_stop()
    return SimpleNamespace(_scriptrunner=SimpleNamespace(_requests=requests))


def _state(fragment: str = "") -> ClientState:
    state = ClientState()
    state.fragment_id = fragment
    return state


def test_the_reason_for_it_is_still_there():
    # the session ignores the events of a runner that is no longer current (the internals run_order
    # reads are exercised in tests/test_st_internals.py)
    handler = inspect.getsource(AppSession._handle_scriptrunner_event_on_event_loop)
    assert "sender is not self._scriptrunner" in handler


def test_install_wraps_the_session_once(monkeypatch):
    # importing app.py (as `streamlit run` does, and other tests) installs it: start from the bare one
    original = getattr(AppSession.request_rerun, "__wrapped__", AppSession.request_rerun)
    monkeypatch.setattr(AppSession, "request_rerun", original)  # restored afterwards
    assert run_order.install() is True
    assert AppSession.request_rerun.__wrapped__ is original
    assert run_order.install() is False and AppSession.request_rerun.__wrapped__ is original


def test_a_fragments_request_waits_while_the_runner_has_stopped_and_keeps_its_order():
    calls: list[str] = []
    wrapped = run_order.ordered(lambda session, state: calls.append(state.fragment_id or "whole"))
    session = _session(stopped=True)

    async def scenario() -> None:
        wrapped(session, _state("answer"))
        wrapped(session, _state("poll"))
        await asyncio.sleep(0.03)  # what is tested: nothing goes for 0.03 s
        assert calls == []  # the stopped runner's shutdown has not been handled: both wait
        wrapped(session, _state())  # a whole run's request is not held back
        assert calls == ["whole"]
        session._scriptrunner = None  # the shutdown handled
        await until("the held requests going once the shutdown is handled", lambda: len(calls) == 3)

    asyncio.run(scenario())
    assert calls == ["whole", "answer", "poll"]


def test_a_request_goes_at_once_when_the_runner_runs_and_at_most_after_the_wait():
    calls: list[str] = []
    wrapped = run_order.ordered(lambda session, state: calls.append(state.fragment_id), wait_s=0.05)

    async def scenario() -> None:
        wrapped(_session(stopped=False), _state("running"))
        assert calls == ["running"]
        wrapped(_session(stopped=True), _state("stuck"))  # its shutdown never comes
        await asyncio.sleep(0.01)  # what is tested: it does not go within 0.01 s
        assert calls == ["running"]
        await until("the stuck request going after its wait (0.05 s)", lambda: len(calls) == 2, timeout=0.2)

    asyncio.run(scenario())
    assert calls == ["running", "stuck"]
    wrapped(_session(stopped=True), _state("no loop"))  # off the event loop: nothing to wait behind
    assert calls[-1] == "no loop"


BARE_CLEAR = getattr(ForwardMsgQueue.clear, "__wrapped__", ForwardMsgQueue.clear)
DONE, CUT = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, ForwardMsg.FINISHED_EARLY_FOR_RERUN


def _queued_run(fragment: str = "view") -> ForwardMsgQueue:
    """A session's queue holding one whole fragment run, unsent: its start, one element, its finish."""
    queue = ForwardMsgQueue()
    start = ForwardMsg()
    start.new_session.page_script_hash = "lesson"
    finish = ForwardMsg()
    finish.script_finished = DONE
    for msg in (start, finish):
        msg.metadata.run.script_run_id = "run-1"
        msg.metadata.run.fragment_ids.append(fragment)
    element = ForwardMsg()
    element.delta.new_element.markdown.body = "the new question"
    element.delta.fragment_id = fragment
    element.metadata.delta_path.extend([0, 4, 0])
    for msg in (start, element, finish):
        queue.enqueue(msg)
    return queue


def _left(queue: ForwardMsgQueue) -> list[tuple[str, int | None]]:
    return [(m.WhichOneof("type"), m.script_finished if m.WhichOneof("type") == "script_finished" else None)
            for m in queue._queue]


def test_the_reason_for_keeping_finishes_is_still_there():
    # Streamlit keeps the queued elements of a fragment other than the one starting, but says its run
    # was cut short: the browser then never clears what that fragment's previous run left
    queue = _queued_run("view")
    BARE_CLEAR(queue, retain_lifecycle_msgs=True, fragment_ids_this_run=["poll"])
    assert _left(queue) == [("new_session", None), ("delta", None), ("script_finished", CUT)]


def test_a_fragment_runs_finish_survives_another_fragments_start():
    clear = run_order.kept_finishes(BARE_CLEAR)
    queue = _queued_run("view")
    clear(queue, retain_lifecycle_msgs=True, fragment_ids_this_run=["poll"])
    assert _left(queue) == [("new_session", None), ("delta", None), ("script_finished", DONE)]
    assert queue._queue[1].delta.new_element.markdown.body == "the new question"


@pytest.mark.parametrize("starting", [["view"], ["poll", "view"], None])
def test_a_run_that_redraws_the_fragment_still_cuts_its_finish(starting):
    # the same fragment starting again (a phone's answer), or a whole run: what the queued run drew is
    # dropped and redrawn, so its finish says it was cut short, as Streamlit has it
    queue, bare = _queued_run("view"), _queued_run("view")
    run_order.kept_finishes(BARE_CLEAR)(queue, retain_lifecycle_msgs=True, fragment_ids_this_run=starting)
    BARE_CLEAR(bare, retain_lifecycle_msgs=True, fragment_ids_this_run=starting)
    assert _left(queue) == _left(bare) and ("script_finished", CUT) in _left(queue)
    assert ("delta", None) not in _left(queue)


def test_a_flush_and_a_whole_clear_are_unchanged():
    clear = run_order.kept_finishes(BARE_CLEAR)
    queue = _queued_run("view")
    clear(queue)  # flush() clears this way, after taking the messages
    assert _left(queue) == []
    queue = _queued_run("view")
    assert [m.WhichOneof("type") for m in queue.flush()] == ["new_session", "delta", "script_finished"]


def test_install_wraps_the_queue_once(monkeypatch):
    monkeypatch.setattr(ForwardMsgQueue, "clear", BARE_CLEAR)  # restored afterwards
    assert run_order.install() is True
    assert ForwardMsgQueue.clear.__wrapped__ is BARE_CLEAR
    assert ForwardMsgQueue.clear.__module__ == "pages.ui.run_order"
    assert run_order.install() is False


@pytest.mark.server
def test_phones_answering_as_the_teacher_moves_all_show_the_move():
    # without run_order, 15 of 576 phone-moves were lost this way (docs/live-class.md)
    with StreamlitServer(log_name="crossing-server.log") as srv:
        out = subprocess.run([sys.executable, "-m", "tools.loadtest.crossing", "--url", srv.url,
                              "--phones", "16", "--classes", "1", "--steps", "4"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    doc = json.loads(out.stdout)
    assert doc["phone_moves"] == 16 * 12 and doc["answers"] >= 16 * 4, doc
    assert doc["missed"] == 0 and out.returncode == 0, doc


@pytest.mark.parametrize("args", [["--phones", "0"], ["--phones", "61"], ["--classes", "0"],
                                  ["--steps", "5"]])
def test_the_crossing_check_is_bounded(args):
    with pytest.raises(SystemExit) as exc:
        crossing.main(args)
    assert exc.value.code == 2
