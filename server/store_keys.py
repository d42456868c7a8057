"""The shared store's names: its keys (`store_key`, validated on every call), a map's field names,
the Redis settings both store modules use, and the URL as a log line may show it. No imports of the
store itself: server/store.py and server/redis_store.py both build on this."""

from __future__ import annotations

import logging
import re

REDIS_URL_ENV = "ASE_REDIS_URL"  # the shared store's address (or the redis_url secret: shared.Settings)
NAMESPACE = "ase:v1:"
KEY_RE = re.compile(r"ase:v1:[a-z][a-z0-9_:-]{0,40}:[0-9a-f]{16,64}|ase:v1:gate:[a-z0-9_-]{1,32}:[a-z]{1,8}")
FIELD_RE = re.compile(r"[a-z0-9._-]{1,64}")  # a map's field names: ids and numbers we made, never typed text
TIMEOUT_S = 0.5             # Redis socket timeouts: a store that does not answer is treated as down
RETRY_S = 1.0               # a down store is tried again at most this long after its last failed try
FIRST_RETRY_S = 0.25        # the first try after it went down; each failed try doubles the wait up to RETRY_S
LOG = logging.getLogger("server.store")


def store_key(kind: str, digest: str) -> str:
    """`ase:v1:<kind>:<digest>`; `digest` must be hex (server.codec.canonical_hash of the parameters)."""
    key = f"{NAMESPACE}{kind}:{digest}"
    if not KEY_RE.fullmatch(key):
        raise ValueError(f"not a store key: {key!r}")
    return key


def _checked(key: str) -> str:
    if not KEY_RE.fullmatch(key):
        raise ValueError(f"not a store key: {key!r}")
    return key


def _checked_field(field: str) -> str:
    if not FIELD_RE.fullmatch(field):
        raise ValueError(f"not a map field: {field!r}")
    return field


def _without_password(url: str) -> str:
    """The URL as a log line may show it: redis://host:port/db, no user or password."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}" if sep else "redis"
