"""What `GroupActions` (`actions.py`) may use of `GroupsScreen` (`groups.py`), the screen it is mixed into,
declared for the type checker only: at run time `GroupsHost` is `object`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import date
    from pathlib import Path

    from textual.worker import Worker

    from labdeck.api.models.group_transfer import RelationStatus
    from labdeck.api.models.groups import Group
    from labdeck.api.services import Services
    from labdeck.tui.screens.base import LabdeckScreen
    from labdeck.tui.widgets.resource_table import ResourceTable
    from labdeck.tui.widgets.resource_view import ResourceView

    class GroupsHost(LabdeckScreen):
        """The members of `GroupsScreen` its actions read (see there for what each means)."""

        today: Callable[[], date]
        download_dir: Path
        download_dir_given: bool
        group: Group | None
        relations: list[RelationStatus]

        @property
        def services(self) -> Services | None: ...
        @property
        def active_tab(self) -> str: ...
        def table(self, tab: str | None = None) -> ResourceTable: ...
        def view(self, tab: str | None = None) -> ResourceView: ...
        def tree_has_focus(self, what: str) -> bool: ...
        def reload(self, tab: str | None = None) -> None: ...
        def load_roots(self, refresh: bool = False) -> Worker[None]: ...
else:
    GroupsHost = object
