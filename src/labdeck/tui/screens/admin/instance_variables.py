"""`:variables` (administrators): the instance's CI/CD variables (`/admin/ci/variables`) in one table.

`a` adds and `e` edits through the group variables' form (`group_forms.variable_form(instance=True)`: key
rules, values of at most 10,000 characters, masking rules), `x` deletes after the key is typed, `m` reveals
a masked value, `y` copies a value (the notification never shows it). A refusal by the server (403 for a
non-administrator, the instance variable limit, ...) is shown with its status and message, never a crash.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from labdeck.api.errors import ApiError, LabdeckError
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import VariableError, VariablesService
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.tui.areas import AreaRequest
from labdeck.tui.errors import describe_error, lost_write
from labdeck.tui.screens.base import StatusTableScreen
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.applied import variables_hold
from labdeck.tui.screens.groups.forms import Values, variable_form, variable_options
from labdeck.tui.screens.groups.tabs import copy_variable_value, refuse_hidden, variable_key, variable_tab
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form


class InstanceVariablesScreen(StatusTableScreen):
    AREA = "variables"
    TITLE = "Instance CI variables"
    VIEW_ID = "instance-vars-view"
    STATUS_ID = "instance-vars-status"
    MUTATING_ACTIONS = frozenset({"add", "edit", "delete"})
    BINDINGS = [
        Binding("a", "add", "Add", id="instance_variables.add"),
        Binding("e", "edit", "Edit", id="instance_variables.edit"),
        Binding("x", "delete", "Delete", id="instance_variables.delete"),
        Binding("m", "reveal", "Reveal value", id="instance_variables.reveal"),
        Binding("y", "copy_value", "Copy value", id="instance_variables.copy_value"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.revealed: set[tuple[str, str]] = set()
        self.spec = variable_tab(self.revealed)
        self._service: VariablesService | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Instance CI/CD variables (administrators)", style="dim"),
                     id="instance-vars-status")
        yield ResourceView(self.spec.columns, cells=self.spec.cells, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text="No instance variables",
                           enter_opens_detail=True,
                           id="instance-vars-view")

    @property
    def service(self) -> VariablesService | None:
        session = self.labdeck.session
        if session is None:
            return None
        if self._service is None:
            self._service = VariablesService(session.client)
        return self._service

    def refused(self, error: LabdeckError | VariableError) -> None:
        """Show a refusal (status and the server's message) in the status line and as a notification."""
        text = str(error) if isinstance(error, VariableError) else describe_error(error)
        if isinstance(error, ApiError) and error.status == 403:
            text = f"{text} (instance variables are for administrators)"
        self.show_refusal(text)

    @work(exclusive=True, group="instance-variables")
    async def load(self, refresh: bool = False) -> None:
        service = self.service
        if service is None:
            return
        try:
            rows = await service.instance_variables(refresh=refresh)
        except LabdeckError as error:
            self.refused(error)
            return
        self.table.set_rows(rows)
        self.show_status(f"{len(rows)} instance variable(s)")
        self.mark_data_loaded()

    # -- actions --------------------------------------------------------------------------------------
    def current(self) -> CiVariable | None:
        row = self.table.cursor_row
        return row if isinstance(row, CiVariable) else None

    def action_add(self) -> None:
        self.open_variable_form(None)

    def action_edit(self) -> None:
        row = self.current()
        if row is not None:
            self.open_variable_form(row)

    def open_variable_form(self, row: CiVariable | None) -> None:
        """The add (`row` None) or edit form, sending itself; after a lost answer it re-reads the instance
        variables: is the key there with that value and those flags?"""
        service = self.service
        if service is None:
            return

        async def write(values: Values) -> str:
            options = variable_options(values, row)
            if row is None:
                await service.create_instance_variable(values["key"], values["value"], **options)
                return f"Variable {values['key']} added"
            await service.update_instance_variable(row.key, values["value"], **options)
            return f"Variable {row.key} updated"

        async def applied(values: Values) -> bool:
            key = row.key if row is not None else str(values["key"])
            return variables_hold(await service.instance_variables(refresh=True), values, key=key, scope=None,
                                  before=row)

        def done(message: str | None) -> None:
            if message and is_live(self):
                self.notify(message, markup=False)
                self.load(refresh=True)

        open_write_form(self, variable_form(row, instance=True), write, verify=applied, done=done,
                        refresh=lambda: self.load(refresh=True) if is_live(self) else None)

    def action_delete(self) -> None:
        row = self.current()
        if row is None:
            return
        message = Content.from_markup("Delete the instance variable [b]$key[/b]? Every pipeline of the "
                                      "instance loses it.", key=row.key)
        screen = TypeToConfirmScreen("Delete instance variable", message, row.key, confirm_label="Delete",
                                     irreversible=SECRET_VARIABLE if row.masked else None)
        self.app.push_screen(screen, lambda yes: self.delete_variable(row) if yes else None)

    @work(group="instance-variables-change")
    async def delete_variable(self, row: CiVariable) -> None:
        service = self.service
        if service is None:
            return
        try:
            await service.delete_instance_variable(row.key)
        except LabdeckError as error:
            self.refused(error)
            if lost_write(error):  # the server may have deleted it: show what it holds now
                self.load(refresh=True)
            return
        self.notify(Content.assemble("Variable ", row.key, " deleted"))
        self.load()

    def action_reveal(self) -> None:
        row = self.current()
        if row is None or refuse_hidden(self.app, row):
            return
        self.revealed.symmetric_difference_update({variable_key(row)})
        self.table.set_rows(list(self.table.rows))
        self.query_one("#instance-vars-view", ResourceView).refresh_detail()

    def action_copy_value(self) -> None:
        row = self.current()
        if row is None:
            self.notify("No variable selected", severity="warning")
            return
        copy_variable_value(self.app, row)


def open_instance_variables(request: AreaRequest) -> InstanceVariablesScreen:
    """The area factory (`:variables`)."""
    return InstanceVariablesScreen()
