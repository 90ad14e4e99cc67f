"""Moving between areas: one open instance per area, a short back history, home at the end of it.

Each area runs in its own Textual mode (its own screen stack: the area's screen and whatever it opened on
top, a project view, a tag list, a dialog). A `:` jump (or the palette, or home) to an area that is open
switches back to that mode, so the area is exactly as it was left: query, tab, cursor, sub-screen. A request
with a query or scope (a saved view) opens the area afresh on that request.

An area shown again this way is told so (`AreaShownAgain`, posted to its screen): most ignore it; `:log`
goes to its newest request, as `tail -f` does.

A screen opened by an area's code goes on that area's own stack (`caller_mode`, applied by
`LabdeckApp.push_screen`), whichever area is shown at the time: the open lists re-read after a change (the
journal's undo, `bulk.refresh_lists`) include screens of areas in the background, and what they open (the
deployments screen of a group opens its board) must never land on the stack an area name opens.

Escape first closes what the area opened on top of its screen; on the area's own screen it goes back to the
area shown before (at most `MAX_HISTORY` deep), ending at home. Areas left this way stay open for the next
jump. Switching instance closes every area (their data belongs to the old instance).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from labdeck.tui.area_events import AreaShownAgain
from labdeck.tui.areas import Area, AreaRequest
from labdeck.tui.textual_internals import screen_stacks

if TYPE_CHECKING:
    from textual.app import App

HOME = "home"  # the app's DEFAULT_MODE: the home view
MAX_HISTORY = 4


def home_screen() -> Any:
    from labdeck.tui.screens.shell.home import HomeScreen

    return HomeScreen()


def mode_name(area_name: str) -> str:
    return f"area-{area_name}"


def caller_mode(app: App[Any]) -> str | None:
    """The mode whose stack holds the screen of the code running now (a worker's, a handler's, a job's), so
    that what it opens goes on its own area's stack; None when the caller is the app itself or its screen
    is on no stack (then the screen shown is the one to open over)."""
    from labdeck.tui.workers import caller_screen

    screen = caller_screen()
    if screen is None:
        return None
    return next((mode for mode, stack in screen_stacks(app).items() if screen in stack), None)


class Navigator:
    """The open areas (by mode name) and the back history of the app it drives."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.open_modes: set[str] = set()
        self.history: list[str] = []  # the modes shown before the current one, most recent last

    @property
    def current(self) -> str:
        return self.app.current_mode

    def is_open(self, area_name: str) -> bool:
        return mode_name(area_name) in self.open_modes

    def open(self, area: Area, request: AreaRequest | None) -> Awaitable[Any]:
        """Show `area`: the open instance as it was, or a new one (always new for a query or scope).
        Awaiting the result waits until the area's screen is mounted."""
        mode = mode_name(area.name)
        fresh = request is not None and bool(request.query or request.scope)
        if mode in self.open_modes and fresh:
            if self.current == mode:
                self.app.switch_mode(HOME)
            self._close(mode)
        again = mode in self.open_modes
        if not again:
            self.app.add_mode(mode, lambda: self._build(area, request or AreaRequest()))
            self.open_modes.add(mode)
        shown = self._switch(mode)
        screen = self.area_screen(area.name) if again else None
        if screen is not None:
            screen.post_message(AreaShownAgain())
        return shown

    @staticmethod
    def _build(area: Area, request: AreaRequest) -> Any:
        if area.factory is None:
            from labdeck.tui.screens.shell.unavailable import UnavailableScreen

            return UnavailableScreen(area)
        return area.open(request)

    def area_screen(self, area_name: str) -> Any:
        """The screen of an open area (the bottom of its stack), or None."""
        stack = screen_stacks(self.app).get(mode_name(area_name))
        return stack[0] if stack else None

    def _switch(self, mode: str) -> Awaitable[Any]:
        current = self.current
        if current == mode:
            return self.app.switch_mode(mode)
        self.history = [m for m in self.history if m not in (mode, current)]
        self.history.append(current)
        del self.history[:-MAX_HISTORY]
        return self.app.switch_mode(mode)

    def can_go_back(self) -> bool:
        return len(self.app.screen_stack) > 1 or self.current != HOME

    def back(self) -> None:
        """Close what is on top of the area's screen, else show the previous area (home at the end)."""
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
            return
        if self.current == HOME:
            return
        target = HOME
        while self.history:
            candidate = self.history.pop()
            if candidate == HOME or candidate in self.open_modes:
                target = candidate
                break
        self.app.switch_mode(target)

    def close_all(self) -> None:
        """Back to home with every area closed (another instance: their data is stale)."""
        if self.current != HOME:
            self.app.switch_mode(HOME)
        while len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        for mode in list(self.open_modes):
            self._close(mode)
        self.history.clear()

    def _close(self, mode: str) -> None:
        self.open_modes.discard(mode)
        self.history = [m for m in self.history if m != mode]
        self.app.remove_mode(mode)
