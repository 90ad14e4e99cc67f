"""The project view's Error tracking tab: the settings (active, project, tracker URL, API URL), and `t` to
enable or disable them (Maintainers; others see the server's refusal). A project without settings says so.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.errors import Forbidden, LabdeckError, NotFound
from labdeck.api.models.project_resources import ErrorTrackingSettings
from labdeck.api.models.projects import Project
from labdeck.tui.context import context_of
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import error_text
from labdeck.tui.widgets.detail_fields import append_fields


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


class ErrorTrackingTab(PanePolicy, Widget):
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    FOOTER_ORDER = ("toggle", "next_tab", "previous_tab", "fork")
    BINDINGS = [Binding("t", "toggle", "Enable/disable", id="project_error_tracking.toggle")]
    DEFAULT_CSS = "ErrorTrackingTab { height: 1fr; padding: 1 2; }"
    can_focus = True

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.project = project
        self.settings: ErrorTrackingSettings | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading…", markup=False, id="error-tracking-text")

    def on_mount(self) -> None:
        self.load()

    MUTATING_ACTIONS = frozenset({"toggle"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.policy_allows(action):
            return False
        return self.settings is not None if action == "toggle" else True

    def show(self, renderable: Text) -> None:
        self.query_one("#error-tracking-text", Static).update(renderable)

    def reload(self) -> None:
        self.load()

    @work(exclusive=True, group="project-error-tracking")
    async def load(self) -> None:
        session = context_of(self).session
        if session is None:
            return
        try:
            self.settings = await session.services.error_tracking.settings(self.project.id)
        except NotFound:
            self.settings = None
            self.show(Text("Error tracking is not set up for this project."))
        except Forbidden:
            self.settings = None
            self.show(Text("Only Maintainers can see the error tracking settings."))
        except LabdeckError as error:
            self.settings = None
            self.show(Text(f"Could not load the settings: {error_text(error)}", style="red"))
        else:
            self.show(settings_text(self.settings))
        self.refresh_bindings()

    # the tab's own `toggle` (tracking on or off), not DOMNode's (which flips a named attribute)
    def action_toggle(self) -> None:  # type: ignore[override]
        if self.settings is None:
            return
        active = not self.settings.active
        verb = "Enable" if active else "Disable"
        message = Content.from_markup("$verb error tracking for [b]$path[/b]?", verb=verb,
                                      path=self.project.path_with_namespace or str(self.project.id))

        def answered(yes: bool | None) -> None:
            if yes:
                self.set_active(active)

        self.app.push_screen(ConfirmScreen(f"{verb} error tracking", message, confirm_label=verb,
                                           danger=not active), answered)

    @work(group="project-error-tracking-set")
    async def set_active(self, active: bool) -> None:
        session = context_of(self).session
        if session is None:
            return
        self.settings = await session.services.error_tracking.set_active(self.project.id, active)
        self.show(settings_text(self.settings))
        self.notify(f"Error tracking {'enabled' if active else 'disabled'}", markup=False)
