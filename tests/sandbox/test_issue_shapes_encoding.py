"""The fast paths of the issue shapes give exactly what the general ones give: `_iso` is `http.iso`, and
`issue_listing_json`'s encoder (pydantic-core's) writes the same bytes as `http.encode`; and `http.encode`
(orjson) writes what the standard library's `json.dumps` writes, and refuses what it refuses."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import to_json

from labdeck.sandbox.http import encode, iso
from labdeck.sandbox.routes.issues.shapes import _iso


@pytest.mark.parametrize("value", [
    None, datetime(2026, 1, 5, 10, 20, 30), datetime(2026, 1, 5, 10, 20, 30, 999_999, tzinfo=UTC),
    datetime(1999, 12, 31, 23, 59, 59, 1_000), datetime(2026, 3, 1, 0, 0, 0, 500, tzinfo=UTC),
    datetime(2026, 3, 1, 1, 2, 3, 456_789, tzinfo=timezone(timedelta(hours=2))),
])
def test_fast_timestamps_match_iso(value: datetime | None) -> None:
    assert _iso(value) == iso(value)


@pytest.mark.parametrize("body", [
    {"id": 1, "title": "plain", "labels": [], "milestone": None, "confidential": False, "weight": 7},
    {"title": "caf\u00e9 \u2603 \U0001f600 \u00a0", "description": "a\nb\tc \"q\" \\ /"},
    {"title": "esc\x1b[2J bell\x07 del\x7f c1\x9b nul\x00 \b\f\r", "nested": [{"k\x1b": ["v\x9b"]}]},
    [{"id": 2, "_links": {"self": "http://h/api/v4/projects/1/issues/2"}, "epic": None}],
    {"big": 12345678901234, "neg": -3, "t": True, "f": False},
])
def test_listing_encoder_writes_the_same_bytes_as_encode(body: object) -> None:
    assert to_json(body) == encode(body)


def _standard(body: object) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text()
           | st.floats(allow_nan=False, allow_infinity=False))
BODIES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text() | st.integers(-5, 5), inner, max_size=4), max_leaves=12)


@given(BODIES)
def test_encode_writes_what_the_standard_library_writes(body: object) -> None:
    """`encode` (orjson) gives the bytes of `json.dumps`, compact and UTF-8 (a float may be spelled
    otherwise, `1e16` for `1e+16`: the same number)."""
    try:
        expected = _standard(body)
    except UnicodeEncodeError:  # a lone surrogate: neither can write it
        with pytest.raises((UnicodeEncodeError, TypeError)):
            encode(body)
        return
    written = encode(body)
    if _has_float(body):
        assert json.loads(written) == json.loads(expected)
    else:
        assert written == expected


def _has_float(body: object) -> bool:
    if isinstance(body, dict):
        return any(_has_float(value) for value in body.values())
    if isinstance(body, list):
        return any(_has_float(value) for value in body)
    return isinstance(body, float)


@pytest.mark.parametrize("body", [{"at": datetime(2026, 1, 5)}, [object()], {(1, 2): 3}])
def test_encode_refuses_what_the_standard_library_refuses(body: object) -> None:
    with pytest.raises(TypeError):
        _standard(body)
    with pytest.raises(TypeError):
        encode(body)


def test_encode_takes_an_integer_past_64_bits_as_the_standard_library_does() -> None:
    assert encode({"n": 2**70}) == _standard({"n": 2**70})
