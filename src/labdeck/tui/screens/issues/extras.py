"""What an issue's detail loads besides the issue (its notes, related and closing merge requests), read
the same way by `:issues` and the project view's Issues tab: a failure is the detail's to show, never
raised."""

from __future__ import annotations

import asyncio

from labdeck.api.errors import LabdeckError
from labdeck.api.issues import IssuesService
from labdeck.api.models.issues import Issue
from labdeck.tui.screens.issues.render import Extras


async def read_extras(service: IssuesService, issue: Issue, *, refresh: bool = False) -> Extras:
    pid, iid = issue.project_id, issue.iid
    try:
        notes, related, closing = await asyncio.gather(
            service.notes(pid, iid, refresh=refresh),
            service.related_merge_requests(pid, iid, refresh=refresh),
            service.closed_by(pid, iid, refresh=refresh))
    except LabdeckError as exc:
        return Extras(error=str(exc))
    return Extras(notes, related, closing)
