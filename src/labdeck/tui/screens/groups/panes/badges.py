"""The Badges tab of `:groups`: the group's badges (their link and image as typed and as rendered); `a`,
`e`, `x` add, edit and delete one (`EditedPane`, the badges editor: its form renders the typed URLs with
the server's `render`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from labdeck.tui.kit.edited import EditedPane
from labdeck.tui.kit.owner import Owner
from labdeck.tui.screens.groups.editors import BADGES
from labdeck.tui.screens.groups.tabs import badge_tab

if TYPE_CHECKING:
    from labdeck.api.services import Services


class BadgesPane(EditedPane):
    EDITOR = BADGES

    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str | None = None) -> None:
        super().__init__(owner, badge_tab(), id=id, view_id=view_id)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        return list(await services.badges.list_badges(self.ref, refresh=refresh))
