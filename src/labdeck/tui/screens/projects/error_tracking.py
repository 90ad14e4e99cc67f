"""The project view's Error tracking tab, a pane of the kit that shows one resource (the settings, read
through their binding: active, project, tracker URL, API URL), and `t` to enable or disable them
(Maintainers; others see the server's refusal). A project without settings, a refusal to read them and a
failed read are said in place of the settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from labdeck.api import bindings
from labdeck.api.errors import Forbidden, LabdeckError, NotFound
from labdeck.api.models.project_resources import ErrorTrackingSettings
from labdeck.api.models.projects import Project
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import LoadedPane
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import error_text
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import TAB_KEYS

if TYPE_CHECKING:
    from labdeck.api.services import Services


def settings_text(settings: ErrorTrackingSettings) -> Text:
    text = Text()
    text.append("Error tracking is ")
    if settings.active:
        text.append("enabled", style="bold green")
    else:
        text.append("disabled", style="bold")
    fields = (("project", settings.project_name), ("tracker", settings.external_url),
              ("API URL", settings.api_url))
    append_fields(text, ((label, value or "—") for label, value in fields), width=10)
    text.append("\n\n")
    text.append("t: disable" if settings.active else "t: enable", style="dim")
    return text


MAINTAINERS_ONLY = "Only Maintainers can see the error tracking settings."


class ErrorTrackingTab(LoadedPane[ErrorTrackingSettings | None]):
    RESOURCE = bindings.PROJECT_ERROR_TRACKING
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Action("t", "toggle", "Enable/disable", id="project_error_tracking.toggle",
               mutating=True, footer=True),
        *shown(TAB_KEYS),
        Shown("fork"),
    )
    DEFAULT_CSS = "ErrorTrackingTab { height: 1fr; padding: 1 2; }"
    can_focus = True

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = project_owner(project)
        self.project = project
        self.settings: ErrorTrackingSettings | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading…", markup=False, id="error-tracking-text")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.policy_allows(action):
            return False
        return self.settings is not None if action == "toggle" else True

    def show(self, renderable: Text) -> None:
        self.query_one("#error-tracking-text", Static).update(renderable)

    async def read(self, services: Services, refresh: bool) -> ErrorTrackingSettings | None:
        """The settings; None when the project has none (GitLab answers 404)."""
        try:
            return await super().read(services, refresh)
        except NotFound:
            return None

    def explain(self, error: LabdeckError) -> str | None:
        if isinstance(error, Forbidden):
            return MAINTAINERS_ONLY
        return f"Could not load the settings: {error_text(error)}"

    def show_data(self, data: ErrorTrackingSettings | None) -> None:
        self.settings = data
        self.show(settings_text(data) if data is not None
                  else Text("Error tracking is not set up for this project."))
        self.refresh_bindings()

    def show_reason(self, text: str) -> None:
        self.settings = None
        self.show(Text(text, style="" if text == MAINTAINERS_ONLY else "red"))
        self.refresh_bindings()

    # the tab's own `toggle` (tracking on or off), not DOMNode's (which flips a named attribute)
    def action_toggle(self) -> None:  # type: ignore[override]
        if self.settings is None:
            return
        active = not self.settings.active
        verb = "Enable" if active else "Disable"
        message = Content.from_markup("$verb error tracking for [b]$path[/b]?", verb=verb,
                                      path=self.owner.where)

        def answered(yes: bool | None) -> None:
            if yes:
                self.set_active(active)

        self.app.push_screen(ConfirmScreen(f"{verb} error tracking", message, confirm_label=verb,
                                           danger=not active), answered)

    @work(group="project-error-tracking-set")
    async def set_active(self, active: bool) -> None:
        self.show_data(await self.ctx.services.error_tracking.set_active(self.project.id, active))
        self.notify(f"Error tracking {'enabled' if active else 'disabled'}", markup=False)
