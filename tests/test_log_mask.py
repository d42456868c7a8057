"""Passwords never reach a log line (server/log_mask.py): a URL's password and a `password=`
parameter are masked in the message, its arguments, an exception's text, whatever the logger."""

from __future__ import annotations

import io
import logging

import pytest

from server import log_mask

SECRET = "s3cr3t-0123456789abcdef"


@pytest.mark.parametrize(("text", "shown"), [
    (f"redis://:{SECRET}@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    (f"rediss://ase:{SECRET}@redis.internal:6380/1", "rediss://ase:***@redis.internal:6380/1"),
    (f"redis://redis:6379/0?password={SECRET}&db=0", "redis://redis:6379/0?password=***&db=0"),
    (f"Connection<host=redis,db=0,password={SECRET}>", "Connection<host=redis,db=0,password=***>"),
    ("redis://redis:6379/0", "redis://redis:6379/0"),
    ("GET /lesson?room=ABC123 HTTP/1.1", "GET /lesson?room=ABC123 HTTP/1.1"),
])
def test_mask(text, shown):
    assert log_mask.mask(text) == shown


def test_every_logger_line_is_masked_once_installed():
    log_mask.install()  # what server.startup.start does first
    assert not log_mask.install()  # once per process
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    for name in ("redis.connection", "uvicorn.error", "streamlit.x", "server.store"):
        log = logging.getLogger(name)
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        try:
            log.warning("cannot reach %s", f"redis://:{SECRET}@10.0.0.5:6379/0")
            log.info(f"url redis://h:6379/0?password={SECRET}")
            try:
                raise ConnectionError(f"Error connecting to redis://user:{SECRET}@h:6379")
            except ConnectionError:
                log.exception("failed")
        finally:
            log.removeHandler(handler)
    text = out.getvalue()
    assert SECRET not in text, text
    assert text.count("redis://:***@10.0.0.5") == text.count("password=***") == 4
    assert text.count("ConnectionError: Error connecting to redis://user:***@h:6379") == 4
