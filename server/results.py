"""Core results shared by every session of a server — and, given a shared store, by every replica:
each computed once per distinct call.

Two levels:
- this process's `SharedCache` of encoded results (always): bounded by the bytes' sizes, least
  recently used out; sessions asking for a result that is being computed wait for that computation
  instead of starting their own (`server.cache.SharedCache`);
- a shared `Store` (Redis, when one is configured: server.shared): a result computed on one replica
  is read by the others. While one replica computes a result, the others asking for it wait for it
  (a claim on a key next to the result's, kept alive by a `Lease` while the computation runs)
  instead of computing it again. A value under our key that does not decode is rejected — counted,
  logged once, deleted — and the result computed again.

Results are kept encoded (server.codec: JSON with tagged arrays, nothing executed on reading), so a
result's size is known exactly and every caller gets its own copy (no session can change another's).
A shared key is a hash of the function's name, its validated arguments and the version of the code
that computes it (`CODE_VERSION`, a digest of core/'s sources): replicas of an older deployment
sharing the store never hand their results to newer code, nor the other way round.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import math
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.memo import frozen
from server.cache import POLL_S, Flight, SharedCache
from server.codec import DecodeError, EncodeError, canonical_hash, decode, encode
from server.store import Lease, Store, store_key

RESULT_BYTES = 64 * 2**20   # every stored result, all sessions together (encoded size)
RESULT_ENTRIES = 1024
SLOW_RESULT_S = 1.0         # a result that took this long to compute (a live timing, a training) …
KEEP_SLOW_S = 900.0         # … is kept this long unused: a class comes back to the teacher's link later
SHARED_TTL_S = 3600.0       # a result in the shared store lives this long (Redis's maxmemory evicts sooner)
SHARED_MAX_BYTES = 16 * 2**20  # a larger result stays in its own replica
CLAIM_S = 10.0              # a replica that stopped renewing its claim on a computation loses it after this
PATH_RE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
LOG = logging.getLogger("server.results")

Key = tuple[str, tuple[tuple[str, Any], ...]]


def code_version(root: Path | None = None) -> str:
    """A digest of every source file of `root` (the core package): what computes the results."""
    import core

    root = root or Path(core.__file__).parent
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".cu", ".cuh")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


CODE_VERSION = code_version()  # once per process, as the server starts (a few milliseconds)


def result_key(path: str, kwargs: dict[str, Any]) -> Key:
    """The store's key for `path(**kwargs)` ("core.views:saturation_view"); lists count as tuples."""
    return path, tuple(sorted((k, frozen(v)) for k, v in kwargs.items()))


def shared_key(key: Key) -> str | None:
    """The hex digest naming `key` in a shared store, or None for a key that cannot be shared (a
    function name that is not module:qualname, an argument the codec cannot write)."""
    path = key[0]
    if type(path) is not str or not PATH_RE.fullmatch(path):
        return None
    try:
        return canonical_hash((CODE_VERSION, key))
    except EncodeError:
        return None


@dataclass(frozen=True)
class Stored:
    data: bytes | None     # the encoded value; None for a value the codec cannot write …
    meta: dict[str, Any]   # what the page says beside it (a live timing: other sessions that ran)
    value: Any = None      # … which is then handed to this flight's callers as copies, and not kept


class ResultStore:
    """Results by key (result_key), least recently used first out, within `max_bytes` of encoded
    results and `max_entries`; slow results outlive the idle eviction (see SharedCache). With
    `shared`, a second level every replica reads (see the module docstring)."""

    def __init__(self, max_bytes: int = RESULT_BYTES, max_entries: int = RESULT_ENTRIES,
                 slow_s: float = SLOW_RESULT_S, keep_slow_s: float = KEEP_SLOW_S,
                 shared: Store | None = None, shared_ttl_s: float = SHARED_TTL_S,
                 claim_s: float = CLAIM_S, poll_s: float = POLL_S) -> None:
        self.cache: SharedCache[Stored] = SharedCache(max_bytes, max_entries, _size,
                                                      slow_s=slow_s, keep_slow_s=keep_slow_s)
        self.shared, self.shared_ttl_s, self.claim_s, self.poll_s = shared, shared_ttl_s, claim_s, poll_s
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(("computed", "local_hits", "local_misses", "shared_hits",
                                      "shared_misses", "shared_waits", "rejected", "unencodable"), 0)

    # ------------------------------------------------------------ counters

    def _count(self, what: str) -> int:
        with self._lock:
            self._counts[what] += 1
            return self._counts[what]

    def counters(self) -> dict[str, int]:
        """Computations run here, and hits and misses per level (local: this process; shared: the
        store every replica reads), shared waits (another replica was computing it), rejected
        foreign values, results the codec could not write. Summed over replicas, `computed` is the
        load test's "computed once across replicas"."""
        with self._lock:
            return dict(self._counts)

    @property
    def computed(self) -> int:
        """Computations started in this process, for tests and the load figures."""
        return self.counters()["computed"]

    # ------------------------------------------------------------ the local level

    def stats(self) -> tuple[int, int]:
        """(entries, encoded bytes) held in this process now."""
        return self.cache.stats()

    def clear(self) -> None:
        """Empty this process's level (the shared store keeps what it has)."""
        self.cache.clear()

    def drop_unused(self, idle_s: float) -> int:
        """Drop what nobody used for `idle_s` s (slow results: for KEEP_SLOW_S); how many."""
        return self.cache.drop_unused(idle_s)

    def has(self, key: Key) -> bool:
        """Whether `key` is stored now, here or in the shared store (nothing decoded, its last use
        untouched)."""
        if self.cache.has(key):
            return True
        digest = self._digest(key)
        return digest is not None and self.shared is not None and self.shared.exists(store_key("r", digest))

    def peek(self, key: Key) -> tuple[Any, dict[str, Any]] | None:
        """(value, meta) if stored here or in the shared store, without computing anything."""
        stored = self.cache.peek(key)
        if stored is not None:
            self._count("local_hits")
            return _copy(stored), dict(stored.meta)
        digest = self._digest(key)
        got = None if digest is None else self._from_shared(digest)
        if got is None:
            return None
        self.cache.put(key, got[0])
        return got[1], dict(got[0].meta)

    def get_or_compute(self, key: Key, compute: Callable[[Flight], tuple[Any, dict[str, Any]]],
                       wait: Callable[[Flight], None] | None) -> tuple[Any, dict[str, Any]]:
        """(value, meta) for `key`: stored, or `compute(flight)` once however many sessions (and
        replicas) ask at a time; the others call `wait(flight)` meanwhile (SharedCache.get_or_compute)."""
        fresh: list[Any] = []  # the value this caller computed or decoded already

        def computed(flight: Flight) -> Stored:
            self._count("local_misses")
            digest = self._digest(key)
            if digest is None:
                return self._compute(flight, compute, fresh, None)
            got = self._from_shared(digest)
            if got is not None:
                fresh.append(got[1])
                return got[0]
            return self._claimed(digest, flight, compute, wait, fresh)

        stored = self.cache.get_or_compute(key, computed, wait)
        if not fresh:
            self._count("local_hits")
        return (fresh[0] if fresh else _copy(stored)), dict(stored.meta)

    # ------------------------------------------------------------ computing, and the shared level

    def _digest(self, key: Key) -> str | None:
        return None if self.shared is None else shared_key(key)

    def _compute(self, flight: Flight, compute: Callable[[Flight], tuple[Any, dict[str, Any]]],
                 fresh: list[Any], digest: str | None) -> Stored:
        self._count("computed")
        value, meta = compute(flight)
        fresh.append(value)
        try:
            data = encode(value, meta)
        except EncodeError as exc:
            if self._count("unencodable") == 1:
                LOG.warning("a result could not be encoded (%s): handed to its callers, not kept "
                            "(logged once, counted in counters())", exc)
            return Stored(None, dict(meta), value)
        if digest is not None and self.shared is not None and len(data) <= SHARED_MAX_BYTES:
            self.shared.set(store_key("r", digest), data, self.shared_ttl_s)
        return Stored(data, dict(meta))

    def _from_shared(self, digest: str) -> tuple[Stored, Any] | None:
        """(stored, value) from the shared store, or None: not there, or rejected."""
        assert self.shared is not None
        key = store_key("r", digest)
        data = self.shared.get(key)
        if data is None:
            self._count("shared_misses")
            return None
        try:
            value, meta = decode(data)
        except DecodeError as exc:
            if self._count("rejected") == 1:
                LOG.warning("a value under a result key is not ours (%s: %s): deleted and computed again "
                            "(logged once, counted in counters())", type(exc).__name__, exc)
            self.shared.delete(key)
            return None
        self._count("shared_hits")
        return Stored(bytes(data), meta), value

    def _claimed(self, digest: str, flight: Flight, compute: Callable[[Flight], tuple[Any, dict[str, Any]]],
                 wait: Callable[[Flight], None] | None, fresh: list[Any]) -> Stored:
        """Compute under the shared claim on `digest`, or wait for the replica that holds it."""
        assert self.shared is not None
        claim, progress, token = store_key("claim", digest), store_key("progress", digest), uuid.uuid4().hex
        while True:
            held = self.shared.claim(claim, token, self.claim_s)
            if held is None:  # the store is down: compute here alone
                return self._compute(flight, compute, fresh, digest)
            if held:
                def publish() -> None:
                    self.shared.set(progress, f"{flight.fraction:.4f}".encode(), self.claim_s)

                with Lease(self.shared, claim, token, self.claim_s, beat=publish).held():
                    return self._compute(flight, compute, fresh, digest)
            self._count("shared_waits")
            while True:  # another replica computes it: wait for its result
                flight.fraction = _fraction(self.shared.get(progress))
                if wait is not None:
                    wait(flight)
                time.sleep(self.poll_s)
                got = self._from_shared(digest)
                if got is not None:
                    fresh.append(got[1])
                    return got[0]
                if not self.shared.exists(claim):
                    break  # it ended without a result (failed, stopped, too large, store down): claim again


def _size(stored: Stored) -> int:
    """A stored result's size: its bytes; one the codec could not write is never kept."""
    return len(stored.data) if stored.data is not None else sys.maxsize


def _copy(stored: Stored) -> Any:
    """The caller's own copy of a stored value."""
    return decode(stored.data)[0] if stored.data is not None else copy.deepcopy(stored.value)


def _fraction(data: bytes | None) -> float:
    """Another replica's progress as it published it (0 when there is none, or it is not a fraction)."""
    try:
        value = float(data) if data is not None and len(data) <= 16 else 0.0
    except ValueError:
        return 0.0
    return 0.0 if math.isnan(value) else min(1.0, max(0.0, value))
