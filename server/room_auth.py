"""Who may act in a live class, without accounts: a phone's server-issued token, and the route that
lets the teacher's browser keep the teacher's secret in a cookie.

- **A phone's token** (`PhoneKeys`): at its join the server draws the phone's id (12 hex digits) and
  signs it: `<id>-<mac>`, mac = the first 16 hex digits of HMAC-SHA256(server key, room digest ":"
  id). The phone's link carries the token (`?me=`); a token whose mac does not verify names no
  phone. The server key is `ASE_ROOM_KEY` when set (config every replica shares), else drawn once
  and kept in the store (`ase:v1:roomkey:…`, set only where absent, so every replica on one Redis
  reads the same key), else, without a shared store, this process's own.
- **The teacher's cookie** (`TeacherCookie`, an ASGI middleware): `POST <base>/_ase/teacher` with the
  body `<CODE>.<secret>` answers 204 and sets `ase_teacher_<CODE>` (HttpOnly: no script reads it;
  SameSite=Strict: no other site's page sends it; Path the app's; 4 hours); an empty body after
  `<CODE>.` clears it. The secret travels in the body, never in a request line (a balancer's log,
  the browser's history). Only a request with the header `X-ASE-Teacher: 1` is served, whose Origin,
  when sent, is the request's own host: another site's page cannot send that header without a
  preflight, which nothing here answers. The page reads the cookie back as `st.context.cookies`
  (the websocket's handshake carries it), so a reloaded tab, or a tab reconnected to another replica,
  is the teacher again from its first run.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
from typing import Any

from server.asgi import ASGIApp, Receive, Scope, Send
from server.room_state import CODE_ALPHABET, CODE_LENGTH, STUDENT_RE, new_student_id, room_digest
from server.store import store_key

KEY_ENV = "ASE_ROOM_KEY"
PASSPHRASE_ENV = "ASE_CLASS_PASSPHRASE"
KEY_STORE = store_key("roomkey", hashlib.sha256(b"room tokens").hexdigest()[:32])
KEY_TTL_S = 30 * 24 * 3600
MAC_HEX = 16
TOKEN_RE = re.compile(r"([0-9a-f]{12})-([0-9a-f]{16})")
COOKIE_PREFIX = "ase_teacher_"
COOKIE_AGE_S = 4 * 3600            # as long as a room may live (server.room_state.MAX_AGE_S)
ROUTE = "/_ase/teacher"
HEADER = b"x-ase-teacher"
VALUE_RE = re.compile(rf"([{CODE_ALPHABET}]{{{CODE_LENGTH}}})\.([A-Za-z0-9_-]{{16,64}})?")


class PhoneKeys:
    """Signs and checks phones' tokens with the server key (see the module docstring)."""

    def __init__(self, store: Any, key: bytes | None = None) -> None:
        self.store = store
        env = os.environ.get(KEY_ENV, "").strip()
        self._fixed = key or (env.encode() if env else None)
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def key(self, fresh: bool = False) -> bytes | None:
        """The server key; None while a shared store that holds it cannot be reached."""
        if self._fixed:
            return self._fixed
        with self._lock:
            if self._key is not None and not fresh:
                return self._key
            if not getattr(self.store, "shared", False):
                self._key = self._key or secrets.token_bytes(32)
                return self._key
            drawn = secrets.token_hex(32)
            if self.store.claim(KEY_STORE, drawn, KEY_TTL_S) is None:
                return self._key
            stored = self.store.get(KEY_STORE)
            if stored is None:
                return self._key
            self.store.touch(KEY_STORE, KEY_TTL_S)
            self._key = bytes(stored)
            return self._key

    def _mac(self, key: bytes, code: str, student: str) -> str:
        msg = f"{room_digest(code)}:{student}".encode()
        return hmac.new(key, msg, hashlib.sha256).hexdigest()[:MAC_HEX]

    def issue(self, code: str) -> tuple[str, str] | None:
        """(id, token) of a new phone of room `code`; None while the key cannot be read."""
        key = self.key()
        if key is None:
            return None
        student = new_student_id()
        return student, f"{student}-{self._mac(key, code, student)}"

    def check(self, code: str, token: str) -> str | None:
        """The phone's id when `token` is one this server signed for room `code`, else None (a
        forged or edited token names no phone). A mismatch reads the shared key again once (the
        store may have been replaced since it was read)."""
        found = TOKEN_RE.fullmatch(token or "")
        if found is None:
            return None
        student, mac = found.groups()
        for fresh in (False, True):
            key = self.key(fresh)
            if key is not None and hmac.compare_digest(self._mac(key, code, student), mac):
                return student if STUDENT_RE.fullmatch(student) else None
            if self._fixed or not getattr(self.store, "shared", False):
                break
        return None


def cookie_name(code: str) -> str:
    return f"{COOKIE_PREFIX}{code}"


def cookie_secret(cookies: Any, code: str) -> str:
    """The teacher's secret for room `code` in the browser's cookies ("" without one)."""
    try:
        raw = cookies.get(cookie_name(code)) or ""
    except Exception:
        return ""
    found = VALUE_RE.fullmatch(str(raw))
    return found.group(2) or "" if found and found.group(1) == code else ""


def set_cookie_header(value: str, base: str, secure: bool) -> bytes:
    """The Set-Cookie header for `<CODE>.<secret>` (an empty secret clears the cookie)."""
    code, _, secret = value.partition(".")
    path = (base.rstrip("/") or "") + "/"
    parts = [f"{cookie_name(code)}={value if secret else ''}", f"Path={path}", "HttpOnly", "SameSite=Strict",
             f"Max-Age={COOKIE_AGE_S if secret else 0}"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts).encode()


class TeacherCookie:
    """The route `POST <base>/_ase/teacher` (see the module docstring); every other request passes."""

    def __init__(self, app: ASGIApp, base_url_path: str = "") -> None:
        self.app = app
        base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
        self.base, self.path = base, base + ROUTE

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers") or []}
        if scope.get("method") != "POST" or headers.get(HEADER) != b"1" or not _same_origin(headers):
            await _answer(send, 403)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > 256:
                await _answer(send, 413)
                return
            if not message.get("more_body"):
                break
        value = body.decode("ascii", "replace").strip()
        if not VALUE_RE.fullmatch(value):
            await _answer(send, 400)
            return
        proto = headers.get(b"x-forwarded-proto", b"").decode("latin-1").lower()
        secure = scope.get("scheme") == "https" or proto == "https"
        await _answer(send, 204, [(b"set-cookie", set_cookie_header(value, self.base, secure)),
                                  (b"cache-control", b"no-store")])


def _same_origin(headers: dict[bytes, bytes]) -> bool:
    origin = headers.get(b"origin")
    if origin is None:
        return True  # same-origin fetches may leave it out; the custom header already needs a preflight
    host = headers.get(b"x-forwarded-host") or headers.get(b"host") or b""
    return origin.split(b"://", 1)[-1] == host


async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", b"0"), *(headers or [])]})
    await send({"type": "http.response.body", "body": b""})


def passphrase() -> str:
    """`ASE_CLASS_PASSPHRASE`: when set, *Start a class* asks for it (a public server's rooms are
    then only its teachers')."""
    return os.environ.get(PASSPHRASE_ENV, "").strip()


def passphrase_needed() -> bool:
    return bool(passphrase())


def passphrase_ok(typed: str) -> bool:
    """Whether `typed` is the passphrase (compared in constant time)."""
    expected = passphrase()
    return bool(expected) and hmac.compare_digest(typed.encode("utf-8", "replace"),
                                                  expected.encode("utf-8", "replace"))
