"""What Enter does in a dialog, in words, for the footer (issue 33): "enter Cancel" while Cancel has the
focus, "enter Delete" on Delete, and in a field what its dialog does with enter (submit: the dialog's submit
button's label; in a form of several fields that moves on, "Next field"). The footer
(`widgets/footer.footer_entries`) puts it first while a dialog is open and follows the focus, so a
destructive confirmation that opens on Cancel (DESIGN.md) shows that Enter cancels.

The rule is read from the focused control, the way Textual and labdeck handle enter there: a button is
pressed (Textual's `Button` binding), a multi-line field starts a new line, a list or a choice chooses, a
switch toggles, a one-line field submits or moves on (`form_keys.FormKeys.on_input_submitted`, or the
dialog's own `on_input_submitted`). A dialog whose enter means something else says so with `enter_does()`
(or names its submit with `ENTER_LABEL`).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, OptionList, RadioButton, RadioSet, Select, TextArea

from labdeck.tui.screens.form_keys import FormKeys

NEXT_FIELD, NEW_LINE, CHOOSE, TOGGLE, OK = "Next field", "New line", "Choose", "Toggle", "OK"


def enter_does(dialog: Screen[Any]) -> str | None:
    """What enter does in `dialog` with its focus where it is now (None: nothing worth saying)."""
    hook = getattr(dialog, "enter_does", None)
    said = hook() if callable(hook) else None
    if said:
        return str(said)
    focused = dialog.focused
    if isinstance(focused, Button):
        return str(focused.label)
    if isinstance(focused, TextArea):
        return None if focused.read_only else NEW_LINE
    if isinstance(focused, OptionList | Select | RadioSet):
        return CHOOSE
    if isinstance(focused, Checkbox | RadioButton):
        return TOGGLE
    if isinstance(focused, Input):
        return _field_enter(dialog, focused)
    return None


def _field_enter(dialog: Screen[Any], field: Input) -> str:
    """Enter in a one-line field: FormKeys' own rule moves to the next field until the last, which
    submits; a dialog with its own `on_input_submitted` submits from any field."""
    if isinstance(dialog, FormKeys) and type(dialog).on_input_submitted is FormKeys.on_input_submitted:
        inputs = [widget for widget in dialog.form_fields() if isinstance(widget, Input)]
        if field in inputs and field is not inputs[-1]:
            return NEXT_FIELD
    return submit_label(dialog)


def submit_label(dialog: Screen[Any]) -> str:
    """The name of what submitting `dialog` does: its `ENTER_LABEL`, else the label of its submit button
    (`SUBMIT`, a confirmation's `#confirm`, else its first primary button), else "OK"."""
    named = getattr(dialog, "ENTER_LABEL", "")
    if named:
        return str(named)
    buttons = list(dialog.query(Button))
    for wanted in (getattr(dialog, "SUBMIT", ""), "confirm", "submit"):
        found = next((button for button in buttons if wanted and button.id == wanted), None)
        if found is not None:
            return str(found.label)
    primary = next((button for button in buttons if button.variant == "primary"), None)
    return str(primary.label) if primary is not None else OK
