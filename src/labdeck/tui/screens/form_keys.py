"""Keys that work while typing, for every form: a mixin of the dialog and screen base classes.

- `ctrl+s` submits the form (presses its primary button, or runs the screen's `submit_form()`); it is a
  priority binding, so it works from inside a field, and the footer shows it whenever there is a form.
- `tab` and `shift+tab` move between fields as priority bindings. In a field that completes names
  (`widgets/completion.CompletingInput`), `tab` first accepts the suggestion shown, if any.
- A form opens with its first field focused, and takes keys from then on (`ready_for_keys`, read by the
  app's key router, `type_ahead.KeyRouter`): the keys typed while it opens wait in the router's queue and
  arrive in order into that field (an enter among them is a new line in a multi-line field, and moves on or
  submits in a one-line field, as typed into a form that is open). A full screen is ready once it has
  drawn with its focus set: one whose focus went nowhere visible (a hidden field) gets its list focused.
- In a dialog, `enter` in its only field submits; in a form of several fields it moves to the next field,
  and submits from the last one. (A dialog that handles `Input.Submitted` itself keeps its own rule.)
- While a text field has focus, single-letter actions of the screen and app (`q`, `:`, `?`, `r`, `a`) are
  typed, not run: `LabdeckScreen` hides them from the footer, which then shows the keys that do work:
  `escape`, `ctrl+s`, `ctrl+p` (palette: every action and area), `f1` (help), `ctrl+q` (quit).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, OptionList, Select, TextArea

from labdeck.tui.widgets.completion import CompletingInput

TEXT_FIELDS = (Input, TextArea)
FIELDS = (Input, TextArea, Select, Checkbox, OptionList)


def is_typing(widget: Widget | None) -> bool:
    """Whether `widget` takes printable keys as text (a focused field: letters are typed, not actions)."""
    return isinstance(widget, TEXT_FIELDS)


class FormKeys(Screen[Any]):
    """The base of labdeck's screens and dialogs (first in the bases: `FormKeys, ModalScreen[T]`); see
    the module docstring. A `Screen` itself, since Textual merges only DOMNode classes' BINDINGS."""

    IS_DIALOG: ClassVar[bool] = True  # enter submits/moves; it opens on its first field
    BINDINGS: ClassVar[list[Any]] = [
        Binding("ctrl+s", "submit_form", "Submit", priority=True, id="form.submit"),
        Binding("tab", "move_focus(1)", "Next field", show=False, priority=True, id="form.next_field"),
        Binding("shift+tab", "move_focus(-1)", "Previous field", show=False, priority=True,
                id="form.previous_field"),
    ]

    # -- submitting -----------------------------------------------------------------------------------
    def submit_button(self) -> Button | None:
        """The button `ctrl+s` presses: the first enabled primary button (None: no form here)."""
        for button in self.walk_children(Button):  # (not `query`: asked at every check of the keys)
            if button.variant == "primary" and not button.disabled and button.display:
                return button
        return None

    def can_submit_form(self) -> bool:
        return self.submit_button() is not None

    def submit_form(self) -> None:
        """Submit (screens with another way to apply override this and `can_submit_form`)."""
        button = self.submit_button()
        if button is not None:
            button.press()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`ctrl+s` is offered (footer, palette) only where there is something to submit."""
        if action == "submit_form":
            return self.can_submit_form()
        return True

    def action_submit_form(self) -> None:
        if self.can_submit_form():
            self.submit_form()

    def form_fields(self) -> list[Widget]:
        """The enabled, shown fields of the form, in order."""
        return [w for w in self.query("*")
                if isinstance(w, FIELDS) and w.focusable and w.display]

    # -- moving between fields -----------------------------------------------------------------------
    def action_move_focus(self, step: int) -> None:
        if step > 0 and isinstance(self.focused, CompletingInput) and self.focused.accept_suggestion():
            return
        if step > 0:
            self.focus_next()
        else:
            self.focus_previous()

    # -- opening --------------------------------------------------------------------------------------
    _form_ready: bool = False

    def ready_for_keys(self) -> bool:
        """Whether keys may reach the form (`type_ahead.KeyTarget`): it has drawn with its focus set."""
        return self._form_ready

    def on_mount(self) -> None:
        self.call_after_refresh(self._form_opened)

    def _form_opened(self) -> None:
        """Drawn: a dialog focuses its first field (unless AUTO_FOCUS or the form chose one); a full
        screen checks where its focus went (`focus_on_open`). From now on it takes keys."""
        if self.IS_DIALOG:
            fields = self.form_fields()
            if fields and (self.focused is None or isinstance(self.focused, ScrollableContainer)):
                fields[0].focus()
        else:
            self.focus_on_open()
        self._form_ready = True

    def focus_on_open(self) -> None:
        """A full screen just drawn (see `LabdeckScreen`)."""

    def on_key(self, event: events.Key) -> None:
        """A letter that reached a dialog itself (its focus on a button or a choice, not in a field) is
        typed into nothing and runs nothing (a `q` must not quit from a form)."""
        if self.IS_DIALOG and event.is_printable and event.character:
            event.stop()
            event.prevent_default()

    # -- enter ----------------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not self.IS_DIALOG or type(self).on_input_submitted is not FormKeys.on_input_submitted:
            return  # the form has its own rule for enter
        event.stop()
        inputs = [w for w in self.form_fields() if isinstance(w, Input)]
        if event.input in inputs and event.input is not inputs[-1]:
            inputs[inputs.index(event.input) + 1].focus()
            return
        self.action_submit_form()
