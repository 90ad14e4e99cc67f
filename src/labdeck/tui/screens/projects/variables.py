"""The project view's Variables tab: the project's CI/CD variables (`/projects/:id/variables`), with the keys
of the group Variables tab: `a` adds and `e` edits through the group variables' form (key rules, masking,
raw, description, masked and hidden on create, the environment scope: every edition has it for projects),
`x` deletes once the key is typed, `m` reveals a masked value, `y` copies a value (the notification never
shows it). A hidden value was never sent, so `m` and `y` say so. The table, form, change and confirmation
are the group tab's own pieces (`groups.tabs`, `groups.forms`, `screens.ci_variables`); revealed values
live in this widget only, never on disk.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.errors import LabdeckError
from labdeck.api.models.projects import Project
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import Owner, VariableError, VariablesService
from labdeck.tui.context import context_of
from labdeck.tui.pane_policy import PanePolicy
from labdeck.tui.screens.ci_variables import VariableListKeys, change_variable, delete_variable_screen
from labdeck.tui.screens.groups.forms import Values, variable_form
from labdeck.tui.screens.groups.tabs import variable_tab
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_view import ResourceView


class VariablesTab(PanePolicy, VariableListKeys, Widget):
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    FOOTER_ORDER = ("select", "edit_variable", "add_variable", "delete_variable", "reveal", "copy_value",
                    "next_tab", "previous_tab", "fork", *LIST_KEYS)
    BINDINGS = [
        Binding("a", "add_variable", "Add", id="project_variables.add"),
        Binding("e", "edit_variable", "Edit", id="project_variables.edit"),
        Binding("x", "delete_variable", "Delete", id="project_variables.delete"),
        Binding("m", "reveal", "Reveal value", id="project_variables.reveal"),
        Binding("y", "copy_value", "Copy value", id="project_variables.copy_value"),
    ]
    MUTATING_ACTIONS = frozenset({"add_variable", "edit_variable", "delete_variable"})
    ROW_ACTIONS = frozenset({"edit_variable", "delete_variable"})
    FORBIDDEN_HINT = "project variables need the Maintainer role"
    DEFAULT_CSS = """
    VariablesTab { height: 1fr; }
    VariablesTab #variables-status { height: 1; padding: 0 1; }
    """

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.project = project
        self.revealed: set[tuple[str, str]] = set()
        self.spec = variable_tab(self.revealed)

    @property
    def owner(self) -> Owner:
        return ("projects", self.project.id)

    @property
    def where(self) -> str:
        return self.project.path_with_namespace or str(self.project.id)

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="variables-status")
        yield ResourceView(self.spec.columns, cells=self.spec.cells, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text="No variables", enter_opens_detail=True,
                           id="variables-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#variables-view", ResourceView)

    def variables_view(self) -> ResourceView:
        return self.view

    @property
    def service(self) -> VariablesService | None:
        session = context_of(self).session
        return session.services.variables if session else None

    def on_mount(self) -> None:
        self.load()

    def show_status(self, text: str, style: str = "dim") -> None:
        self.query_one("#variables-status", Static).update(Text(text, style=style))

    def refused(self, error: LabdeckError | VariableError) -> None:
        """A refusal (the server's status and message), in the status line and as a notification."""
        text = self.refusal_text(error)
        self.show_status(text, "red")
        self.notify(text, severity="error", markup=False)

    def reload(self) -> None:
        self.load(refresh=True)

    @work(exclusive=True, group="project-variables")
    async def load(self, refresh: bool = False) -> None:
        service = self.service
        if service is None:
            return
        try:
            rows = await service.variables(self.owner, refresh=refresh)
        except LabdeckError as error:  # in the tab's status line only: the tab may not even be in view
            self.show_status(self.refusal_text(error), "red")
            return
        self.view.table.set_rows(rows)
        self.show_status(f"{len(rows)} variable(s) of {self.where}")

    # -- actions --------------------------------------------------------------------------------------
    def action_add_variable(self) -> None:
        self.open_form(None)

    def action_edit_variable(self) -> None:
        row = self.current()
        if row is not None:
            self.open_form(row)

    def open_form(self, row: CiVariable | None) -> None:
        service, owner = self.service, self.owner
        if service is not None:
            what = "edit" if row is not None else "add"
            self.open_variable_form(variable_form(row), row,
                                    lambda values: change_variable(service, owner, what, row, values),
                                    lambda: service.variables(owner, refresh=True), scoped=True)

    def action_delete_variable(self) -> None:
        row = self.current()
        if row is not None:
            self.app.push_screen(delete_variable_screen(row, self.where),
                                 lambda yes: self._apply("delete", row, {}) if yes else None)

    @work(group="project-variables-change")
    async def apply_change(self, what: str, row: CiVariable | None, values: Values) -> None:
        service = self.service
        if service is not None:
            await self.report_change(what, row, values,
                                     lambda: change_variable(service, self.owner, what, row, values))
