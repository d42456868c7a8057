"""The stored format of results (server/codec.py): every result a page asks for comes back exactly as
computed, and anything that is not a value of ours — a pickle, random bytes, an unknown tag, an array
whose shape lies about its bytes — is rejected with a specific error, never run."""

from __future__ import annotations

import json
import math
import pickle
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from server import codec
from server.codec import (
    ArrayError,
    CorruptError,
    DecodeError,
    EncodeError,
    EnvelopeError,
    TagError,
    decode,
    encode,
)
from tools import page_calls


def same(a, b) -> bool:
    """Equal in type and value, NaN equal to NaN; arrays equal in dtype, shape and bytes."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
                and a.tobytes() == b.tobytes())
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | np.floating):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def round_trip(value, meta=None):
    back, back_meta = decode(encode(value, meta))
    assert same(back, value), (value, back)
    assert back_meta == (meta or {})
    return back


# ---------------------------------------------------------------- real results


@pytest.mark.parametrize("label, fn, kwargs", page_calls.story_calls() + page_calls.lesson_calls(),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_every_story_and_lesson_result_comes_back_exactly(label, fn, kwargs):
    round_trip(fn(**kwargs))


# One quick claim per note and one from the literature (measuring all 65 again cost CI 40-95 s; the
# property tests below cover every kind of value the format holds).
FACTCHECK_SAMPLE = {"n0_var", "n1_var", "n2_softmax_props", "n3_entropy_trend", "n4_grow", "n3_britz"}


@pytest.mark.parametrize("label, fn, kwargs",
                         [c for c in page_calls.factcheck_calls() if c[2]["claim_id"] in FACTCHECK_SAMPLE],
                         ids=lambda x: x if isinstance(x, str) else "")
def test_fact_check_results_come_back_exactly(label, fn, kwargs):
    round_trip(fn(**kwargs))


@pytest.mark.parametrize("label, fn, kwargs", page_calls.torch_calls() + page_calls.cost_calls(),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_torch_and_timing_results_come_back_exactly(label, fn, kwargs):
    pytest.importorskip("torch")
    round_trip(fn(**kwargs), {"busy": 2})


# ---------------------------------------------------------------- every value the format carries

_keys = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.sampled_from(["$t", "$a", "$x", "rows"]))
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.builds(np.float64, st.floats()), st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)),
    st.builds(np.float32, st.floats(width=32)), st.builds(np.bool_, st.booleans()),
)
_dtypes = st.sampled_from(["<f8", "<f4", "<f2", "<i8", "<i4", "|i1", "|u1", "<u8", "|b1", "<c16",
                           ">f8", ">i4"])
_arrays = _dtypes.flatmap(lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=0, max_dims=3,
                                                                                 min_side=0, max_side=5)))
_long_lists = st.one_of(st.lists(st.floats(), min_size=codec.PACK_MIN, max_size=40),
                        st.lists(st.integers(-(2**64), 2**64), min_size=codec.PACK_MIN, max_size=40),
                        st.lists(st.integers(-300, 300), min_size=codec.PACK_MIN, max_size=40),
                        st.lists(st.booleans(), min_size=codec.PACK_MIN, max_size=40))
_row = st.fixed_dictionaries({"dk": st.integers(1, 4096), "var": st.floats(), "scale": st.text(max_size=4)})
values = st.recursive(
    st.one_of(_scalars, _arrays, _long_lists, st.lists(_row, min_size=2, max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.tuples(inner, inner),
                            st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_value_of_the_format_comes_back_exactly(value):
    assert same(decode(encode(value))[0], _little(value))


def _little(value):
    """`value` with its big-endian arrays as the little-endian ones the format returns."""
    if isinstance(value, np.ndarray):
        return value.astype(value.dtype.newbyteorder("<")) if value.dtype.byteorder == ">" else value
    if isinstance(value, list):
        return [_little(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_little(v) for v in value)
    if isinstance(value, dict):
        return {k: _little(v) for k, v in value.items()}
    return value


@settings(max_examples=100, deadline=None)
@given(_arrays)
def test_arrays_keep_dtype_shape_and_bytes_and_are_writable(arr):
    back = decode(encode(arr))[0]
    assert same(back, _little(arr)) and back.flags.writeable


@pytest.mark.parametrize("value", [
    [{}, {}], [{"a": 1}, {"b": 2}], [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [{"$t": 1}, {"$t": 2}],
    [{"a": [1.0] * 20}, {"a": [2.0] * 20}], [True] * 20 + [1], [1] * 20 + [2**80], [1.5] * 20 + [1],
    {"rows": [{"n": i, "w": [i / 3] * 17} for i in range(30)], "ln_n": math.log(30)},
])
def test_rows_and_long_lists_come_back_exactly(value):
    round_trip(value)


def test_values_the_format_cannot_carry_are_refused_when_written():
    for bad in (object(), {1, 2}, np.array(["a"]), np.array([object()]), b"bytes", [1, object()]):
        with pytest.raises(EncodeError):
            encode(bad)


# ---------------------------------------------------------------- what is not ours


def _doc(value, text: bytes | None = None, raw: bytes = b"", **header) -> bytes:
    """Bytes with a well-formed header (unless `header` changes it) around `value`'s JSON (or
    `text`) and the raw part `raw`: what a writer who knows the format could plant."""
    if text is None:
        text = json.dumps({"value": value, "meta": {}}).encode()
    body = text + raw
    head = {"ase": 1, "kind": "result", "json": len(text), "bytes": len(body), "crc32": zlib.crc32(body),
            **header}
    return json.dumps(head).replace(" ", "").encode() + b"\n" + body


class _Boom:
    def __reduce__(self):
        return (print, ("a pickle ran",))


@pytest.mark.parametrize("data, error", [
    (pickle.dumps({"rows": [1, 2]}), EnvelopeError),
    (pickle.dumps(_Boom()), EnvelopeError),
    (bytes(range(256)), EnvelopeError),
    (b"", EnvelopeError),
    (b'{"ase":1,', EnvelopeError),
    (_doc(None, text=b'{"value":NaN,"meta":{}}'), EnvelopeError),
    (_doc(None, text=b'{"value":1}'), EnvelopeError),
    (_doc(None, text=b'{"value":1,"meta":{},"code":"import os"}'), EnvelopeError),
    (_doc(None, text=b'\xff\xfe'), EnvelopeError),
    (_doc(1, json=0), EnvelopeError),
    (_doc(1, ase=2), EnvelopeError),
    (_doc(1, ase=True), EnvelopeError),
    (_doc(1, kind="room"), EnvelopeError),
    (_doc(1, extra=1), EnvelopeError),
    (_doc(1, bytes=3), CorruptError),
    (_doc(1, crc32=0), CorruptError),
    (encode({"rows": [1.0, 2.0]})[:-3], CorruptError),
    (_doc({"$pickle": "gASV"}), TagError),
    (_doc({"$t": [1], "x": 2}), TagError),
    (_doc({"$f": "1e999"}), TagError),
    (_doc({"$d": [[[1], 2]]}), TagError),
    (_doc({"$zz": [1]}), TagError),
    (_doc({"$r": [["a"], [[1], [2]]]}), TagError),
    (_doc({"$r": [[], []]}), TagError),
    (_doc({"$a": ["|O", [1], 0]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$a": ["<f8", [4], 0]}, raw=b"\0" * 8), ArrayError),   # a lying shape
    (_doc({"$a": ["<f8", [2**40, 2**40], 0]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$a": ["<f8", [-1], 0]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$a": ["<f8", [1], -8]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$a": ["<f8", [1], "0"]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$n": ["<f8", 4]}, raw=b"\0" * 8), ArrayError),
    (_doc({"$l": ["<f8", 0, 2]}, raw=b"\0" * 12), ArrayError),
    (_doc({"$l": ["<M8[s]", 0, 1]}, raw=b"\0" * 8), ArrayError),
])
def test_foreign_or_corrupt_bytes_are_rejected_with_a_specific_error(data, error, capsys):
    with pytest.raises(error):
        decode(data)
    assert "a pickle ran" not in capsys.readouterr().out
    assert issubclass(error, DecodeError)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_rejected(data):
    with pytest.raises(DecodeError):
        decode(data)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 255))
def test_a_value_altered_anywhere_is_rejected_not_read_as_another(position, byte):
    arr = np.arange(12, dtype="<f8").reshape(3, 4)
    data = bytearray(encode({"a": arr, "rows": [0.5] * 20}))
    position %= len(data)
    changed = data[position] != byte
    data[position] = byte
    if not changed:
        assert same(decode(bytes(data))[0], {"a": arr, "rows": [0.5] * 20})
        return
    with pytest.raises(DecodeError):
        decode(bytes(data))


def test_the_key_digest_is_stable_and_holds_no_text():
    text = "sqrt'); DROP --"
    digest = codec.canonical_hash(("core.views:one_draw", (("dk", 64), ("scale", text))))
    assert digest == codec.canonical_hash(("core.views:one_draw", (("dk", 64), ("scale", text))))
    assert len(digest) == 40 and set(digest) <= set("0123456789abcdef")
    assert digest != codec.canonical_hash(("core.views:one_draw", (("dk", 64.0), ("scale", text))))
