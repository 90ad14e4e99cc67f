"""Watch mode (`W`): keep a screen's list fresh at an interval and show what changed behind your back.

At once when turned on, then every interval (`[watch]` in the config: seconds per view, `default` for the
rest; 30 s otherwise) the watcher remembers the plain text of every row, asks the screen to refresh
(`refresh_data`, past the cache), and when the new rows arrive it briefly highlights the rows that changed
or appeared and says which vanished. It pauses while a form or dialog is open over the screen or rows are
marked (a refresh would not disturb them, but the operator is in the middle of something), and backs off,
doubling the interval up to ten minutes, while fewer than a tenth of the rate limit remains. Its state is
the screen's sub-title (the header adds the instance's name to it: `app_base.format_title`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from labdeck.tui.context import context_of

if TYPE_CHECKING:
    from labdeck.tui.screens.base import LabdeckScreen
    from labdeck.tui.widgets.resource_table import ResourceTable

DEFAULT_SECONDS = 30.0
MAX_SECONDS = 600.0
LOW_RATE = 0.1


def seconds_for(watch: Mapping[str, float], view: str | None) -> float:
    """The interval of `view` from the config's `[watch]` table."""
    return float(watch.get(view or "", watch.get("default", DEFAULT_SECONDS)))


def compare(before: Mapping[Hashable, str], after: Mapping[Hashable, str]) -> tuple[set[Hashable],
                                                                                     set[Hashable],
                                                                                     set[Hashable]]:
    """(changed, appeared, vanished) row keys between two refreshes."""
    changed = {key for key, text in after.items() if key in before and before[key] != text}
    appeared = after.keys() - before.keys()
    vanished = before.keys() - after.keys()
    return changed, set(appeared), set(vanished)


def rate_is_low(client: Any) -> bool:
    state = getattr(client, "rate_limit", None)
    remaining, limit = getattr(state, "remaining", None), getattr(state, "limit", None)
    return remaining is not None and limit is not None and bool(limit) and remaining < limit * LOW_RATE


class Stoppable(Protocol):
    def stop(self) -> None: ...


# `schedule(seconds, callback)`: call `callback` once after `seconds` (the screen's `set_timer`; a test's
# own clock), returning what stops it.
Schedule = Callable[[float, Callable[[], None]], Stoppable]


class Watcher:
    """Watches one table of one screen: a refresh at once, then one every interval; `stop()` ends it."""

    def __init__(self, screen: LabdeckScreen, table: ResourceTable, seconds: float, *,
                 schedule: Schedule | None = None) -> None:
        self.screen = screen
        self.table = table
        self.base = seconds
        self.seconds = seconds
        self.state = f"watching every {seconds:g}s"
        self.last: tuple[int, int, int] | None = None  # changed, appeared, vanished of the last refresh
        self._before: dict[Hashable, str] | None = None
        self._timer: Stoppable | None = None
        self._schedule: Schedule = schedule or (lambda delay, callback: screen.set_timer(delay, callback))
        table.on_rows_set = self._rows_set
        self._set_state(self.state)
        self.tick()  # the first refresh now, not an interval from now

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = None
        if self.table.on_rows_set == self._rows_set:
            self.table.on_rows_set = None

    def _arm(self) -> None:
        self._timer = self._schedule(self.seconds, self.tick)

    def tick(self) -> None:
        """One refresh (or a pause with its reason); called by the timer, and by tests."""
        if not self.screen.is_attached:
            return
        self._arm()
        if self.screen.app.screen is not self.screen:
            self._set_state("paused while a form is open")
            return
        if self.table.marked_rows:
            self._set_state("paused while rows are marked")
            return
        session = context_of(self.screen).session
        if session is not None and rate_is_low(session.client):
            self.seconds = min(self.seconds * 2, MAX_SECONDS)
            self._set_state(f"rate limit low: every {self.seconds:g}s")
        else:
            self.seconds = self.base
        self._before = self.table.model.fingerprints()
        self.screen.refresh_data()

    def _rows_set(self) -> None:
        if self._before is None:
            return
        before, self._before = self._before, None
        changed, appeared, vanished = compare(before, self.table.model.fingerprints())
        self.last = (len(changed), len(appeared), len(vanished))
        self.table.flash(changed | appeared)
        stamp = time.strftime("%H:%M:%S")
        self._set_state(f"watching every {self.seconds:g}s · {stamp}: {len(changed)} changed, "
                        f"{len(appeared)} new, {len(vanished)} gone")
        if vanished:
            shown = ", ".join(before[key].split("\x1f", 1)[0] for key in list(vanished)[:5])
            more = f" and {len(vanished) - 5} more" if len(vanished) > 5 else ""
            self.screen.notify(f"{len(vanished)} row(s) gone since the last refresh: {shown}{more}",
                               title="Watch", markup=False)

    def _set_state(self, text: str) -> None:
        self.state = text
        self.screen.sub_title = text
