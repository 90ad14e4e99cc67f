"""`:variables` (administrators): the instance's CI/CD variables (`/admin/ci/variables`) in one table.

`a` adds and `e` edits through the group variables' form (`group_forms.variable_form(instance=True)`: key
rules, values of at most 10,000 characters, masking rules), `x` deletes after the key is typed, `m` reveals
a masked value, `y` copies a value (the notification never shows it). A refusal by the server (403 for a
non-administrator, the instance variable limit, ...) is shown with its status and message, never a crash.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from labdeck.api.errors import LabdeckError
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import VariableError, VariablesService
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.base import StatusTableScreen
from labdeck.tui.screens.ci_variables import VariableListKeys
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.forms import Values, variable_form, variable_options
from labdeck.tui.screens.groups.tabs import variable_tab
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_view import ResourceView


class InstanceVariablesScreen(VariableListKeys, StatusTableScreen):
    FOOTER_PANES = {"": ("select", "edit", "add", "delete", "reveal", "copy_value", *LIST_KEYS)}
    AREA = "variables"
    TITLE = "Instance CI variables"
    VIEW_ID = "instance-vars-view"
    STATUS_ID = "instance-vars-status"
    MUTATING_ACTIONS = frozenset({"add", "edit", "delete"})
    ROW_ACTIONS = frozenset({"edit", "delete"})
    FORBIDDEN_HINT = "instance variables are for administrators"
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
        session = self.ctx.session
        if session is None:
            return None
        if self._service is None:
            self._service = session.services.variables
        return self._service

    def refused(self, error: LabdeckError | VariableError) -> None:
        """Show a refusal (status and the server's message) in the status line and as a notification."""
        self.show_refusal(self.refusal_text(error))

    def variables_view(self) -> ResourceView:
        return self.query_one("#instance-vars-view", ResourceView)

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
    def action_add(self) -> None:
        self.open_form(None)

    def action_edit(self) -> None:
        row = self.current()
        if row is not None:
            self.open_form(row)

    def open_form(self, row: CiVariable | None) -> None:
        service = self.service
        if service is not None:
            self.open_variable_form(variable_form(row, instance=True), row,
                                    lambda values: self._send(service, "edit" if row else "add", row, values),
                                    lambda: service.instance_variables(refresh=True), scoped=False)

    def action_delete(self) -> None:
        row = self.current()
        if row is None:
            return
        message = Content.from_markup("Delete the instance variable [b]$key[/b]? Every pipeline of the "
                                      "instance loses it.", key=row.key)
        screen = TypeToConfirmScreen("Delete instance variable", message, row.key, confirm_label="Delete",
                                     irreversible=SECRET_VARIABLE if row.masked else None)
        self.app.push_screen(screen, lambda yes: self._apply("delete", row, {}) if yes else None)

    @work(group="instance-variables-change")
    async def apply_change(self, what: str, row: CiVariable | None, values: Values) -> None:
        service = self.service
        if service is not None:
            await self.report_change(what, row, values, lambda: self._send(service, what, row, values))

    @staticmethod
    async def _send(service: VariablesService, what: str, row: CiVariable | None, values: Values) -> None:
        options: dict[str, Any] = variable_options(values, row) if what != "delete" else {}
        if what == "add":
            await service.create_instance_variable(values["key"], values["value"], **options)
        elif what == "edit" and row is not None:
            await service.update_instance_variable(row.key, values["value"], **options)
        elif row is not None:
            await service.delete_instance_variable(row.key)


def open_instance_variables(request: AreaRequest) -> InstanceVariablesScreen:
    """The area factory (`:variables`)."""
    return InstanceVariablesScreen()
