"""Streamlit's own code (its static files), sent gzip-compressed, each compressed once per server.

A new tab downloads about a hundred files of JavaScript and CSS from `/static/`. Streamlit sends them
uncompressed on purpose: its gzip middleware would compress every response anew, a recurring CPU cost on
the one interpreter, and it expects a proxy in front to compress. A class on one Wi-Fi with the app
served straight from `streamlit run` then pulls them uncompressed to every phone (what compressing them
earned: docs/hosting.md#sending-the-apps-code). `StaticGzip` compresses each file the first time a
browser asks for it (level 9, in a worker thread), keeps the result (about 1 MB for every file a page
uses), and sends it to every later browser that accepts gzip, with the same long-lived caching as
Streamlit's own answer. Anything else — another path, a file it does not know, a browser that does not
accept gzip, a byte range — goes to Streamlit unchanged.

Nothing here imports Streamlit: the package's static folder is found by its import spec.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.util
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from server.asgi import ASGIApp, Receive, Scope, Send

# `…/static/js/name.js` under any base path: one folder of Streamlit's three, one plain file name.
STATIC_PATH = re.compile(r"(?:^|/)static/(js|css|media)/([A-Za-z0-9_][A-Za-z0-9._-]*)$")
# Text formats only: fonts (woff2), images and the gif are compressed already.
COMPRESSIBLE = frozenset({".js", ".css", ".svg", ".json", ".map"})
CACHE_CONTROL = b"public, immutable, max-age=31536000"  # Streamlit's own for its hashed files
MAX_CACHE_BYTES = 32 * 2**20  # all of Streamlit's text files compressed take about 6 MB


def streamlit_static_dir() -> Path | None:
    """The folder Streamlit serves under /static/ (…/streamlit/static/static), or None."""
    spec = importlib.util.find_spec("streamlit")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "static" / "static"
        if folder.is_dir():
            return folder
    return None


def accepts_gzip(header: bytes) -> bool:
    """Whether an Accept-Encoding header admits gzip (`gzip`, `*`, without q=0)."""
    for item in header.decode("latin-1").lower().split(","):
        name, _, params = item.strip().partition(";")
        if name.strip() not in ("gzip", "*"):
            continue
        q = re.search(r"q\s*=\s*([0-9.]+)", params)
        try:
            if q is None or float(q.group(1)) > 0:
                return True
        except ValueError:
            continue
    return False


@dataclass(frozen=True)
class Compressed:
    body: bytes
    etag: bytes
    content_type: bytes


PLAIN = Compressed(body=b"", etag=b"", content_type=b"")  # a file that gains nothing: sent as it is


class StaticGzip:
    """ASGI middleware: GET and HEAD of Streamlit's text static files, gzip-compressed once."""

    def __init__(self, app: ASGIApp, directory: Path | None = None,
                 max_bytes: int = MAX_CACHE_BYTES) -> None:
        self.app = app
        self.directory = streamlit_static_dir() if directory is None else directory
        self.max_bytes = max_bytes
        self.cached: dict[str, Compressed] = {}
        self.cached_bytes = 0
        self.plain: set[str] = set()  # files that gain nothing, left to Streamlit without a try
        self.compressions = 0  # files compressed so far (each once, however many ask at once)
        self._pending: dict[str, asyncio.Future[Compressed | None]] = {}  # compressions running

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        file = self._wanted(scope, headers)
        found = await self._compressed(file) if file is not None else None
        if found is None:
            await self.app(scope, receive, send)
            return
        if found.etag in headers.get(b"if-none-match", b""):
            await send({"type": "http.response.start", "status": 304,
                        "headers": [(b"etag", found.etag), (b"cache-control", CACHE_CONTROL),
                                    (b"vary", b"Accept-Encoding")]})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", found.content_type), (b"content-encoding", b"gzip"),
            (b"content-length", str(len(found.body)).encode()), (b"etag", found.etag),
            (b"cache-control", CACHE_CONTROL), (b"vary", b"Accept-Encoding")]})
        await send({"type": "http.response.body",
                    "body": b"" if scope.get("method") == "HEAD" else found.body})

    def _wanted(self, scope: Scope, headers: dict[bytes, bytes]) -> str | None:
        """The static file (relative to the folder) this request asks for compressed, or None."""
        if (scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD")
                or self.directory is None):
            return None
        match = STATIC_PATH.search(scope.get("path", ""))
        if match is None or Path(match.group(2)).suffix not in COMPRESSIBLE:
            return None
        if b"range" in headers or not accepts_gzip(headers.get(b"accept-encoding", b"")):
            return None
        return f"{match.group(1)}/{match.group(2)}"

    async def _compressed(self, file: str) -> Compressed | None:
        """The file compressed: from the cache, or compressed now, once, in a task of its own that
        every request asking for it meanwhile awaits (a request that goes away does not cancel
        it). None where it cannot be had: Streamlit answers instead."""
        if file in self.cached:
            return self.cached[file]
        if file in self.plain:
            return None
        task = self._pending.get(file)
        if task is None:
            task = asyncio.ensure_future(asyncio.to_thread(self._compress, file))
            self._pending[file] = task
            task.add_done_callback(lambda done: self._keep(file, done))
        try:
            found = await asyncio.shield(task)
        except Exception:  # reading or compressing failed: Streamlit's own answer
            return None
        return None if found is PLAIN else found

    def _keep(self, file: str, task: asyncio.Future[Compressed | None]) -> None:
        """A compression ended: cache its result while the cache has room, and remember a file
        that gains nothing (one of the folder's files, so the set stays small)."""
        del self._pending[file]
        if task.cancelled() or task.exception() is not None:
            return
        found = task.result()
        if found is PLAIN:
            self.plain.add(file)
        elif found is not None and self.cached_bytes + len(found.body) <= self.max_bytes:
            self.cached[file] = found
            self.cached_bytes += len(found.body)

    def _compress(self, file: str) -> Compressed | None:
        """Read and compress one file (None: no such file; PLAIN: nothing gained)."""
        assert self.directory is not None
        path = self.directory / file
        try:
            data = path.read_bytes()
        except OSError:  # not there (Streamlit answers: its page, or 404)
            return None
        body = gzip.compress(data, compresslevel=9, mtime=0)
        self.compressions += 1
        if len(body) >= len(data):
            return PLAIN
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith(("javascript", "json", "+xml")):
            kind += "; charset=utf-8"
        etag = b'"' + hashlib.blake2b(data, digest_size=12).hexdigest().encode() + b'-gz"'
        return Compressed(body=body, etag=etag, content_type=kind.encode())
