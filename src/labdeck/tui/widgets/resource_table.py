"""`ResourceTable`: the one virtualised list widget every labdeck screen uses: its state (rows through
its model, cursor, marks, load-on-demand, load errors), its keys and clicks, the messages it posts, and which
line it shows where.

Built on the Line API (`ScrollView` + `render_line`): only the lines on screen are rendered, so 100,000 rows
load and scroll at once (Textual's `DataTable` measures every cell up front). Rows are any objects; their
columns' `text` gives their cell texts (`cells_from`; a bare `cells(row)` function is only for the kit's
own tests and benchmarks: screens declare each column once) and `row_key(row)` their identity, so the
cursor and marks survive re-sort, filter and reload. Cell text is literal: never parsed as markup,
controls made visible.

The widget stands on its parts, and none of them knows it: the headless model (rows, order, filter, marks),
the columns, the width rule, the drawn lines (`TableLines`) and garbage-collection pacing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar, Self

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labdeck.domain.text import sanitize
from labdeck.tui.widgets.column_widths import MAX_AUTO_WIDTH, SAMPLE_SIZE, column_at, total_width
from labdeck.tui.widgets.gc_pacing import LARGE_ROWS, FramePacer
from labdeck.tui.widgets.saved_row import SavedRow
from labdeck.tui.widgets.table_lines import RowLook, TableLines
from labdeck.tui.widgets.table_model import LOAD_MORE_THRESHOLD, CellsFn, Column, RowKeyFn, TableModel

__all__ = ["Column", "ResourceTable"]

FREEZE_ROWS = LARGE_ROWS  # a table this large freezes its rows and paces collections by its frames


class ResourceTable(ScrollView, can_focus=True):
    """A virtualised, sortable, filterable table of rows with marks and load-on-demand."""

    # Each binding has an `id`, so a keymap can remap it.
    BINDINGS: ClassVar[list[BindingType]] = [
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

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "resource-table--header",
        "resource-table--cursor",
        "resource-table--marked",
        "resource-table--marker",
        "resource-table--even-row",
        "resource-table--message",
        "resource-table--flash",
    }

    DEFAULT_CSS = """
    ResourceTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .resource-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .resource-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        &:focus > .resource-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .resource-table--marked { background: $accent 25%; }
        & > .resource-table--marker { color: $accent; text-style: bold; }
        & > .resource-table--even-row { background: $surface-lighten-1 50%; }
        & > .resource-table--message { color: $text-muted; text-style: italic; }
        & > .resource-table--flash { background: $warning 30%; }
    }
    """

    # ---- messages (handlers: `on_resource_table_row_selected`, ...; `control` is the table) ------------

    class _TableMessage(Message, namespace="resource_table"):
        def __init__(self, table: ResourceTable | None = None) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> ResourceTable | None:
            return self.table

    class RowHighlighted(_TableMessage, namespace="resource_table"):
        """The cursor moved to `row`."""

        def __init__(self, row: Any, table: ResourceTable | None = None) -> None:
            super().__init__(table)
            self.row = row

    class RowSelected(_TableMessage, namespace="resource_table"):
        """`enter` (or a click on the cursor row) chose `row`."""

        def __init__(self, row: Any, table: ResourceTable | None = None) -> None:
            super().__init__(table)
            self.row = row

    class LoadMore(_TableMessage, namespace="resource_table"):
        """The cursor is near the end of the loaded rows and `has_more` is set: fetch the next page."""

    class StateChanged(_TableMessage, namespace="resource_table"):
        """Counts, filter, sort or marks changed (footers listen to this)."""

    def __init__(
        self,
        columns: Sequence[Column],
        rows: Iterable[Any] = (),
        *,
        cells: CellsFn | None = None,
        row_key: RowKeyFn | None = None,
        zebra: bool = False,
        empty_text: str = "No rows",
        load_more_threshold: int = LOAD_MORE_THRESHOLD,
        max_auto_width: int = MAX_AUTO_WIDTH,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.model = TableModel(columns, cells, row_key)
        self._zebra = zebra
        self.empty_text = empty_text
        self.load_more_threshold = load_more_threshold
        self._loading_more = False
        # Load failures: `load_error` is said where the rows would be. A screen that sets `loading_more`
        # around its loads makes the table track them: the error then lasts until the next load starts
        # (re-filtering the old rows keeps it); otherwise new rows clear it.
        self.load_error: str | None = None
        self.awaiting_rows = False  # a tracked load started and its rows have not come
        self.tracks_loading = False
        self.ever_filled = False
        self.lines = TableLines(self.model, max_auto_width)  # widths and drawn lines
        self._frame: tuple[Size, RowLook, int, int] | None = None  # see `_frame_facts`
        self._pacer = FramePacer(self)
        self._highlighted_key: Hashable | None = None
        self._highlighted_row: Any = None
        self.flashed: frozenset[Hashable] = frozenset()  # rows watch mode highlights for a moment
        self.on_rows_set: Callable[[], None] | None = None  # called after every set_rows (watch mode)
        self._saved: SavedRow | None = None  # see `show_saved_row`
        # A list read on demand (`tui/list_feed.py`): its honest count for the footer, `G` (True: handled,
        # the cursor stays) and each change of sort (sent to the server while the list is partial).
        self.count_source: Callable[[], str | None] | None = None
        self.on_last: Callable[[], bool] | None = None
        self.on_sort: Callable[[], None] | None = None
        self.model.set_rows(rows)
        self.lines.measure()
        self._settle()

    # ---- public data API ------------------------------------------------------------------------------

    @property
    def columns(self) -> list[Column]:
        return self.model.columns

    @property
    def rows(self) -> list[Any]:
        """All loaded rows, in load order."""
        return self.model.rows

    @property
    def visible_rows(self) -> list[Any]:
        """The rows after filter and sort, in display order."""
        return self.model.visible_rows

    def rows_on_screen(self) -> list[Any]:
        """The rows drawn now (after filter and sort), top to bottom: what a column read on demand reads
        (the registry's sizes)."""
        if not self.is_mounted:
            return []
        model, top = self.model, max(round(self.scroll_y), 0)
        return [model.visible_row(i) for i in range(top, min(top + self._rows_height(), model.visible_count))]

    @property
    def cursor_row(self) -> Any | None:
        return self.model.cursor_row

    @property
    def cursor_index(self) -> int:
        """The cursor's position among the visible rows."""
        return self.model.cursor

    @property
    def marked_rows(self) -> list[Any]:
        return self.model.marked_rows

    @property
    def filter_text(self) -> str:
        return self.model.filter_text

    @property
    def sort_column(self) -> str | None:
        return self.model.sort_column

    @property
    def sort_reverse(self) -> bool:
        return self.model.sort_reverse

    @property
    def zebra(self) -> bool:
        """Alternate row backgrounds."""
        return self._zebra

    @zebra.setter
    def zebra(self, value: bool) -> None:
        self._zebra = value
        self.lines.forget()
        self.refresh()

    @property
    def column_widths(self) -> dict[str, int]:
        """Each column's width now, by key (0: dropped for lack of room)."""
        return {c.key: w for c, w in zip(self.model.columns, self._widths(), strict=True)}

    @property
    def has_more(self) -> bool:
        """Set by the owner: more rows can be fetched (a `LoadMore` is posted near the end)."""
        return self.model.has_more

    @has_more.setter
    def has_more(self, value: bool) -> None:
        self.model.has_more = value
        if not value:
            self.model.reset_load_request()
        self._check_load_more()
        self.post_message(self.StateChanged(self))

    @property
    def loading_more(self) -> bool:
        """Shows a "Loading more…" line after the last row. (Textual's own `loading` covers the widget.)"""
        return self._loading_more

    @loading_more.setter
    def loading_more(self, value: bool) -> None:
        self._loading_more = value
        if value:
            self.tracks_loading = self.awaiting_rows = True
            self.load_error = None
        self._changed()

    def show_load_error(self, message: str) -> None:
        """Say, after the last row (or instead of "No rows"), that the load failed and `r` retries it."""
        self.load_error = " ".join(sanitize(message).split())
        self.awaiting_rows = False
        self._changed()

    def _rows_arrived(self) -> None:
        if self._loading_more:  # rows shown while a load is in flight (a re-filter): not its answer
            return
        if not self.tracks_loading:
            self.load_error = None
        self.awaiting_rows = False
        self.ever_filled = True

    def set_rows(self, rows: Iterable[Any]) -> None:
        self._rows_arrived()
        self.model.set_rows(rows)
        self.lines.measure()
        self._changed()
        self._settle()
        self._cursor_to_saved()
        if self.on_rows_set is not None:
            self.on_rows_set()

    def saved_row(self, row: Any | None) -> SavedRow:
        """What a form opened now on `row` (an edit; None: an add) will save (`saved_row.py`)."""
        return SavedRow(None if row is None else self.model.key_of(row), self.model.keys())

    def show_saved_row(self, saved: SavedRow) -> None:
        """A form opened from this list saved `saved`: focus the list now and, when its rows are next set
        or that row replaced (the re-read after the save), put the cursor on it, so that enter opens it
        and a row key acts on it. Dropped if the operator moves the cursor or acts on a row first."""
        self._saved = saved.also_before(self.model.keys())
        self.focus()

    def keep_cursor(self) -> None:
        """The cursor stays where it is: a move to a saved row not yet read again is dropped."""
        self._saved = None

    def _cursor_to_saved(self) -> None:
        if self._saved is None or self._loading_more:
            return
        saved, self._saved = self._saved, None
        model = self.model
        found = saved.index_in([model.visible_key(i) for i in range(model.visible_count)])
        if found is not None:
            self.move_cursor(found)

    def flash(self, keys: Iterable[Hashable], seconds: float = 3.0) -> None:
        """Highlight the rows with these keys for `seconds` (rows that changed since the last refresh)."""
        self.flashed = frozenset(keys)
        self.lines.forget()
        self.refresh()
        if self.flashed:
            self.set_timer(seconds, lambda: self.flash(()))

    def append_rows(self, rows: Iterable[Any]) -> None:
        self._rows_arrived()
        self.model.append_rows(rows)
        if self.lines.measured_rows < SAMPLE_SIZE:  # past that, the spread sample and the screen are enough
            self.lines.measure()
        self._changed()
        self._settle(replaced=False)

    def _settle(self, *, replaced: bool = True) -> None:
        self._pacer.rows_loaded(self.model.loaded_count, replaced=replaced)

    def replace_row(self, row: Any) -> bool:
        """Put `row` in place of the row of its key. The view stays where it is unless the cursor moved (a
        sorted column's order changed): a row read again while the operator scrolls away from the cursor
        (a size read for the rows on screen) must not bring the view back to it."""
        cursor = self.model.cursor
        found = self.model.replace_row(row)
        if found:
            self._changed(scroll=self.model.cursor != cursor)
            if self._saved is not None and self._saved.key == self.model.key_of(row):
                self._cursor_to_saved()  # the edited row read again, in place
        return found

    def remove_rows(self, keys: Iterable[Hashable]) -> int:
        removed = self.model.remove_rows(keys)
        if removed:
            self._changed()
        return removed

    def clear(self) -> None:
        self.model.clear()
        self.lines.measure()
        self._changed()

    def set_filter(self, text: str) -> None:
        """Show only rows whose cell texts contain `text` (case-insensitive)."""
        if text == self.model.filter_text:
            return
        self.model.set_filter(text)
        self._changed()

    def sort_by(self, column_key: str | None, reverse: bool | None = None) -> None:
        """Sort by a column; the same column again toggles the direction; None restores load order."""
        self.model.sort_by(column_key, reverse)
        self._changed()
        self._sorted()

    def pace_collections(self, from_rows: int) -> None:
        """Pace garbage collection by frames from `from_rows` loaded rows (`gc_pacing.py`; a list whose
        pages come and go as it scrolls paces from 0, so its frames' garbage never piles up)."""
        self._pacer.large_rows = from_rows

    def _sorted(self) -> None:
        if self.on_sort is not None:
            self.on_sort()

    def move_cursor(self, index: int) -> None:
        """Put the cursor on visible row `index` (clamped) and scroll it into view (a saved row's move
        still awaited is dropped: the cursor was put somewhere)."""
        self._saved = None
        old = self.model.cursor
        new = self.model.move_cursor(index)
        if new != old:
            self.refresh_line(old + 1)
            self.refresh_line(new + 1)
        self._scroll_to_cursor()
        self._after_cursor_move()

    # ---- internals ------------------------------------------------------------------------------------

    def _message(self) -> str | None:
        if self._loading_more:
            return "Loading more…"
        if self.load_error is not None:
            return f"Could not load: {self.load_error} — r to retry"
        if self.model.visible_count == 0:
            if self.model.filter_text and self.model.row_count:
                return f"No rows match “{self.model.filter_text}”"
            return self.empty_text
        return None

    def _update_virtual_size(self) -> None:
        extra = 1 if self._message() is not None else 0
        width = total_width(self._widths())
        self.virtual_size = Size(width, self.model.visible_count + 1 + extra)

    def _rows_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        if not self.is_mounted:
            return
        cursor, top, height = self.model.cursor, round(self.scroll_y), self._rows_height()
        if cursor < top:
            self.scroll_to(y=cursor, animate=False, force=True)
        elif cursor >= top + height:
            self.scroll_to(y=cursor - height + 1, animate=False, force=True)

    def _changed(self, *, scroll: bool = True) -> None:
        self.lines.forget()
        if self.is_mounted:
            self._update_virtual_size()
            if scroll:
                self._scroll_to_cursor()
            self.refresh()
        self._after_cursor_move()
        self.post_message(self.StateChanged(self))

    def _after_cursor_move(self) -> None:
        key, row = self.model.cursor_key(), self.model.cursor_row
        if key != self._highlighted_key or row is not self._highlighted_row:  # moved, or row replaced
            self._highlighted_key, self._highlighted_row = key, row
            if key is not None:
                self.post_message(self.RowHighlighted(row, self))
        self._check_load_more()

    def _check_load_more(self) -> None:
        if self.model.want_more(self.load_more_threshold):
            self.post_message(self.LoadMore(self))

    # ---- drawing ------------------------------------------------------------------------------------------

    def _widths(self) -> list[int]:
        return self.lines.widths(self.scrollable_content_region.width if self.is_mounted else 0)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        look, width, page = self._frame_facts()
        lines = self.lines
        if lines.widen_to(scroll_y, page):
            self.refresh()  # lines already drawn this frame were drawn at the old widths
        widths = lines.widths(width)
        model = self.model
        if y == 0:
            strip = lines.header(widths, look.base + self._style("resource-table--header"))
        else:
            index = scroll_y + y - 1
            if index < model.visible_count:
                strip, new = lines.row(index, widths, look)
                if new:
                    self._pacer.line_drawn(model.loaded_count, page)
            elif index == model.visible_count and (message := self._message()) is not None:
                style = look.base + self._style("resource-table--message")
                strip = Strip([Segment("  " + message)]).apply_style(style)
            else:
                return Strip.blank(width, look.base)
        if scroll_x == 0 and strip.cell_length == width:
            return strip  # what crop_extend gives, without caching the strip in itself (a reference cycle)
        return strip.crop_extend(scroll_x, scroll_x + width, look.base)

    def _frame_facts(self) -> tuple[RowLook, int, int]:
        """How rows look (the widget's own style: `rich_style` walks every ancestor), the width of a line
        and the number of row lines: worked out once per repaint, not once per line."""
        facts, size = self._frame, self.outer_size
        if facts is None or facts[0] != size:  # a resize marks lines dirty without a `refresh`
            region = self.scrollable_content_region
            look = RowLook(self.rich_style, self._style, self._zebra, self.flashed, self.app.console)
            facts = self._frame = (size, look, region.width, max(1, region.height - 1))
        return facts[1:]

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if repaint:
            self._frame = None  # what Textual does with its own style cache on a repaint
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def line_text(self, y: int) -> str:
        """The plain text of viewport line `y` (0 is the header), as rendered now."""
        return self.render_line(y).text

    # ---- mouse --------------------------------------------------------------------------------------------

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

    # ---- actions ------------------------------------------------------------------------------------------

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
            self.post_message(self.RowSelected(row, self))

    def action_toggle_mark(self) -> None:
        if self.model.cursor_row is None:
            return
        self.model.toggle_mark()
        self.refresh_line(self.model.cursor + 1)
        self.post_message(self.StateChanged(self))
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

    # ---- events -------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._update_virtual_size()
        self._after_cursor_move()

    def on_resize(self, event: events.Resize) -> None:
        self._update_virtual_size()
        self._scroll_to_cursor()

    def on_focus(self, event: events.Focus) -> None:
        self.lines.forget()

    def on_blur(self, event: events.Blur) -> None:
        self.lines.forget()

    def notify_style_update(self) -> None:
        self.lines.forget()
        self._frame = None
        super().notify_style_update()
