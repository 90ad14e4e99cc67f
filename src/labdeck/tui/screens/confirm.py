"""Confirmations: `ConfirmScreen` (yes/no, Cancel focused) and `TypeToConfirmScreen` (the name must be typed)
for the most dangerous actions. Messages are Content so server names inside them are never markup.

`Cancellable` is how every dialog opened for a change is cancelled (escape, its Cancel button, enter on
Cancel): it closes with its "no" and says so ("Assign to alice (3 issues): cancelled"), in this one place
for the confirmations, the forms (`base.FormDialog`), the scope choice and the bulk menus. A confirmation
of a change that writes over something (assignees, a role, deploy rules) says what it replaces
(`replaces`, worded by `domain.replacements.replaced_text`) before it is confirmed.

Drafts: `DraftGuard` is the one rule of every screen that edits text (the form base `FormDialog`, the wiki
editor): closing it while its text differs from what it opened with asks `DiscardChangesScreen` ("Discard
your changes?", Keep editing focused) first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Static

from labdeck.domain.text import sanitize_line
from labdeck.tui.jobs import JobCentre, still_running_text
from labdeck.tui.widgets.text_editor import TextEditor

if TYPE_CHECKING:
    _Screen = ModalScreen[Any]  # what the guard is mixed into (a form, or a full screen)
else:
    _Screen = object


def _content(message: str | Content) -> Content:
    return message if isinstance(message, Content) else Content(message)


def plain_text(shown: object) -> str:
    """The text of what a `Static` shows (a `Content`, a rich `Text` or a plain string), without styles."""
    return shown.plain if isinstance(shown, Content | Text) else str(shown)


R = TypeVar("R")


class Cancellable(Screen[R]):
    """A dialog that can be cancelled (a mixin, before `ModalScreen` in the bases): `cancel()` closes it with
    `CANCELLED` and, when it was opened for a change (`cancel_subject()` is not None), says so in a
    notification: "<subject>: cancelled". By default the subject is the dialog's title (its first
    `Static`); a dialog that changes nothing says nothing (`SAYS_CANCELLED = False`)."""

    CANCELLED: ClassVar[object] = None
    SAYS_CANCELLED: ClassVar[bool] = True

    def cancel_subject(self) -> str | None:
        if not self.SAYS_CANCELLED:
            return None
        title = next(iter(self.query(Static)), None)
        return plain_text(title.content) if title is not None else None

    def cancel(self) -> None:
        subject = self.cancel_subject()
        if subject:
            self.notify(f"{subject.strip().rstrip('?').strip()}: cancelled", markup=False, timeout=4)
        self.dismiss(cast(R, self.CANCELLED))

    def action_cancel(self) -> None:
        self.cancel()


class ConfirmScreen(Cancellable[bool], ModalScreen[bool]):
    """Dismisses with True only when the confirm button is pressed; escape and Cancel give False (said as
    "cancelled" unless `changes` is False: a question whose yes changes nothing). `replaces` says what the
    change writes over ("replaces bob on 3 issues"), on a line of its own."""

    CANCELLED = False

    SENDS_NO_WRITE = ("a yes/no question: the opener sends after yes; a "
                      "lost answer is said by describe_error and the screen re-reads")

    CSS_PATH = "confirm.tcss"
    AUTO_FOCUS = "#cancel"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm.cancel")]

    def __init__(self, title: str | Content, message: str | Content, *, confirm_label: str = "Confirm",
                 danger: bool = True, irreversible: str | None = None, replaces: str = "",
                 changes: bool = True, cancel_label: str = "Cancel") -> None:
        super().__init__()
        self.confirm_title = _content(title)
        self.message = _content(message)
        self.confirm_label = confirm_label
        self.cancel_label = cancel_label
        self.danger = danger
        self.irreversible = irreversible  # why labdeck's journal cannot undo it (said before it runs)
        self.replaces = replaces  # what the change writes over, in `replaced_text`'s words ("" for nothing)
        self.changes = changes

    def cancel_subject(self) -> str | None:
        return self.confirm_title.plain if self.changes else None

    def compose(self) -> ComposeResult:
        with Vertical(classes="confirm-box"):
            yield Static(self.confirm_title, classes="confirm-title")
            yield Static(self.message, classes="confirm-message")
            if self.replaces:
                yield Static(Content(f"This {self.replaces}."), classes="confirm-replaces")
            if self.irreversible:
                yield Static(Content(f"This cannot be undone: {self.irreversible}."),
                             classes="confirm-irreversible")
            yield from self.compose_extra()
            with Horizontal(classes="confirm-buttons"):
                yield Button(self.cancel_label, id="cancel", variant="default")
                yield Button(self.confirm_label, id="confirm", variant="error" if self.danger else "primary")

    def compose_extra(self) -> ComposeResult:
        yield from ()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "confirm":
            self.dismiss(self.can_confirm())
        else:
            self.cancel()

    def can_confirm(self) -> bool:
        return True


def mismatch_text(expected: str) -> Content:
    """What a typed confirmation says when the text typed is not the name (`expected` is literal text)."""
    return Content.from_markup("does not match: type [b]$name[/b] to confirm", name=expected)


class QuitScreen(ConfirmScreen):
    """The "Quit labdeck?" question while tasks run: its message reads the task centre when shown and
    follows it while open, so it never claims that a finished task still runs."""

    def __init__(self, jobs: JobCentre) -> None:
        super().__init__("Quit labdeck?", still_running_text(jobs.running), confirm_label="Quit",
                         changes=False)
        self.jobs = jobs
        self._stop_following: Callable[[], None] | None = None

    def on_mount(self) -> None:
        self._stop_following = self.jobs.on_change(lambda _job: self.show_running())
        self.show_running()

    def on_unmount(self) -> None:
        if self._stop_following is not None:
            self._stop_following()

    def show_running(self) -> None:
        self.message = Content(still_running_text(self.jobs.running))
        for static in self.query(".confirm-message").results(Static):
            static.update(self.message)


class TypeToConfirmScreen(ConfirmScreen):
    """The confirm button stays disabled until `expected` is typed exactly. The name shown and compared is
    its visible form (`sanitize_line`: controls, bidi and zero-width characters as `<U+202E>`), so a name
    with a hidden character cannot pass for another: `alice` + U+202E is confirmed only by typing that.
    Text that can no longer become the name (or enter on text that is not it) says so under the field,
    instead of nothing happening."""

    AUTO_FOCUS = "#confirm-name"

    def __init__(self, title: str | Content, message: str | Content, expected: str, *,
                 confirm_label: str = "Delete", irreversible: str | None = None, replaces: str = "") -> None:
        super().__init__(title, message, confirm_label=confirm_label, danger=True, irreversible=irreversible,
                         replaces=replaces)
        self.expected = sanitize_line(expected)

    def compose_extra(self) -> ComposeResult:
        yield Static(Content.from_markup("Type [b]$name[/b] to confirm:", name=self.expected))
        yield Input(id="confirm-name", placeholder=self.expected)
        yield Static("", id="confirm-mismatch", classes="confirm-mismatch")

    def on_mount(self) -> None:
        self.query_one("#confirm", Button).disabled = True
        self.query_one("#confirm-mismatch", Static).display = False

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#confirm", Button).disabled = not self.can_confirm()
        # said as soon as the text typed cannot become the name; quiet while it still can
        self.say_mismatch(not self.expected.startswith(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.can_confirm():
            self.dismiss(True)
        else:
            self.say_mismatch(True)

    def say_mismatch(self, wrong: bool) -> None:
        said = self.query_one("#confirm-mismatch", Static)
        said.update(mismatch_text(self.expected) if wrong else "")
        said.display = wrong

    def can_confirm(self) -> bool:
        return self.query_one("#confirm-name", Input).value == self.expected


class DiscardChangesScreen(ConfirmScreen):
    """Asked before an editor with unsaved text closes (`DraftGuard`): Keep editing is focused (enter and
    escape keep editing), Discard closes the editor and loses the text."""

    def __init__(self) -> None:
        super().__init__("Discard your changes?", "What you typed here has not been saved; it is lost if you "
                         "discard it.", confirm_label="Discard", cancel_label="Keep editing", changes=False)


class DraftGuard(_Screen):
    """Mixed into every screen that edits text, before its Textual base: `close_keeping_drafts(close)` runs
    `close` at once when nothing typed would be lost, else asks `DiscardChangesScreen` first and closes
    only on Discard. What counts as unsaved is `unsaved_changes()`: by default a `TextEditor` whose text
    differs from what it opened with; a screen that knows more (a title, a saved page) says so there."""

    def unsaved_changes(self) -> bool:
        return any(editor.changed for editor in self.query(TextEditor))

    def close_keeping_drafts(self, close: Callable[[], object]) -> None:
        if not self.unsaved_changes():
            close()
            return

        def answered(discard: bool | None) -> None:
            if discard:
                close()

        self.app.push_screen(DiscardChangesScreen(), answered)
