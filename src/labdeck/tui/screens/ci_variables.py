"""What the project and group Variables tabs share beyond the table (`groups.tabs.variable_tab`) and the
form (`groups.forms.variable_form`): sending a submitted change through the one `VariablesService` method
set for the owner (`("projects", id)` or `("groups", id)`), and the confirmation of a deletion (the key
typed; a masked or hidden value is said to be gone for good).
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import Owner, VariablesService
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.forms import Values, variable_options


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
