"""The base of labdeck's full screens: header, body, status bar and footer; read-only mode through
`check_action` (actions declared `mutating` in `ACTIONS`, `kit/actions.py`, are hidden and disabled); the
data-age clock.
`ScopedScreen` adds the project or group path prompt of the screens about one path; `StatusTableScreen` is
one table under a status line that also shows refusals. The form that writes is the kit's
(`kit/forms.FormDialog`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, Static

from labdeck.tui.keymap import bindings_of
from labdeck.tui.kit.actions import Action, Entry
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.links import copy_text, open_link, reference_of, web_url_of
from labdeck.tui.screens.form_keys import FormKeys, is_typing
from labdeck.tui.textual_internals import Header
from labdeck.tui.widgets.footer import TYPING, LabdeckFooter
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.status_bar import StatusBar
from labdeck.tui.workers import cancel_if_gone

if TYPE_CHECKING:
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.watch import Watcher



@cache
def letter_actions(screen_class: type[Any]) -> frozenset[str]:
    """The actions a screen class binds to printable keys only (typed, not run, while a field has focus)."""
    keys: dict[str, list[str]] = {}
    for binding in bindings_of(screen_class):
        for key in binding.key.split(","):
            keys.setdefault(binding.action, []).append(key.strip())
    return frozenset(action for action, found in keys.items()
                     if all(len(key) == 1 or key in PRINTABLE_KEY_NAMES for key in found))


def shown(widget: Widget) -> bool:
    """Whether `widget` and every container around it are displayed."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


PRINTABLE_KEY_NAMES = frozenset({"colon", "question_mark", "left_square_bracket", "right_square_bracket",
                                 "slash", "plus", "minus", "space", "full_stop", "comma"})


class LabdeckScreen(PanePolicy, FormKeys, Screen[None]):
    """Subclasses implement `compose_body()` and, when they show server data, `refresh_data()`. Fields keep
    their letters (`FormKeys`): while one has focus the screen's letter actions leave the footer, `ctrl+s`
    submits where the screen has a form, and escape hands focus back to the table."""

    IS_DIALOG = False
    AREA: ClassVar[str | None] = None
    # Its actions, declared once (`ACTIONS`: key, label, mutating, row, cursor, feature, footer place): the
    # pane policy (`kit/pane_policy.py`) derives the bindings, the read-only, feature and row rules and the
    # screen's own footer (`FOOTER_ORDER`) from them, as for every tab. The footer of each named part of the
    # screen (the id of the focused widget or of one of its parents; "typing" in a field): the actions it
    # shows, most useful first (`widgets.footer`); the rest are in `?`.
    FOOTER_PANES: ClassVar[dict[str, tuple[str, ...]]] = {}
    # how a row is called: "choose a repository first" (`action_needs`)
    ROW_NAME: ClassVar[str] = "a row"
    ACTIONS: ClassVar[tuple[Entry, ...]] = (
        Action("o", "open_in_browser", "Open in browser", show=False, id="open_in_browser"),
        Action("y", "copy_reference", "Copy URL", show=False, id="copy_reference"),
        Action("W", "watch", "Watch", show=False, id="watch"),
        Action("ctrl+e", "export_list", "Export list", show=False, id="export_list"),
    )

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.data_loaded_at: float | None = None
        self.watcher: Watcher | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")  # (`textual_internals.Header`: Textual's, safe while it is removed)
        yield from self.compose_body()
        with Vertical(classes="bottom-bars"):
            yield StatusBar()
            yield LabdeckFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_screen_suspend(self) -> None:
        cancel_if_gone(self)  # popped: its workers stop now, not when Textual unmounts it
        self._footer_follows()

    def on_screen_resume(self) -> None:
        self._footer_follows()

    def _footer_follows(self) -> None:
        """A dialog opened over this screen (or closed): the footer shows the keys of what has them."""
        for footer in self.query(LabdeckFooter):
            footer.follow()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.policy_allows(action):
            return False
        if action == "submit_form":
            return self.can_submit_form()
        if action in letter_actions(type(self)) and is_typing(self.focused):
            return False  # the letter is typed into the field: not offered
        return True

    def footer_order(self) -> tuple[str, ...] | None:
        """The actions the footer shows now, in order (see `FOOTER_PANES`). In a text field: the field's
        own pane (its id), else the screen's `"typing"` pane, else `TYPING`. Elsewhere the nearest of the
        focused widget and its parents that is named (an id) or carries a `FOOTER_ORDER` (a pane's, derived
        from its actions), else the screen's own `FOOTER_ORDER`; None where the screen names nothing
        (Textual's order)."""
        focused = self.focused
        panes = self.FOOTER_PANES
        if is_typing(focused):
            return panes.get(focused.id or "") or panes.get("typing") or TYPING  # type: ignore[union-attr]
        for node in (focused.ancestors_with_self if focused else ()):
            if node is self:
                break
            if node.id and node.id in panes:
                return panes[node.id]
            order = getattr(type(node), "FOOTER_ORDER", None)
            if order is not None:
                return order
        own: tuple[str, ...] | None = getattr(self, "FOOTER_ORDER", None)
        return own

    def focus_on_open(self) -> None:
        """Drawn for the first time: a screen whose focus went nowhere, or to a widget not shown (Textual's
        auto focus can pick a list's hidden filter field), focuses its first shown list instead, so its
        footer shows the list's keys and the keys typed next reach the list."""
        focused = self.focused
        if focused is not None and shown(focused):
            return
        tables = [table for table in self.query(ResourceTable) if table.focusable and shown(table)]
        if tables:
            tables[0].focus()

    def leave_field(self) -> bool:
        """Escape in a field (text, a choice, a switch) hands focus back to the screen's table (True), before
        escape means back."""
        if not (is_typing(self.focused) or isinstance(self.focused, Select | Checkbox)):
            return False
        # a list shown, not one of a tab out of view (whose own `display` is still on)
        tables = [table for table in self.query(ResourceTable) if shown(table) and table.focusable]
        if not tables:
            return False
        tables[0].focus()
        return True

    def selected_item(self) -> Any:
        """The row `o` and `y` act on: by default the cursor row of the screen's focused or first table."""
        focused = self.focused
        tables = [focused] if isinstance(focused, ResourceTable) else list(self.query(ResourceTable))
        return tables[0].cursor_row if tables else None

    def action_open_in_browser(self) -> None:
        url = web_url_of(self.selected_item())
        if url is None:
            self.notify("Nothing here has a web page", severity="warning")
            return
        open_link(self.app, url)

    def action_copy_reference(self) -> None:
        item = self.selected_item()
        url, reference = web_url_of(item), reference_of(item)
        if url is not None:
            copy_text(self.app, url, "URL")
        elif reference is not None:
            copy_text(self.app, reference, "reference")
        else:
            self.notify("Nothing to copy here", severity="warning")

    def refresh_data(self) -> None:
        """Reload what the screen shows (`r`); screens without server data ignore it."""

    def rows_acted_on(self) -> list[Any]:
        """The rows a row action acts on: the marked rows of the list, else its cursor row, else the
        screen's selected item (a screen without a list)."""
        table = self.list_table()
        if table is None:
            return [self.selected_item()]
        return list(table.marked_rows) or [table.cursor_row]

    def action_needs(self, action: str) -> str | None:
        """What `action` needs before it can do anything here ("choose a repository first"), or None: the
        palette says it instead of running an action that would do nothing. A row action (declared `row` or
        `cursor`) needs a row under the cursor or marked."""
        if action in self.ROW_ACTIONS | self.CURSOR_ACTIONS and not any(
                row is not None for row in self.rows_acted_on()):
            return f"choose {self.ROW_NAME} first"
        return None

    def list_table(self) -> ResourceTable | None:
        """The list that watch mode and export act on: the focused table, else the screen's first."""
        focused = self.focused
        if isinstance(focused, ResourceTable):
            return focused
        return next(iter(self.query(ResourceTable)), None)

    def action_watch(self) -> None:
        """`W`: start or stop watch mode on this screen's list."""
        from labdeck.tui.watch import Watcher, seconds_for

        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
            self.sub_title = None  # the app's again: the instance's name
            self.notify("Watch mode off", markup=False)
            return
        table = self.list_table()
        if table is None or type(self).refresh_data is LabdeckScreen.refresh_data:
            self.notify("Nothing to watch here", severity="warning", markup=False)
            return
        seconds = seconds_for(getattr(self.ctx.config, "watch", {}), self.AREA)
        self.notify(f"Watch mode on: refreshing now, then every {seconds:g}s (W stops)", markup=False)
        self.watcher = Watcher(self, table, seconds)

    def action_export_list(self) -> None:
        """`ctrl+e`: write the list's filtered (or marked) rows to CSV or JSON."""
        from labdeck.tui.screens.shell.export import start_export

        table = self.list_table()
        if table is None:
            self.notify("No list to export here", severity="warning", markup=False)
            return
        start_export(self, table)

    def mark_data_loaded(self) -> None:
        self.data_loaded_at = self.ctx.clock()
        self.refresh_status()

    def refresh_status(self) -> None:
        for bar in self.query(StatusBar):
            bar.refresh_status()


class ScopedScreen(LabdeckScreen):
    """A screen about one project or group path (`scope`), typed into the `Input` whose id is `SCOPE_INPUT`.

    It starts from the area request's scope (or query). With a scope it loads at once and focuses the
    table, else it focuses the prompt; `f` (`action_scope`) goes back to the prompt, and enter there sets
    the scope and loads. Subclasses provide `table` and `load_scope()`.
    """

    SCOPE_INPUT: ClassVar[str] = ""

    def __init__(self, request: AreaRequest | None = None) -> None:
        super().__init__()
        self.scope = ((request.scope or request.query or "") if request else "").strip()

    @property
    def table(self) -> ResourceTable:
        raise NotImplementedError

    def load_scope(self) -> None:
        """Load what the screen shows for `self.scope`."""
        raise NotImplementedError

    def on_mount(self) -> None:
        if self.scope:
            self.table.focus()
            self.load_scope()
        else:
            self.action_scope()

    def action_scope(self) -> None:
        self.query_one(f"#{self.SCOPE_INPUT}", Input).focus()

    def action_needs(self, action: str) -> str | None:
        if not self.scope and action != "scope":
            return "choose a project or group first (f)"
        return super().action_needs(action)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != self.SCOPE_INPUT:
            return
        event.stop()
        self.scope = event.value.strip()
        self.table.focus()
        self.load_scope()


class StatusTableScreen(LabdeckScreen):
    """One `ResourceView` (id `VIEW_ID`) under a status line (a `Static` whose id is `STATUS_ID`). It focuses
    the table and loads on mount; `r` reloads past the cache. Subclasses compose both and implement
    `load(refresh)`."""

    VIEW_ID: ClassVar[str] = ""
    STATUS_ID: ClassVar[str] = ""

    @property
    def table(self) -> ResourceTable:
        return self.query_one(f"#{self.VIEW_ID}", ResourceView).table

    def load(self, refresh: bool = False) -> object:  # (usually a `@work` method: it returns the worker)
        raise NotImplementedError

    def on_mount(self) -> None:
        self.table.focus()
        self.load()

    def refresh_data(self) -> None:
        self.load(refresh=True)

    def show_status(self, text: str, style: str = "dim") -> None:
        self.query_one(f"#{self.STATUS_ID}", Static).update(Text(text, style=style))

    def show_refusal(self, text: str) -> None:
        """A refusal (already described, literal text): in red in the status line and as a notification."""
        self.show_status(text, "red")
        self.notify(text, severity="error", markup=False)
