"""Group relations export status entries (GitLab's API docs): status 0 started, 1 finished, -1 failed."""

from __future__ import annotations

from datetime import datetime
from enum import IntEnum

from labdeck.api.models.base import ApiModel


class RelationState(IntEnum):
    STARTED = 0
    FINISHED = 1
    FAILED = -1


class RelationStatus(ApiModel):
    relation: str
    status: int
    error: str | None = None
    updated_at: datetime | None = None
    batched: bool | None = None
    batches_count: int | None = None
    total_objects_count: int | None = None

    @property
    def state(self) -> RelationState:
        return RelationState(self.status)
