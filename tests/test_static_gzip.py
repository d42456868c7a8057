"""Streamlit's static files sent gzip-compressed, each compressed once (server/static_gzip.py):
the middleware alone against a folder of its own, then a real server against Streamlit's files."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import re

import pytest
from conftest import StreamlitServer

from server.static_gzip import StaticGzip, accepts_gzip, streamlit_static_dir

SCRIPT = b"export const x = '" + b"attention " * 2000 + b"';\n"


class Downstream:
    """Stands for Streamlit: records what reached it and answers 'streamlit'."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send):
        self.paths.append(scope["path"])
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"streamlit"})


def request(path: str, encoding: bytes | None = b"gzip, deflate, br", method: str = "GET",
            **headers: bytes) -> dict:
    sent = [(b"accept-encoding", encoding)] if encoding is not None else []
    sent += [(k.replace("_", "-").encode(), v) for k, v in headers.items()]
    return {"type": "http", "method": method, "path": path, "headers": sent}


async def answer(app: StaticGzip, scope: dict) -> tuple[int, dict[bytes, bytes], bytes]:
    messages: list[dict] = []

    async def receive():
        return {"type": "http.request"}

    async def send(message):
        messages.append(message)

    await app(scope, receive, send)
    return (messages[0]["status"], dict(messages[0]["headers"]),
            b"".join(m.get("body", b"") for m in messages[1:]))


@pytest.fixture
def static(tmp_path):
    (tmp_path / "js").mkdir()
    (tmp_path / "media").mkdir()
    (tmp_path / "js" / "main.Ab12-x_.js").write_bytes(SCRIPT)
    (tmp_path / "js" / "tiny.js").write_bytes(b"1")
    (tmp_path / "js" / "_chunk.js").write_bytes(SCRIPT)
    (tmp_path / "media" / "font.woff2").write_bytes(b"\0" * 5000)
    (tmp_path / "secret.js").write_bytes(SCRIPT)
    return tmp_path


def test_a_script_comes_compressed_with_streamlits_caching_and_decompresses_to_the_file(static):
    down = Downstream()
    app = StaticGzip(down, directory=static)
    status, headers, body = asyncio.run(answer(app, request("/static/js/main.Ab12-x_.js")))
    assert status == 200 and down.paths == []
    assert headers[b"content-encoding"] == b"gzip" and headers[b"vary"] == b"Accept-Encoding"
    assert headers[b"content-type"].startswith(b"text/javascript")
    assert headers[b"cache-control"] == b"public, immutable, max-age=31536000"
    assert int(headers[b"content-length"]) == len(body) < len(SCRIPT) / 10
    assert gzip.decompress(body) == SCRIPT
    # under a base path, as HEAD (headers only), and revalidated by its etag
    status, head, body = asyncio.run(answer(app, request("/class/static/js/main.Ab12-x_.js", method="HEAD")))
    assert status == 200 and body == b"" and head[b"content-length"] == headers[b"content-length"]
    status, _, body = asyncio.run(answer(app, request("/static/js/main.Ab12-x_.js",
                                                      if_none_match=headers[b"etag"])))
    assert status == 304 and body == b""
    assert app.compressions == 1 and down.paths == []
    # Vite's chunk names may start with an underscore (_baseEach.PLhpSRgM.js)
    _, headers, body = asyncio.run(answer(app, request("/static/js/_chunk.js")))
    assert headers[b"content-encoding"] == b"gzip" and gzip.decompress(body) == SCRIPT


@pytest.mark.parametrize("scope", [
    request("/static/js/main.Ab12-x_.js", encoding=None),            # no Accept-Encoding
    request("/static/js/main.Ab12-x_.js", encoding=b"br, gzip;q=0"),  # gzip refused
    request("/static/js/main.Ab12-x_.js", range=b"bytes=0-9"),        # a byte range
    request("/static/js/main.Ab12-x_.js", method="POST"),
    request("/static/media/font.woff2"),                              # compressed already
    request("/static/js/tiny.js"),                                    # nothing to gain
    request("/static/js/missing.js"),                                 # Streamlit's own answer
    request("/static/secret.js"), request("/static/js/../secret.js"),  # not in one of its folders
    request("/static/js/..%2fsecret.js"), request("/saturation"), request("/"),
    {"type": "websocket", "path": "/static/js/main.Ab12-x_.js", "headers": []},
], ids=lambda s: f"{s.get('method', s['type'])} {s['path']} {dict(s['headers'])}")
def test_everything_else_goes_to_streamlit_unchanged(static, scope):
    down = Downstream()
    app = StaticGzip(down, directory=static)
    if scope["type"] == "websocket":
        asyncio.run(app(scope, None, None))
        assert down.paths == [scope["path"]]
        return
    status, headers, body = asyncio.run(answer(app, scope))
    assert (status, body) == (200, b"streamlit") and b"content-encoding" not in headers
    assert down.paths == [scope["path"]]


def test_a_class_asking_at_once_has_each_file_compressed_once(static):
    down = Downstream()
    app = StaticGzip(down, directory=static)

    async def class_at_once():
        return await asyncio.gather(*(answer(app, request("/static/js/main.Ab12-x_.js")) for _ in range(30)))

    answers = asyncio.run(class_at_once())
    assert {gzip.decompress(body) for _, _, body in answers} == {SCRIPT}
    assert app.compressions == 1 and list(app.cached) == ["js/main.Ab12-x_.js"]


def test_a_file_that_gains_nothing_is_tried_once_and_then_left_to_streamlit(static):
    down = Downstream()
    app = StaticGzip(down, directory=static)
    for _ in range(3):
        status, headers, body = asyncio.run(answer(app, request("/static/js/tiny.js")))
        assert (status, body) == (200, b"streamlit") and b"content-encoding" not in headers
    assert app.compressions == 1 and app.plain == {"js/tiny.js"} and app.cached == {}
    assert down.paths == ["/static/js/tiny.js"] * 3


def test_the_cache_is_bounded_and_a_file_beyond_it_is_still_sent_compressed(static):
    app = StaticGzip(Downstream(), directory=static, max_bytes=10)
    for _ in range(2):
        _, headers, body = asyncio.run(answer(app, request("/static/js/main.Ab12-x_.js")))
        assert headers[b"content-encoding"] == b"gzip" and gzip.decompress(body) == SCRIPT
    assert app.cached == {} and app.cached_bytes == 0 and app.compressions == 2


@pytest.mark.parametrize("header, ok", [
    (b"gzip", True), (b"gzip, deflate, br, zstd", True), (b"br;q=1.0, gzip;q=0.8", True), (b"*", True),
    (b"", False), (b"br", False), (b"gzip;q=0", False), (b"gzip; q=0.0, br", False), (b"identity", False),
])
def test_accept_encoding_is_read_as_browsers_write_it(header, ok):
    assert accepts_gzip(header) is ok


def test_streamlits_static_folder_is_found_without_importing_streamlit():
    folder = streamlit_static_dir()
    assert folder is not None and any((folder / "js").glob("index.*.js"))


@pytest.mark.server
def test_a_served_app_sends_every_script_of_its_page_compressed_and_identical():
    """On a real server: every script the page's HTML names comes gzip-compressed to a browser that
    accepts it, decompresses to exactly what a browser that does not gets, and the lot is at most
    a third of the size."""
    with StreamlitServer(log_name="static-gzip.log") as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        conn.request("GET", "/saturation")
        html = conn.getresponse().read().decode()
        files = re.findall(r'href="\./(static/(?:js|css)/[^"]+)"', html)
        assert len(files) > 20, html[:500]
        plain_total = gzip_total = 0
        for name in files:
            conn.request("GET", f"/{name}")
            plain = conn.getresponse()
            plain_body = plain.read()
            conn.request("GET", f"/{name}", headers={"Accept-Encoding": "gzip, deflate, br"})
            packed = conn.getresponse()
            packed_body = packed.read()
            assert plain.status == packed.status == 200, name
            assert plain.getheader("content-encoding") is None
            if packed.getheader("content-encoding") == "gzip":
                assert gzip.decompress(packed_body) == plain_body, name
            else:  # a file too small to gain anything
                assert packed_body == plain_body and len(plain_body) < 100, name
            plain_total += len(plain_body)
            gzip_total += len(packed_body)
        conn.close()
    assert gzip_total < plain_total / 3, (gzip_total, plain_total)
