"""`CompletingInput`: an `Input` that completes names from the instance as they are typed, inline.

The field finds the name being typed at the end of its text (a `domain.completion` slot finder: the issue
filter's `label:bu`, an item of a comma-separated list, a path), asks the session's completion source
(`Services.completion`, cached) for names in its scope, and shows the first that completes it as a dimmed
suggestion after the cursor (Textual's `Suggester`). `right` at the end of the text or `tab` accepts it
(`FormKeys` asks the focused field first); typing on ignores it. Accepting writes the name as the field needs
it: in the filter, quoted when it holds spaces (`label:"good first issue"`), which the inline suggestion
cannot show. Names are server text: sanitised by the source and drawn by the `Input` as plain text, never
markup.

Outside labdeck's app (no session) the field is a plain `Input`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.suggester import Suggester
from textual.widgets import Input

from labdeck.api.completion import Scope
from labdeck.api.errors import LabdeckError
from labdeck.domain.completion import Ghost, Kind, Quoting, Slot, best, ghost, list_slot, path_slot
from labdeck.tui.context import context_of

SlotFinder = Callable[[str], "Slot | None"]
SETTLE = 0.08  # seconds a value must stay before its names are asked for (a burst of keys asks once)


class NameSuggester(Suggester):
    """Suggestions of one `CompletingInput`, from the session's completion source."""

    def __init__(self, owner: CompletingInput) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.owner = owner

    async def get_suggestion(self, value: str) -> str | None:
        owner = self.owner
        slot = owner.find_slot(value)
        if slot is None:
            return None
        await asyncio.sleep(SETTLE)
        if owner.value != value:
            return None
        try:
            source = context_of(owner).services.completion
            names = await source.candidates(slot.kind, slot.prefix, owner.scope())
        except LabdeckError:
            return None
        name = best(slot.prefix, names)
        found = None if name is None else ghost(value, slot, name, owner.quoting)
        if found is None:
            return None
        owner.offered = (value, found)
        return found.shown


class CompletingInput(Input):
    """An `Input` completing the names its `find_slot` finds (see the module docstring). `scope()` gives
    the project or group the names belong to (None: the instance); `quoting` how a name is written."""

    def __init__(self, value: str = "", *, find_slot: SlotFinder, quoting: Quoting = "plain",
                 scope: Callable[[], Scope] = lambda: None, **kwargs: Any) -> None:
        super().__init__(value, suggester=None, **kwargs)
        self.find_slot = find_slot
        self.quoting: Quoting = quoting
        self.scope = scope
        self.offered: tuple[str, Ghost] | None = None  # the suggestion shown for a value
        self.suggester = NameSuggester(self)

    def suggestion(self) -> Ghost | None:
        """The suggestion for the text as it is, when the cursor is at its end (what `right` accepts)."""
        if self.offered is None or self.offered[0] != self.value or not self.cursor_at_end:
            return None
        return self.offered[1]

    def accept_suggestion(self) -> bool:
        """Complete the name (True), or do nothing when there is no suggestion (False)."""
        found = self.suggestion()
        if found is None or found.accepted == self.value:
            return False
        self.offered = None
        self.value = found.accepted
        self.cursor_position = len(self.value)
        return True

    def action_cursor_right(self, select: bool = False) -> None:
        if select or not self.accept_suggestion():
            super().action_cursor_right(select)


def list_input(kind: Kind, value: str = "", *, scope: Callable[[], Scope] = lambda: None,
               **kwargs: Any) -> CompletingInput:
    """A field of comma-separated names (labels, usernames) completing the item being typed."""
    return CompletingInput(value, find_slot=lambda text: list_slot(text, kind), scope=scope, **kwargs)


def single_input(kind: Kind, value: str = "", *, scope: Callable[[], Scope] = lambda: None,
                 **kwargs: Any) -> CompletingInput:
    """A field of one name (a milestone title) completing it."""
    return CompletingInput(value, find_slot=lambda text: path_slot(text, kind), scope=scope, **kwargs)
