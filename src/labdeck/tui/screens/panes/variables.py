"""The CI/CD variables pane, one for every owner (`Owner`: a project, a group or the instance): the table
(`groups.tabs.variable_tab`), `a` adds and `e` edits through the variables form (key rules, masking, raw,
description, masked and hidden on create, the environment scope where the owner has one), `x` deletes once
the key is typed, `m` reveals a masked value, `y` copies a value (the notification never shows it). A
hidden value was never sent, so `m` and `y` say so. Revealed values live in this widget only, never on
disk, and only while the cursor stays on the row: leaving it, or reading the list again (`r`, a change),
hides the value again. The project view's and `:groups`' Variables tabs and `:variables` (the instance's)
are this pane.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.errors import LabdeckError
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import VariableError, VariablesService
from labdeck.domain.features import GROUP_VARIABLE_ENVIRONMENT_SCOPE
from labdeck.tui.context import context_of
from labdeck.tui.screens.ci_variables import VariableListKeys
from labdeck.tui.screens.groups.forms import Values
from labdeck.tui.screens.groups.tabs import variable_key, variable_tab
from labdeck.tui.screens.owner import Owner
from labdeck.tui.screens.panes.owned import OwnerPane
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView


class VariablesPane(OwnerPane, VariableListKeys, Widget):
    # the footer while this pane has focus, most useful first (`widgets.footer`)
    FOOTER_ORDER = ("select", "edit_variable", "add_variable", "delete_variable", "reveal", "copy_value",
                    "next_tab", "previous_tab", "fork", *LIST_KEYS)
    BINDINGS = [
        Binding("a", "add_variable", "Add", id="variables.add"),
        Binding("e", "edit_variable", "Edit", id="variables.edit"),
        Binding("x", "delete_variable", "Delete", id="variables.delete"),
        Binding("m", "reveal", "Reveal value", id="variables.reveal"),
        Binding("y", "copy_value", "Copy value", id="variables.copy_value"),
    ]
    MUTATING_ACTIONS = frozenset({"add_variable", "edit_variable", "delete_variable"})
    ROW_ACTIONS = frozenset({"edit_variable", "delete_variable", "reveal", "copy_value"})
    DEFAULT_CSS = """
    VariablesPane { height: 1fr; }
    VariablesPane .variables-status { height: 1; padding: 0 1; }
    """

    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str = "variables-view",
                 status_id: str = "variables-status", status: str = "") -> None:
        super().__init__(id=id)
        self.owner = owner
        self.view_id, self.status_id, self.first_status = view_id, status_id, status
        self.revealed: set[tuple[str, str]] = set()
        self.spec = variable_tab(self.revealed)

    def forbidden_hint(self) -> str:
        return self.owner.forbidden_hint

    def compose(self) -> ComposeResult:
        yield Static(Text(self.first_status, style="dim"), markup=False, id=self.status_id,
                     classes="variables-status")
        yield ResourceView(self.spec.columns, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text=self.owner.no_variables,
                           enter_opens_detail=True, id=self.view_id)

    @property
    def view(self) -> ResourceView:
        return self.query_one(f"#{self.view_id}", ResourceView)

    def variables_view(self) -> ResourceView:
        return self.view

    @property
    def service(self) -> VariablesService | None:
        session = context_of(self).session
        return session.services.variables if session else None

    def scoped(self) -> bool:
        """Whether this owner's variables have an environment scope here (a group's: not on Community
        Edition; a project's always; the instance's never)."""
        if self.owner.kind == "groups":
            return context_of(self).policy.feature_reason(GROUP_VARIABLE_ENVIRONMENT_SCOPE) is None
        return self.owner.kind == "projects"

    def on_mount(self) -> None:
        self.load()

    def show_status(self, text: str, style: str = "dim") -> None:
        self.query_one(f"#{self.status_id}", Static).update(Text(text, style=style))

    def refused(self, error: LabdeckError | VariableError) -> None:
        """A refusal (the server's status and message), in the status line and as a notification."""
        text = self.refusal_text(error)
        self.show_status(text, "red")
        self.notify(text, severity="error", markup=False)

    def reload(self) -> None:
        self.load(refresh=True)

    def show_owner(self, owner: Owner) -> None:
        """Show the variables of another owner (another group chosen in `:groups`); values revealed for
        the former one are hidden again."""
        self.owner = owner
        self.revealed.clear()
        self.view.table.set_rows([])  # never the former owner's rows under this one's name
        self.load()

    @work(exclusive=True, group="variables-pane")
    async def load(self, refresh: bool = False) -> None:
        service = self.service
        if service is None:
            return
        owner = self.owner
        try:
            rows = await owner.variables(service, refresh=refresh)
        except LabdeckError as error:
            if self.owner.kind == "instance":  # the screen is this pane: say it aloud too
                self.refused(error)
            else:  # in the tab's status line only: the tab may not even be in view
                self.show_status(self.refusal_text(error), "red")
            return
        if owner != self.owner:  # another owner was chosen meanwhile: its own load shows it
            return
        self.revealed.clear()  # the list read again: a revealed value is hidden again
        self.view.table.set_rows(rows)
        instance = self.owner.kind == "instance"
        self.show_status(f"{len(rows)} instance variable(s)" if instance
                         else f"{len(rows)} variable(s) of {self.owner.where}")
        self.mark_data_loaded()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        """The cursor left a revealed row: its value is hidden again (`revealed` is the table's own set)."""
        row = event.row
        if self.revealed and not (isinstance(row, CiVariable) and variable_key(row) in self.revealed):
            self.revealed.clear()
            table = self.view.table
            table.set_rows(list(table.rows))
            self.view.refresh_detail()

    # -- actions --------------------------------------------------------------------------------------
    def action_add_variable(self) -> None:
        self.open_form(None)

    def action_edit_variable(self) -> None:
        row = self.current()
        if row is not None:
            self.open_form(row)

    def open_form(self, row: CiVariable | None) -> None:
        service, owner, scoped = self.service, self.owner, self.scoped()
        if service is not None:
            what = "edit" if row is not None else "add"
            self.open_variable_form(owner.variable_form(row, scoped=scoped), row,
                                    lambda values: owner.change_variable(service, what, row, values),
                                    lambda key, scope: owner.variable(service, key, scope), scoped=scoped)

    def action_delete_variable(self) -> None:
        row = self.current()
        if row is not None:
            self.app.push_screen(self.owner.delete_variable_screen(row),
                                 lambda yes: self._apply("delete", row, {}) if yes else None)

    @work(group="variables-pane-change")
    async def apply_change(self, what: str, row: CiVariable | None, values: Values) -> None:
        service = self.service
        if service is not None:
            await self.report_change(what, row, values,
                                     lambda: self.owner.change_variable(service, what, row, values))
