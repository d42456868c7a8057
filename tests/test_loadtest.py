"""The load test's protocol handling (tools/loadtest), against a real server on a free loopback port."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from urllib.parse import parse_qs

import pytest
from conftest import ROOT, StreamlitServer

from pages.ui.i18n import LANG_NAMES, text_for
from tools.loadtest.__main__ import UsageError, loopback_url, main
from tools.loadtest.driver import CHARTLESS_ON_OPEN, Phase, run_phase, session_seed
from tools.loadtest.memory import pid_listening_on
from tools.loadtest.protocol import BrowserTab, option_texts, presentation
from tools.loadtest.report import percentile, summarise


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(log_name="loadtest-server.log") as srv:
        yield srv


def key_of(widget_id: str) -> str:
    """The widget's key: Streamlit's id for a keyed widget ends with it ("$$ID-<hash>-dk")."""
    return widget_id.split("-", 2)[2]


@pytest.mark.server
def test_three_sessions_for_ten_seconds_run_clean_and_get_their_charts(server):
    rec = asyncio.run(run_phase(Phase("short", 3, 10.0, think=(0.5, 1.5), seed=1), server.url))
    s = summarise(rec)
    assert s["runs"] >= 3 and s["runs_ok"] == s["runs"]
    assert (s["exceptions"], s["disconnects"], s["timeouts"], s["page_not_found"], s["missing_refs"]) == \
        (0, 0, 0, 0, 0), s
    opens = [r for r in rec.runs if r.kind == "open"]
    assert len(opens) == 3 and all(r.result.charts > 0 for r in opens if r.page not in CHARTLESS_ON_OPEN)
    charted = [r for r in rec.runs if r.result.status == "ok" and r.page not in CHARTLESS_ON_OPEN]
    assert all(r.result.charts > 0 for r in charted)


@pytest.mark.server
def test_every_kind_of_widget_move_reaches_the_server():
    """Every control is bound to the URL: a value the server understood shows in the query string.
    Covers each widget kind the app uses: select_slider, slider, number_input, selectbox,
    segmented control and pills (sidebar and page)."""
    with StreamlitServer(log_name="loadtest-widgets.log") as srv:
        async def go() -> dict[str, int]:
            tab, rng, moved = BrowserTab(srv.url), random.Random(5), {}
            await tab.connect()
            # a seed in the link opens the sidebar's second section (exact d_k, trials, seed: the
            # number inputs), which draws its widgets only while open
            assert (await tab.open("/variance?seed=1", 300)).status == "ok"
            for wid in sorted(tab.widgets):
                w = tab.widgets.get(wid)
                if w is None or key_of(wid) == "lang" or presentation(wid):  # the load leaves those alone
                    continue
                before = parse_qs(tab.query)
                for _ in range(5):
                    new = w.random_move(rng)
                    if new is not None:
                        break
                w.state = new
                result = await tab.rerun(300)
                assert result.status == "ok" and not result.exceptions, result
                assert parse_qs(tab.query) != before, (key_of(wid), w.kind, tab.query)
                moved[w.kind] = moved.get(w.kind, 0) + 1
            await tab.close()
            return moved

        moved = asyncio.run(go())
    assert {"slider", "number_input", "selectbox", "button_group"} <= set(moved), moved


@pytest.mark.server
def test_a_language_switch_keeps_the_translated_choices(server):
    """Regression: after switching the language in the sidebar, the next move of any control used to
    empty the scales (the browser sent the old language's labels back)."""
    async def go() -> tuple[str, list[str], list[str]]:
        tab = BrowserTab(server.url)
        await tab.connect()
        await tab.open("/saturation?seed=2", 300)  # the seed opens the section with the exact d_k
        lang = next(w for w in tab.widgets.values() if key_of(w.id) == "lang")
        del lang.state.string_array_value.data[:]
        lang.state.string_array_value.data.append(LANG_NAMES["zh"])
        assert not (await tab.rerun(300)).exceptions
        dk = next(w for w in tab.widgets.values() if key_of(w.id) == "dk")
        dk.state.double_value = 65
        assert not (await tab.rerun(300)).exceptions
        scales = next(w for w in tab.widgets.values() if key_of(w.id) == "scales")
        await tab.close()
        return tab.query, list(scales.state.string_array_value.data), option_texts(scales.kind, scales.proto)

    query, chosen, options = asyncio.run(go())
    params = parse_qs(query, keep_blank_values=True)
    assert params["lang"] == ["zh"] and params["dk"] == ["65"] and "scales" not in params, query
    assert chosen == [text_for("common.scale.none", "zh"), text_for("common.scale.sqrt", "zh")]
    assert set(chosen) <= set(options)


@pytest.mark.server
def test_the_cli_prints_json_and_finds_the_server_by_its_port(server):
    out = subprocess.run([sys.executable, "-m", "tools.loadtest", "--url", server.url, "--sessions", "1",
                          "--seconds", "3", "--think", "0.5", "1", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    doc = json.loads(out.stdout)
    assert doc["memory"]["pid"] == server.proc.pid == pid_listening_on(server.port)
    assert doc["memory"]["fresh"] > 10e6
    phase = doc["phases"][0]
    assert phase["runs_ok"] >= 1 and phase["exceptions"] == 0 and phase["rss"]["peak"] > 10e6
    assert doc["runs"][0]["runs"][0]["kind"] == "open"
    assert doc["machine"]["reference_ms"] > 0.0  # how fast the machine was, beside the figures


@pytest.mark.parametrize("url", ["http://example.com:8501", "http://10.0.0.1:8501", "http://192.0.2.7",
                                 "ftp://127.0.0.1:8501"])
def test_only_loopback_servers_are_driven(url):
    with pytest.raises(UsageError):
        loopback_url(url)
    assert main(["--url", url, "--seconds", "1"]) == 2


@pytest.mark.parametrize("url", ["http://127.0.0.1:8501", "http://localhost:8501", "http://[::1]:8501"])
def test_loopback_urls_are_accepted(url):
    base, port = loopback_url(url)
    assert port == 8501 and base.startswith("http://")


@pytest.mark.parametrize("args", [["--sessions", "1000"], ["--heavy", "50"], ["--seconds", "99999"],
                                  ["--think", "5", "1"], ["--pages", "nowhere"], ["--link", "saturation"],
                                  ["--sessions", "0"]])
def test_the_run_is_bounded(args):
    assert main(["--url", "http://127.0.0.1:9", *args]) == 2


def test_percentile_interpolates_between_order_statistics():
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([5.0], 95) == 5.0
    assert percentile(list(range(101)), 95) == 95


def test_each_phase_moves_its_sessions_differently_unless_they_act_as_one():
    # A later phase replaying an earlier phase's moves would find their results cached and look faster.
    a, b = Phase("10 sessions", 10, 60.0), Phase("30 sessions", 30, 60.0)
    assert session_seed(a, 0, False) != session_seed(b, 0, False)
    assert session_seed(a, 0, False) == session_seed(Phase("10 sessions", 10, 60.0), 0, False)
    assert len({session_seed(b, i, h) for i in range(30) for h in (False, True)}) == 60
    same = Phase("one link", 30, 60.0, same=True, seed=7)
    assert {session_seed(same, i, False) for i in range(30)} == {7}


def test_a_fragments_run_replaces_the_widgets_of_its_own_part_of_the_page_only():
    """tools/loadtest/protocol.py `_outside`: as the frontend clears what a fragment's run did not
    draw again inside its container, a phone's view fragment that moved to the next step leaves no
    answer pills of the last one behind, and the bar's buttons outside it stay."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from tools.loadtest.protocol import _outside
    from tools.loadtest.widgets import Widget

    def widget(i: str, path: tuple[int, ...]) -> Widget:
        return Widget(i, "button_group", None, "", WidgetState(id=i), "", path)

    old = {"lang": widget("lang", (0, 2, 1)), "pick1": widget("pick1", (0, 4, 3, 0, 1)),
           "conf1": widget("conf1", (0, 4, 3, 0, 2))}
    drew = [(0, 4), (0, 4, 0), (0, 4, 3, 0, 1), (0, 4, 5)]  # the view fragment's container and what is in it
    assert set(_outside(old, drew)) == {"lang"}
    assert set(_outside(old, [])) == set(old)  # a run that drew nothing
    assert set(_outside(old, [(0, 4, 3, 0, 1)])) == {"lang", "conf1"}  # one element's own place


class _Socket:
    """A websocket that answers every request with the messages given, in order."""

    def __init__(self, messages: list) -> None:
        self.messages = [m.SerializeToString() for m in messages]

    async def send(self, data: bytes) -> None:
        pass

    async def recv(self) -> bytes:
        return self.messages.pop(0)


def _start(*fragments: str):
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msg = ForwardMsg()
    msg.new_session.page_script_hash = "lesson"
    msg.metadata.run.fragment_ids.extend(fragments)
    return msg


def _finish(status: int):
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msg = ForwardMsg()
    msg.script_finished = status
    return msg


def test_a_fragments_run_after_ours_was_cut_short_is_read_as_the_rooms():
    """tools/loadtest/protocol.py `_run`: a phone's answer (its step's fragment) cut short as the
    room wakes that same fragment is followed by the woken run, which the tab reads as the server's
    own (it shows the move); a woken run that arrives cut short is counted."""
    import asyncio

    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from tools.loadtest.protocol import BrowserTab

    cut, done = ForwardMsg.FINISHED_EARLY_FOR_RERUN, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    tab = BrowserTab("http://127.0.0.1:9")
    tab.ws = _Socket([_start("view"), _finish(cut), _start("view"), _finish(done)])
    result = asyncio.run(tab.fragment("view", timeout=5.0, auto=False))
    assert result.status == "ok" and result.runs == 2 and tab.woken_at > float("-inf")
    assert result.woken_cut == 0  # ours was the run cut short

    tab = BrowserTab("http://127.0.0.1:9")
    tab.ws = _Socket([_start("view"), _finish(done)])
    asyncio.run(tab.fragment("view", timeout=5.0, auto=False))
    assert tab.woken_at == float("-inf")  # our own run alone: nothing woke the tab

    tab = BrowserTab("http://127.0.0.1:9")
    tab.ws = _Socket([_start("view"), _finish(cut), _start("poll"), _finish(done)])
    result = asyncio.run(tab.fragment("poll", timeout=5.0))
    assert result.status == "ok" and result.woken_cut == 1  # the room's run, cut short, before our poll

    tab = BrowserTab("http://127.0.0.1:9")  # a woken step rerunning the whole page (the class ended)
    tab.ws = _Socket([_start("view"), _finish(cut), _start(), _finish(ForwardMsg.FINISHED_SUCCESSFULLY)])
    result = asyncio.run(tab.listen(1.0, timeout=5.0))
    assert result is not None and result.status == "ok" and result.full and result.woken_cut == 0
