"""Workers and closed screens: no worker of any screen may touch a screen that is gone.

Textual binds a worker started with `@work` / `run_worker` on a screen (or a widget) to that node and
cancels it when the node unmounts; but a screen leaves the stack before it unmounts, and its children are
removed before it, so a worker that resumes in between (a list that answers just after `escape`) finds
`query_one` failing on a half-removed screen. Two rules close the gap for every screen at once:

- a screen that leaves every stack cancels its own workers at once (`cancel_if_gone`, from the screen's
  `ScreenSuspend` handler in the base classes), instead of when Textual gets round to unmounting it;
- an error raised by a worker or a message handler whose node is gone (`error_of_gone_node`) is dropped
  (logged): it can only be about widgets that no longer exist. An API error of such a worker is still a
  notification, since notifications belong to the app, not to the screen.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher
from textual.worker import active_worker

from labdeck.tui.textual_internals import active_app, active_message_pump, is_closing, screen_stacks
from labdeck.tui.widgets.resource_table import ResourceTable

__all__ = ["app_running", "caller_screen", "cancel_if_gone", "error_node", "is_gone", "is_live", "is_shown",
           "show_load_failure"]


def app_running() -> bool:
    """Whether this code runs inside a running app (a screen built there can reach it from `__init__`,
    e.g. to ask for its first page before its widgets exist)."""
    try:
        active_app.get()
    except LookupError:
        return False
    return True


def _screen_of(node: DOMNode) -> Screen[Any] | None:
    if isinstance(node, Screen):
        return node
    try:
        screen = node.screen
    except Exception:  # NoScreen: detached
        return None
    return screen if isinstance(screen, Screen) else None


def is_gone(app: App[Any], node: DOMNode | Any) -> bool:
    """Whether `node` belongs to no screen the app still shows or keeps (removed, being removed, or its
    screen popped off every stack). The app itself is never gone."""
    if node is None or node is app or not isinstance(node, DOMNode):
        return False
    if is_closing(node):
        return True
    screen = _screen_of(node)
    if screen is None or is_closing(screen):
        return True
    if app.is_screen_installed(screen):
        return False
    return all(screen not in stack for stack in screen_stacks(app).values())


def error_node() -> Any:
    """The node whose code is running: the active worker's node, else the message pump handling a message."""
    worker = active_worker.get(None)
    if worker is not None:
        return worker.node
    return active_message_pump.get(None)


def caller_screen() -> Screen[Any] | None:
    """The screen of the code running now (`error_node`'s screen: a worker's, a message handler's, or the
    one a job was started from), or None when that code is the app's own or its node is detached."""
    node = error_node()
    if node is None or isinstance(node, App) or not isinstance(node, DOMNode):
        return None
    return _screen_of(node)


def cancel_if_gone(screen: Screen[Any]) -> None:
    """Cancel `screen`'s workers (and those of its widgets) when it has left every stack."""
    app = screen.app
    if not is_gone(app, screen):
        return
    for worker in list(app.workers):
        node = worker.node
        if node is screen or (isinstance(node, DOMNode) and _screen_of(node) is screen):
            worker.cancel()


def is_live(node: DOMNode) -> bool:
    """Whether `node` is on a screen the app still shows or keeps: what a job (an asyncio task of the app,
    not a worker of the screen) checks before it updates the screen that started it."""
    try:
        app = node.app
    except Exception:  # no active app any more
        return False
    return node.is_attached and not is_gone(app, node)


def is_shown(node: Any) -> bool:
    """Whether `node` and every container above it are displayed: False for a tab that is not in front
    (a project view loads its tabs together; a failure there is said in the tab, not popped up)."""
    if not isinstance(node, DOMNode):
        return True
    chain = [node, *node.ancestors]
    for child, parent in pairwise(chain):
        if isinstance(child, Widget) and not child.display:
            return False
        # A switcher that has not mounted yet (its children load first) shows only its initial child.
        if isinstance(parent, ContentSwitcher) and not parent.is_mounted:
            if child.id != getattr(parent, "_initial", child.id):
                return False
    return True


def show_load_failure(node: Any, message: str) -> list[ResourceTable]:
    """A load of `node` (a screen or a tab widget) failed: say so in its tables, where the rows would be.

    The tables that were waiting for rows (`loading_more` was set) get the message; when none was, the
    tables that never had rows do (a list that failed on its first load; shown ones, unless the whole
    node is a tab in the background). Returns those tables.
    """
    if not isinstance(node, DOMNode) or isinstance(node, App):
        return []
    tables = list(node.query(ResourceTable))
    if isinstance(node, ResourceTable):
        tables.append(node)
    chosen = [t for t in tables if t.awaiting_rows]
    background = not is_shown(node)
    if not chosen:
        chosen = [t for t in tables
                  if not t.ever_filled and (background or (t.display and t.region.area > 0))]
    for table in chosen:
        table.show_load_error(message)
    return chosen
