"""The forms of the groups view: a generic `FormScreen` (inputs, selects and switches, validated before it
closes, errors shown under their fields) and the forms for members, labels and CI variables (the badge
form is in `badge_form.py`, the forms that name a local file or folder in `file_forms.py`). Validation
uses the domain rules the sandbox enforces too (`domain.colours`, `domain.ci_variables`,
`domain.access_levels`), so a form never sends what the server would refuse for these reasons. A form
that writes over something says what as it is filled in (`replaces`: a member's role, a variable's value;
`domain.replacements.replaced_text`).
"""
from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Select, Static

from labdeck.api.badges import BadgeUrlError
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.members import Member
from labdeck.api.models.variables import CiVariable
from labdeck.api.variables import VariableError
from labdeck.domain.access_levels import MEMBER_LEVELS, PROJECT_MEMBER_LEVELS, AccessLevel
from labdeck.domain.ci_variables import DESCRIPTION_MAX, VARIABLE_TYPES, variable_errors
from labdeck.domain.colours import COLOUR_ERROR, is_colour
from labdeck.domain.completion import Kind
from labdeck.domain.digits import is_digits, parse_digits, wide_digit_problem
from labdeck.domain.kept_values import kept_choices
from labdeck.domain.replacements import replaced_text
from labdeck.tui.screens.base import FormDialog, Problem
from labdeck.tui.widgets.completion import list_input

Values = dict[str, Any]
Validator = Callable[[Values], dict[str, str]]
Replaces = Callable[[Values], str]  # what the values typed would write over ("" for nothing)
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_USERNAME = re.compile(r"^@?[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Field:
    """One form field: an `Input` (default), a `Select` (`choices` as (label, value); a `value` not among
    them is offered too, shown as it is with a note: `domain.kept_values`) or a `Checkbox`."""

    key: str
    label: str
    value: Any = ""
    placeholder: str = ""
    password: bool = False
    choices: tuple[tuple[str, Any], ...] | None = None
    switch: bool = False
    disabled: bool = False
    names: Kind | None = None  # a comma-separated list of these names, completed from the instance


class FormScreen(FormDialog[Values]):
    """A form that dismisses with its values once `validate` finds nothing wrong (None on cancel). Opened
    with `open_write_form` (`WriteForm`), it sends the write itself and stays open, values kept, until the
    write is done; a refusal or a lost answer is said under the fields. `replaces(values)` says, as the
    fields change, what saving them would write over ("This replaces Developer (30).")."""

    CSS_PATH = "forms.tcss"
    SUBMIT, ERROR = "form-submit", "form-message"
    REFUSALS = (BadgeUrlError, VariableError)  # the services' own checks (the validators check first)
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="group_form.cancel")]

    def __init__(self, title: str | Content, fields: Sequence[Field], validate: Validator | None = None, *,
                 submit_label: str = "Save", replaces: Replaces | None = None) -> None:
        super().__init__()
        self.form_title = title if isinstance(title, Content) else Content(title)
        self.fields = list(fields)
        self.validate = validate or (lambda values: {})
        self.submit_label = submit_label
        self.replaces = replaces

    def compose(self) -> ComposeResult:
        with Vertical(classes="group-form"):
            yield Static(self.form_title, classes="group-form-title")
            with VerticalScroll(classes="group-form-fields"):
                for field in self.fields:
                    yield from self._field(field)
                yield from self.compose_extra()
            replaced = Static("", markup=False, id="form-replaces", classes="group-form-replaces")
            replaced.display = False  # shown while the values typed would write over something
            yield replaced
            message = Static("", markup=False, id="form-message", classes="group-form-error")
            message.display = False  # shown when a write is refused or its answer lost
            yield message
            with Horizontal(classes="group-form-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button(self.submit_label, id="form-submit", variant="primary")

    def compose_extra(self) -> ComposeResult:
        """Widgets shown under the fields (subclasses)."""
        yield from ()

    def _field(self, field: Field) -> ComposeResult:
        widget_id = f"field-{field.key}"
        if field.switch:
            yield Checkbox(field.label, bool(field.value), id=widget_id, disabled=field.disabled)
        else:
            yield Static(Text(field.label), classes="group-form-label")
            if field.choices is not None:  # a stored value the choices lack is shown as it is, and kept
                yield Select(kept_choices(field.choices, field.value), value=field.value, allow_blank=False,
                             id=widget_id, disabled=field.disabled)
            elif field.names is not None:
                yield list_input(field.names, str(field.value or ""), placeholder=field.placeholder,
                                 id=widget_id, disabled=field.disabled)
            else:
                yield Input(str(field.value or ""), placeholder=field.placeholder, password=field.password,
                            id=widget_id, disabled=field.disabled)
        yield Static("", markup=False, id=f"error-{field.key}", classes="group-form-error")

    def on_mount(self) -> None:
        first = next((f for f in self.fields if not f.disabled), None)
        if first is not None:
            self.query_one(f"#field-{first.key}").focus()
        self.show_replaced()

    def show_replaced(self) -> None:
        """Say what the values typed would write over (`replaces`), or nothing."""
        if self.replaces is None:
            return
        text = self.replaces(self.values())
        line = self.query_one("#form-replaces", Static)
        line.update(Text(f"This {text}." if text else ""))
        line.display = bool(text)

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.show_replaced()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.show_replaced()

    def on_checkbox_changed(self, _event: Checkbox.Changed) -> None:
        self.show_replaced()

    def values(self) -> Values:
        out: Values = {}
        for field in self.fields:
            widget = self.query_one(f"#field-{field.key}")
            if isinstance(widget, Input):
                out[field.key] = widget.value.strip() if not field.password else widget.value
            elif isinstance(widget, Checkbox | Select):
                out[field.key] = widget.value
        return out

    def value(self) -> Values | Problem:
        """The values, once `validate` finds nothing wrong (each field's problem is shown under it)."""
        values = self.values()
        errors = self.validate(values)
        for field in self.fields:
            self.query_one(f"#error-{field.key}", Static).update(Text(errors.get(field.key, ""), style="red"))
        return Problem(next(iter(errors.values()))) if errors else values

    def show_problem(self, problem: Problem) -> None:
        """Already said under the fields."""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()


# --- validators ------------------------------------------------------------------------------------------

def required(values: Values, *names: str) -> dict[str, str]:
    return {name: "required" for name in names if not str(values.get(name) or "").strip()}


def date_error(text: str, today: date) -> str | None:
    """Why an expiry date is refused (`YYYY-MM-DD`, a day that exists, not in the past), or None (empty is
    fine): `2026-02-30 does not exist (February 2026 has 28 days)`."""
    if not text:
        return None
    if not _DATE.match(text):
        return wide_digit_problem(text) or "use YEAR-MONTH-DAY"
    try:
        day = date.fromisoformat(text)
    except ValueError:
        year, month = int(text[:4]), int(text[5:7])
        if year < 1:
            return f"{text} does not exist: there is no year 0"
        if not 1 <= month <= 12:
            return f"{text} does not exist: there is no month {month}"
        days = calendar.monthrange(year, month)[1]
        return f"{text} does not exist ({calendar.month_name[month]} {year} has {days} days)"
    if day < today:
        return "cannot be a date in the past"
    return None


def parse_user_refs(text: str) -> list[int | str] | None:
    """`"3, alice, @bob"` -> [3, "alice", "bob"] (ids and usernames); None when a part is neither."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(is_digits(p) or _USERNAME.match(p) for p in parts):
        return None
    return [number if (number := parse_digits(p)) is not None else p.removeprefix("@") for p in parts]


# --- the forms -------------------------------------------------------------------------------------------

def level_choices(kind: str) -> tuple[tuple[str, int], ...]:
    levels = MEMBER_LEVELS if kind == "groups" else PROJECT_MEMBER_LEVELS
    return tuple((level_text(int(level)), int(level)) for level in levels if int(level) > 0)


def level_text(level: object) -> str:
    """`Developer (30)`: a role as the member form names it."""
    try:
        return f"{AccessLevel(int(str(level))).label} ({int(str(level))})"
    except ValueError:
        return str(level)


def member_replaces(*, editing: bool, level: int, expires: str, members: Sequence[Member]) -> Replaces:
    """What the member form would write over. Changing a member: its role and expiry. Adding: members of
    the list named among several users, whose role GitLab sets to the one chosen (`lib/api/members.rb`,
    `POST :id/members`: a `user_id` with commas goes to `Members::CreateService`, whose creator finds the
    existing member and updates it; one user who is a member already is refused with 409, nothing
    replaced)."""
    by_name = {(m.username or "").casefold(): m for m in members} | {str(m.id): m for m in members}

    def said(values: Values) -> str:
        new_level, new_expiry = level_text(values.get("access_level")), str(values.get("expires_at") or "")
        if editing:
            before = [level_text(level), *([f"the expiry {expires}"] if expires else [])]
            after = [new_level, *([f"the expiry {new_expiry}"] if new_expiry else [])]
            return replaced_text([before], after)
        refs = parse_user_refs(str(values.get("user_ids") or "")) or []
        found = [by_name[str(ref).casefold()] for ref in refs if str(ref).casefold() in by_name]
        if len(refs) < 2 or not found:
            return ""
        named = [(m.username or str(m.id), m) for m in found]
        return replaced_text([[f"{name} as {level_text(m.access_level)}"] for name, m in named],
                             [f"{name} as {new_level}" for name, _m in named])

    return said


def member_form(kind: str, today: date, *, user_ids: str = "", level: int = 30, expires: str = "",
                editing: bool = False, members: Sequence[Member] = ()) -> FormScreen:
    fields = [Field("user_ids", "User id or username (several separated by commas)", user_ids, "12, alice",
                    disabled=editing, names="user"),
              Field("access_level", "Access level", level, choices=level_choices(kind)),
              Field("expires_at", "Expires on (optional)", expires, "YYYY-MM-DD")]

    def validate(values: Values) -> dict[str, str]:
        errors = {}
        typed = str(values.get("user_ids", ""))
        if not editing and parse_user_refs(typed) is None:
            errors["user_ids"] = (wide_digit_problem(typed)
                                  or "one or more user ids or usernames, separated by commas")
        problem = date_error(str(values.get("expires_at", "")), today)
        if problem:
            errors["expires_at"] = problem
        return errors

    title = "Change member" if editing else "Add members"
    replaces = member_replaces(editing=editing, level=level, expires=expires, members=members)
    return FormScreen(title, fields, validate, submit_label="Save" if editing else "Add", replaces=replaces)


def label_form(label: GroupLabel | None = None) -> FormScreen:
    fields = [Field("name", "Name", label.name if label else ""),
              Field("color", "Colour (#RRGGBB, #RGB or a CSS name)", label.color if label else "", "#428BCA"),
              Field("description", "Description", (label.description or "") if label else "")]

    def validate(values: Values) -> dict[str, str]:
        errors = required(values, "name", "color")
        if "color" not in errors and not is_colour(str(values["color"])):
            errors["color"] = COLOUR_ERROR
        return errors

    return FormScreen("Edit label" if label else "New label", fields, validate)


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
