"""The screen an area opens when its view is not part of this build yet."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from labdeck.tui.areas import Area
from labdeck.tui.screens.base import LabdeckScreen


class UnavailableScreen(LabdeckScreen):
    """Says the area is not available in this build, and what it would show."""

    CSS_PATH = "unavailable.tcss"

    def __init__(self, area: Area) -> None:
        super().__init__()
        self.area = area
        self.title = area.title

    def compose_body(self) -> ComposeResult:
        yield Static(Content.from_markup(
            "[b]$title[/b] is not available in this build.\n\n$description\n\nPress escape to go back.",
            title=self.area.title, description=self.area.description), id="unavailable")
