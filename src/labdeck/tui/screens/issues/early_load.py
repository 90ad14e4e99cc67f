"""The issues listing's first page asked for while the screen is still being built: page 1 is on its way
while Textual mounts the widgets (about 0.15 s), and the loading worker takes the list over once the screen
is mounted (issue 16: first rows under 0.3 s). Only the first page: the rest is read on demand
(`api/windowed.py`, issue 25). A load whose query or scope changed meanwhile is cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from labdeck.api.issues import GroupId, IssuesService
from labdeck.api.models.issues import Issue
from labdeck.api.windowed import WindowedList


class EarlyLoad:
    """`IssuesService.window(params, group)` with its first page on the way; `take` hands both over."""

    def __init__(self, service: IssuesService, params: Mapping[str, Any], group: GroupId | None) -> None:
        self.params, self.group = dict(params), group
        self.window: WindowedList[Issue] = service.window(self.params, group=group)
        self.task: asyncio.Task[list[Issue]] = asyncio.ensure_future(self.window.start())
        self.task.add_done_callback(_retrieve)

    def take(self, params: Mapping[str, Any],
             group: GroupId | None) -> tuple[WindowedList[Issue], asyncio.Task[list[Issue]]] | None:
        """The window and its first page's task when they are for `params` and `group`; None, and the
        load cancelled, when they are for another listing."""
        if (dict(params), group) != (self.params, self.group):
            self.cancel()
            return None
        return self.window, self.task

    def cancel(self) -> None:
        self.task.cancel()
        self.window.cancel()


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Read the outcome of a load nobody awaited (cancelled with its screen) so asyncio does not log it."""
    if not task.cancelled():
        task.exception()
