"""Passwords never reach a log line: `install()` (once per process, at start-up) masks them in every
record any logger makes, before any handler formats it.

What is masked: the password of a URL's user information (`redis://:pw@host`, `rediss://user:pw@host`
→ `redis://:***@host`) and the value of a `password=` parameter (`?password=pw`, `&password=pw`,
`password=pw` in a query string or a redis-py connection description). It works on the finished
message (the format and its arguments), the exception's text and the stack's, through Python's
log record factory, so records of every library (redis-py, uvicorn, Streamlit) pass through it
whatever handler they reach.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

MASK = "***"
# scheme://[user]:password@host: a URL's password runs to the first @ (an @ in a password is
# percent-encoded in a URL)
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)(?P<pw>[^@\s/]+)(?=@)")
_PARAM_PASSWORD = re.compile(r"(?P<head>\b(?:password|passwd|pwd)=)(?P<pw>[^&\s,;)>'\"]+)", re.IGNORECASE)
_lock = threading.Lock()
_installed: list[Any] = []


def mask(text: str) -> str:
    """`text` with every URL password and `password=` value replaced by ***."""
    if "://" not in text and "=" not in text:
        return text
    text = _URL_PASSWORD.sub(lambda m: m["head"] + MASK, text)
    return _PARAM_PASSWORD.sub(lambda m: m["head"] + MASK, text)


def masked_record(record: logging.LogRecord) -> logging.LogRecord:
    """`record` with its message, exception text and stack text masked (args folded in)."""
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: leave it to the handler
        return record
    masked = mask(message)
    if masked != message:
        record.msg, record.args = masked, ()
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = mask(record.exc_text)
    if record.stack_info:
        record.stack_info = mask(record.stack_info)
    return record


def install() -> bool:
    """Wrap the log record factory so that every record is masked; True when this call did it
    (once per process)."""
    with _lock:
        if _installed:
            return False
        make = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            return masked_record(make(*args, **kwargs))

        logging.setLogRecordFactory(factory)
        _installed.append(factory)
        return True
