"""The issues listing's first page asked for while the screen is still being built (`list_feed.EarlyWindow`
for the issues service): page 1 is on its way while Textual mounts the widgets, and the loading worker takes
the list over once the screen is mounted (issue 16: first rows under 0.3 s). Only the first page: the rest
is read on demand (`api/windowed.py`, issue 25). A load whose query or scope changed meanwhile is
cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from labdeck.api.issue_scopes import GroupId
from labdeck.api.issues import IssuesService
from labdeck.api.models.issues import Issue
from labdeck.api.windowed import WindowedList
from labdeck.tui.list_feed import EarlyWindow


class EarlyLoad(EarlyWindow[Issue]):
    """`IssuesService.window(params, group)` with its first page on the way; `take` hands both over."""

    def __init__(self, service: IssuesService, params: Mapping[str, Any], group: GroupId | None) -> None:
        self.params, self.group = dict(params), group
        super().__init__(service.window(self.params, group=group), _key(params, group))

    def take(self, params: Mapping[str, Any],  # type: ignore[override]
             group: GroupId | None) -> tuple[WindowedList[Issue], asyncio.Task[list[Issue]]] | None:
        """The window and its first page's task when they are for `params` and `group`; None, and the
        load cancelled, when they are for another listing."""
        return super().take(_key(params, group))


def _key(params: Mapping[str, Any], group: GroupId | None) -> str:
    return repr((sorted((k, repr(v)) for k, v in params.items()), group))
