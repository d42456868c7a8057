"""One browser tab on Streamlit's websocket protocol, without a browser.

The frontend talks to the server over `/_stcore/stream`: it sends `BackMsg` protobufs and reads
`ForwardMsg` protobufs, both shipped inside the streamlit package. What a tab does, and what this
module does the same way (Streamlit 1.67's `App.sendRerunBackMsg` and `WidgetStateManager`):

- open a link: one `rerun_script` with the URL's query string and `page_name` = the URL path
  ("saturation"; "" for the main page), no page hash yet, and the browser's context (locale, URL);
- the server answers with `new_session` (the run's page hash), `delta`s (elements and widgets, each
  with the script that made it in its metadata), `navigation` (the app's pages), `page_info_changed`
  (the query string the app wrote) and finally `script_finished`;
- move a widget: `rerun_script` with every widget's current value (`widget_states`), the current page
  hash and query string;
- change page: `rerun_script` with the target page's hash, the main script's widget values only and
  an emptied query string;
- keep the large elements it received (`metadata.cacheable`) by hash and list those hashes in every
  `rerun_script`; the server then sends a `ref_hash` instead of an element the tab already has.

A run is timed from sending its `BackMsg` to `script_finished`; exception elements (`delta` carrying
an `exception` proto), the main area's charts and `page_not_found` are counted per run.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tools.loadtest.cookies import CookieJar, HttpError, http_get
from tools.loadtest.widgets import PRESENTATION_KEYS, Widget, initial_state, option_texts, presentation

__all__ = ["PRESENTATION_KEYS", "BrowserTab", "DisconnectedError", "RunResult", "Widget", "initial_state",
           "option_texts", "presentation"]

STREAM_PATH = "/_stcore/stream"
HEALTH_PATH = "/_stcore/health"
FINISHED = ForwardMsg.ScriptFinishedStatus
DONE = (FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
WIDGET_TYPES = ("slider", "number_input", "selectbox", "multiselect", "radio", "checkbox", "button_group",
                "button")
CHART_TYPES = ("vega_lite_chart",)
MAIN_AREA = 0  # the first entry of a delta's path: 0 the main area, 1 the sidebar
MESSAGE_CACHE = 256  # large elements a tab keeps for the server to refer to
# A fragment's timer rerun that has not begun after this long was dropped by the server (the fragment
# went with a whole run that was under way when the request came): a browser never waits for one.
DROPPED_S = 10.0
class DisconnectedError(Exception):
    """The websocket closed (or could not open) while a run was expected."""


@dataclass
class RunResult:
    """One script run as the tab saw it."""

    seconds: float
    status: str  # "ok", "compile_error", "timeout", "disconnected", "dropped" / "superseded" (by another run)
    exceptions: list[str] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)  # notices (st.warning, st.info, …), cut to 300
    charts: int = 0
    page_not_found: bool = False
    elements: int = 0
    bytes: int = 0
    largest: int = 0                     # the largest single message, bytes
    missing_refs: int = 0                # references to elements the tab did not have
    runs: int = 0                        # script runs it took (2 when the app reran itself)
    full: bool = False                   # a whole run of the page (not a fragment's alone) took place
    # runs the server started by itself that arrived cut short, followed by a fragment's run (not the
    # app rerunning its whole page, as a phone's step does when the class has ended)
    woken_cut: int = 0
    texts: list[str] = field(default_factory=list)  # the Markdown and code it drew, cut (a class reads it)


class BrowserTab:
    """One tab: a websocket session that opens links, moves widgets and changes pages."""

    def __init__(self, base_url: str, locale: str = "en-US", sticky: str | None = None,
                 origin: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.locale = locale
        # Behind a balancer that pins a session with the cookie `sticky` (deploy/haproxy.cfg's
        # ASE_SERVER): the tab keeps its cookies as a browser does (cookies.py) and notes the
        # replica each connection was pinned to.
        self.sticky = sticky
        self.cookies = CookieJar()
        self.replicas: list[str] = []          # the cookie's value at each connection, changes only
        self.origin = origin                   # the Origin header a page on that origin would send
        self.ws: ClientConnection | None = None
        self.pages: dict[str, str] = {}        # url path → page script hash
        self.main_hash = ""
        self.page_hash = ""
        self.query = ""
        self.path = ""
        self.widgets: dict[str, Widget] = {}
        self.auto: dict[str, float] = {}       # fragment id → seconds between its automatic reruns
        self.full_at = float("-inf")           # when (time.monotonic) a whole run last began to arrive
        self.woken_at = float("-inf")          # when a run the server started by itself last began
        self.messages: OrderedDict[str, bytes] = OrderedDict()  # hash → a cacheable ForwardMsg

    async def connect(self, timeout: float = 10.0, link: str = "/") -> None:
        """Open the websocket. Behind a sticky balancer first load what a browser loads before it:
        the page's HTML (`link`) on the first connection, the health check on a reconnection (what
        Streamlit's frontend asks before it reconnects), taking the cookies they set."""
        ws_url = "ws" + self.base_url.removeprefix("http") + STREAM_PATH
        try:
            if self.sticky:
                first = not self.replicas
                await http_get(self.base_url + (link if first else HEALTH_PATH), self.cookies, timeout)
            headers = {"Cookie": self.cookies.header()} if self.cookies else None
            self.ws = await connect(ws_url, subprotocols=["streamlit"], max_size=None, proxy=None,
                                    open_timeout=timeout, ping_interval=None, origin=self.origin,
                                    additional_headers=headers)
        except (OSError, InvalidHandshake, TimeoutError, HttpError) as exc:
            raise DisconnectedError(str(exc)) from exc
        if self.sticky:
            self.cookies.take(self.ws.response.headers.get_all("Set-Cookie"))
            replica = self.cookies.get(self.sticky)
            if replica is None:
                raise DisconnectedError(f"the balancer set no {self.sticky} cookie: is {self.base_url} "
                                        "a sticky balancer?")
            if not self.replicas or self.replicas[-1] != replica:
                self.replicas.append(replica)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    # ------------------------------------------------------------ what a tab sends

    async def open(self, link: str, timeout: float) -> RunResult:
        """Open `link` ("/saturation?lang=zh") as a fresh tab does: page by name, query from the URL."""
        path, _, query = link.lstrip("/").partition("?")
        self.path, self.query, self.page_hash = path, query, ""
        self.widgets = {}
        msg = BackMsg()
        rs = msg.rerun_script
        rs.query_string, rs.page_name, rs.page_script_hash = query, path, ""
        rs.context_info.locale = self.locale
        rs.context_info.timezone = "UTC"
        rs.context_info.timezone_offset = 0
        rs.context_info.url = f"{self.base_url}/{path}"  # as the frontend sends it: no query
        rs.context_info.is_embedded = False
        rs.context_info.color_scheme = "light"
        rs.cached_message_hashes.extend(self.messages)
        return await self._run(msg, timeout)

    async def move(self, rng: random.Random, timeout: float) -> RunResult | None:
        """Change one random widget to another valid value; None when no widget can move."""
        order = list(self.widgets.values())
        rng.shuffle(order)
        for w in order:
            new = w.random_move(rng)
            if new is not None:
                w.state = new
                return await self.rerun(timeout)
        return None

    async def move_all(self, rng: random.Random, timeout: float) -> RunResult | None:
        """Change every widget that can move to another valid value, in one rerun (a view nobody
        has asked for before); None when none can move."""
        moved = 0
        for w in self.widgets.values():
            new = w.random_move(rng)
            if new is not None:
                w.state, moved = new, moved + 1
        return await self.rerun(timeout) if moved else None

    async def goto(self, path: str, timeout: float, query: str = "") -> RunResult:
        """Click a page in the navigation: its hash, the shared widgets' values, no query string
        (or `query`, as a link to that page would carry it)."""
        target = self.pages[path]
        shared = [w for w in self.widgets.values() if w.script_hash == self.main_hash]
        self.path = path
        return await self._run(self._rerun(shared, target, query), timeout)

    async def rerun(self, timeout: float) -> RunResult:
        """Rerun the current view unchanged (the R key)."""
        return await self._run(self._rerun(self.widgets.values(), self.page_hash, self.query), timeout)

    async def fragment(self, fragment_id: str, timeout: float, auto: bool = True) -> RunResult:
        """Rerun one fragment, as the frontend does every `run_every` seconds (`auto`) or when a widget
        inside it moves."""
        msg = self._rerun(self.widgets.values(), self.page_hash, self.query)
        msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun = fragment_id, auto
        return await self._run(msg, timeout)

    def widget(self, key: str) -> Widget | None:
        """The widget drawn with `key` (its id ends in "-<key>"), if this view has one."""
        return next((w for w in self.widgets.values() if w.id.endswith(f"-{key}")), None)

    async def click(self, key: str, timeout: float) -> RunResult:
        """Press the button drawn with `key` (a trigger: true for this run only)."""
        w = self.widget(key)
        if w is None:
            raise KeyError(key)
        others = [x.state for x in self.widgets.values() if x is not w and x.kind != "button"]
        msg = self._rerun([*others, WidgetState(id=w.id, trigger_value=True)], self.page_hash, self.query,
                          states=True)
        if w.fragment:
            msg.rerun_script.fragment_id = w.fragment
        return await self._run(msg, timeout)

    async def choose(self, key: str, option: str | None, timeout: float) -> RunResult:
        """Set the one-choice button group (st.pills) drawn with `key` to `option` (None: none)."""
        w = self.widget(key)
        if w is None:
            raise KeyError(key)
        w.state = WidgetState(id=w.id)
        if option is not None:
            w.state.string_array_value.data.append(option)
        msg = self._rerun(self.widgets.values(), self.page_hash, self.query)
        if w.fragment:
            msg.rerun_script.fragment_id = w.fragment
        return await self._run(msg, timeout)

    def _rerun(self, widgets: Any, page_hash: str, query: str, states: bool = False) -> BackMsg:
        msg = BackMsg()
        rs = msg.rerun_script
        rs.query_string, rs.page_script_hash, rs.page_name = query, page_hash, ""
        if states:  # WidgetStates as they are
            rs.widget_states.widgets.extend(widgets)
            widgets = ()
        widgets = [w for w in widgets if w.kind != "button"]  # a button holds no value between runs
        rs.widget_states.widgets.extend(w.state for w in widgets)
        rs.context_info.locale = self.locale
        rs.context_info.timezone = "UTC"
        rs.context_info.url = f"{self.base_url}/{self.path}"
        rs.cached_message_hashes.extend(self.messages)
        return msg

    # ------------------------------------------------------------ what a tab reads

    async def listen(self, wait: float, timeout: float) -> RunResult | None:
        """A run the server started by itself (a live class wakes its phones), if one begins within
        `wait` seconds: read to its end, as `_run` reads a run the tab asked for; else None."""
        if self.ws is None:
            raise DisconnectedError("not connected")
        deadline = time.perf_counter() + wait
        while True:  # what trails a run (its session status) is not a new one
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                first = await asyncio.wait_for(self.ws.recv(), timeout=left)
            except TimeoutError:
                return None
            except ConnectionClosed as exc:
                self.ws = None
                raise DisconnectedError(str(exc)) from exc
            fwd = ForwardMsg()
            fwd.ParseFromString(first)
            if fwd.WhichOneof("type") == "new_session":
                return await self._run(None, timeout, first=first)

    async def _run(self, msg: BackMsg | None, timeout: float, first: bytes | None = None) -> RunResult:
        if self.ws is None:
            raise DisconnectedError("not connected")
        start = time.perf_counter()
        result = RunResult(seconds=0.0, status="ok")
        seen_new_session = woken = woken_cut = False
        drawn: dict[str, Widget] = {}
        paths: list[tuple[int, ...]] = []  # where this run drew: a fragment's run replaces that part
        fragment_run = msg is not None and bool(msg.rerun_script.fragment_id)
        asked = msg.rerun_script.fragment_id if msg is not None else ""
        foreign = False  # a run the server started by itself came first: read it, then go on for ours
        begun = False    # ours has begun
        cut = False      # ours stopped early for another run (it never comes back if that one is foreign)
        try:
            if msg is not None:
                await self.ws.send(msg.SerializeToString())
            deadline = start + timeout
            timer = msg is not None and msg.rerun_script.is_auto_rerun and bool(asked)
            while True:
                left = deadline - time.perf_counter()
                if timer and not begun:
                    left = min(left, start + DROPPED_S - time.perf_counter())
                    if left <= 0:
                        result.status = "dropped"
                        break
                if left <= 0:
                    result.status = "timeout"
                    break
                try:
                    data, first = (first, None) if first is not None else \
                        (await asyncio.wait_for(self.ws.recv(), timeout=left), None)
                except TimeoutError:
                    continue  # the deadlines above say which
                result.bytes += len(data)
                result.largest = max(result.largest, len(data))
                fwd = self._resolve(data, result)
                if fwd is None:
                    continue
                kind = fwd.WhichOneof("type")
                if kind == "new_session":
                    seen_new_session = True
                    result.runs += 1
                    self.page_hash = fwd.new_session.page_script_hash
                    self.main_hash = fwd.new_session.main_script_hash
                    ids = list(fwd.metadata.run.fragment_ids)
                    fragment_run = bool(ids)
                    # a fragment's run nobody here asked for (the room woke this tab) before ours
                    foreign = msg is not None and fragment_run and asked not in ids
                    # after ours was cut short, a fragment's run is not ours: the room woke this tab
                    # for the fragment ours ran (a phone answering as its step is woken)
                    woken = foreign or msg is None or (cut and fragment_run)
                    # a woken run cut short, then a fragment's run: not the app rerunning its page
                    result.woken_cut += woken_cut and fragment_run
                    woken_cut = False
                    begun = begun or not foreign
                    if not fragment_run:  # a whole run: the frontend forgets every timer
                        self.auto = {}
                        result.full = True
                        self.full_at = time.monotonic()
                    if woken:  # the server started it (a live class woke this tab)
                        self.woken_at = time.monotonic()
                    drawn, paths = {}, []
                elif kind == "auto_rerun":
                    self.auto[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
                elif kind == "stop_auto_rerun":  # the timers of fragments that are gone
                    for gone in fwd.stop_auto_rerun.fragment_ids:
                        self.auto.pop(gone, None)
                elif kind == "delta" and seen_new_session:
                    paths.append(tuple(fwd.metadata.delta_path))
                    self._on_delta(fwd, result, drawn)
                elif kind == "navigation":
                    self.pages = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
                    self.page_hash = fwd.navigation.page_script_hash or self.page_hash
                elif kind == "page_info_changed":
                    self.query = fwd.page_info_changed.query_string
                elif kind == "page_not_found":
                    result.page_not_found = True
                elif kind == "script_finished" and seen_new_session:
                    status = fwd.script_finished
                    if status in DONE and foreign:  # not ours: what it drew stays, ours follows
                        self.widgets = {**_outside(self.widgets, paths), **drawn}
                        seen_new_session, foreign, drawn, paths = False, False, {}, []
                        if cut:  # ours was stopped for this one and is not run again
                            result.status = "superseded"
                            break
                        continue
                    if status in DONE:
                        break
                    if status == FINISHED.FINISHED_WITH_COMPILE_ERROR:
                        result.status = "compile_error"
                        break
                    # FINISHED_EARLY_FOR_RERUN: the app asked for a rerun, or another request
                    # stopped the run for its own; a new run follows.
                    woken_cut = woken
                    cut = cut or not foreign
                    seen_new_session = False
        except ConnectionClosed as exc:
            result.status = "disconnected"
            result.seconds = time.perf_counter() - start
            self.ws = None
            raise DisconnectedError(str(exc)) from exc
        result.seconds = time.perf_counter() - start
        if result.status == "ok":  # a fragment's run redraws its own part of the page only
            self.widgets = {**_outside(self.widgets, paths), **drawn} if fragment_run else drawn
        return result

    def _resolve(self, data: bytes, result: RunResult) -> ForwardMsg | None:
        """The message in `data`; a reference replaced by the element it refers to."""
        fwd = ForwardMsg()
        fwd.ParseFromString(data)
        if fwd.WhichOneof("type") == "ref_hash":
            cached = self.messages.get(fwd.ref_hash)
            if cached is None:
                result.missing_refs += 1
                return None
            self.messages.move_to_end(fwd.ref_hash)
            full = ForwardMsg()
            full.ParseFromString(cached)
            full.metadata.CopyFrom(fwd.metadata)
            return full
        if fwd.metadata.cacheable and fwd.hash:
            self.messages[fwd.hash] = data
            self.messages.move_to_end(fwd.hash)
            while len(self.messages) > MESSAGE_CACHE:
                self.messages.popitem(last=False)
        return fwd

    def _on_delta(self, fwd: ForwardMsg, result: RunResult, drawn: dict[str, Widget]) -> None:
        delta = fwd.delta
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        result.elements += 1
        if kind == "exception":
            result.exceptions.append(f"{el.exception.type}: {el.exception.message}"[:300])
        elif kind == "alert":
            result.alerts.append(el.alert.body[:300])
        elif kind == "markdown":
            result.texts.append(el.markdown.body[:200])
        elif kind == "code":
            result.texts.append(el.code.code_text[:300])
        elif kind in CHART_TYPES:
            if list(fwd.metadata.delta_path[:1]) == [MAIN_AREA]:  # not the sidebar's hidden preload
                result.charts += 1
        elif kind in WIDGET_TYPES:
            p = getattr(el, kind)
            if p.disabled:
                return
            old = self.widgets.get(p.id)
            kept = old is not None and not getattr(p, "set_value", False)  # a button has no set value
            state = old.state if kept else initial_state(kind, p)
            drawn[p.id] = Widget(p.id, kind, p, fwd.metadata.active_script_hash, state, delta.fragment_id,
                                 tuple(fwd.metadata.delta_path))


def _outside(widgets: dict[str, Widget], paths: list[tuple[int, ...]]) -> dict[str, Widget]:
    """The widgets a fragment's run left in place: those outside the part of the page it drew (the
    longest path all its deltas share, its container), as the frontend clears what a fragment's run
    did not draw again inside its container. A run that drew nothing leaves every widget."""
    if not paths:
        return dict(widgets)
    root = paths[0]
    for p in paths[1:]:
        n = 0
        while n < min(len(root), len(p)) and root[n] == p[n]:
            n += 1
        root = root[:n]
    return {i: w for i, w in widgets.items() if w.path[:len(root)] != root or not root}
