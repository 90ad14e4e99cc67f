"""The Subgroups tab of `:groups`: the group's direct subgroups (enter on one selects it in the tree: the
screen does that, as the tree is its own)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.screens.groups.tabs import subgroup_tab

if TYPE_CHECKING:
    from labdeck.api.services import Services


class SubgroupsPane(ListPane):
    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str | None = None) -> None:
        super().__init__(owner, subgroup_tab(), id=id, view_id=view_id)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        return list(await services.groups.subgroups(self.ref, refresh=refresh))
