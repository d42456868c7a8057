"""A link to one of the app's pages connects to the server at the first try.

Streamlit's frontend, opened at a page's URL (`/saturation?lang=zh`), cannot tell whether `saturation` is
a page or the path the server is mounted under. It asks `/saturation/_stcore/health` first, is answered
404, waits 100 ms, and only then asks `/_stcore/health` and opens its websocket: every link but the
root's paid that before its session started (the retry delay and a round trip; what it cost:
docs/hosting.md#sending-the-apps-code). The frontend takes the server's base URL from a global of
its own where the page defines it (the one through which hosts that embed Streamlit configure it;
server/st_internals.py names it), and then asks only there.

`PageBase` adds to the HTML Streamlit answers for one of the app's pages a one-line script that sets
it: the page's own URL without its last segment, computed in the browser, so it also holds behind a
proxy that serves the app under a prefix of its own. The script sets it only where that last segment
is the page the server saw, and never replaces a value already set. Everything else passes
unchanged: other paths, the root, a base path's own root that happens to share a page's name, any
answer but a whole HTML page.

The default page's own path (`/overview`) is sent to the root (`/`) instead, by a redirect relative to
the URL the browser asked for (so a proxy's prefix is kept): Streamlit gives the default page no path
of its own, so a session opened there asked for a page named `overview`, was told "page not found",
and the dialog saying so stayed on the screen whenever it reached the browser before the app's next
run (9 of 48 new tabs in three runs); the app then showed the default page at `/` anyway.

The script that sets that global is server/st_internals.py's (`BACKEND_BASE_URL_SCRIPT`): nothing
else here knows Streamlit's internals.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable

from server.asgi import ASGIApp, Receive, Scope, Send
from server.st_internals import BACKEND_BASE_URL_SCRIPT

# The changed page's ETag: the file's, and this module's version. (A conditional request for it
# then never matches the file's: it is answered in full, as Streamlit answers every page's URL.)
ETAG_SUFFIX = b"-pb1"
SCRIPT = BACKEND_BASE_URL_SCRIPT  # the frontend's global it sets: server/st_internals.py


def base_script(page: str) -> bytes:
    """The script for `page` (one of the app's url paths): sets the frontend's base URL to the
    browser's URL less its last segment, where that segment is `page`."""
    return SCRIPT.format(page=json.dumps(page).replace("<", "\\u003c")).encode()


def with_script(html: bytes, script: bytes) -> bytes | None:
    """`html` with `script` first in its head (before any script of Streamlit's), or None where
    it has no `<head>`."""
    at = html.find(b"<head>")
    if at < 0:
        return None
    at += len(b"<head>")
    return html[:at] + script + html[at:]


class PageBase:
    """ASGI middleware: the base-URL script in the HTML of a GET for one of `pages`; a redirect to
    the root for `default`'s own path."""

    def __init__(self, app: ASGIApp, pages: Iterable[str], base_url_path: str = "",
                 default: str | None = None) -> None:
        self.app = app
        self.scripts = {page: base_script(page) for page in pages}  # each page's, made once
        self.default = default
        self.prefix = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""

    def page_of(self, scope: Scope) -> str | None:
        """The app's page this request asks for (its path is the server's base path and one of
        the pages, nothing more), or None."""
        if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
            return None
        path = scope.get("path", "")
        if not path.startswith(self.prefix + "/"):
            return None
        page = path[len(self.prefix) + 1:]
        return page if page in self.scripts else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        page = self.page_of(scope)
        if page is not None and page == self.default:
            await _to_root(scope, send)
            return
        if page is None or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        script = self.scripts[page]
        held: dict | None = None  # a whole HTML page's start, sent with its changed body
        chunks: list[bytes] = []

        async def send_page(message: dict) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                status, headers = message.get("status"), message.get("headers") or []
                if status == 200 and _is_html(headers):
                    held = message
                else:
                    await send(message)
                return
            if message["type"] != "http.response.body" or held is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            first, held = held, None
            body = _injected(b"".join(chunks), dict(first.get("headers") or []), script)
            if body is None:  # not a page it can change: as Streamlit sent it
                await send(first)
                await send({"type": "http.response.body", "body": b"".join(chunks)})
                return
            await send({**first, "headers": _headers(first.get("headers") or [], len(body))})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, send_page)


async def _to_root(scope: Scope, send: Send) -> None:
    """A temporary redirect from the default page's path to the root, its query kept. Relative
    (`./?lang=zh` from `/overview`), so it lands on the root the browser knows, behind a proxy too."""
    query = scope.get("query_string", b"")
    location = b"./" + (b"?" + query if query else b"")
    await send({"type": "http.response.start", "status": 302, "headers": [
        (b"location", location), (b"cache-control", b"no-cache"), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def _is_html(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(k.lower() == b"content-type" and v.lower().startswith(b"text/html") for k, v in headers)


def _injected(body: bytes, headers: dict[bytes, bytes], script: bytes) -> bytes | None:
    """`body` (gzip-compressed where the headers say so) with the script, compressed the same way;
    None where it cannot be read or has no head."""
    encoding = headers.get(b"content-encoding", b"identity").lower()
    if encoding not in (b"gzip", b"identity"):
        return None
    try:
        html = gzip.decompress(body) if encoding == b"gzip" else body
    except (OSError, EOFError):
        return None
    changed = with_script(html, script)
    if changed is None:
        return None
    return gzip.compress(changed, compresslevel=6, mtime=0) if encoding == b"gzip" else changed


def _headers(headers: list[tuple[bytes, bytes]], length: int) -> list[tuple[bytes, bytes]]:
    """The answer's headers for the changed page: its length and its own ETag."""
    def value(name: bytes, v: bytes) -> bytes:
        if name == b"content-length":
            return str(length).encode()
        if name == b"etag" and v.endswith(b'"') and ETAG_SUFFIX not in v:
            return v[:-1] + ETAG_SUFFIX + b'"'
        return v
    return [(k, value(k.lower(), v)) for k, v in headers]
