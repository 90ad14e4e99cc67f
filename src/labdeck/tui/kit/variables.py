"""CI/CD variables, whatever their owner (a group, a project or the instance): the list's columns and
detail (`variable_tab`, a masked value shown only once revealed: `revealed` holds the keys, in memory),
copying a value without showing it and refusing a hidden one (`copy_variable_value`, `refuse_hidden`), the
add and edit form (`variable_form`) and what it sends (`variable_options`), a group's or project's change
(`change_variable`, through the one `VariablesService` method set for the owner), the confirmation of a
deletion (the key typed; a masked or hidden value is said to be gone for good) and whether a form's write
is on the server after a lost answer (`variables_hold`). The pane that shows them is
`kit/variables_pane.py`.

It may use the form and spec kit (`kit/forms.py`, `kit/tabs.py`), the confirmations (`screens/confirm.py`)
and `domain` rules; it sends only what `change_variable` is given to send.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from rich.text import Text
from textual.app import App
from textual.content import Content

from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import Owner, VariablesService
from labdeck.domain.ci_variables import DESCRIPTION_MAX, VARIABLE_TYPES, variable_errors
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.domain.replacements import replaced_text
from labdeck.tui.kit.forms import Field, FormScreen, Replaces, Values
from labdeck.tui.kit.tabs import TabSpec, detail_text, yes
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.table_model import Column


def variable_key(variable: CiVariable) -> tuple[str, str]:
    return variable.key, variable.environment_scope or "*"


HIDDEN_REFUSAL = "is masked and hidden: GitLab never sends its value, so it cannot be revealed or copied"


def refuse_hidden(app: App[Any], variable: CiVariable) -> bool:
    """True (after saying why) when `variable` is hidden: `m` and `y` have nothing to show or copy."""
    if not variable.hidden:
        return False
    notify_content(app, Content.assemble(variable.key, " ", HIDDEN_REFUSAL), severity="warning", timeout=4)
    return True


def copy_variable_value(app: App[Any], variable: CiVariable) -> None:
    """Copy a variable's value (masked ones too) to the clipboard; the notification never shows it.
    A hidden variable has no value to copy: that is said instead."""
    if refuse_hidden(app, variable):
        return
    app.copy_to_clipboard(variable.value or "")
    hidden = " (masked: not shown)" if variable.masked else ""
    notify_content(app, Content.assemble("Copied the value of ", variable.key, hidden), timeout=3)


def _masking(variable: CiVariable) -> str:
    if variable.hidden:
        return "masked and hidden (never revealed)"
    return "yes (m reveals)" if variable.masked else "no"


def variable_tab(revealed: Collection[tuple[str, str]]) -> TabSpec:
    def value(variable: CiVariable) -> Text:
        shown = variable.shown_value(variable_key(variable) in revealed)
        return Text(shown.replace("\n", "⏎"), no_wrap=True, overflow="ellipsis")

    columns = [Column("key", "Key", min_width=16, text=lambda v: Text(v.key), data=lambda v: v.key),
               Column("value", "Value", min_width=20, exported=False, text=value),
               Column("type", "Type", width=8, text=lambda v: Text(v.variable_type or ""),
                      data=lambda v: v.variable_type),
               Column("scope", "Scope", width=12, text=lambda v: Text(v.environment_scope or ""),
                      data=lambda v: v.environment_scope),
               Column("protected", "Protected", width=9, text=lambda v: yes(v.protected),
                      data=lambda v: bool(v.protected)),
               Column("masked", "Masked", width=7,
                      text=lambda v: Text("hidden") if v.hidden else yes(v.masked),
                      data=lambda v: bool(v.masked), extra_data=(("hidden", lambda v: bool(v.hidden)),))]

    def detail(variable: CiVariable) -> Text:
        return detail_text(variable.key, [("value", variable.shown_value(variable_key(variable) in revealed)),
                                      ("type", variable.variable_type), ("scope", variable.environment_scope),
                                      ("protected", "yes" if variable.protected else "no"),
                                      ("masked", _masking(variable)),
                                      ("raw", "yes (not expanded)" if variable.raw else "no"),
                                      ("description", variable.description)])

    return TabSpec(columns, variable_key, detail, "No variables")


def variable_form(variable: CiVariable | None = None, *, instance: bool = False,
                  scoped: bool = True) -> FormScreen:
    """Create (no `variable`) or edit a variable; the value field hides what is typed when masked. `raw`
    and the description (255 characters) can always be set; "masked and hidden" only when creating a
    group variable (GitLab cannot hide an existing one, and instance variables have no hiding). A hidden
    variable's value was never sent: editing it means typing a new one. A group variable has an
    environment scope unless `scoped` is False (Community Edition has none)."""
    hidden = bool(variable and variable.hidden)
    fields = [Field("key", "Key (letters, digits and _)", variable.key if variable else "", "DEPLOY_TOKEN",
                    disabled=variable is not None),
              Field("value", "Value (hidden: type a new one)" if hidden else "Value",
                    "" if hidden or variable is None else (variable.value or ""),
                    password=bool(variable and variable.masked)),
              Field("variable_type", "Type", (variable.variable_type if variable else None) or "env_var",
                    choices=tuple((t, t) for t in VARIABLE_TYPES)),
              Field("protected", "Protected", bool(variable and variable.protected), switch=True),
              Field("masked", "Masked", bool(variable and variable.masked), switch=True, disabled=hidden),
              Field("raw", "Raw (not expanded: $VAR stays as typed)", bool(variable and variable.raw),
                    switch=True),
              Field("description", f"Description (optional, at most {DESCRIPTION_MAX} characters)",
                    (variable.description or "") if variable else "")]
    if variable is None and not instance:
        fields.append(Field("masked_and_hidden", "Masked and hidden (the value is never shown again)", False,
                            switch=True))
    if not instance and scoped:
        fields.append(Field("environment_scope", "Environment scope",
                            (variable.environment_scope if variable else None) or "*", "*"))

    def validate(values: Values) -> dict[str, str]:
        masked = bool(values.get("masked")) or bool(values.get("masked_and_hidden")) or hidden
        found = variable_errors(str(values.get("key", "")), str(values.get("value", "")), masked=masked,
                                instance=instance, raw=bool(values.get("raw")),
                                description=str(values.get("description") or ""))
        return {name: "; ".join(messages) for name, messages in found.items()}

    return FormScreen("Edit variable" if variable else "New variable", fields, validate,
                      replaces=value_replaces(variable) if variable is not None else None)


VALUE_SHOWN = 40  # characters of a plain variable's old value named before "…"


def value_replaces(variable: CiVariable) -> Replaces:
    """What saving the variable form writes over: the stored value, once another is typed (a hidden value,
    which cannot be read back, always). A masked or hidden value is never shown, only named."""
    old, key = variable.value or "", variable.key

    def said(values: Values) -> str:
        if variable.hidden:
            return replaced_text([[f"the hidden value of {key}"]], [])
        if str(values.get("value", "")) == old:
            return ""
        if variable.masked:
            return replaced_text([[f"the masked value of {key}"]], [])
        shown = old if len(old) <= VALUE_SHOWN else old[:VALUE_SHOWN - 1] + "…"
        return replaced_text([[f"{key}'s value {shown}"]], [])

    return said


def variable_options(values: Values, before: CiVariable | None = None) -> dict[str, Any]:
    """The service options of a submitted variable form (group and instance alike). An empty description
    is not sent, unless it clears the one `before` had."""
    description = str(values.get("description") or "")
    cleared = bool(before is not None and before.description)
    return {"variable_type": values["variable_type"], "protected": bool(values["protected"]),
            "masked": bool(values["masked"]), "raw": bool(values.get("raw")),
            "description": description if description or cleared else None}


def variables_hold(variables: Iterable[CiVariable], values: Values, *, key: str, scope: str | None,
                   before: CiVariable | None = None) -> bool:
    """A variable `key` (of `scope`, None for instance variables) with the form's value and flags. A value
    the server does not send back (hidden) cannot be compared: the flags must then match."""
    options = variable_options(values, before)
    for variable in variables:
        if variable.key != key or (scope is not None and (variable.environment_scope or "*") != scope):
            continue
        if variable.value is not None and variable.value != values["value"]:
            return False
        flags = (("variable_type", variable.variable_type), ("protected", variable.protected),
                 ("masked", variable.masked), ("raw", variable.raw))
        return all(seen is None or seen == options[name] for name, seen in flags)
    return False


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
