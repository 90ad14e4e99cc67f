"""Rate-limit state read from `RateLimit-*` response headers, and how long to pace before the next request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    raw = headers.get(name)
    if raw is None:
        return None
    try:
        return int(float(raw.strip()))
    except (ValueError, OverflowError):  # "abc", "nan", "inf", "1e999": not a number we can use
        return None


@dataclass
class RateLimitState:
    """The latest `RateLimit-Remaining`, `RateLimit-Limit` and `RateLimit-Reset` (epoch seconds) seen."""

    remaining: int | None = None
    limit: int | None = None
    reset_at: float | None = None
    low_fraction: float = 0.05
    low_floor: int = 10

    def update(self, headers: Mapping[str, str]) -> None:
        """Record the headers of a response (absent headers leave the state as it was)."""
        remaining = _int_header(headers, "ratelimit-remaining")
        if remaining is None:
            return
        self.remaining = remaining
        limit = _int_header(headers, "ratelimit-limit")
        if limit is not None:
            self.limit = limit
        reset = _int_header(headers, "ratelimit-reset")
        if reset is not None:
            self.reset_at = float(reset)

    @property
    def is_low(self) -> bool:
        """True when few requests remain: below 5% of the limit when known, else below 10."""
        if self.remaining is None:
            return False
        if self.limit:
            return self.remaining < max(1.0, self.limit * self.low_fraction)
        return self.remaining < self.low_floor

    def pace_delay(self, now: float, max_delay: float) -> float:
        """Seconds to wait before the next request so the remaining budget lasts until the reset."""
        if not self.is_low or self.reset_at is None:
            return 0.0
        until_reset = self.reset_at - now
        if until_reset <= 0:
            return 0.0
        spread = until_reset / (self.remaining + 1) if self.remaining else until_reset
        return min(spread, max_delay)

    def consume(self) -> None:
        """Count a request that is about to be sent against the known remaining budget."""
        if self.remaining is not None and self.remaining > 0:
            self.remaining -= 1
