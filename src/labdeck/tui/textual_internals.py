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
- `install_paste_fix()` (`XTermParser.feed` wrapped): Textual's input parser reads an ESC inside a bracketed
  paste as the start of a key sequence and sends what follows it as key presses *before* the paste, which
  arrives cut at the ESC: `XXX` ESC `[31mYYY` pasted came out `^[31mYYYXXX`. The wrapper hides an ESC of
  the pasted text from the parser (as a noncharacter, put back in the `Paste` event), so the paste arrives
  whole and in order; its text is then `domain.text.typed_text` (line ends LF, controls visible).
- `install_field_key_fix()` (`Input._on_key` and `TextArea._on_key` wrapped; `App._check_bindings` read):
  Textual runs a key's non-priority bindings only when the key event has bubbled from the focused widget
  back up to the app, but a widget types a printable key at once, in its own turn. Keys that arrive in one
  terminal read are forwarded to the focused field together, so a letter overtakes a binding key before
  it: `tmux send-keys -H 7f 71` (backspace, `q`) in `teal` typed the `q` first, then the backspace deleted
  it (`teal`; a colour fixed by backspace-and-retype became `t`). (Textual's parser is not at fault: it
  gives both keys, in order.) The wrapper runs a text field's *own* bindings (`delete_left`, cursor moves,
  `submit`...) in the field's turn, in order with the letters, and stops the key there; keys bound only by
  the screen or the app still bubble up as before.
- `Header` (`textual.widgets._header.HeaderTitle`, `Header._on_mount` replaced): Textual's header updates its
  title from a watcher that raises `NoMatches` when the title widget is already gone (a screen being removed
  while the title changes: a key storm crashed on it); this one skips a header without its title.
- `install_handling_count()` (`MessagePump._dispatch_message` and `_flush_next_callbacks` wrapped, counting
  on each node the messages and `call_next` callbacks it is handling now: Textual's own queue keeps no such
  count), `pump_busy(node)` (that count, `_message_queue.values`, `_next_callbacks`, `_is_mounted`,
  `_closing`/`_closed`) and `refresh_pending(screen)` (`Screen._callbacks`, the `call_after_refresh`
  callbacks not yet run): whether a node still has work (a message waiting or being handled, a callback
  due, not mounted yet), which the key router (`type_ahead.KeyRouter`) waits for before the next key.
  Textual's messages that only schedule drawing (`textual.messages.Update`, `Layout`, `UpdateScroll`,
  `Prompt`) are not work: a key's effects on what has focus and what is open do not wait for a repaint
  (waiting for them cost a frame per key typed into a filter). `priority_keys(app)` (`Screen._binding_chain`,
  `BindingsMap.key_to_bindings`): the keys the app runs before the focused widget sees them.
- `install_styled_once()` (`Screen._on_screen_resume` wrapped): a screen pushed or opened for the first time
  is styled as its widgets mount; Textual then restyles every node of it again on its first `ScreenResume`
  (what a screen coming back needs, in case styles changed while it was hidden). The first resume of a
  screen skips that second pass: the app has read every stylesheet as it started (`app.stylesheets`) and
  the screen had its size class before it mounted (`AppBase.get_screen`), so nothing it was styled with
  has changed. Later resumes restyle as before.
- `install_dispatch_plans()` (`MessagePump._get_dispatch_methods` replaced): Textual finds a message's
  handlers by walking the whole class hierarchy of the node at every message (an idle event, a key, a
  mount), looking in each class for `@on` handlers of each class of the message and for the handler named
  by convention. The replacement walks it once for each class of node, class of message and handler name,
  keeps the classes that have a handler (`_dispatch_plan`), and at each message goes through those only,
  in the same order and by the same rules: `@on` handlers first, their selectors matched against this
  message, each method once, the named handler read from the class at that moment (a handler replaced
  later, as `install_field_key_fix` does, is the one called), and no further class once a handler has
  called `prevent_default()`. About a twentieth of the app's time went to the walk.
- `install_parameter_counts()` (`textual._callback._count_parameters` replaced): before Textual calls a
  callback (`call_later`, `call_after_refresh`, `call_next`, a watcher) it counts the callback's
  parameters with `inspect.signature`, and keeps the count on the function; a closure or a lambda is a new
  function each time, so each call paid for the signature again. The count of a plain function is kept by
  its code object (one per `def` or `lambda` in the source, whatever closure it is made in), unless the
  function says its signature otherwise (`__wrapped__`, `__signature__`).
- `notify_content(node, content)`: a notification of a `Content` (server text in it never read as markup);
  Textual's toast renders it as it is (`Content.from_markup` returns a `Content` unchanged), though
  `notify`'s hint says `str`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import CodeType
from typing import Any, cast

from textual import _callback, events, messages
from textual._context import active_app, active_message_pump
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.command import CommandList
from textual.content import Content
from textual.css.match import match
from textual.dom import DOMNode, NoScreen
from textual.keys import _character_to_key
from textual.message import Message
from textual.message_pump import MessagePump, OnNoWidget
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header as TextualHeader
from textual.widgets import Input, TextArea
from textual.widgets._footer import FooterKey
from textual.widgets._header import HeaderTitle

from labdeck.domain.text import typed_text

CHECKED_AGAINST = "8.2.8"  # the Textual release these were read in

__all__ = ["CHECKED_AGAINST", "FooterKey", "Header", "PasteReader", "active_app", "active_message_pump",
           "bindings_for_key", "command_list_ready", "install_dismiss_guard", "install_dispatch_plans",
           "install_field_key_fix", "install_handling_count", "install_parameter_counts", "install_paste_fix",
           "is_closing", "key_for_character", "notify_content",
           "priority_keys", "pump_busy", "refresh_pending", "screen_stacks", "stop_with_error"]


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


_HANDLING = "_labdeck_handling"  # the count `install_handling_count` keeps in a node's own attributes
DRAWING = (messages.Update, messages.Layout, messages.UpdateScroll, messages.Prompt)  # not work (above)
_original_dispatch = MessagePump._dispatch_message
_original_flush = MessagePump._flush_next_callbacks


async def _counted_dispatch(self: MessagePump, message: Message) -> None:
    if isinstance(message, DRAWING):
        await _original_dispatch(self, message)
        return
    counts = self.__dict__
    counts[_HANDLING] = counts.get(_HANDLING, 0) + 1
    try:
        await _original_dispatch(self, message)
    finally:
        counts[_HANDLING] -= 1


async def _counted_flush(self: MessagePump) -> None:
    counts = self.__dict__
    counts[_HANDLING] = counts.get(_HANDLING, 0) + 1
    try:
        await _original_flush(self)
    finally:
        counts[_HANDLING] -= 1


def install_handling_count() -> None:
    """Count, on each node, the messages and callbacks it is handling now (idempotent; see above)."""
    if MessagePump._dispatch_message is not _counted_dispatch:
        MessagePump._dispatch_message = _counted_dispatch  # type: ignore[method-assign]
        MessagePump._flush_next_callbacks = _counted_flush  # type: ignore[method-assign]


_original_dispatch_methods = MessagePump._get_dispatch_methods
# a class that has handlers for the message: its `@on` handlers (method, selectors), whether it names one
_PlanStep = tuple[type, tuple[tuple[Any, dict[str, Any]], ...], bool]
_plans: dict[tuple[type, type, str], tuple[_PlanStep, ...]] = {}


def _dispatch_plan(pump: type, message: type, name: str) -> tuple[_PlanStep, ...]:
    """The classes of `pump` that handle a `message` (`@on` or by the name `name`), most derived first."""
    kinds = [kind for kind in message.__mro__ if issubclass(kind, Message)]
    plan: list[_PlanStep] = []
    for cls in pump.__mro__:
        decorated = cls.__dict__.get("_decorated_handlers")
        handlers = tuple(found for kind in kinds for found in decorated.get(kind, ())) if decorated else ()
        named = f"_{name}" in cls.__dict__ or name in cls.__dict__
        if handlers or named:
            plan.append((cls, handlers, named))
    return tuple(plan)


def _planned_dispatch_methods(self: MessagePump, method_name: str,
                              message: Message) -> Iterator[tuple[type, Any]]:
    """`MessagePump._get_dispatch_methods` over the classes that have a handler (module docstring)."""
    key = (self.__class__, message.__class__, method_name)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _dispatch_plan(*key)
    dispatched: set[Any] = set()
    for cls, handlers, named in plan:
        if message._no_default_action:
            break
        for method, selectors in handlers:
            if method in dispatched or (selectors and not _selectors_match(message, selectors)):
                continue
            yield cls, method.__get__(self, cls)
            dispatched.add(method)
        if named:
            found = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
            if found is not None and not getattr(found, "_textual_on", None):
                yield cls, found.__get__(self, cls)


def _selectors_match(message: Message, selectors: dict[str, Any]) -> bool:
    """Whether an `@on` handler's selectors match the widgets `message` names, as Textual checks them."""
    if not message._sender:
        return False
    for attribute, selector in selectors.items():
        node = getattr(message, attribute)
        if node is None:
            return False
        if not isinstance(node, Widget):
            raise OnNoWidget(f"on decorator can't match against {attribute!r} as it is not a widget.")
        if not match(selector, node):
            return False
    return True


def install_dispatch_plans() -> None:
    """Find a message's handlers through the classes that have one (idempotent; module docstring)."""
    _plans.clear()
    MessagePump._get_dispatch_methods = _planned_dispatch_methods  # type: ignore[method-assign]


_original_count_parameters = _callback._count_parameters
_counts_by_code: dict[CodeType, int] = {}


def _count_parameters_by_code(func: Any) -> int:
    """`textual._callback._count_parameters`, kept by the function's code object (module docstring)."""
    code = getattr(func, "__code__", None)
    if not isinstance(code, CodeType) or hasattr(func, "__wrapped__") or hasattr(func, "__signature__"):
        return _original_count_parameters(func)
    count = _counts_by_code.get(code)
    if count is None:
        count = _counts_by_code[code] = _original_count_parameters(func)
    return count


def install_parameter_counts() -> None:
    """Count a callback's parameters once for each function in the source (idempotent; module docstring)."""
    _callback._count_parameters = _count_parameters_by_code


def pump_busy(node: MessagePump) -> bool:
    """Whether `node` is handling a message or a callback, has one waiting (`call_next` included), or is
    not mounted yet. A node being removed is never busy: nothing it still does can take a key."""
    if node._closing or node._closed:
        return False
    if node.__dict__.get(_HANDLING, 0) > 0 or node._next_callbacks or not node._is_mounted:
        return True
    queued: Iterable[Message | None] = node._message_queue.values
    return any(not isinstance(message, DRAWING) for message in queued)


def priority_keys(app: App[Any]) -> set[str]:
    """The keys with a priority binding where the focus is now (`Screen._binding_chain`): the app runs
    them before the focused widget sees them (`:` jumps even from a path field)."""
    return {key for _node, bindings in app.screen._binding_chain
            for key, found in bindings.key_to_bindings.items() if any(b.priority for b in found)}


def refresh_pending(screen: Screen[Any]) -> bool:
    """Whether `screen` holds callbacks to run after its next refresh (`call_after_refresh`: a focus change's
    follow-ups, a form's first field)."""
    return bool(screen._callbacks)


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


_original_resume = Screen._on_screen_resume
_RESUMED = "_labdeck_resumed"  # set on a screen at its first resume


def _resume_styled_once(self: Screen[Any], event: events.ScreenResume) -> None:
    if not self.__dict__.get(_RESUMED):
        setattr(self, _RESUMED, True)
        event.refresh_styles = False  # styled as it mounted, with the stylesheet of now
    _original_resume(self, event)


def install_styled_once() -> None:
    """Wrap `Screen._on_screen_resume` (idempotent): a screen's first resume does not restyle it."""
    if Screen._on_screen_resume is not _resume_styled_once:
        Screen._on_screen_resume = _resume_styled_once  # type: ignore[method-assign]


def notify_content(node: App[Any] | Widget, content: Content, **options: Any) -> None:
    """`node.notify(content, **options)`: shown as that content, never parsed as markup (see above)."""
    node.notify(cast(str, content), **options)


PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # what a terminal sends around a bracketed paste
_ESC, _HIDDEN_ESC = "\x1b", "\ufdd0"  # U+FDD0: a noncharacter, reserved for a program's internal use


class PasteReader:
    """Where one parser's input stands: outside a bracketed paste (the last few characters passed kept to
    see a start marker cut between two reads) or inside one (a possible start of the end marker, cut at the
    end of a read, kept back until the next read says what it is). `rewrite(data)` is `data` with every ESC
    of pasted text hidden; nothing outside a paste is changed or held back (a lone escape key stays one)."""

    def __init__(self) -> None:
        self.inside = False
        self.seen = ""  # outside: the last characters passed, for a start marker cut between reads
        self.held = ""  # inside: the end of the last read, when it may be the start of the end marker

    def rewrite(self, data: str) -> str:
        out: list[str] = []
        while data:
            if not self.inside:
                window = self.seen + data
                start = window.find(PASTE_START)
                if start < 0:
                    out.append(data)
                    self.seen = window[-(len(PASTE_START) - 1):]
                    return "".join(out)
                cut = start + len(PASTE_START) - len(self.seen)  # the marker ends inside `data`
                out.append(data[:cut])
                data, self.inside, self.seen = data[cut:], True, ""
                continue
            pending = self.held + data
            self.held = ""
            end = pending.find(PASTE_END)
            if end >= 0:
                out.append(pending[:end].replace(_ESC, _HIDDEN_ESC) + PASTE_END)
                data, self.inside = pending[end + len(PASTE_END):], False
                continue
            keep = next((n for n in range(len(PASTE_END) - 1, 0, -1) if pending.endswith(PASTE_END[:n])), 0)
            if keep:
                self.held, pending = pending[-keep:], pending[:-keep]
            out.append(pending.replace(_ESC, _HIDDEN_ESC))
            return "".join(out)
        return "".join(out)

    def flush(self) -> str:
        """What was held back (the input has ended)."""
        held, self.held = self.held, ""
        return held


def _pasted(message: Message) -> Message:
    if isinstance(message, events.Paste):
        return events.Paste(typed_text(message.text.replace(_HIDDEN_ESC, _ESC)))
    return message


_original_feed = XTermParser.feed


def _paste_safe_feed(self: XTermParser, data: str) -> Iterator[Message]:
    reader: PasteReader = self.__dict__.setdefault("_labdeck_paste", PasteReader())
    if not data:  # the end of the input: what was held back, then the end ("" is the end to the parser)
        held = reader.flush()
        if held:
            yield from map(_pasted, _original_feed(self, held))
        yield from map(_pasted, _original_feed(self, ""))
        return
    rewritten = reader.rewrite(data)
    if rewritten:  # all of it may be held back (a possible end marker cut by the read)
        yield from map(_pasted, _original_feed(self, rewritten))


def install_paste_fix() -> None:
    """Put the paste fix on Textual's input parser (idempotent); see the module docstring."""
    if XTermParser.feed is not _paste_safe_feed:
        XTermParser.feed = _paste_safe_feed  # type: ignore[method-assign]


_KeyHandler = Any  # `async (widget, Key) -> None`: a text field's own `_on_key`
_FIELD_KEYS: dict[type[Widget], _KeyHandler] = {}


def _own_bindings_in_turn(original: _KeyHandler) -> _KeyHandler:
    async def on_key(self: Widget, event: events.Key) -> None:
        await original(self, event)
        if event._stop_propagation or event._no_default_action or not self.has_focus:
            return  # typed (or taken) by the field itself, or not for the focused field any more
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()  # done here, in turn: the app must not run it again when it bubbles up
                event.prevent_default()
                return

    on_key.__labdeck_field_keys__ = True  # type: ignore[attr-defined]
    return on_key


def install_field_key_fix() -> None:
    """Run a text field's own key bindings in the field's turn (idempotent); see the module docstring."""
    for field in (Input, TextArea):
        current = field.__dict__["_on_key"]
        if not getattr(current, "__labdeck_field_keys__", False):
            _FIELD_KEYS[field] = current
            field._on_key = _own_bindings_in_turn(current)  # type: ignore[method-assign]


class Header(TextualHeader):
    """Textual's `Header`, whose title watcher tolerates a header whose title widget is gone (module
    docstring)."""

    def _on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # Textual's own would watch with the callback that raises
        Widget._on_mount(self, event)

        async def set_title() -> None:
            try:
                for title in self.query(HeaderTitle):
                    title.update(self.format_title())
            except NoScreen:
                pass

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
