"""Retry timing: which requests may be retried, how long to wait (Retry-After, RateLimit-Reset, backoff)."""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable, Mapping

from labdeck.api.settings import RetryPolicy

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
RETRY_STATUSES = frozenset({429, 502, 503, 504})


def is_idempotent(method: str) -> bool:
    """True for methods the client may retry on its own (never POST or PATCH)."""
    return method.upper() in IDEMPOTENT_METHODS


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a `Retry-After` value (delta seconds or an HTTP date); None if absent or bad."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except (ValueError, OverflowError):
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None  # reject NaN and infinities
    try:
        when = email.utils.parsedate_to_datetime(value)
        if when is None:
            return None
        delay = when.timestamp() - now
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return None
    return max(0.0, delay) if math.isfinite(delay) else None


def parse_ratelimit_reset(value: str | None, now: float) -> float | None:
    """Seconds until a `RateLimit-Reset` epoch timestamp; None if absent or unreadable."""
    if not isinstance(value, str):
        return None
    try:
        reset = float(value.strip())
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(reset):
        return None
    return max(0.0, reset - now)


def backoff_delay(attempt: int, policy: RetryPolicy, rng: Callable[[], float]) -> float:
    """Capped exponential backoff with "equal jitter" for retry number `attempt` (1 for the first retry)."""
    factor: int = 2 ** max(0, attempt - 1)  # (typeshed reads int ** int as Any: a negative power is a float)
    ceiling = min(policy.max_delay, policy.base_delay * factor)
    return ceiling / 2 + ceiling / 2 * rng()


def server_delay(headers: Mapping[str, str], now: float) -> float | None:
    """The wait the server asked for: `Retry-After`, else `RateLimit-Reset`; None when it said nothing."""
    delay = parse_retry_after(headers.get("retry-after"), now)
    if delay is None:
        delay = parse_ratelimit_reset(headers.get("ratelimit-reset"), now)
    return delay


def retry_delay(status: int | None, headers: Mapping[str, str], attempt: int, policy: RetryPolicy,
                now: float, rng: Callable[[], float]) -> float:
    """How long to wait before retry `attempt` after `status` (None for a connection error); always a
    finite, non-negative number (a wait past the policy's total budget ends the retries instead)."""
    if status == 429:
        delay = server_delay(headers, now)
        if delay:  # a reset already past (clock skew) falls back to backoff rather than hammering
            return delay
    elif status is not None:
        after = parse_retry_after(headers.get("retry-after"), now)
        if after is not None:
            return after
    return backoff_delay(attempt, policy, rng)
