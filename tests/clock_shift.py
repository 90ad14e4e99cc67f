"""`--shift-clock DAYS`: the whole run with the calendar moved (issue 32: no test depends on the calendar).

`time-machine` moves what Python reads as the date and time of day (`time.time`, `datetime.now`,
`date.today`, `time.localtime`, `time.gmtime`, `CLOCK_REALTIME`) by `DAYS` days while it ticks on; the
monotonic clock that timeouts, sleeps and asyncio use is left alone, so only the calendar moves. (libfaketime
does the same from outside the process, but under it Python 3.11's `time.sleep` and `Event.wait` fail with
EINVAL or never return: it proves nothing of labdeck.) Processes that tests start (the `--demo` sandbox, the
CLI) keep the real calendar, as a server in another time zone or with another clock would.

    .venv/bin/python -m pytest -q -n 5 --shift-clock 365
    .venv/bin/python -m pytest -q -n 5 --shift-clock -365
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import time_machine


def shift_clock(days: int) -> Callable[[], None]:
    """Move the calendar `days` days from now, ticking; the function that puts it back."""
    traveller = time_machine.travel(datetime.now(UTC) + timedelta(days=days), tick=True)
    traveller.start()
    return traveller.stop
