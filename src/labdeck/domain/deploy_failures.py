"""Failed deployments in a window (issue 34): the one definition the overview and the group deployments board
count by, and the words that say what a count covers.

- A deployment failed in the window when its status is `failed` and it was last updated (when it failed: a
  finished deployment is not updated again) within the window: from `now - length`, at whole seconds (what
  the listing's `updated_after` can say), to `now`, both included as GitLab's listing filter includes them
  (`deployments.updated_within`). A reader that asks the server (`status=failed&updated_after=...`, the
  overview) and one that filters the deployments it holds (the board's 30 days) count the same ones.
- A count states its scope: how many projects it covers, how many of them were read (a request budget
  may stop short) and which could not be read (`Coverage.text`), never silently fewer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from labdeck.domain.deployments import updated_within

FAILED = "failed"
DAY = timedelta(hours=24)
NAMED = 3  # unreadable projects named before "and N more"


class Updated(Protocol):
    """What the definition needs of a deployment."""

    @property
    def status(self) -> str: ...

    @property
    def updated_at(self) -> datetime | None: ...


U = TypeVar("U", bound=Updated)


@dataclass(frozen=True)
class FailureWindow:
    """The last `length` (24 hours) before `now`, the instance's time."""

    now: datetime
    length: timedelta = DAY

    @property
    def since(self) -> datetime:
        """The window's first instant, at whole seconds (the listing's `updated_after`)."""
        return (self.now - self.length).replace(microsecond=0)

    def holds(self, status: str, updated_at: datetime | None) -> bool:
        """Whether a deployment with this status and update time failed in the window."""
        return status == FAILED and updated_within(updated_at, self.since, self.now)

    def failed(self, deployments: Iterable[U]) -> list[U]:
        """The deployments that failed in the window, in the order given."""
        return [d for d in deployments if self.holds(d.status, d.updated_at)]

    @property
    def hours(self) -> int:
        return max(1, round(self.length.total_seconds() / 3600))

    @property
    def words(self) -> str:
        """`last 24 hours`."""
        return f"last {self.hours} hour{'' if self.hours == 1 else 's'}"

    def count_text(self, count: int) -> str:
        """`8 deployments failed in 24h`, `1 deployment failed in 24h`, `no deployment failed in 24h`."""
        what = "no deployment" if count == 0 else f"{count:,} deployment{'' if count == 1 else 's'}"
        return f"{what} failed in {self.hours}h"


@dataclass(frozen=True)
class Coverage:
    """The projects a count covers: `read` of the `total` in its scope, and those that could not be read."""

    read: int
    total: int
    unreadable: Sequence[str] = field(default_factory=tuple)

    @property
    def complete(self) -> bool:
        return self.read + len(self.unreadable) >= self.total

    def text(self) -> str:
        """`36 projects`, `30 of 36 projects (request budget)`, with `; 3 unreadable: a, b, c and 1 more`."""
        counted = self.read + len(self.unreadable)
        plural = "" if self.total == 1 else "s"
        out = f"{self.total:,} project{plural}" if self.complete else \
            f"{counted:,} of {self.total:,} project{plural} (request budget)"
        if self.unreadable:
            names = ", ".join(self.unreadable[:NAMED])
            more = f" and {len(self.unreadable) - NAMED} more" if len(self.unreadable) > NAMED else ""
            out += f"; {len(self.unreadable)} unreadable: {names}{more}"
        return out
