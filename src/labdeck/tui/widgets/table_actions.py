"""What `ResourceTable` does with keys and the mouse: its key bindings (each with an `id`, so a keymap can
remap it) and the actions and click handling behind them, as a mixin of the widget."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual import events
from textual.binding import Binding, BindingType

from labdeck.tui.widgets.column_widths import column_at

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Host

    from labdeck.tui.widgets import table_messages
    from labdeck.tui.widgets.resource_table import ResourceTable
    from labdeck.tui.widgets.table_model import TableModel
else:
    _Host = object  # at run time a plain mixin; for the type checker, the widget it is mixed into

TABLE_BINDINGS: list[BindingType] = [
    Binding("up,k", "cursor_up", "Up", show=False, id="table.cursor_up"),
    Binding("down,j", "cursor_down", "Down", show=False, id="table.cursor_down"),
    Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
    Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
    Binding("home,g", "first", "First", show=False, id="table.first"),
    Binding("end,G", "last", "Last", show=False, id="table.last"),
    Binding("enter", "select", "Open", id="table.select"),
    Binding("space", "toggle_mark", "Mark", id="table.mark"),
    Binding("v", "mark_range", "Mark range", show=False, id="table.mark_range"),
    Binding("ctrl+a", "mark_all", "Mark all", show=False, id="table.mark_all"),
    Binding("u", "unmark_all", "Unmark all", show=False, id="table.unmark_all"),
    Binding("s", "cycle_sort", "Sort", id="table.sort"),
    Binding("S", "reverse_sort", "Reverse sort", show=False, id="table.sort_reverse"),
]


class TableActions(_Host):
    """Cursor movement, selection, marks and sort, bound to keys and clicks (mixed into ResourceTable)."""

    if TYPE_CHECKING:  # what ResourceTable provides
        model: TableModel
        RowSelected: type[table_messages.RowSelected]
        StateChanged: type[table_messages.StateChanged]

        def sort_by(self, column_key: str | None, reverse: bool | None = None) -> None: ...
        def move_cursor(self, index: int) -> None: ...
        def keep_cursor(self) -> None: ...
        def _widths(self, available: int | None = None) -> list[int]: ...
        def _rows_height(self) -> int: ...
        def _changed(self) -> None: ...
        def _sorted(self) -> None: ...
        on_last: Callable[[], bool] | None

    # ---- mouse ----------------------------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        event.stop()
        if offset.y == 0:
            column = column_at(self._widths(), offset.x + round(self.scroll_x))
            if column is not None:
                self.sort_by(self.model.columns[column].key)  # sort_by tells `on_sort`
            return
        index = round(self.scroll_y) + offset.y - 1
        if index >= self.model.visible_count:
            return
        if index == self.model.cursor or event.chain > 1:
            self.move_cursor(index)
            self.action_select()
        else:
            self.move_cursor(index)

    # ---- actions --------------------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.move_cursor(self.model.cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.model.cursor + 1)

    def action_page_down(self) -> None:
        height = self._rows_height()
        self.scroll_to(y=round(self.scroll_y) + height, animate=False, force=True)
        self.move_cursor(self.model.cursor + height)

    def action_page_up(self) -> None:
        height = self._rows_height()
        self.scroll_to(y=max(0, round(self.scroll_y) - height), animate=False, force=True)
        self.move_cursor(self.model.cursor - height)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        if self.on_last is not None and self.on_last():  # a partial list asks before reading the rest
            return
        self.move_cursor(self.model.visible_count - 1)

    def action_select(self) -> None:
        self.keep_cursor()  # enter opens the row the cursor shows now, and the cursor stays under it
        row = self.model.cursor_row
        if row is not None:
            self.post_message(self.RowSelected(row, cast("ResourceTable", self)))

    def action_toggle_mark(self) -> None:
        if self.model.cursor_row is None:
            return
        self.model.toggle_mark()
        self.refresh_line(self.model.cursor + 1)
        self.post_message(self.StateChanged(cast("ResourceTable", self)))
        self.move_cursor(self.model.cursor + 1)

    def action_mark_range(self) -> None:
        self.model.mark_range()
        self._changed()

    def action_mark_all(self) -> None:
        self.model.mark_all()
        self._changed()

    def action_unmark_all(self) -> None:
        self.model.unmark_all()
        self._changed()

    def action_cycle_sort(self) -> None:
        self.model.cycle_sort()
        self._changed()
        self._sorted()

    def action_reverse_sort(self) -> None:
        self.model.reverse_sort()
        self._changed()
        self._sorted()
