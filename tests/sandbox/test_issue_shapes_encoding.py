"""The fast paths of the issue shapes give exactly what the general ones give: `_iso` is `http.iso`, and
`issue_listing_json`'s encoder (pydantic-core's) writes the same bytes as `http.encode`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
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
