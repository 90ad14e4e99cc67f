"""The headless model behind `ResourceTable`: rows, identity, sort, filter, marks and the load-more trigger.

No Textual, no rendering: the widget asks it which rows are visible, in which order, and which are marked. It
reads the columns' declarations and nothing else of the table. What costs O(rows) is done once when rows
arrive (cell texts, a lower-cased search string per row), so a filter keystroke or a sort at 100,000 rows
stays fast; with `LazyCells` styled cells are built only when a row is first drawn or measured."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any, cast

from labdeck.tui.widgets.table_columns import (
    Cell,
    CellsFn,
    Column,
    LazyCells,
    RowKeyFn,
    cells_from,
    identity_key,
    none_last,
    plain,
    tuple_cells,
)

__all__ = ["Cell", "CellsFn", "Column", "LazyCells", "RowKeyFn", "TableModel", "cells_from", "plain"]


LOAD_MORE_THRESHOLD = 50
SEARCH_CELL_LIMIT = 1000  # the filter looks at the first 1,000 characters of each cell (bounded memory)


class TableModel:
    """Loaded rows, their order (sort), the visible subset (filter), marks and the cursor, keyed by row."""

    def __init__(
        self,
        columns: Sequence[Column],
        cells: CellsFn | None = None,
        row_key: RowKeyFn | None = None,
    ) -> None:
        self.columns: list[Column] = list(columns)
        self._cells_fn: CellsFn = cells or cells_from(columns) or tuple_cells
        self._key_fn: RowKeyFn = row_key or identity_key
        self._plains_fn = self._cells_fn.plains if isinstance(self._cells_fn, LazyCells) else None
        self._rows: list[Any] = []
        self._keys: list[Hashable] = []
        self._cells: list[tuple[Cell, ...] | None] = []  # None: not built yet (LazyCells)
        self._search: list[str] = []
        self._pos: dict[Hashable, int] = {}
        self._sort_cache: dict[str, list[Any]] = {}  # column key -> sort value per loaded row
        self._order_cache: dict[tuple[str, bool], list[int]] = {}  # sorted permutations of loaded rows
        self._visible: list[int] = []
        self.sort_column: str | None = None
        self.sort_reverse: bool = False
        self.filter_text: str = ""
        self.marked: set[Hashable] = set()
        self.mark_anchor: Hashable | None = None
        self.cursor: int = 0
        self.has_more: bool = False
        self._load_requested: bool = False
        self.version: int = 0  # bumped on any change of rows or order (render caches key on it)

    # ---- rows ---------------------------------------------------------------------------------------

    @property
    def rows(self) -> list[Any]:
        """All loaded rows, in load order."""
        return list(self._rows)

    @property
    def loaded_count(self) -> int:
        """How many rows are loaded (without copying them)."""
        return len(self._rows)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def visible_count(self) -> int:
        return len(self._visible)

    @property
    def visible_rows(self) -> list[Any]:
        """The rows after filter and sort."""
        rows = self._rows
        return [rows[i] for i in self._visible]

    def cells_at(self, at: int) -> tuple[Cell, ...]:
        """The cell texts of loaded row `at` (load order), built now if they were left for later."""
        cells = self._cells[at]
        if cells is None:
            cells = self._cells[at] = tuple(self._cells_fn(self._rows[at]))
        return cells

    def visible_row(self, index: int) -> Any:
        return self._rows[self._visible[index]]

    def visible_cells(self, index: int) -> tuple[Cell, ...]:
        return self.cells_at(self._visible[index])

    def visible_key(self, index: int) -> Hashable:
        return self._keys[self._visible[index]]

    def cells_of(self, row: Any) -> tuple[Cell, ...]:
        """The cells of any row, built now (export, comparisons)."""
        return tuple(self._cells_fn(row))

    def fingerprints(self) -> dict[Hashable, str]:
        """Each loaded row's key and the plain text of its cells (what watch mode compares)."""
        return {key: "\x1f".join(plain(cell) for cell in self._cells_fn(row))
                for key, row in zip(self._keys, self._rows, strict=True)}

    def key_of(self, row: Any) -> Hashable:
        return self._key_fn(row)

    def keys(self) -> frozenset[Hashable]:
        """The keys of every loaded row."""
        return frozenset(self._pos)

    def row_for(self, key: Hashable) -> Any | None:
        """The loaded row with this key, or None."""
        at = self._pos.get(key)
        return None if at is None else self._rows[at]

    def _prepare(self, row: Any) -> tuple[Hashable, tuple[Cell, ...] | None, str]:
        if self._plains_fn is not None:
            texts = self._plains_fn(row)
            text = "\x00".join(texts)
            if len(text) > SEARCH_CELL_LIMIT:
                text = "\x00".join(t[:SEARCH_CELL_LIMIT] for t in texts)
            return self._key_fn(row), None, text.lower()
        cells = tuple(self._cells_fn(row))
        try:
            text = "\x00".join(cells)  # type: ignore[arg-type]
        except TypeError:
            text = "\x00".join(plain(c) for c in cells)
        if len(text) > SEARCH_CELL_LIMIT:
            text = "\x00".join(plain(c)[:SEARCH_CELL_LIMIT] for c in cells)
        return self._key_fn(row), cells, text.lower()

    def set_rows(self, rows: Iterable[Any]) -> None:
        """Replace every row (a reload). Marks and the cursor stay on rows whose key is still there."""
        cursor_key = self.cursor_key()
        self._rows, self._keys, self._cells, self._search = [], [], [], []
        self._pos = {}
        self._invalidate()
        self._add(rows)
        self.marked &= self._pos.keys()
        self._load_requested = False
        self._reorder(cursor_key)

    def append_rows(self, rows: Iterable[Any]) -> None:
        """Add rows (the next page); a row whose key is already loaded replaces the old one."""
        cursor_key = self.cursor_key()
        self._add(rows)
        self._invalidate()
        self._load_requested = False
        self._reorder(cursor_key)

    def _invalidate(self) -> None:
        self._sort_cache.clear()
        self._order_cache.clear()

    def _add(self, rows: Iterable[Any]) -> None:
        prepare, pos = self._prepare, self._pos
        for row in rows:
            key, cells, text = prepare(row)
            at = pos.get(key)
            if at is not None:
                self._rows[at], self._cells[at], self._search[at] = row, cells, text
                continue
            pos[key] = len(self._rows)
            self._rows.append(row)
            self._keys.append(key)
            self._cells.append(cells)
            self._search.append(text)

    def replace_row(self, row: Any) -> bool:
        """Put `row` in place of the loaded row with the same key; False when no such row is loaded."""
        key, cells, text = self._prepare(row)
        at = self._pos.get(key)
        if at is None:
            return False
        self._rows[at], self._cells[at], self._search[at] = row, cells, text
        self._invalidate()
        self._reorder(self.cursor_key())
        return True

    def remove_rows(self, keys: Iterable[Hashable]) -> int:
        """Remove the rows with these keys (and their marks); returns how many were removed."""
        gone = set(keys) & self._pos.keys()
        if not gone:
            return 0
        cursor_key = self.cursor_key()
        old_cursor = self.cursor
        keep = [i for i, k in enumerate(self._keys) if k not in gone]
        self._rows = [self._rows[i] for i in keep]
        self._keys = [self._keys[i] for i in keep]
        self._cells = [self._cells[i] for i in keep]
        self._search = [self._search[i] for i in keep]
        self._pos = {k: i for i, k in enumerate(self._keys)}
        self._invalidate()
        self.marked -= gone
        if self.mark_anchor in gone:
            self.mark_anchor = None
        self._reorder(cursor_key if cursor_key not in gone else None)
        if cursor_key in gone:
            self.cursor = self._clamp(old_cursor)
        return len(gone)

    def clear(self) -> None:
        """Drop every row, mark and the filter's result (the filter text stays)."""
        self.set_rows([])
        self.marked.clear()
        self.mark_anchor = None
        self.cursor = 0

    # ---- order: sort and filter -----------------------------------------------------------------------

    def _column(self, key: str) -> Column:
        for column in self.columns:
            if column.key == key:
                return column
        raise KeyError(key)

    def _sort_values(self, column_key: str) -> list[Any]:
        column = self._column(column_key)
        if column.sort_key is not None:
            fn = column.sort_key
            return none_last([fn(row) for row in self._rows])
        if column.plain is not None:  # the column's own plain text: no other cell computed
            text = column.plain
            return [text(row).lower() for row in self._rows]
        index = self.columns.index(column)
        if self._plains_fn is not None:
            texts = map(self._plains_fn, self._rows)
            return [t[index].lower() if index < len(t) else "" for t in texts]
        built = cast("list[tuple[Cell, ...]]", self._cells)  # all built: only LazyCells leave a None
        return [plain(c[index]).lower() if index < len(c) else "" for c in built]

    def sort_by(self, column_key: str | None, reverse: bool | None = None) -> None:
        """Sort by a column (stable). The same column again with `reverse=None` toggles the direction;
        `None` restores load order."""
        if column_key is not None:
            self._column(column_key)  # raises KeyError for an unknown column
        if reverse is None:
            reverse = not self.sort_reverse if column_key == self.sort_column else False
        self.sort_column, self.sort_reverse = column_key, reverse
        self._reorder(self.cursor_key())

    def cycle_sort(self) -> None:
        """Sort by the next column (ascending); after the last column, back to load order."""
        keys = [c.key for c in self.columns]
        if self.sort_column is None:
            self.sort_by(keys[0] if keys else None, reverse=False)
            return
        at = keys.index(self.sort_column) + 1
        self.sort_by(keys[at] if at < len(keys) else None, reverse=False)

    def reverse_sort(self) -> None:
        """Flip the direction of the current sort (sorting by the first column if none)."""
        if self.sort_column is None and self.columns:
            self.sort_by(self.columns[0].key, reverse=True)
        else:
            self.sort_by(self.sort_column, reverse=not self.sort_reverse)

    def _order(self) -> list[int]:
        count = len(self._rows)
        if self.sort_column is None:
            loaded = list(range(count))
            return loaded[::-1] if self.sort_reverse else loaded
        cache_key = (self.sort_column, self.sort_reverse)
        order = self._order_cache.get(cache_key)
        if order is not None:
            return order
        values = self._sort_cache.get(self.sort_column)
        if values is None:
            values = self._sort_cache[self.sort_column] = self._sort_values(self.sort_column)
        try:
            order = sorted(range(count), key=values.__getitem__, reverse=self.sort_reverse)
        except TypeError:  # mixed types from a sort_key: fall back to comparing their text
            text = [(v[0], str(v[1])) if isinstance(v, tuple) else str(v) for v in values]
            order = sorted(range(count), key=text.__getitem__, reverse=self.sort_reverse)
        self._order_cache[cache_key] = order
        return order

    def set_filter(self, text: str) -> None:
        """Keep the rows whose cell texts contain `text` (case-insensitive); '' shows every row."""
        needle = text.lower()
        previous = self.filter_text.lower()
        cursor_key = self.cursor_key()
        self.filter_text = text
        if previous and needle.startswith(previous):
            search = self._search  # narrowing: only the rows visible now can still match
            self._visible = [i for i in self._visible if needle in search[i]]
            self._restore_cursor(cursor_key)
        else:
            self._reorder(cursor_key)

    def _reorder(self, cursor_key: Hashable | None) -> None:
        order = self._order()
        needle = self.filter_text.lower()
        if needle:
            search = self._search
            order = [i for i in order if needle in search[i]]
        else:
            order = list(order)  # the cached permutation stays untouched
        self._visible = order
        self._restore_cursor(cursor_key)

    def _restore_cursor(self, cursor_key: Hashable | None) -> None:
        self.version += 1
        if cursor_key is not None:
            at = self._pos.get(cursor_key)
            if at is not None:
                try:
                    self.cursor = self._visible.index(at)
                    return
                except ValueError:
                    pass
        self.cursor = self._clamp(self.cursor)

    # ---- cursor ---------------------------------------------------------------------------------------

    def _clamp(self, index: int) -> int:
        return max(0, min(index, len(self._visible) - 1))

    def cursor_key(self) -> Hashable | None:
        if 0 <= self.cursor < len(self._visible):
            return self._keys[self._visible[self.cursor]]
        return None

    @property
    def cursor_row(self) -> Any | None:
        """The row under the cursor, or None when no row is visible."""
        if 0 <= self.cursor < len(self._visible):
            return self._rows[self._visible[self.cursor]]
        return None

    def move_cursor(self, index: int) -> int:
        self.cursor = self._clamp(index)
        return self.cursor

    def want_more(self, threshold: int = LOAD_MORE_THRESHOLD) -> bool:
        """True once when the cursor is within `threshold` rows of the end and more pages exist; then False
        until rows arrive (set_rows/append_rows) or `reset_load_request()`."""
        if not self.has_more or self._load_requested:
            return False
        if self.cursor >= len(self._visible) - threshold:
            self._load_requested = True
            return True
        return False

    def reset_load_request(self) -> None:
        self._load_requested = False

    # ---- marks ----------------------------------------------------------------------------------------

    def is_marked_at(self, index: int) -> bool:
        return bool(self.marked) and self._keys[self._visible[index]] in self.marked

    @property
    def marked_rows(self) -> list[Any]:
        """Marked rows in load order, including marked rows the filter hides now."""
        if not self.marked:
            return []
        marked = self.marked
        return [row for row, key in zip(self._rows, self._keys, strict=True) if key in marked]

    def toggle_mark(self, index: int | None = None) -> bool:
        """Toggle the mark on a visible row (the cursor row by default); returns the new state."""
        index = self.cursor if index is None else index
        if not 0 <= index < len(self._visible):
            return False
        key = self._keys[self._visible[index]]
        if key in self.marked:
            self.marked.discard(key)
            return False
        self.marked.add(key)
        self.mark_anchor = key
        return True

    def mark_range(self) -> int:
        """Mark the visible rows from the last marked row (else the cursor row) to the cursor; how many."""
        if not self._visible:
            return 0
        start = self.cursor
        at = self._pos.get(self.mark_anchor) if self.mark_anchor is not None else None
        if at is not None:
            try:
                start = self._visible.index(at)
            except ValueError:
                start = self.cursor
        low, high = sorted((start, self.cursor))
        keys = self._keys
        self.marked.update(keys[i] for i in self._visible[low : high + 1])
        self.mark_anchor = keys[self._visible[self.cursor]]
        return high - low + 1

    def mark_all(self) -> None:
        """Mark every visible row."""
        keys = self._keys
        self.marked.update(keys[i] for i in self._visible)

    def unmark_all(self) -> None:
        self.marked.clear()
        self.mark_anchor = None
