"""Forms: the one dialog that writes (`FormDialog`: it checks its input before it closes, and, opened with
`open_write_form`, sends the write itself and stays open until it is done) and the declarative form built on
it (`FormScreen`: `Field`s, a validator over their `Values`, each problem under its field). Every dialog of
labdeck that writes is a kind of `FormDialog`; the forms of a resource declare their fields and validator
with the resource (`kit/members.py`, `kit/variables.py`, an area's own forms).

It may use the shared screen pieces (`screens/form_keys.py`, `screens/confirm.DraftGuard`), the write
mechanism (`tui/writes.py`) and `domain` rules; it knows no resource and no service.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, Static

from labdeck.api.badges import BadgeUrlError
from labdeck.api.variables import VariableError
from labdeck.domain.completion import Kind
from labdeck.domain.digits import wide_digit_problem
from labdeck.domain.kept_values import kept_choices
from labdeck.tui.screens.confirm import Cancellable, DraftGuard
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.widgets.completion import list_input
from labdeck.tui.writes import WriteForm

T = TypeVar("T")
Values = dict[str, Any]
Validator = Callable[[Values], dict[str, str]]
Replaces = Callable[[Values], str]  # what the values typed would write over ("" for nothing)
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


@dataclass(frozen=True)
class Problem:
    """What is wrong with a form's input (a type of its own, so a form whose result is a string works)."""

    message: str


class FormDialog(WriteForm, FormKeys, DraftGuard, Cancellable[T | None], ModalScreen[T | None]):
    """The one form of labdeck: every dialog that writes derives from it. Its submit button (id `SUBMIT`)
    closes it with `value()`, unless that is a `Problem`, which is shown (`show_problem`: in the `Static`
    whose id is `ERROR`); any other button and `action_cancel` cancel it (`Cancellable.cancel`: closed
    with None, and "<its title>: cancelled" said when it was opened to write), after asking "Discard your
    changes?" when it holds text typed and not sent (`DraftGuard`: a comment, a description). When the
    opener sets `write_with` (`open_write_form`), the form sends the write itself and stays open, with what
    was typed, until it is done, verified after a lost answer. The declarative form (`FormScreen`: fields
    and a validator) and the dialogs that gather their own result (`collect()`) are kinds of it."""

    SUBMIT: ClassVar[str] = ""
    ERROR: ClassVar[str] = ""

    def value(self) -> T | Problem:
        """The form's result, or what is wrong with it."""
        raise NotImplementedError

    def show_problem(self, problem: Problem) -> None:
        self.query_one(f"#{self.ERROR}", Static).update(problem.message)

    def submit(self) -> bool:
        """Check the input; send it (or close with it) when it is fine, else say what is wrong. True if
        it went."""
        result = self.value()
        if isinstance(result, Problem):
            self.show_problem(result)
            return False
        if self.nothing_to_send(result):
            self.dismiss(result)
            return False
        self.submit_value(result)
        return True

    def nothing_to_send(self, result: T) -> bool:
        """Whether `result` asks for no write at all (an edit that changed nothing): the form just closes."""
        return False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id != self.SUBMIT:
            self.action_cancel()
            return
        self.submit()

    def action_cancel(self) -> None:
        self.close_keeping_drafts(self.cancel)

    def cancel_subject(self) -> str | None:
        """A form opened to write (`open_write_form`) says it was cancelled; a form that only gathers a
        value says so when its class does (`SAYS_CANCELLED`: a bulk action's prompt)."""
        if self.write_with is None and not type(self).__dict__.get("SAYS_CANCELLED", False):
            return None
        return super().cancel_subject()

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True,
                  from_app_focus: bool = False) -> None:
        """Textual's, but a field focused before the form is laid out (its first field, as it opens) is not
        centred: the form opens at its top with its title in view, scrolled only as far as shows the field."""
        if widget is not None and scroll_visible and not widget.region:
            super().set_focus(widget, False, from_app_focus)
            self.call_after_refresh(self._show_focused, widget)
            return
        super().set_focus(widget, scroll_visible, from_app_focus)

    def _show_focused(self, widget: Widget) -> None:
        if self.focused is widget and not self.can_view_entire(widget):
            widget.scroll_visible(animate=False)


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

    CSS_PATH = str(Path(__file__).with_name("forms.tcss"))  # whatever module a subclass is in
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


def required(values: Values, *names: str) -> dict[str, str]:
    """"required" for each field of `names` left empty."""
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
