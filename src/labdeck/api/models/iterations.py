"""Iterations (GitLab's API docs, "Iteration"); `state` is 1 upcoming, 2 started, 3 closed."""

from __future__ import annotations

from datetime import date, datetime
from enum import IntEnum

from labdeck.api.models.base import ApiModel


class IterationState(IntEnum):
    UPCOMING = 1
    STARTED = 2
    CLOSED = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Iteration(ApiModel):
    id: int
    iid: int | None = None
    group_id: int | None = None
    title: str | None = None
    description: str | None = None
    state: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    start_date: date | None = None
    due_date: date | None = None
    web_url: str | None = None

    @property
    def state_label(self) -> str:
        """`upcoming`, `started`, `closed`, or the raw number for a state we do not know."""
        try:
            return IterationState(self.state or 0).label
        except ValueError:
            return str(self.state)
