"""The home view: the areas of the registry, each with what it is for; enter opens one."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labdeck.tui.areas import AREAS, Area
from labdeck.tui.screens.base import LabdeckScreen


def _prompt(area: Area) -> Content:
    note = "" if area.available else "  (not available in this build)"
    return Content.from_markup("[b]$title[/b]  [dim]:$name$note[/dim]\n  $description",
                               title=area.title, name=area.name, note=note, description=area.description)


class HomeScreen(LabdeckScreen):
    CSS_PATH = "home.tcss"
    TITLE = "Home"

    def compose_body(self) -> ComposeResult:
        yield Static("Areas · enter opens · : jumps by name · ctrl+p for every command", id="home-hint")
        yield OptionList(*[Option(_prompt(area), id=area.name) for area in AREAS.values()], id="areas")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.labdeck.open_area(event.option.id)
