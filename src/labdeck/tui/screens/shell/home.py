"""The home view: the areas of the registry, each with what it is for (enter opens one), beside the
operator's overview of what needs attention (once signed in)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labdeck.tui.areas import Area, shown_areas
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.shell.overview import OverviewPanel

NARROW = 110  # columns below which the overview sits under the areas, not beside them


def _prompt(area: Area) -> Content:
    note = "" if area.available else "  (not available in this build)"
    return Content.from_markup("[b]$title[/b]  [dim]:$name$note[/dim]\n  $description",
                               title=area.title, name=area.name, note=note, description=area.description)


class HomeScreen(LabdeckScreen):
    CSS_PATH = "home.tcss"
    TITLE = "Home"
    FOOTER_PANES = {"areas": ("select", "jump", "command_palette"),
                    "home-overview": ("select", "refresh", "jump")}

    def compose_body(self) -> ComposeResult:
        yield Static("Areas · enter opens · : jumps by name · ctrl+p for every command", id="home-hint")
        yield Static("", id="home-reach")
        with Horizontal(id="home-body"):
            yield OptionList(*self._options(), id="areas")
            yield OverviewPanel(id="home-overview")  # shown once an instance is connected

    def refresh_data(self) -> None:
        for panel in self.query(OverviewPanel):
            if self._overview_shown():
                panel.load()

    def on_screen_resume(self) -> None:  # (the base's handler runs too: Textual calls each class's)
        for panel in self.query(OverviewPanel):
            if panel.display:
                panel.follow_scope()  # a board or a project opened since: its failures are read

    def _overview_shown(self) -> bool:
        """The overview needs a session, and reads nothing a CI job token reaches: with one, it is hidden
        (not an empty "Needs attention" box)."""
        return self.ctx.session is not None and not self.ctx.policy.job_token

    def on_resize(self, event: events.Resize) -> None:
        """Below `NARROW` columns the overview goes under the areas instead of beside them."""
        narrow = event.size.width < NARROW
        self.query_one("#home-body").styles.layout = "vertical" if narrow else "horizontal"
        for widget in self.query("#areas, #home-overview"):
            widget.styles.width = "100%" if narrow else "1fr"
            widget.styles.height = "1fr"

    def on_mount(self) -> None:
        self._show_reach()
        self.query_one(OverviewPanel).display = self._overview_shown()

    def _options(self) -> list[Option]:
        return [Option(_prompt(area), id=area.name)
                for area in shown_areas(self.ctx.is_admin, self.ctx.area_allowed)]

    def _show_reach(self) -> None:
        """With a job token, one line saying what it reaches (server text as plain text, never markup)."""
        reach = self.query_one("#home-reach", Static)
        note = self.ctx.reach_note()
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
        for panel in self.query(OverviewPanel):
            panel.display = self._overview_shown()
            if panel.display:
                panel.load_once()  # the overview depends on who signed in

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "areas" and event.option.id:
            self.ctx.open_area(event.option.id)
