"""Type-ahead: keys typed while an area opens are kept, in order, and delivered to it once it can take them.

k9s users type ahead by habit: `:projects` enter `/api-gate`, or `:issues` enter `f label:bug` enter, in one
burst. The jump prompt answers on enter (`PromptKeys`: the app reads the prompt's keys itself, in order); from
that moment until the area it opens is on screen, every key is held here, then replayed one at
a time, each after the screen has caught up with the one before (a `/` that opens a filter field must have
moved the focus before the next letter arrives). Keys typed while the replay runs join the end of the queue,
so nothing is reordered and nothing reaches a screen that is closing. A replayed key that answers the jump
prompt again (`:users` enter `:projects` enter, typed in one burst) pauses the replay: the keys after it wait,
still in order, for the area that second jump opens.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events
from textual.actions import parse
from textual.binding import Binding
from textual.widgets import Input

from labdeck.tui.textual_internals import key_for_character

if TYPE_CHECKING:
    from textual.app import App

MAX_HELD = 256  # a stuck opening must not keep a whole paste
GIVE_UP = 10.0  # seconds: an area that has not opened by then gets the kept keys anyway
_CONTROL_KEYS = {"\r": "enter", "\t": "tab"}


class TypeAhead:
    """The app's queue of held keys (one per app, in its context)."""

    def __init__(self) -> None:
        self.holding = False
        self._keys: deque[tuple[str, str | None]] = deque()
        self._replayed: set[int] = set()
        self._delivering = False

    def hold(self, app: App[Any] | None = None) -> None:
        """From now on keys are kept, until `deliver`; with `app`, delivered after `GIVE_UP` seconds at the
        latest, so keys are never kept for good if the area never says it opened."""
        if app is not None and (not self.holding or self._delivering):
            app.set_timer(GIVE_UP, lambda: self.deliver(app) if self.holding else None)
        self._delivering = False  # a jump answered by a replayed key: the rest waits for its area
        self.holding = True

    def add(self, key: str, character: str | None) -> None:
        if len(self._keys) < MAX_HELD:
            self._keys.append((key, character))

    def add_text(self, text: str) -> None:
        """Characters a prompt had kept for itself, after its answer (enter kept as `\r`)."""
        for character in text:
            self.add(_CONTROL_KEYS.get(character) or key_for_character(character), character)

    def takes(self, event: events.Event) -> bool:
        """Asked by the app for every event: True when `event` is a key to keep now (replays pass)."""
        if not isinstance(event, events.Key) or event.is_forwarded:
            return False  # a key the screen did not take, bubbling back to the app: not typed again
        if id(event) in self._replayed:
            self._replayed.discard(id(event))
            return False
        if not self.holding:
            return False
        self.add(event.key, event.character)
        return True

    def deliver(self, app: App[Any]) -> None:
        """Replay the kept keys to whatever is on screen now, one per refresh; then stop holding."""
        if self._delivering:
            return
        self._delivering = True
        self._next(app)

    def _next(self, app: App[Any]) -> None:
        if not self._delivering:
            return  # paused by a new `hold`
        if not self._keys:
            self.holding = False
            self._delivering = False
            return
        key, character = self._keys.popleft()
        event = events.Key(key, character)
        self._replayed.add(id(event))
        app.post_message(event)
        app.call_after_refresh(self._next, app)


class PromptKeys:
    """A prompt whose keys the app reads in its own turn, in the order they were typed (the `:` jump).

    Textual hands a key to the focused field's own queue, so an enter and the keys typed after it were read
    by different readers: a fast burst could put `users:` in the field, or let escapes pass the enter and
    close the screens under the prompt. Here the app calls `read(event)` for every key and paste while the
    prompt is on top, before anything else sees it: letters go into the field at once (or are kept until
    the field exists), the field's editing keys run at once, and enter and escape answer at once. A key read
    after the answer finds the prompt already off the stack (or the type-ahead queue holding)."""

    answered = False
    _typed = ""  # letters read before the field was mounted
    _field: Input | None = None

    def adopt(self, field: Input) -> None:
        """The field is mounted: it takes what was typed so far, and every key from now on."""
        self._field = field
        self.set_text(self._typed)

    def set_text(self, text: str) -> None:
        """Replace what is typed (a completion), the cursor after it."""
        if self._field is None:
            self._typed = text
        else:
            self._field.value = text
            self._field.cursor_position = len(text)

    @property
    def text(self) -> str:
        return self._field.value if self._field is not None else self._typed

    def read(self, event: events.Event) -> bool:
        """Take `event` now; False leaves it to Textual (keys the prompt has no use for, bindings)."""
        if self.answered:
            return False
        if isinstance(event, events.Paste):
            lines = event.text.splitlines()
            self._type(lines[0] if lines else "")
            return True
        if not isinstance(event, events.Key):
            return False
        if event.key == "enter":
            self.submit_text(self.text)
        elif event.key == "escape":
            self.cancel_prompt()
        elif event.key == "tab":
            self.complete_text()
        elif event.is_printable and event.character:
            self._type(event.character)
        elif self._field is None:
            if event.key != "backspace":
                return False
            self._typed = self._typed[:-1]
        else:
            return _run_field_key(self._field, event.key)
        return True

    def _type(self, text: str) -> None:
        field = self._field
        if field is None:
            self._typed += text
        elif field.selection.is_empty:
            field.insert_text_at_cursor(text)
        else:
            field.replace(text, *field.selection)

    # (not `on_enter` and the like: Textual would call those for its own `Enter` event, the mouse entering)
    def submit_text(self, text: str) -> None:
        """Answer with `text` (exactly the letters typed before the enter)."""

    def cancel_prompt(self) -> None:
        """Close without an answer."""

    def complete_text(self) -> None:
        """Complete the name typed so far."""


def _run_field_key(field: Input, key: str) -> bool:
    """Run the field's own binding for `key` now (cursor moves, deletions); False when it has none."""
    for binding in Binding.make_bindings(type(field).BINDINGS):
        if binding.key == key and binding.action != "submit":
            name, arguments = parse(binding.action)[1:]
            getattr(field, f"action_{name}")(*arguments)
            return True
    return False
