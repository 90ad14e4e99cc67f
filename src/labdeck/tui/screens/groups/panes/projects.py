"""The Projects tab of `:groups`: the group's projects (its own and those shared with it, by path), enter
opening the project view."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from labdeck.api.groups import ProjectQuery
from labdeck.api.models.groups import Group
from labdeck.api.models.projects import Project
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.screens.groups.tabs import project_tab
from labdeck.tui.widgets.resource_table import ResourceTable

if TYPE_CHECKING:
    from labdeck.api.services import Services


class ProjectsPane(ListPane):
    def __init__(self, owner: Owner, group: Callable[[], Group | None], *, id: str | None = None,
                 view_id: str | None = None) -> None:
        super().__init__(owner, project_tab(group), id=id, view_id=view_id)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        query = ProjectQuery(order_by="path", sort="asc")
        return list(await services.groups.projects(self.ref, query, refresh=refresh))

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, Project):
            event.stop()
            from labdeck.tui.screens.projects.view import ProjectViewScreen

            self.app.push_screen(ProjectViewScreen(event.row))
