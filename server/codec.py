"""A safe, versioned encoding of core's results, for bytes kept in a store (in this process or shared).

A store shared by several servers is shared infrastructure: whatever lies under one of our keys may
have been written by something else. So the stored format is data only and reading it executes
nothing (pickle would run whatever a foreign value told it to). Three parts:

    {"ase":1,"kind":"result","json":J,"bytes":N,"crc32":C}\\n   the header line, ASCII JSON
    {"value":…,"meta":…}                                         J bytes of UTF-8 JSON
    raw little-endian numbers                                    N − J bytes that tags point into

The header gives the body's length and CRC-32, so a value cut short or altered by accident is
rejected too (the checksum guards accidents; what keeps a forged value harmless is that reading it
runs nothing and checks every tag).

Values are what core's functions return: dicts, lists and tuples of str / int / float / bool / None,
NumPy arrays and scalars. JSON lacks a few of these, and long columns of numbers are cheaper as raw
bytes, so they travel as one-key objects whose key is a tag:

| tag | payload |
|---|---|
| `$t` | a tuple: its items as a list |
| `$d` | a dict with a key that is not a plain string (an int, a `$…` str): `[key, value]` pairs |
| `$f` | a float JSON has no number for: `"nan"`, `"inf"`, `"-inf"` |
| `$r` | a list of dicts with the same keys (a result's rows): `[keys, columns]` |
| `$l` | a list of 16 or more floats, ints or bools: `[dtype, offset, count]` in the raw part |
| `$a` | a NumPy array: `[dtype, shape, offset]`, its bytes in the raw part |
| `$n` | a NumPy scalar: `[dtype, offset]` |

dtypes come from `DTYPES` alone. `decode` rejects anything else with a `DecodeError`: not our header,
another version or kind, a body that does not match its header, not UTF-8 JSON, an unknown tag, a
dtype off the list, an offset or shape outside the raw part. `encode` refuses a value it cannot
represent (`EncodeError`) rather than store something that reads back different.
"""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

VERSION = 1
PREFIX = b'{"ase":'          # every header starts so: the cheapest rejection of a foreign value
MAX_HEADER = 256
MAX_BYTES = 256 * 2**20      # a larger value is not ours to read
MAX_NDIM = 32
PACK_MIN = 16                # lists at least this long go to the raw part when all floats, ints or bools
DTYPES = frozenset({"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
                    "<f2", "<f4", "<f8", "<c8", "<c16"})
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_INTS = tuple((np.dtype(d), np.iinfo(d)) for d in ("|i1", "<i2", "<i4"))
_PLAIN = frozenset({str, int, bool, type(None)})


class CodecError(ValueError):
    """A value that cannot be written, or bytes that are not a value of ours."""


class EncodeError(CodecError):
    """The value holds something the format cannot represent exactly (an object, a DataFrame …)."""


class DecodeError(CodecError):
    """The bytes are not a value of ours; base of the more specific errors below."""


class EnvelopeError(DecodeError):
    """Not our header, another version or kind, or a body that is not JSON (a pickle, random bytes …)."""


class CorruptError(DecodeError):
    """Our header, but a body that is not the one it describes: cut short, or altered."""


class TagError(DecodeError):
    """A tagged object with an unknown tag, or a tag's payload of the wrong shape."""


class ArrayError(DecodeError):
    """Numbers whose dtype is not allowed, or whose bytes lie outside the raw part."""


# ---------------------------------------------------------------- encoding


def _dtype(dt: np.dtype) -> str:
    name = dt.newbyteorder("<").str if dt.byteorder == ">" else dt.str
    if name not in DTYPES:
        raise EncodeError(f"dtype {dt} is not one the format carries")
    return name


class _Writer:
    """One value's JSON tree, with its long runs of numbers set aside as raw bytes."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.by_type: dict[type, Callable[[Any], Any]] = {
            float: self.float, list: self.list, dict: self.dict, tuple: self.tuple, np.ndarray: self.array,
        }

    def raw(self, data: bytes) -> int:
        """Append `data` to the raw part; its offset."""
        offset = self.size
        self.chunks.append(data)
        self.size += len(data)
        return offset

    def enc(self, x: Any) -> Any:
        kind = type(x)
        if kind in _PLAIN:
            return x
        encoder = self.by_type.get(kind)
        if encoder is not None:
            return encoder(x)
        if isinstance(x, np.generic):
            name = _dtype(x.dtype)
            return {"$n": [name, self.raw(np.asarray(x, dtype=np.dtype(name)).tobytes())]}
        raise EncodeError(f"{kind.__module__}.{kind.__qualname__} is not a value the format carries")

    @staticmethod
    def float(x: float) -> Any:
        if math.isfinite(x):
            return x
        return {"$f": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}

    def tuple(self, x: tuple[Any, ...]) -> Any:
        return {"$t": [self.enc(v) for v in x]}

    def list(self, x: list[Any]) -> Any:
        kinds = set(map(type, x))
        if len(x) >= PACK_MIN and len(kinds) == 1:
            packed = self.packed(x, next(iter(kinds)))
            if packed is not None:
                return packed
        if kinds <= _PLAIN:
            return x  # JSON as it is
        if kinds == {dict} and len(x) >= 2:
            keys = list(x[0])
            if keys and all(type(k) is str and not k.startswith("$") for k in keys) and \
                    all(list(row) == keys for row in x):
                return {"$r": [keys, [self.list([row[k] for row in x]) for k in keys]]}
        return [self.enc(v) for v in x]

    def packed(self, x: list[Any], kind: type) -> Any:
        """A long list of one number type as raw bytes (ints in the narrowest dtype that holds them)."""
        if kind is float:
            arr = np.array(x, dtype="<f8")
        elif kind is bool:
            arr = np.array(x, dtype="|b1")
        elif kind is int:
            try:
                arr = np.array(x, dtype="<i8")
            except OverflowError:  # beyond int64: plain JSON keeps it exact
                return None
            lo, hi = int(arr.min()), int(arr.max())
            for dtype, info in _INTS:
                if info.min <= lo and hi <= info.max:
                    arr = arr.astype(dtype)
                    break
        else:
            return None
        return {"$l": [arr.dtype.str, self.raw(arr.tobytes()), len(x)]}

    def dict(self, x: dict[Any, Any]) -> Any:
        if all(type(k) is str and not k.startswith("$") for k in x):
            return {k: self.enc(v) for k, v in x.items()}
        return {"$d": [[self.enc(k), self.enc(v)] for k, v in x.items()]}

    def array(self, x: np.ndarray) -> Any:
        if x.ndim > MAX_NDIM:
            raise EncodeError(f"{x.ndim}-dimensional array")
        name = _dtype(x.dtype)
        offset = self.raw(np.ascontiguousarray(x, dtype=np.dtype(name)).tobytes())
        return {"$a": [name, list(x.shape), offset]}


def encode(value: Any, meta: dict[str, Any] | None = None, kind: str = "result",
           sort_keys: bool = False) -> bytes:
    """`value` (and `meta`, what a page says beside it) as header, JSON and raw numbers."""
    writer = _Writer()
    try:
        tree = {"value": writer.enc(value), "meta": writer.enc(meta or {})}
        text = json.dumps(tree, separators=(",", ":"), allow_nan=False, ensure_ascii=False,
                          sort_keys=sort_keys).encode("utf-8")
    except EncodeError:
        raise
    except (ValueError, TypeError, RecursionError) as exc:  # too deep a nesting, a lone surrogate
        raise EncodeError(str(exc)) from exc
    body = b"".join([text, *writer.chunks])
    header = {"ase": VERSION, "kind": kind, "json": len(text), "bytes": len(body), "crc32": zlib.crc32(body)}
    return json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n" + body


def canonical_hash(value: Any, digest_bytes: int = 20) -> str:
    """A stable hex digest (BLAKE2b) of `value`'s encoding with sorted keys: a store key that
    names validated parameters without holding any of their text."""
    return hashlib.blake2b(encode(value, kind="key", sort_keys=True), digest_size=digest_bytes).hexdigest()


# ---------------------------------------------------------------- decoding


def _allowed(name: Any) -> np.dtype:
    if type(name) is not str or name not in DTYPES:
        raise ArrayError(f"dtype {name!r} is not allowed")
    return np.dtype(name)


def _parts(payload: Any, count: int, tag: str) -> list[Any]:
    if type(payload) is not list or len(payload) != count:
        raise TagError(f"{tag} wants a list of {count}")
    return payload


def _count(x: Any, what: str) -> int:
    if type(x) is not int or x < 0:
        raise ArrayError(f"bad {what} {x!r}")
    return x


class _Reader:
    """Turns each JSON object into its value as the parser meets it, innermost first."""

    def __init__(self, raw: memoryview) -> None:
        self.raw = raw
        self.by_tag: dict[str, Callable[[Any], Any]] = {
            "$t": self.tuple, "$d": self.dict, "$f": self.non_finite, "$r": self.rows, "$l": self.list,
            "$a": self.array, "$n": self.scalar,
        }

    def hook(self, obj: dict[str, Any]) -> Any:
        """A tag becomes its value; a `$` key anywhere else is not ours (plain dicts with such keys
        are written as `$d`)."""
        if len(obj) == 1:
            (key, payload), = obj.items()
            if key.startswith("$"):
                decoder = self.by_tag.get(key)
                if decoder is None:
                    raise TagError(f"unknown tag {key!r}")
                return decoder(payload)
            return obj
        for key in obj:
            if key.startswith("$"):
                raise TagError(f"tag {key!r} beside other keys")
        return obj

    def numbers(self, dtype: np.dtype, offset: Any, count: int) -> np.ndarray:
        """`count` numbers of `dtype` at `offset` of the raw part (a read-only view)."""
        offset = _count(offset, "offset")
        if offset + count * dtype.itemsize > len(self.raw):
            raise ArrayError(f"{count} × {dtype.str} at {offset} lie outside the {len(self.raw)} raw bytes")
        return np.frombuffer(self.raw, dtype=dtype, count=count, offset=offset)

    def list(self, payload: Any) -> list[Any]:
        name, offset, count = _parts(payload, 3, "$l")
        return self.numbers(_allowed(name), offset, _count(count, "count")).tolist()

    def array(self, payload: Any) -> np.ndarray:
        name, shape, offset = _parts(payload, 3, "$a")
        if type(shape) is not list or len(shape) > MAX_NDIM:
            raise ArrayError(f"bad shape {shape!r}")
        size = math.prod(_count(s, "shape") for s in shape)
        return self.numbers(_allowed(name), offset, size).reshape(shape).copy()  # its own, writable

    def scalar(self, payload: Any) -> np.generic:
        name, offset = _parts(payload, 2, "$n")
        return self.numbers(_allowed(name), offset, 1)[0].copy()

    @staticmethod
    def tuple(payload: Any) -> tuple[Any, ...]:
        if type(payload) is not list:
            raise TagError("$t wants a list")
        return tuple(payload)

    @staticmethod
    def dict(payload: Any) -> dict[Any, Any]:
        if type(payload) is not list or not all(type(p) is list and len(p) == 2 for p in payload):
            raise TagError("$d wants [key, value] pairs")
        try:
            return {k: v for k, v in payload}
        except TypeError as exc:  # a key that is a list or a dict
            raise TagError(f"unhashable key: {exc}") from exc

    @staticmethod
    def rows(payload: Any) -> list[dict[str, Any]]:
        keys, columns = _parts(payload, 2, "$r")
        if type(keys) is not list or not keys or not all(type(k) is str for k in keys) or \
                type(columns) is not list or len(columns) != len(keys) or \
                not all(type(c) is list and len(c) == len(columns[0]) for c in columns):
            raise TagError("$r wants keys and as many columns of one length")
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]

    @staticmethod
    def non_finite(payload: Any) -> float:
        if type(payload) is not str or payload not in NON_FINITE:
            raise TagError(f"$f wants one of {sorted(NON_FINITE)}")
        return NON_FINITE[payload]


def _constant(name: str) -> Any:
    raise EnvelopeError(f"{name} is not JSON")


def _header(data: bytes, kind: str) -> tuple[int, int]:
    """Check the header line; (where the body starts, the length of its JSON)."""
    end = data.find(b"\n", 0, MAX_HEADER)
    if not data.startswith(PREFIX) or end < 0:
        raise EnvelopeError("not our envelope")
    try:
        header = json.loads(data[:end].decode("ascii"), parse_constant=_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise EnvelopeError(f"not our header: {exc}") from exc
    if type(header) is not dict or set(header) != {"ase", "kind", "json", "bytes", "crc32"}:
        raise EnvelopeError("not our header")
    if type(header["ase"]) is not int or header["ase"] != VERSION:
        raise EnvelopeError(f"version {header['ase']!r}, not {VERSION}")
    if header["kind"] != kind:
        raise EnvelopeError(f"a {header['kind']!r}, not a {kind!r}")
    body = memoryview(data)[end + 1:]
    if header["bytes"] != len(body) or header["crc32"] != zlib.crc32(body):
        raise CorruptError(f"body of {len(body)} bytes does not match its header (cut short or altered)")
    if type(header["json"]) is not int or not 0 < header["json"] <= len(body):
        raise EnvelopeError("bad JSON length")
    return end + 1, header["json"]


def decode(data: bytes, kind: str = "result") -> tuple[Any, dict[str, Any]]:
    """(value, meta) from `encode`'s bytes; any other bytes raise a DecodeError, nothing is run."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise EnvelopeError(f"{type(data).__name__}, not bytes")
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise EnvelopeError(f"{len(data)} bytes, more than a value of ours")
    start, size = _header(data, kind)
    reader = _Reader(memoryview(data)[start + size:])
    try:
        doc = json.loads(data[start:start + size].decode("utf-8"), object_hook=reader.hook,
                         parse_constant=_constant)
    except DecodeError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise EnvelopeError(f"not JSON: {exc}") from exc
    if type(doc) is not dict or set(doc) != {"value", "meta"} or type(doc["meta"]) is not dict:
        raise EnvelopeError("not our body")
    return doc["value"], doc["meta"]
