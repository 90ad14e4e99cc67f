"""The palette's actions of every area (`Users: Moderate`, `Groups: Export`), not only the current screen's.

An area's actions are the bindings its screen class declares (those of the shared base classes, `o` and
`y`, are left to the current screen's provider; an action declared `palette=False` is left out) and the
extra entries its declarations name (`Action(..., palette="Approve, block, ban, deactivate a user")`, kept
in the derived `PALETTE_EXTRA`: `kit/actions.py`). Choosing one opens the
area (as it was, when it is open) and runs the action on its screen; an action the screen refuses
(read-only mode, nothing selected) says so instead.
"""

from __future__ import annotations

import asyncio
import typing
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from textual.keys import key_to_character

from labdeck.tui.areas import Area, find_area, shown_areas
from labdeck.tui.commands import Entry, _ListProvider
from labdeck.tui.context import context_of
from labdeck.tui.keymap import declared_bindings
from labdeck.tui.kit.actions import off_palette
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.form_keys import is_typing

if TYPE_CHECKING:
    from labdeck.tui.app import LabdeckApp

# The shared bases' keys (o, y, ctrl+s, tab) belong to whatever screen is current, not to an area.
SHARED_BASES = ("screens.base", "screens.form_keys")
# App-wide actions: offered once, by the current screen's provider.
SHELL_ACTIONS = frozenset({"quit", "help", "jump", "back", "refresh", "command_palette"})


@cache
def area_screen_class(area: Area) -> type[Any] | None:
    """The class of the screen `area` opens: its factory's return type, else the one class of the catalogue
    with that `AREA` (preferring the module named after the area)."""
    factory = area.factory
    if isinstance(factory, str):
        import importlib

        module, _, function = factory.partition(":")
        try:
            returned = typing.get_type_hints(getattr(importlib.import_module(module), function)).get("return")
        except (ImportError, AttributeError, NameError):
            returned = None
        if isinstance(returned, type):
            return returned
    from labdeck.tui.screens.shell.catalogue import screen_classes

    candidates = [cls for cls in screen_classes() if getattr(cls, "AREA", None) == area.name]
    named = [cls for cls in candidates if cls.__module__.rsplit(".", 1)[-1] == area.name]
    found = named or candidates
    return found[0] if found else None


def area_actions(cls: type[Any]) -> list[tuple[str, str, str]]:
    """`(description, action, key)` of the actions an area's screen class offers, in declaration order."""
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set(off_palette(cls))
    for owner, binding in declared_bindings(cls):
        module = owner.__module__
        if not module.startswith("labdeck") or module.endswith(SHARED_BASES):
            continue
        if not binding.description or binding.system:
            continue
        if binding.action in SHELL_ACTIONS or binding.action in seen:
            continue
        seen.add(binding.action)
        key = binding.key.split(",")[0].strip()
        shown_key = binding.key_display or key_to_character(key) or key
        found.append((binding.description, binding.action, shown_key))
    for title, action in getattr(cls, "PALETTE_EXTRA", ()):
        found.append((title, action, ""))
    return found


class AreaActionCommands(_ListProvider):
    """Every other area's actions, as `<Area>: <action>`."""

    def entries(self) -> Iterable[Entry]:
        app = self.labdeck
        current = getattr(self.screen, "AREA", None)
        for area in shown_areas(app.is_admin):
            cls = area_screen_class(area) if area.available else None
            if cls is None or area.name == current:
                continue
            mutating: frozenset[str] = getattr(cls, "MUTATING_ACTIONS", frozenset())
            for title, action, key in area_actions(cls):
                if app.read_only and action in mutating:
                    continue
                where = f":{area.name}" + (f" · key {key}" if key else "")
                yield (f"{area.title}: {title}", where, _Runner(app, area.name, cls, action))


async def _loaded(screen: Any, timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Wait (a bounded time) until the screen's loads are done: an action such as Export needs the
    selection, and one load may start the next (the tree, then the first group)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    quiet = 0
    while quiet < 3 and loop.time() < deadline:
        await asyncio.sleep(0.05)  # let on_mount and message handlers start what they start
        pending = [w for w in screen.app.workers if w.node is screen and not w.is_finished]
        if not pending:
            quiet += 1
            continue
        quiet = 0
        waits = asyncio.gather(*(w.wait() for w in pending), return_exceptions=True)
        try:
            await asyncio.wait_for(waits, max(0.0, deadline - loop.time()))
        except TimeoutError:
            return


class _Runner:
    """Open the area, then run the action on its screen (awaited by the palette's `call_later`): to its end,
    or saying what it needs first ("choose a repository first", "close the open form first")."""

    def __init__(self, app: LabdeckApp, area: str, cls: type[Any], action: str) -> None:
        self.app, self.area, self.cls, self.action = app, area, cls, action

    async def __call__(self) -> None:
        opening = self.app.open_area(self.area)
        if opening is None:
            return
        await opening
        screen = self.app.navigator.area_screen(self.area)
        if not isinstance(screen, self.cls):
            return
        target = self._target(screen)
        if target is None:
            return
        await _loaded(target)
        if self.app.screen is not target:
            return
        refusal = self._refusal(target)
        if refusal is not None:
            self.app.notify(refusal, severity="warning", markup=False)
            return
        await target.run_action(self.action)

    def _target(self, screen: Any) -> Any:
        """The screen to run the action on: the area's, or the area's sub-screen shown on top of it that
        offers the same action (the tags of a repository offer Cleanup too); anything else on top (a form,
        a dialog) must be closed first, and saying so is the answer."""
        top = self.app.screen
        if top is screen:
            return screen
        if isinstance(top, LabdeckScreen) and callable(getattr(top, f"action_{self.action}", None)):
            return top
        title = str(getattr(top, "TITLE", None) or "the open dialog")
        self.app.notify(f"{self._name()}: close {title} first (esc), then choose it again",
                        severity="warning", markup=False)
        return None

    def _refusal(self, screen: Any) -> str | None:
        needs = screen.action_needs(self.action) if isinstance(screen, LabdeckScreen) else None
        if needs is not None:
            return f"{self._name()}: {needs}"
        if is_typing(screen.focused) and not screen.leave_field():
            screen.set_focus(None)  # chosen in the palette, not typed: a field does not keep its letter
        if screen.check_action(self.action, ()) is False:
            mutating = self.action in getattr(screen, "MUTATING_ACTIONS", ())
            if context_of(self.app).read_only and mutating:
                return f"{self._name()}: not available in read-only mode"
            return f"{self._name()}: not available for what the area shows now"
        return None

    def _name(self) -> str:
        """`Registry: Cleanup`, as the palette offered it."""
        titles = {action: title for title, action, _ in area_actions(self.cls)}
        area = find_area(self.area)
        return f"{area.title if area else self.area}: {titles.get(self.action, self.action)}"
