"""The home view: the areas of the registry, each with what it is for; enter opens one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labdeck.tui.areas import Area, shown_areas
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
        yield Static("", id="home-reach")
        yield OptionList(*self._options(), id="areas")

    def on_mount(self) -> None:
        self._show_reach()

    def _options(self) -> list[Option]:
        return [Option(_prompt(area), id=area.name)
                for area in shown_areas(self.labdeck.is_admin, self.labdeck.area_allowed)]

    def _show_reach(self) -> None:
        """With a job token, one line saying what it reaches (server text as plain text, never markup)."""
        reach = self.query_one("#home-reach", Static)
        note = self.labdeck.reach_note()
        reach.update(Text(note) if note else "")
        reach.display = bool(note)

    def refresh_areas(self) -> None:
        """Rebuild the list (called when the signed-in user becomes known or changes)."""
        self._show_reach()
        areas = self.query_one("#areas", OptionList)
        highlighted = areas.highlighted
        areas.clear_options()
        areas.add_options(self._options())
        if highlighted is not None and areas.option_count:
            areas.highlighted = min(highlighted, areas.option_count - 1)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.labdeck.open_area(event.option.id)
