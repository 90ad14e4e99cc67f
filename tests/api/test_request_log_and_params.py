"""The request log (bounded, subscribers, secrets removed) and bracket-form parameter encoding."""

from __future__ import annotations

from datetime import UTC, date, datetime

from labdeck.api.params import encode_params, normalise_params
from labdeck.api.request_log import RequestLog, RequestLogEntry


def test_subscribe_unsubscribe_and_broken_subscriber() -> None:
    log = RequestLog(maxlen=3)
    got: list[RequestLogEntry] = []

    def broken(entry: RequestLogEntry) -> None:
        raise RuntimeError("boom")

    log.subscribe(broken)
    stop = log.subscribe(got.append)
    log.record("get", "/projects?private_token=abc&page=2", 200, 12.345, 0)
    stop()
    log.record("GET", "/groups", 404, 1.0, 1, "404 Not Found")
    assert [e.path for e in got] == ["/projects?private_token=[redacted]&page=2"]
    assert got[0].method == "GET" and got[0].duration_ms == 12.3
    for _ in range(5):
        log.record("GET", "/x", 200, 1.0, 0)
    assert len(log) == 3


def test_encode_params_bracket_forms() -> None:
    pairs = encode_params({
        "labels": ["bug", "ui"], "custom_attributes": {"team": "ops", "tags": ["a", "b"]},
        "archived": True, "simple": False, "skip": None, "list_with_none": [1, None, 2],
        "updated_after": datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "due": date(2024, 5, 6),
        "ids": {3, 1, 2}, "page": 2,
    })
    assert pairs == [
        ("labels[]", "bug"), ("labels[]", "ui"), ("custom_attributes[team]", "ops"),
        ("custom_attributes[tags][]", "a"), ("custom_attributes[tags][]", "b"), ("archived", "true"),
        ("simple", "false"), ("list_with_none[]", "1"), ("list_with_none[]", "2"),
        ("updated_after", "2024-01-02T03:04:05+00:00"), ("due", "2024-05-06"),
        ("ids[]", "1"), ("ids[]", "2"), ("ids[]", "3"), ("page", "2"),
    ]
    assert encode_params(None) == [] and encode_params({}) == []


def test_normalise_params_is_order_independent() -> None:
    assert normalise_params({"a": 1, "b": [2, 3]}) == normalise_params({"b": [2, 3], "a": 1, "c": None})
