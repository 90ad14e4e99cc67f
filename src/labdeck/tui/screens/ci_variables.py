"""What the variable lists share beyond the table (`groups.tabs.variable_tab`) and the form
(`groups.forms.variable_form`): sending a submitted project or group change through the one
`VariablesService` method set for the owner (`("projects", id)` or `("groups", id)`), the confirmation of a
deletion (the key typed; a masked or hidden value is said to be gone for good), and `VariableListKeys`, the
reveal, copy, add/edit form (sent by the form itself, re-read after a lost answer) and change report of
the variables pane (`panes/variables.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual.content import Content

from labdeck.api.errors import ApiError, LabdeckError
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import Owner, VariableError, VariablesService
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.tui.errors import describe_error, lost_write
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.applied import variables_hold
from labdeck.tui.screens.groups.forms import FormScreen, Values, variable_options
from labdeck.tui.screens.groups.tabs import copy_variable_value, refuse_hidden, variable_key
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

if TYPE_CHECKING:
    from textual.widget import Widget as _Host  # the screen or tab it is mixed into
else:
    _Host = object


async def change_variable(service: VariablesService, owner: Owner, what: str, row: Any,
                          values: Values) -> None:
    """Send `what` ("add", "edit" or "delete") for the variable `row` (None when adding) of `owner`."""
    if what == "delete":
        await service.delete_variable(owner, row.key, environment_scope=row.environment_scope)
        return
    options = variable_options(values, row if isinstance(row, CiVariable) else None)
    scope = values.get("environment_scope") or "*"
    if what == "add":
        await service.create_variable(owner, values["key"], values["value"], environment_scope=scope,
                                      masked_and_hidden=bool(values.get("masked_and_hidden")), **options)
    else:
        await service.update_variable(owner, row.key, values["value"],
                                      environment_scope=row.environment_scope, new_environment_scope=scope,
                                      **options)


def delete_variable_screen(variable: CiVariable, where: str) -> TypeToConfirmScreen:
    """Delete `variable` of `where` (a project or group path) once its key is typed."""
    message = Content.from_markup("Delete variable [b]$key[/b] (scope $scope) of [b]$where[/b]?",
                                  key=variable.key, scope=variable.environment_scope or "*", where=where)
    return TypeToConfirmScreen("Delete variable", message, variable.key,
                               irreversible=SECRET_VARIABLE if variable.masked or variable.hidden else None)


DONE = {"add": "added", "edit": "updated", "delete": "deleted"}


class VariableListKeys(_Host):
    """What a screen or tab listing CI variables in one `ResourceView` (`variables_view()`) does the same
    way everywhere: `m` reveals a masked value (its key goes into `revealed`, memory only), `y` copies a value
    without showing it, a hidden one refuses both with the reason; a change is sent, then reported (the
    refusal with the server's status and message, or "Variable KEY added") and the list reloaded. The host
    provides `variables_view`, `refused(error)`, `load()`, `apply_change(what, row, values)` (a worker) and,
    for a 403, `FORBIDDEN_HINT`."""

    revealed: set[tuple[str, str]]
    FORBIDDEN_HINT: ClassVar[str] = ""
    load: Any
    refused: Any
    apply_change: Any

    def variables_view(self) -> ResourceView:
        raise NotImplementedError

    def forbidden_hint(self) -> str:
        """What a 403 means here (`FORBIDDEN_HINT`, unless the host knows better)."""
        return self.FORBIDDEN_HINT

    def current(self) -> CiVariable | None:
        row = self.variables_view().table.cursor_row
        return row if isinstance(row, CiVariable) else None

    def refusal_text(self, error: LabdeckError | VariableError) -> str:
        """A refusal in one line: the form's rule, or the status and message (with the 403 hint)."""
        text = str(error) if isinstance(error, VariableError) else describe_error(error)
        if isinstance(error, ApiError) and error.status == 403 and self.forbidden_hint():
            text = f"{text} ({self.forbidden_hint()})"
        return text

    def _apply(self, what: str, row: CiVariable | None, values: Values | None) -> None:
        if values is not None:
            self.apply_change(what, row, values)

    def open_variable_form(self, form: FormScreen, row: CiVariable | None,
                           send: Callable[[Values], Awaitable[Any]],
                           read: Callable[[str, str | None], Awaitable[CiVariable | None]], *,
                           scoped: bool) -> None:
        """The add (`row` None) or edit `form`, sending `send(values)` itself (`open_write_form`): a refusal
        stays in the form with what was typed; after a lost answer `read(key, scope)` reads the variable
        again: the key (of the form's scope when `scoped`) with that value and those flags means it was
        applied."""
        what = "edit" if row is not None else "add"

        async def write(values: Values) -> Values:
            await send(values)
            return values

        async def applied(values: Values) -> bool:
            key = row.key if row is not None else str(values["key"])
            scope = str(values.get("environment_scope") or "*") if scoped else None
            found = await read(key, scope)
            return found is not None and variables_hold([found], values, key=key, scope=scope, before=row)

        def done(values: Values | None) -> None:
            if values is not None and is_live(self):
                key = values.get("key") or (row.key if row else "")
                notify_content(self, Content.assemble("Variable ", str(key), f" {DONE[what]}"))
                self.load()

        open_write_form(self, form, write, verify=applied, row=row, done=done,
                        refresh=lambda: self.load(refresh=True) if is_live(self) else None)

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
        view = self.variables_view()
        view.table.set_rows(list(view.table.rows))
        view.refresh_detail()

    def action_copy_value(self) -> None:
        row = self.current()
        if row is None:
            self.notify("No variable selected", severity="warning")
            return
        copy_variable_value(self.app, row)
