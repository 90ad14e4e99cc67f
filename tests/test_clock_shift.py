"""`--shift-clock` (`clock_shift.py`) moves the calendar and nothing else."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta

from clock_shift import shift_clock


def test_the_calendar_moves_and_the_monotonic_clock_does_not() -> None:
    today, monotonic = date.today(), time.monotonic()
    stop = shift_clock(365)
    try:
        assert date.today() - today in (timedelta(days=365), timedelta(days=366))
        assert abs(datetime.now().timestamp() - time.time()) < 5
        assert time.monotonic() - monotonic < 60  # timeouts and sleeps keep the real pace
    finally:
        stop()
    assert date.today() - today < timedelta(days=1)
