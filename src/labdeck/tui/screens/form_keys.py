"""Keys that work while typing, for every form: a mixin of the dialog and screen base classes.

- `ctrl+s` submits the form (presses its primary button, or runs the screen's `submit_form()`); it is a
  priority binding, so it works from inside a field, and the footer shows it whenever there is a form.
- `tab` and `shift+tab` move between fields as priority bindings: the focus moves before the next key
  is handled, so `abc`, tab, `def` typed in one burst land in the two fields. In a field that completes
  names (`widgets/completion.CompletingInput`), `tab` first accepts the suggestion shown, if any.
- A form opens with its first field focused; a letter typed before any field has focus (while the form is
  still opening) goes into the first field instead of being lost.
- A form with `HOLD_ENTER` also keeps an enter typed while it opens, in order with the letters around it:
  in a multi-line field (a `TextArea`: the comment editor) it is a new line; in a one-line field it
  submits, and keys after it are dropped. (The `:` prompt reads its keys another way: `type_ahead`.)
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
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, OptionList, Select, TextArea

from labdeck.tui.widgets.completion import CompletingInput

TEXT_FIELDS = (Input, TextArea)
FIELDS = (Input, TextArea, Select, Checkbox, OptionList)


def is_typing(widget: Widget | None) -> bool:
    """Whether `widget` takes printable keys as text (a focused field: letters are typed, not actions)."""
    return isinstance(widget, TEXT_FIELDS)


def is_held(event: events.Key) -> bool:
    """The keys a form keeps in order while it opens: letters and tab/shift+tab."""
    return event.key in ("tab", "shift+tab") or bool(event.is_printable and event.character)


ENTER = "\r"  # an enter kept while a form opens (`FormKeys.HOLD_ENTER`)


def hold_key(screen: Screen[Any], event: events.Key) -> bool:
    """Called by the app for every key: while a form is opening, its letters and tabs go to the form's own
    queue, in order (the app would otherwise deliver them to whatever has focus at that instant, and the
    form's own focus changes would then reorder them). True when the key was taken."""
    if not isinstance(screen, FormKeys) or not screen.IS_DIALOG or screen._form_ready \
            or not screen.holds(event):
        return False
    screen.post_message(events.Key(event.key, event.character))
    return True


class MoveFocus(Message):
    """A tab typed while the form was opening, handled in turn with the letters typed before it."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.step = step


class FormKeys(Screen[Any]):
    """The base of labdeck's screens and dialogs (first in the bases: `FormKeys, ModalScreen[T]`); see
    the module docstring. A `Screen` itself, since Textual merges only DOMNode classes' BINDINGS."""

    IS_DIALOG: ClassVar[bool] = True  # enter submits/moves, early letters go to the first field
    HOLD_ENTER: ClassVar[bool] = False  # an enter typed while it opens is kept (a new line, or submits)
    BINDINGS: ClassVar[list[Any]] = [
        Binding("ctrl+s", "submit_form", "Submit", priority=True, id="form.submit"),
        Binding("tab", "move_focus(1)", "Next field", show=False, priority=True, id="form.next_field"),
        Binding("shift+tab", "move_focus(-1)", "Previous field", show=False, priority=True,
                id="form.previous_field"),
    ]

    # -- submitting -----------------------------------------------------------------------------------
    def submit_button(self) -> Button | None:
        """The button `ctrl+s` presses: the first enabled primary button (None: no form here)."""
        for button in self.query(Button):
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
        """Now when something has focus; while the form is still opening, in turn with the keys before."""
        if self.focused is None:
            self.post_message(MoveFocus(step))
            return
        if step > 0 and isinstance(self.focused, CompletingInput) and self.focused.accept_suggestion():
            return
        self._move(step)

    def _move(self, step: int) -> None:
        if step > 0:
            self.focus_next()
        else:
            self.focus_previous()

    def on_move_focus(self, message: MoveFocus) -> None:
        message.stop()
        if self.IS_DIALOG and not self._form_ready:
            self._early_keys.append(message.step)
        else:
            self._move(message.step)

    # -- opening --------------------------------------------------------------------------------------
    def holds(self, event: events.Key) -> bool:
        """The keys kept in order while the form opens: letters, tab/shift+tab, and enter for a prompt."""
        return is_held(event) or (self.HOLD_ENTER and event.key == "enter")

    _form_ready: bool = False

    @property
    def _early_keys(self) -> list[int | str]:
        """Letters (str) and field moves (int) typed before the form was ready, in order."""
        if "_early" not in self.__dict__:
            self.__dict__["_early"] = []
        return self.__dict__["_early"]

    def on_mount(self) -> None:
        if self.IS_DIALOG:
            self.call_after_refresh(self._form_opened)

    def _form_opened(self) -> None:
        """Focus the first field (unless AUTO_FOCUS or the form chose), then replay the early keys."""
        self._form_ready = True
        fields = self.form_fields()
        focused = self.focused
        if not fields:
            return
        if focused is None or isinstance(focused, ScrollableContainer):
            focused = fields[0]
            focused.focus()
        early, self.__dict__["_early"] = self._early_keys, []
        if not early:
            return
        index = fields.index(focused) if focused in fields else 0
        submit = False
        for key in early:
            if isinstance(key, int):
                index = (index + key) % len(fields)
            elif key == ENTER and isinstance(area := fields[index], TextArea):
                area.insert("\n")  # a new line in a multi-line field
            elif key == ENTER:
                submit = True
                break
            elif isinstance(field := fields[index], Input):
                field.insert_text_at_cursor(key)
            elif isinstance(field, TextArea):
                field.insert(key)
        target = fields[index]
        if isinstance(target, Input):
            target.select_on_focus = False  # focusing must not select (and so let a key replace) the text
        target.focus()
        if submit and isinstance(target, Input):
            target.post_message(Input.Submitted(target, target.value))

    def on_key(self, event: events.Key) -> None:
        """A letter or tab that reached the form itself (`hold_key` sends them here while it opens; a
        field takes its own letters): kept and replayed in order once the form has its fields, or, once
        it has, typed into the focused field."""
        if not self.IS_DIALOG or not self.holds(event):
            return
        if event.key == "enter" and self._form_ready and not isinstance(self.focused, TEXT_FIELDS):
            return  # enter on a button, a list or a switch is that control's: the focused button is pressed
        event.stop()
        event.prevent_default()
        held: dict[str, int | str] = {"tab": 1, "shift+tab": -1, "enter": ENTER}
        key = held.get(event.key) or event.character or ""
        if not self._form_ready:
            self._early_keys.append(key)
        elif isinstance(key, int):
            self._move(key)
        elif isinstance(self.focused, Input) and key == ENTER:
            self.focused.post_message(Input.Submitted(self.focused, self.focused.value))
        elif isinstance(self.focused, Input):
            self.focused.insert_text_at_cursor(key)
        elif isinstance(self.focused, TextArea):
            self.focused.insert("\n" if key == ENTER else key)

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
