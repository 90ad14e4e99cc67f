"""The CI/CD variables pane, one for every owner (`Owner`: a project, a group or the instance): the table
(`kit/variables.variable_tab`), `a` adds and `e` edits through the variables form (key rules, masking, raw,
description, masked and hidden on create, the environment scope where the owner has one), `x` deletes once
the key is typed, `m` reveals a masked value, `y` copies a value (the notification never shows it). A
hidden value was never sent, so `m` and `y` say so. Revealed values live in this widget only, never on
disk, and only while the cursor stays on the row: leaving it, or reading the list again (`r`, a change),
hides the value again. A change is sent, then reported (the refusal with the server's status and message,
or "Variable KEY added") and the list read again.

It reads and writes through the owner's service methods (`kit/owner.Owner`) and `ctx.services`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.errors import ApiError, LabdeckError
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import VariableError
from labdeck.domain.features import GROUP_VARIABLE_ENVIRONMENT_SCOPE
from labdeck.tui.errors import describe_error, lost_write
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.edited import DONE
from labdeck.tui.kit.forms import FormScreen, Values
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.kit.variables import (
    copy_variable_value,
    refuse_hidden,
    variable_key,
    variable_tab,
    variables_hold,
)
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form


class VariablesPane(OwnerPane, Widget):
    # the footer while this pane has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Shown("select"),
        Action("e", "edit_variable", "Edit", id="variables.edit", mutating=True, row=True, footer=True),
        Action("a", "add_variable", "Add", id="variables.add", mutating=True, footer=True),
        Action("x", "delete_variable", "Delete", id="variables.delete", mutating=True, row=True, footer=True),
        Action("m", "reveal", "Reveal value", id="variables.reveal", row=True, footer=True),
        Action("y", "copy_value", "Copy value", id="variables.copy_value", row=True, footer=True),
        *shown(TAB_KEYS),
        Shown("fork"),
        *shown(LIST_KEYS),
    )
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
        """What a 403 on the owner's variables means."""
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

    def scoped(self) -> bool:
        """Whether this owner's variables have an environment scope here (a group's: not on Community
        Edition; a project's always; the instance's never)."""
        if self.owner.kind == "groups":
            return self.ctx.policy.feature_reason(GROUP_VARIABLE_ENVIRONMENT_SCOPE) is None
        return self.owner.kind == "projects"

    def on_mount(self) -> None:
        self.load()

    def show_status(self, text: str, style: str = "dim") -> None:
        self.query_one(f"#{self.status_id}", Static).update(Text(text, style=style))

    def refusal_text(self, error: LabdeckError | VariableError) -> str:
        """A refusal in one line: the form's rule, or the status and message (with the 403 hint)."""
        text = str(error) if isinstance(error, VariableError) else describe_error(error)
        if isinstance(error, ApiError) and error.status == 403 and self.forbidden_hint():
            text = f"{text} ({self.forbidden_hint()})"
        return text

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
        owner = self.owner
        try:
            rows = await owner.variables(self.ctx.services.variables, refresh=refresh)
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

    def current(self) -> CiVariable | None:
        row = self.view.table.cursor_row
        return row if isinstance(row, CiVariable) else None

    # -- actions --------------------------------------------------------------------------------------
    def action_add_variable(self) -> None:
        self.open_form(None)

    def action_edit_variable(self) -> None:
        row = self.current()
        if row is not None:
            self.open_form(row)

    def open_form(self, row: CiVariable | None) -> None:
        """The add (`row` None) or edit form, sending itself (`open_write_form`): a refusal stays in the
        form with what was typed; after a lost answer the variable is read again: the key (of the form's
        scope when the owner has scopes) with that value and those flags means it was applied."""
        owner, scoped, what = self.owner, self.scoped(), "edit" if row is not None else "add"
        form: FormScreen = owner.variable_form(row, scoped=scoped)

        async def write(values: Values) -> Values:
            await owner.change_variable(self.ctx.services.variables, what, row, values)
            return values

        async def applied(values: Values) -> bool:
            key = row.key if row is not None else str(values["key"])
            scope = str(values.get("environment_scope") or "*") if scoped else None
            found = await owner.variable(self.ctx.services.variables, key, scope)
            return found is not None and variables_hold([found], values, key=key, scope=scope, before=row)

        def done(values: Values | None) -> None:
            if values is not None and is_live(self):
                key = values.get("key") or (row.key if row else "")
                notify_content(self, Content.assemble("Variable ", str(key), f" {DONE[what]}"))
                self.load()

        open_write_form(self, form, write, verify=applied, row=row, done=done,
                        refresh=lambda: self.load(refresh=True) if is_live(self) else None)

    def action_delete_variable(self) -> None:
        row = self.current()
        if row is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.apply_change("delete", row, {})

        self.app.push_screen(self.owner.delete_variable_screen(row), answered)

    @work(group="variables-pane-change")
    async def apply_change(self, what: str, row: CiVariable | None, values: Values) -> None:
        services, owner = self.ctx.services, self.owner
        await self.report_change(what, row, values,
                                 lambda: owner.change_variable(services.variables, what, row, values))

    async def report_change(self, what: str, row: CiVariable | None, values: Values,
                            send: Callable[[], Awaitable[Any]]) -> None:
        """Send a change (`send`), then say how it went and reload (after a lost answer, past the cache)."""
        try:
            await send()
        except (LabdeckError, VariableError) as error:
            self.refused(error)
            if isinstance(error, LabdeckError) and lost_write(error):  # it may be gone: show what is there
                self.load(refresh=True)
            return
        key = values.get("key") or (row.key if row else "")
        notify_content(self, Content.assemble("Variable ", str(key), f" {DONE[what]}"))
        self.load()

    def action_reveal(self) -> None:
        row = self.current()
        if row is None or refuse_hidden(self.app, row):
            return
        self.revealed.symmetric_difference_update({variable_key(row)})
        self.view.table.set_rows(list(self.view.table.rows))
        self.view.refresh_detail()

    def action_copy_value(self) -> None:
        row = self.current()
        if row is None:
            self.notify("No variable selected", severity="warning")
            return
        copy_variable_value(self.app, row)
