"""Writes from forms, and writes whose answer was lost.

A form that sends its own write (`WriteForm`) stays open, with what was typed, until the write is known to
be done: on success it closes with the result; on a refusal it shows the server's message; when the
answer was lost after the request may have reached the server (the connection broke after sending, a
truncated or unreadable body, a 502/504 from a proxy), it says "the server may have applied this", re-reads
the resource to find out (`verify`) and says what it found, and asks the screen behind to refresh its
lists (`after_unknown`). So a retry by the user never duplicates a comment unknowingly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Button, Static

from labdeck.api.errors import LabdeckError, MalformedResponse, NetworkError, ServerError
from labdeck.tui.errors import describe_error, unwrap
from labdeck.tui.workers import cancel_if_gone

if TYPE_CHECKING:
    from textual.screen import ModalScreen

    _FormBase = ModalScreen[Any]
else:
    _FormBase = object

MAY_HAVE_APPLIED = "the server may have applied this"

Write = Callable[[], Awaitable[Any]]
Verify = Callable[[], Awaitable[bool]]


def may_have_applied(error: BaseException) -> bool:
    """Whether a write that failed with `error` may still have been applied by the server."""
    error = unwrap(error)
    if isinstance(error, MalformedResponse):  # it answered, but the answer is unreadable or cut short
        return True
    if isinstance(error, NetworkError):
        return error.may_have_sent
    return isinstance(error, ServerError) and error.status in (502, 504)


@dataclass(frozen=True)
class WriteOutcome:
    """What a write did: `done` (with `value`), or not, with `message`; `applied` is True/False when a
    lost answer was checked by re-reading, None when nobody knows."""

    done: bool
    value: Any = None
    message: str = ""
    uncertain: bool = False
    applied: bool | None = None


async def attempt_write(write: Write, verify: Verify | None = None,
                        describe: Callable[[BaseException], str] = describe_error) -> WriteOutcome:
    """Run `write`; when its answer was lost, re-read with `verify` and say what was found."""
    try:
        return WriteOutcome(True, await write())
    except LabdeckError as error:
        if not may_have_applied(error):
            return WriteOutcome(False, message=describe(error))
        lost = f"{describe(error)}: {MAY_HAVE_APPLIED}."
    if verify is None:
        return WriteOutcome(False, message=f"{lost} Check before you try again.", uncertain=True)
    try:
        applied = await verify()
    except LabdeckError as check_error:
        return WriteOutcome(False, message=f"{lost} It could not be checked ({describe(check_error)}); "
                                           "check before you try again.", uncertain=True)
    if applied:
        return WriteOutcome(False, message=f"{lost} Re-read: it was applied; escape closes this form.",
                            uncertain=True, applied=True)
    return WriteOutcome(False, message=f"{lost} Re-read: it was not applied; you can send it again.",
                        uncertain=True, applied=False)


class WriteForm(_FormBase):
    """Mixin of modal forms that can send their own write (`send_write`): the form stays open until the
    write is done. The opener sets `write_with(value)` (and `verify_with(value)`, to re-read after a lost
    answer) to make the form send; without them the form just closes with its value, as before.

    Subclasses show messages in the `Static` whose id is `ERROR` and disable the button whose id is
    `SUBMIT` while a write is in flight. `after_unknown` (set by the opener) refreshes the lists behind
    when a write's answer was lost.
    """

    SUBMIT: str = ""
    ERROR: str = ""
    write_with: Callable[[Any], Awaitable[Any]] | None = None
    verify_with: Callable[[Any], Awaitable[bool]] | None = None
    after_unknown: Callable[[], object] | None = None
    last_outcome: WriteOutcome | None = None

    def submit_value(self, value: Any) -> None:
        """The form's value is ready: send it (when the opener gave a write) or close with it."""
        write, verify = self.write_with, self.verify_with
        if write is None:
            self.dismiss(value)
            return
        self.send_write(lambda: write(value), (lambda: verify(value)) if verify is not None else None)

    def on_screen_suspend(self) -> None:
        cancel_if_gone(self)

    def show_form_message(self, message: str, style: str = "red") -> None:
        for static in self.query(f"#{self.ERROR}").results(Static) if self.ERROR else ():
            static.update(Text(message, style=style))

    def _set_busy(self, busy: bool) -> None:
        if self.SUBMIT:
            for button in self.query(f"#{self.SUBMIT}").results(Button):
                button.disabled = busy

    def send_write(self, write: Write, verify: Verify | None = None) -> None:
        """Send `write` from the open form (a worker of the form, so it stops if the form goes)."""
        self.run_worker(self._send(write, verify), group="form-write", exclusive=True)

    async def _send(self, write: Write, verify: Verify | None) -> None:
        self._set_busy(True)
        self.show_form_message("Sending…", "dim")
        describe = getattr(self.app, "_describe", describe_error)
        outcome = await attempt_write(write, verify, describe)
        self.last_outcome = outcome
        self._set_busy(False)
        if outcome.done:
            self.dismiss(outcome.value)
            return
        self.show_form_message(outcome.message, "yellow" if outcome.uncertain else "red")
        self.notify(outcome.message, title="Not confirmed" if outcome.uncertain else "Refused",
                    severity="warning" if outcome.uncertain else "error", markup=False, timeout=10)
        if outcome.uncertain and self.after_unknown is not None:
            self.after_unknown()
