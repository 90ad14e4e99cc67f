"""Clocks of the sandbox: the real one, and a manual one that tests move forward by hand."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Wall-clock seconds since the epoch (float)."""

    def time(self) -> float: ...


class SystemClock:
    """The real clock."""

    def time(self) -> float:
        return time.time()


class ManualClock:
    """A clock that stands still until `advance()` is called."""

    def __init__(self, start: float = 1_790_000_000.0) -> None:
        self._now = start

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds


class OffsetClock:
    """Another clock plus an offset that only grows: the sandbox's one clock. `advance()` moves it forward
    (`POST /-/sandbox/clock?advance=SECONDS`), so a demo or a test can watch tonight's cleanup run now."""

    def __init__(self, inner: Clock) -> None:
        self.inner = inner
        self.offset = 0.0

    def time(self) -> float:
        return self.inner.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def advanceable(clock: Clock) -> Clock:
    """`clock` itself when it can be moved forward (a `ManualClock`), else wrapped in an `OffsetClock`."""
    return clock if callable(getattr(clock, "advance", None)) else OffsetClock(clock)
