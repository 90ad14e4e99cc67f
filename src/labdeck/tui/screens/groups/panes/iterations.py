"""The Iterations tab of `:groups` (GitLab Premium, 13.5): the group's iterations, read from their binding
(no service method); where the instance lacks the feature its endpoint holds, the list says why and nothing
is sent (`ListPane.feature`)."""

from __future__ import annotations

from labdeck.api import bindings
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.screens.groups.tabs import iteration_tab


class IterationsPane(ListPane):
    LISTING = bindings.GROUP_ITERATIONS

    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str | None = None) -> None:
        super().__init__(owner, iteration_tab(), id=id, view_id=view_id)
