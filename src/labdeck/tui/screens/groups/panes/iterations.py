"""The Iterations tab of `:groups` (GitLab Premium, 13.5): the group's iterations; where the instance
lacks the feature the list says why and nothing is sent (`ListPane.FEATURE`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from labdeck.domain.features import ITERATIONS
from labdeck.tui.screens.groups.tabs import iteration_tab
from labdeck.tui.screens.owner import Owner
from labdeck.tui.screens.panes.listed import ListPane

if TYPE_CHECKING:
    from labdeck.api.services import Services


class IterationsPane(ListPane):
    FEATURE = ITERATIONS

    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str | None = None) -> None:
        super().__init__(owner, iteration_tab(), id=id, view_id=view_id)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        return list(await services.iterations.group_iterations(self.ref, refresh=refresh))
