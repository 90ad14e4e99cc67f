"""Rate-limit state read from `RateLimit-*` response headers, and how long to pace before the next request.

Every header is untrusted: a value that is missing, negative, fractional, absurd (`1e999`), not a number at
all, or not even text leaves the state usable. Counts are clamped to `0..MAX_COUNT`, and the pacing delay is
always a finite number of seconds in `0..max_delay`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# No instance hands out more requests than this per window; a larger claim is clamped.
MAX_COUNT = 10**9


def header_number(headers: Mapping[str, str], name: str) -> float | None:
    """A header as a finite float, or None when absent or unreadable (never raises)."""
    try:
        raw = headers.get(name)
        if raw is None:
            return None
        value = float(str(raw).strip())
    except (ValueError, OverflowError, TypeError, UnicodeError):
        return None
    return value if math.isfinite(value) else None


def _count(headers: Mapping[str, str], name: str) -> int | None:
    value = header_number(headers, name)
    if value is None:
        return None
    return int(min(max(value, 0.0), MAX_COUNT))  # -1 is "none left", 1e12 is "plenty"


@dataclass
class RateLimitState:
    """The latest `RateLimit-Remaining`, `RateLimit-Limit` and `RateLimit-Reset` (epoch seconds) seen."""

    remaining: int | None = None
    limit: int | None = None
    reset_at: float | None = None
    low_fraction: float = 0.05
    low_floor: int = 10

    def update(self, headers: Mapping[str, str]) -> None:
        """Record the headers of a response (absent or unreadable headers leave the state as it was)."""
        remaining = _count(headers, "ratelimit-remaining")
        if remaining is None:
            return
        self.remaining = remaining
        limit = _count(headers, "ratelimit-limit")
        if limit is not None:
            self.limit = limit
        reset = header_number(headers, "ratelimit-reset")
        if reset is not None:
            self.reset_at = max(0.0, reset)

    @property
    def is_low(self) -> bool:
        """True when few requests remain: below 5% of the limit when known, else below 10."""
        if self.remaining is None:
            return False
        if self.limit:
            return self.remaining < max(1.0, self.limit * self.low_fraction)
        return self.remaining < self.low_floor

    def pace_delay(self, now: float, max_delay: float) -> float:
        """Seconds to wait before the next request so the remaining budget lasts until the reset: finite,
        between 0 and `max_delay`, whatever the headers said."""
        if not self.is_low or self.reset_at is None:
            return 0.0
        until_reset = self.reset_at - now
        if not math.isfinite(until_reset) or until_reset <= 0:
            return 0.0
        remaining = max(0, self.remaining or 0)
        spread = until_reset / (remaining + 1)
        return max(0.0, min(spread, max_delay))

    def consume(self) -> None:
        """Count a request that is about to be sent against the known remaining budget."""
        if self.remaining is not None and self.remaining > 0:
            self.remaining -= 1
