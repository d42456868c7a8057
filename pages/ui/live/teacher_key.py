"""The teacher's secret kept by the browser, not by one server session (server/room_auth.py has the
route and the format; docs/live-class.md says why a cookie).

- `cookie(code)`: the secret for room `code` from the cookie the websocket's handshake carried
  (`st.context.cookies`): a reloaded tab, or one reconnected to another replica, is the teacher from
  its first run, before anything is drawn.
- `keep(code, secret)` / `forget(code)`: ask the browser to store / drop the cookie. A component (in
  the app's own document, no iframe) sends `<CODE>.<secret>` in the body of a POST to our route,
  which answers with an HttpOnly, SameSite=Strict cookie: the secret is never in a request line, and
  no script, ours included, can read the cookie afterwards. Retried a few times should the request
  fail (a replica restarting).
- `read_link()`: the teacher link (`…/lesson?room=CODE&take=1#key=SECRET`) carries its secret in the
  fragment, which browsers never send to a server: the component reads it, removes it from the
  address bar and the history entry (`history.replaceState`), and hands it to Python through
  Streamlit's component channel; `link_key()` then returns it, once.

Everything is rendered in a hidden container (classroom.py's style hides `ase_teacher_key_box`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from server.room_auth import cookie_secret

COMPONENT_KEY = "ase_teacher_key"
LINK_KEY = "class_link_key"   # the fragment's secret, handed over by the component's callback

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  const d = data || {};
  if (d.read && !window.__aseLinkRead) {
    window.__aseLinkRead = true;
    const found = /^#key=([A-Za-z0-9_-]{16,64})$/.exec(window.location.hash || "");
    if (window.location.hash) {
      history.replaceState(history.state, "", window.location.pathname + window.location.search);
    }
    setTriggerValue("key", found ? found[1] : "");
  }
  if (typeof d.cookie === "string" && d.cookie && window.__aseCookie !== d.cookie) {
    window.__aseCookie = d.cookie;
    const path = window.location.pathname.replace(/\\/+$/, "");
    const url = path.slice(0, path.lastIndexOf("/") + 1) + "_ase/teacher";
    const send = (tries) => fetch(url, { method: "POST", body: d.cookie, credentials: "same-origin",
                                         cache: "no-store", headers: { "X-ASE-Teacher": "1" } })
      .then((r) => { if (!r.ok) throw new Error(String(r.status)); })
      .catch(() => {
        if (tries < 6) setTimeout(() => send(tries + 1), 1000 * (tries + 1));
        else if (window.__aseCookie === d.cookie) window.__aseCookie = null;
      });
    send(0);
  }
}
"""
_component = st.components.v2.component("ase_teacher_key", js=_JS)


def browser_cookies() -> Mapping[str, str]:
    """The cookies the browser sent when this session connected."""
    try:
        return st.context.cookies
    except Exception:
        return {}


def cookie(code: str) -> str:
    """The teacher's secret for room `code` that this browser keeps ("" without one)."""
    return cookie_secret(browser_cookies(), code)


def _draw(data: dict[str, Any]) -> None:
    st.session_state["class_cookie_asked"] = data.get("cookie", st.session_state.get("class_cookie_asked"))
    with st.container(key="ase_teacher_key_box"):
        _component(key=COMPONENT_KEY, data=data, on_key_change=_got_key)


def keep(code: str, secret: str) -> None:
    """Have the browser keep `secret` for room `code` (sent once per value: the component skips a
    value it already sent)."""
    _draw({"cookie": f"{code}.{secret}"})


def forget(code: str) -> None:
    """Have the browser drop its cookie for room `code`."""
    _draw({"cookie": f"{code}."})


def read_link() -> None:
    """Have the component read the teacher link's fragment (see the module docstring)."""
    _draw({"read": True})


def _got_key() -> None:
    event = st.session_state.get(COMPONENT_KEY)
    key = event.get("key") if hasattr(event, "get") else None
    if isinstance(key, str):
        st.session_state[LINK_KEY] = key


def link_key() -> str | None:
    """The teacher link's secret the component handed over (once), "" for a link without one, None
    while it has not answered."""
    return st.session_state.pop(LINK_KEY, None)
