"""Writes from forms, and writes whose answer was lost.

A form that sends its own write (`WriteForm`) stays open, with what was typed, until the write is known to
be done: on success it closes with the result; on a refusal it shows the server's message; when the
answer was lost after the request may have reached the server (the connection broke after sending, a
truncated or unreadable body, a 502/504 from a proxy), it says "the server may have applied this", re-reads
the resource to find out (`verify`) and says what it found, and asks the screen behind to refresh its
lists (`after_unknown`). When the re-read finds it applied, the form closes (the lists are re-read); when
it finds it not applied, the form stays, so sending again is safe. So a retry by the user never duplicates
a comment unknowingly.

Every form that writes goes through `open_write_form(opener, form, write, verify=...)`: `verify` is
required, either a re-read (`Verify`) or `CannotVerify("why")`, so no form can forget to say how a lost
answer is checked (`tests/tui/test_write_forms.py` walks every dialog class). Writes that no form holds
(a confirmed delete, a toggle) are reported by `describe_error` with "the server may have applied this",
and the app re-reads the screen's data (`LabdeckApp._handle_exception`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.widgets import Button, Static

from labdeck.api.errors import READS, LabdeckError
from labdeck.tui.context import context_of
from labdeck.tui.errors import MAY_HAVE_APPLIED, describe_error, may_have_applied
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import cancel_if_gone

__all__ = ["MAY_HAVE_APPLIED", "CannotVerify", "WriteForm", "WriteOutcome", "attempt_write",
           "may_have_applied", "open_write_form"]

if TYPE_CHECKING:
    from textual.screen import ModalScreen
    from textual.widget import Widget

    _FormBase = ModalScreen[Any]
else:
    _FormBase = object

Write = Callable[[], Awaitable[Any]]
Verify = Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class CannotVerify:
    """Said instead of a re-read where none can tell whether a lost write was applied (and why)."""

    reason: str


ValueVerify = Callable[[Any], Awaitable[bool]] | CannotVerify


@dataclass(frozen=True)
class WriteOutcome:
    """What a write did: `done` (with `value`), or not, with `message`; `applied` is True/False when a
    lost answer was checked by re-reading, None when nobody knows."""

    done: bool
    value: Any = None
    message: str = ""
    uncertain: bool = False
    applied: bool | None = None


def lost_text(described: str) -> str:
    """`described` (an error's line) saying, once, that the server may have applied the write."""
    return f"{described}." if MAY_HAVE_APPLIED in described else f"{described}: {MAY_HAVE_APPLIED}."


async def attempt_write(write: Write, verify: Verify | CannotVerify | None = None,
                        describe: Callable[[BaseException], str] = describe_error,
                        refusals: tuple[type[Exception], ...] = ()) -> WriteOutcome:
    """Run `write`; when its answer was lost, re-read with `verify` and say what was found. `refusals`:
    other errors `write` raises before sending (a bad file, a value the service refuses), shown as they
    are."""
    try:
        return WriteOutcome(True, await write())
    except LabdeckError as error:
        if not may_have_applied(error) or error.method.upper() in READS - {""}:  # a lookup before it failed
            return WriteOutcome(False, message=describe(error))
        lost = lost_text(describe(error))
    except refusals as error:
        return WriteOutcome(False, message=describe(error))
    if verify is None:
        return WriteOutcome(False, message=f"{lost} Check before you try again.", uncertain=True)
    if isinstance(verify, CannotVerify):
        return WriteOutcome(False, message=f"{lost} It cannot be checked from here ({verify.reason}); "
                                           "check before you try again.", uncertain=True)
    try:
        applied = await verify()
    except (LabdeckError, ValueError) as check_error:  # a re-read that fails, or finds what it cannot read
        return WriteOutcome(False, message=f"{lost} It could not be checked ({describe(check_error)}); "
                                           "check before you try again.", uncertain=True)
    if applied:
        return WriteOutcome(False, message=f"{lost} Re-read: it was applied.", uncertain=True, applied=True)
    return WriteOutcome(False, message=f"{lost} Re-read: it was not applied; you can send it again.",
                        uncertain=True, applied=False)


class WriteForm(_FormBase):
    """Mixin of modal forms that can send their own write (`send_write`): the form stays open until the
    write is done. Opened with `open_write_form` (which sets `write_with`, the required `verify_with` and
    `after_unknown`), the form sends; opened plainly (a form that sends nothing: a folder, a job's
    options), it just closes with its value.

    Subclasses show messages in the `Static` whose id is `ERROR` and disable the button whose id is
    `SUBMIT` while a write is in flight. `after_unknown` (set by the opener) refreshes the lists behind
    when a write's answer was lost.
    """

    SUBMIT: ClassVar[str] = ""
    ERROR: ClassVar[str] = ""
    # errors a write may raise before anything is sent (a bad file, a value the service refuses): shown
    REFUSALS: tuple[type[Exception], ...] = ()
    write_with: Callable[[Any], Awaitable[Any]] | None = None
    verify_with: ValueVerify | None = None
    after_unknown: Callable[[], object] | None = None
    last_outcome: WriteOutcome | None = None
    sending = False  # a write of this form is in flight

    def submit_value(self, value: Any) -> None:
        """The form's value is ready: send it (when the opener gave a write) or close with it."""
        write, verify = self.write_with, self.verify_with
        if write is None:
            self.dismiss(value)
            return
        check: Verify | CannotVerify | None = verify if isinstance(verify, CannotVerify) else (
            (lambda: verify(value)) if verify is not None else None)
        self.send_write(lambda: write(value), check)

    def describe_failure(self, error: BaseException) -> str:
        """One line for a failed write (the app's description: its own token redacted)."""
        if isinstance(error, LabdeckError):
            return context_of(self).describe(error)
        return str(error) or type(error).__name__

    def on_screen_suspend(self) -> None:
        cancel_if_gone(self)

    def show_form_message(self, message: str, style: str = "red") -> None:
        for static in self.query(f"#{self.ERROR}").results(Static) if self.ERROR else ():
            static.update(Text(message, style=style))
            static.display = True  # a form may keep the line hidden until there is something to say

    def _set_busy(self, busy: bool) -> None:
        if self.SUBMIT:
            for button in self.query(f"#{self.SUBMIT}").results(Button):
                button.disabled = busy

    def send_write(self, write: Write, verify: Verify | CannotVerify | None = None) -> None:
        """Send `write` from the open form (a worker of the form, so it stops if the form goes). While one
        is in flight a second submit (enter again, ctrl+s) is ignored: it must not cancel a request that
        may have reached the server and send it again."""
        if self.sending:
            return
        self.sending = True
        # the keys typed while it sends wait: for the list it was opened from once it closes, or for the
        # form again when it stays with a refusal (the app's key router); a question the write asks over
        # the form takes them at once
        context_of(self).keys.wait_for(self.run_worker(self._send(write, verify), group="form-write"), self)

    async def _send(self, write: Write, verify: Verify | CannotVerify | None) -> None:
        self._set_busy(True)
        self.show_form_message("Sending…", "dim")
        try:
            outcome = await attempt_write(write, verify, self.describe_failure, self.REFUSALS)
        finally:
            self.sending = False
        self.last_outcome = outcome
        self._set_busy(False)
        if outcome.done:
            self.dismiss(outcome.value)
            return
        if outcome.uncertain and self.after_unknown is not None:
            self.after_unknown()
        if outcome.applied:  # found on the server: nothing left to send; the lists are re-read
            self.notify(outcome.message, title="Applied", markup=False, timeout=10)
            self.dismiss(None)
            return
        self.show_form_message(outcome.message, "yellow" if outcome.uncertain else "red")
        self.notify(outcome.message, title="Not confirmed" if outcome.uncertain else "Refused",
                    severity="warning" if outcome.uncertain else "error", markup=False, timeout=10)


def open_write_form(opener: Widget, form: WriteForm, write: Callable[[Any], Awaitable[Any]], *,
                    verify: ValueVerify, row: Any, refresh: Callable[[], object] | None = None,
                    done: Callable[[Any], object] | None = None) -> WriteForm:
    """Open `form` so that it sends `write(value)` itself and stays open until it is done. `verify(value)`
    re-reads the target after a lost answer (True: it was applied), or `CannotVerify` says why nothing
    can; `refresh` re-reads the opener's lists after a lost answer; `done(result)` runs when the form
    closes (the write's result; None when cancelled or found applied after a lost answer).

    `row` is the row of the opener's list (`list_table()`, the kit's) that the form edits, or None for a
    form that adds rows to it. Once the write is done (or found applied), that list has focus and, when its
    rows are read again, its cursor is on the saved row, the new or the edited one (`widgets/saved_row.py`),
    so that enter opens it and a row key acts on it: one rule for every form that creates or edits rows."""
    table = _list_of(opener)
    saved = table.saved_row(row) if table is not None else None

    def closed(result: Any) -> None:
        outcome = form.last_outcome
        if table is not None and saved is not None and outcome is not None and (
                outcome.done or outcome.applied) and table.is_attached:
            table.show_saved_row(saved)  # before `done`, which starts the re-read
        if done is not None:
            done(result)

    form.write_with = write
    form.verify_with = verify
    form.after_unknown = refresh
    opener.app.push_screen(form, closed)
    return form


def _list_of(opener: Widget) -> ResourceTable | None:
    """The list a form opened by `opener` (a pane or a screen of the kit) saves its rows into."""
    list_table = getattr(opener, "list_table", None)
    table = list_table() if callable(list_table) else None
    return table if isinstance(table, ResourceTable) else None
