"""A screen dismisses only itself, and only once.

Textual's `Screen.dismiss()` runs the result callback and then pops the *top* screen, whoever that is. Keys
typed quickly reach a dialog before its first dismissal has taken effect (the app forwards each key to the
screen on top when it reads it), so `enter` `enter` on a confirmation, or `enter` `escape` on the jump
prompt, dismissed it twice: the callback ran twice (an action done twice) and the second pop took the
screen below with it, down to "Can't pop screen" on the home screen (found by the key storm). Every dialog
of labdeck gets the rule at once: a dismissal from a screen that is no longer the active one does nothing.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete
from textual.screen import Screen

_original_dismiss = Screen.dismiss


async def _nothing() -> None:
    return None


def _guarded_dismiss(self: Screen[Any], result: Any = None) -> AwaitComplete:
    try:
        active = self.app.screen
    except Exception:  # no app or no screen any more
        active = None
    if active is not self:
        return AwaitComplete(_nothing())  # already dismissed (or never shown): not ours to pop
    return _original_dismiss(self, result)


def install() -> None:
    """Put the guard on `Screen.dismiss` (idempotent)."""
    if Screen.dismiss is not _guarded_dismiss:
        Screen.dismiss = _guarded_dismiss  # type: ignore[method-assign]
