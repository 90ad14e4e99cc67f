"""What `GroupActions` (`actions.py`), `PaneTabs` (`pane_tabs.py`) and the tabs' pane factories
(`tab_list.py`) may use of `GroupsScreen` (`groups.py`), the screen they are mixed into or made by,
declared for the type checker only: at run time `GroupsHost` is `object`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import date
    from pathlib import Path
    from typing import Any

    from textual.worker import Worker

    from labdeck.api.models.groups import Group
    from labdeck.tui.screens.base import LabdeckScreen

    class GroupsHost(LabdeckScreen):
        """The members of `GroupsScreen` its mixins and pane factories read (see there for each)."""

        today: Callable[[], date]
        download_dir: Path
        download_dir_given: bool
        group: Group | None

        @property
        def active_tab(self) -> str: ...
        def tree_has_focus(self, what: str) -> bool: ...
        def ask_folder(self, what: str, then: Callable[[Path], Any]) -> None: ...
        def load_roots(self, refresh: bool = False) -> Worker[None]: ...
else:
    GroupsHost = object
