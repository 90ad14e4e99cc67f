"""The instance's own time, as its answers tell it (the `Date` response header), for what labdeck computes
"as of now" on the instance's behalf: the cleanup policy simulation's now (which tags are older than
`older_than`, whether `next_run_at` is past) must be the time the instance runs its policies at, which
is not the local wall time when the two clocks differ (a sandbox whose clock was moved forward with
`POST /-/sandbox/clock`, an instance whose clock is off).

`ServerTime.update(headers)` is called by the client for every answer. The header is untrusted: absent,
unreadable, naive or absurd values (further than `MAX_SKEW` from the local clock) are ignored, and the last
readable one stays. `now()` is the local wall time plus the latest offset, or the wall time alone when the
offset is within `SKEW_MIN` (the header counts whole seconds: smaller offsets are its own rounding and the
transit, and would only make ages jitter) or when no answer told the time yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

SKEW_MIN = 2.0  # seconds: below this the instance's clock is taken to be the local one
MAX_SKEW = 10 * 366 * 86_400.0  # seconds: a Date further away than this is not believed


def told_time(headers: Mapping[str, str]) -> float | None:
    """The epoch seconds of the `Date` header, or None when it is absent or cannot be read (never raises)."""
    try:
        raw = headers.get("date")
        if not isinstance(raw, str) or not raw.strip():
            return None
        told = parsedate_to_datetime(raw)
        if told.tzinfo is None:  # RFC 9110 dates are GMT; a date without a zone says nothing sure
            return None
        return told.timestamp()
    except (TypeError, ValueError, IndexError, OverflowError, UnicodeError):
        return None


@dataclass
class ServerTime:
    """The instance's clock as its latest dated answer told it (`offset`: its seconds minus ours)."""

    wall: Callable[[], float] = field(default=time.time, repr=False)
    offset: float | None = None

    def update(self, headers: Mapping[str, str]) -> None:
        """Record an answer's `Date` (an absent, unreadable or absurd one leaves the offset as it was)."""
        told = told_time(headers)
        if told is None:
            return
        offset = told + 0.5 - self.wall()  # the header drops the fraction: the middle of its second
        if abs(offset) <= MAX_SKEW:
            self.offset = offset

    @property
    def skewed(self) -> bool:
        """Whether the instance's clock differs from the local one by more than the header's rounding."""
        return self.offset is not None and abs(self.offset) >= SKEW_MIN

    def now(self) -> datetime:
        """The instance's time now: the local wall time, moved by the offset when the clocks differ."""
        offset = self.offset if self.offset is not None and self.skewed else 0.0
        return datetime.fromtimestamp(self.wall() + offset, UTC)
