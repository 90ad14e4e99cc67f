"""Every touch of Textual's private internals, in one place.

labdeck uses a few things Textual does not publish. Each is named here, with why, so that a new Textual
release is checked in one module (`tests/tui/test_textual_internals.py` fails when the installed Textual is
not the version below, or when one of these names has gone):

- `active_message_pump` (`textual._context`): which node's code raised an error (`workers.error_node`);
  `active_app`: whether code runs inside a running app (`workers.app_running`).
- `screen_stacks(app)` (`App._screen_stacks`): the stacks of every mode, to tell a popped screen from a
  screen of another mode (`workers.is_gone`) and to find an open area's screen (`navigation`).
- `is_closing(node)` (`_pruning`, `_closing`, `_closed`): a node being removed.
- `FooterKey` (`textual.widgets._footer`): the key widget labdeck's footer lays out in its own order.
- `command_list_ready(list)` (`OptionList._update_lines`, `_line_cache`): Textual 8.2.8 raises `KeyError`
  when a page key reaches the palette's list before its lines exist.
- `stop_with_error(app, error)` (`_return_code`, `_exception`, `_exception_event`): ending the app after an
  unexpected error as Textual's own handler does, without its crash screen (which prints locals).
- `bindings_for_key(node, key)` (`DOMNode._bindings`, keymap applied): which actions a key means on a node,
  to say "read-only" when the key of a hidden mutating action is pressed.
- `key_for_character(character)` (`textual.keys._character_to_key`): the key name of a typed character, to
  replay kept keys (`type_ahead`).
- `install_dismiss_guard()` (`Screen.dismiss` replaced): a screen dismisses only itself, and only once.
  Textual's `dismiss()` pops the *top* screen, whoever that is, so `enter` `enter` typed fast on a
  confirmation ran its callback twice and popped the screen below too.
- `notify_content(node, content)`: a notification of a `Content` (server text in it never read as markup);
  Textual's toast renders it as it is (`Content.from_markup` returns a `Content` unchanged), though
  `notify`'s hint says `str`.
"""

from __future__ import annotations

from typing import Any, cast

from textual._context import active_app, active_message_pump
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.command import CommandList
from textual.content import Content
from textual.dom import DOMNode
from textual.keys import _character_to_key
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._footer import FooterKey

CHECKED_AGAINST = "8.2.8"  # the Textual release these were read in

__all__ = ["CHECKED_AGAINST", "FooterKey", "active_app", "active_message_pump", "bindings_for_key",
           "command_list_ready", "install_dismiss_guard", "is_closing", "key_for_character", "notify_content",
           "screen_stacks", "stop_with_error"]


def bindings_for_key(node: DOMNode, key: str) -> list[Any]:
    """The bindings `key` has on `node` (after the user's keymap)."""
    return list(node._bindings.key_to_bindings.get(key, ()))


def key_for_character(character: str) -> str:
    """The key name Textual gives a typed character (`:` is `colon`, `/` is `slash`)."""
    return _character_to_key(character)


def screen_stacks(app: App[Any]) -> dict[str, list[Screen[Any]]]:
    """The screen stack of every mode of `app`."""
    stacks: dict[str, list[Screen[Any]]] | None = getattr(app, "_screen_stacks", None)
    return stacks if stacks is not None else {"_": list(app.screen_stack)}


def is_closing(node: DOMNode) -> bool:
    """Whether `node` is being removed or has been."""
    return any(getattr(node, flag, False) for flag in ("_pruning", "_closing", "_closed"))


def command_list_ready(command_list: CommandList) -> bool:
    """Whether every option of the palette's list has its lines (so paging can find the highlighted one)."""
    if not command_list.option_count:
        return False
    command_list._update_lines()  # what Textual does before it reads the lines (a no-op when laid out)
    lines = command_list._line_cache.index_to_line
    highlighted = command_list.highlighted
    return bool(command_list._line_cache.lines) and (highlighted is None or highlighted in lines)


def stop_with_error(app: App[Any], error: BaseException) -> None:
    """Mark `app` as failed with `error` (kept if one is already there: the first error stays first);
    `run_test` re-raises it, a plain run exits with code 1."""
    app._return_code = 1
    if app._exception is None:
        app._exception = error if isinstance(error, Exception) else RuntimeError(str(error))
        app._exception_event.set()


async def _nothing() -> None:
    return None


_original_dismiss = Screen.dismiss


def _guarded_dismiss(self: Screen[Any], result: Any = None) -> AwaitComplete:
    try:
        active = self.app.screen
    except Exception:  # no app or no screen any more
        active = None
    if active is not self:
        return AwaitComplete(_nothing())  # already dismissed (or never shown): not ours to pop
    return _original_dismiss(self, result)


def install_dismiss_guard() -> None:
    """Put the guard on `Screen.dismiss` (idempotent)."""
    if Screen.dismiss is not _guarded_dismiss:
        Screen.dismiss = _guarded_dismiss  # type: ignore[method-assign]


def notify_content(node: App[Any] | Widget, content: Content, **options: Any) -> None:
    """`node.notify(content, **options)`: shown as that content, never parsed as markup (see above)."""
    node.notify(cast(str, content), **options)
