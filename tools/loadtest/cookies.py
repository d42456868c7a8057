"""Cookies as a browser keeps them for one site, and the plain GET a tab makes before its websocket.

Enough for a balancer's stickiness cookie on loopback: name → value, the latest Set-Cookie wins, a
cookie set with Max-Age=0 or an expiry in the past removed; paths and domains are not told apart
(one site, one path). The GET is asyncio's own streams (no thread per tab): HTTP/1.1, one request,
the connection closed after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit


class HttpError(Exception):
    """The GET failed: no answer, or not a well-formed one."""


class CookieJar(dict[str, str]):
    """A tab's cookies for the one site it talks to."""

    def update_from(self, header: str) -> None:
        """Apply one Set-Cookie header's value ("NAME=VALUE; Path=/; HttpOnly")."""
        first, *attributes = [part.strip() for part in header.split(";")]
        name, sep, value = first.partition("=")
        if not sep or not name:
            return  # not a cookie a browser would keep either
        expired = False
        for attr in attributes:
            key, _, val = attr.partition("=")
            key = key.strip().lower()
            if key == "max-age" and val.strip().lstrip("-").isdigit():
                expired = int(val) <= 0
            elif key == "expires":
                try:
                    expired = parsedate_to_datetime(val) <= datetime.now(UTC)
                except (TypeError, ValueError):
                    continue  # a malformed date is ignored, as browsers do
        if expired:
            self.pop(name.strip(), None)
        else:
            self[name.strip()] = value.strip()

    def take(self, headers: Iterable[str]) -> None:
        """Apply every Set-Cookie header of a response, in order."""
        for header in headers:
            self.update_from(header)

    def header(self) -> str:
        """The Cookie request header's value."""
        return "; ".join(f"{k}={v}" for k, v in self.items())


async def http_get(url: str, jar: CookieJar, timeout: float) -> int:
    """GET `url` with the jar's cookies, keep the cookies the answer sets; its status code."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", "Accept: text/html,*/*",
             "Connection: close"]
    if jar:
        lines.append(f"Cookie: {jar.header()}")
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError) as exc:
        raise HttpError(f"GET {url}: {exc}") from exc
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        await asyncio.wait_for(reader.read(), timeout)  # the body, as a browser reads it
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
        raise HttpError(f"GET {url}: {exc}") from exc
    finally:
        writer.close()
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    fields = status_line.split()
    if len(fields) < 2 or not fields[1].isdigit():
        raise HttpError(f"GET {url}: not an HTTP answer: {status_line!r}")
    for line in header_lines:
        name, _, value = line.partition(":")
        if name.strip().lower() == "set-cookie":
            jar.update_from(value.strip())
    return int(fields[1])
