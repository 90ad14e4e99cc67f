"""The base of labdeck's full screens: header, body, status bar and footer; read-only mode through
`check_action` (actions listed in `MUTATING_ACTIONS` are hidden and disabled); the data-age clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header

from labdeck.tui.links import copy_text, open_link, reference_of, web_url_of
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from labdeck.tui.app import LabdeckApp


class LabdeckScreen(Screen[None]):
    """Subclasses implement `compose_body()` and, when they show server data, `refresh_data()`."""

    AREA: ClassVar[str | None] = None
    MUTATING_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    BINDINGS = [
        Binding("o", "open_in_browser", "Open in browser", show=False, id="open_in_browser"),
        Binding("y", "copy_reference", "Copy URL", show=False, id="copy_reference"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.data_loaded_at: float | None = None

    @property
    def labdeck(self) -> LabdeckApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield from self.compose_body()
        with Vertical(classes="bottom-bars"):
            yield StatusBar()
            yield Footer(show_command_palette=False)

    def compose_body(self) -> ComposeResult:
        yield from ()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.MUTATING_ACTIONS and getattr(self.app, "read_only", False):
            return False
        return True

    def selected_item(self) -> Any:
        """The row `o` and `y` act on: by default the cursor row of the screen's focused or first table."""
        focused = self.focused
        tables = [focused] if isinstance(focused, ResourceTable) else list(self.query(ResourceTable))
        return tables[0].cursor_row if tables else None

    def action_open_in_browser(self) -> None:
        url = web_url_of(self.selected_item())
        if url is None:
            self.notify("Nothing here has a web page", severity="warning")
            return
        open_link(self.labdeck, url)

    def action_copy_reference(self) -> None:
        item = self.selected_item()
        url, reference = web_url_of(item), reference_of(item)
        if url is not None:
            copy_text(self.labdeck, url, "URL")
        elif reference is not None:
            copy_text(self.labdeck, reference, "reference")
        else:
            self.notify("Nothing to copy here", severity="warning")

    def refresh_data(self) -> None:
        """Reload what the screen shows (`r`); screens without server data ignore it."""

    def mark_data_loaded(self) -> None:
        self.data_loaded_at = self.labdeck.clock()
        self.refresh_status()

    def refresh_status(self) -> None:
        for bar in self.query(StatusBar):
            bar.refresh_status()
