"""Parsing of `Retry-After` and `RateLimit-Reset`, the backoff curve, and the rate-limit state."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from labdeck.api.backoff import backoff_delay, is_idempotent, parse_ratelimit_reset, parse_retry_after
from labdeck.api.rate_limit import RateLimitState
from labdeck.api.settings import RetryPolicy

NOW = 1_800_000_000.0


@pytest.mark.parametrize(("value", "expected"), [
    ("120", 120.0), (" 3 ", 3.0), ("0", 0.0), ("-5", 0.0), ("1.5", 1.5),
    (format_datetime(datetime.fromtimestamp(NOW + 30, UTC), usegmt=True), 30.0),
    (format_datetime(datetime.fromtimestamp(NOW - 30, UTC), usegmt=True), 0.0),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    (None, None), ("", None), ("soon", None), ("nan", None),
])
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    result = parse_retry_after(value, NOW)
    assert result == (pytest.approx(expected) if expected is not None else None)


def test_parse_ratelimit_reset() -> None:
    assert parse_ratelimit_reset(str(int(NOW + 42)), NOW) == 42.0
    assert parse_ratelimit_reset(str(int(NOW - 42)), NOW) == 0.0
    assert parse_ratelimit_reset("x", NOW) is None and parse_ratelimit_reset(None, NOW) is None


def test_backoff_is_capped_and_jittered() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    assert [backoff_delay(n, policy, lambda: 1.0) for n in (1, 2, 3, 4, 5, 10)] == [1, 2, 4, 8, 8, 8]
    assert backoff_delay(3, policy, lambda: 0.0) == 2.0


def test_idempotent_methods() -> None:
    assert all(is_idempotent(m) for m in ("GET", "head", "PUT", "DELETE", "OPTIONS"))
    assert not is_idempotent("POST") and not is_idempotent("PATCH")


def test_rate_limit_state() -> None:
    state = RateLimitState()
    state.update({"content-type": "x"})
    assert state.remaining is None and not state.is_low and state.pace_delay(NOW, 30) == 0
    state.update({"ratelimit-remaining": "50", "ratelimit-limit": "2000",
                  "ratelimit-reset": str(int(NOW + 60))})
    assert state.is_low  # 50 < 5% of 2000
    assert state.pace_delay(NOW, 30) == pytest.approx(60 / 51)
    state.update({"ratelimit-remaining": "0"})
    assert state.pace_delay(NOW, 30) == 30  # wait for the reset, capped
    assert state.pace_delay(NOW + 61, 30) == 0  # reset passed
    state.update({"ratelimit-remaining": "900"})
    assert not state.is_low
