"""Type-ahead: keys typed while an area opens are kept, in order, and delivered to it once it can take them.

k9s users type ahead by habit: `:projects` enter `/api-gate`, or `:issues` enter `f label:bug` enter, in one
burst. The jump prompt answers on enter; from that moment until the area it opens is on screen, every key is
held here (the prompt's own field hands over the keys it still receives, `PromptInput`), then replayed one at
a time, each after the screen has caught up with the one before (a `/` that opens a filter field must have
moved the focus before the next letter arrives). Keys typed while the replay runs join the end of the queue,
so nothing is reordered and nothing reaches a screen that is closing. A replayed key that answers the jump
prompt again (`:users` enter `:projects` enter, typed in one burst) pauses the replay: the keys after it wait,
still in order, for the area that second jump opens.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events
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


class PromptInput(Input):
    """The jump prompt's field: enter answers in the field's own turn (`on_enter(value)`, with exactly the
    letters typed before it: an enter that bubbled up to the screen was read after the keys that followed it,
    `:users` enter `:projects` read as `users:`); once the prompt has its answer (`answered`), keys it still
    receives go to the type-ahead queue instead of into the field."""

    answered = False

    def __init__(self, *args: Any, on_enter: Callable[[str], object] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_enter = on_enter

    def on_key(self, event: events.Key) -> None:
        if not self.answered:
            if event.key == "enter" and self.on_enter is not None:
                event.stop()
                event.prevent_default()
                self.on_enter(self.value)
            return
        from labdeck.tui.context import context_of

        event.stop()
        event.prevent_default()
        context_of(self).type_ahead.add(event.key, event.character)
