"""The issues listing's load started while the screen is still being built: page 1 is on its way while
Textual mounts the widgets (about 0.15 s), and the loading worker takes the load over once the screen is
mounted (issue 16: first rows under 0.3 s). A load whose query or scope changed meanwhile is cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from labdeck.api.issues import GroupId, IssuesService
from labdeck.api.models.issues import Issue

FirstPage = Callable[[list[Issue]], None]


class EarlyLoad:
    """`IssuesService.load(params, group)` running; `take` hands it to the worker that shows it."""

    def __init__(self, service: IssuesService, params: Mapping[str, Any], group: GroupId | None) -> None:
        self.params, self.group = dict(params), group
        self.first: list[Issue] | None = None
        self._on_first: FirstPage | None = None
        self.task = asyncio.create_task(service.load(self.params, group=group, on_first_page=self._arrived))
        self.task.add_done_callback(_retrieve)

    def _arrived(self, page: list[Issue]) -> None:
        if self._on_first is None:
            self.first = page  # the screen is not mounted yet: `take` shows it
        else:
            self._on_first(page)

    def take(self, params: Mapping[str, Any], group: GroupId | None,
             on_first_page: FirstPage) -> asyncio.Task[list[Issue]] | None:
        """The running load when it is for `params` and `group` (page 1 handed to `on_first_page` now if
        it has arrived, else when it does); None, and the load cancelled, when it is for another listing."""
        if (dict(params), group) != (self.params, self.group):
            self.cancel()
            return None
        self._on_first = on_first_page
        if self.first is not None:
            first, self.first = self.first, None
            on_first_page(first)
        return self.task

    def cancel(self) -> None:
        self.task.cancel()


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Read the outcome of a load nobody awaited (cancelled with its screen) so asyncio does not log it."""
    if not task.cancelled():
        task.exception()
