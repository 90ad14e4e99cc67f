"""What a `ResourceTable` draws: the column widths for the room there is (`column_widths.plan_widths` over
natural widths measured from a bounded sample of the loaded rows, widened by the rows on screen, never a scan
of every row), and its lines as `Strip`s (the header, a row), each built once with its final styles and
cached.

Reads the table's model and the styles it is given; never the widget: the widget says which line goes
where, which styles the table has, and when drawn lines are stale (`forget`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from textual.strip import Strip

from labdeck.tui.widgets.column_widths import grow, measure, plan_widths, sample_indices, total_width, wants
from labdeck.tui.widgets.table_model import TableModel
from labdeck.tui.widgets.table_render import header_segments, row_segments

# Rendered lines kept (two screens or more): each is a Strip with its caches, which every full collection
# walks while it is alive.
_CACHE_LIMIT = 128


@dataclass(frozen=True)
class RowLook:
    """How rows look in this frame: the line's own style under everything (`base`), the table's component
    styles by name (`style("resource-table--cursor")`), zebra stripes, the rows flashed by watch mode, and
    the console that renders rich text cells."""

    base: Style
    style: Callable[[str], Style]
    zebra: bool
    flashed: frozenset[Hashable]
    console: Any


class TableLines:
    """The widths and the cached lines of one table's model."""

    def __init__(self, model: TableModel, max_auto_width: int) -> None:
        self.model = model
        self.max_auto_width = max_auto_width
        self.natural: list[int] = []  # each column's natural width (content and label)
        self.measured_rows = 0  # how many rows were loaded when `natural` was last measured
        self._widths: tuple[int, list[int]] | None = None  # (room, widths)
        self._window: tuple[int, int, int] | None = None  # the rows on screen last measured
        self._cache: dict[tuple[Any, ...], Strip] = {}

    def forget(self) -> None:
        """Drop every drawn line (rows, styles, focus or marks changed)."""
        self._cache.clear()

    # ---- widths ---------------------------------------------------------------------------------------

    def measure(self) -> None:
        """Natural widths from at most `SAMPLE_SIZE` rows spread over the loaded rows (on load)."""
        model = self.model
        sample = [model.cells_at(i) for i in sample_indices(model.row_count)]
        self.natural = measure(model.columns, sample)
        self.measured_rows = model.row_count
        self._widths = None
        self._window = None

    def widen_to(self, first: int, count: int) -> bool:
        """Widen the natural widths to the rows on screen (`count` rows from visible row `first`): a value
        the sample missed is not cut while there is room. Bounded by the screen, once per new window. True
        when the widths changed: lines already drawn this frame were drawn at the old widths."""
        model = self.model
        window = (first, count, model.version)
        if window == self._window:
            return False
        self._window = window
        last = min(first + count, model.visible_count)
        before = list(self.natural)
        grow(self.natural, [model.visible_cells(i) for i in range(max(0, first), last)])
        if self.natural == before:
            return False
        self._widths = None
        self._cache.clear()
        return True

    def widths(self, available: int) -> list[int]:
        """Each column's width in `available` cells (0: dropped for lack of room)."""
        cached = self._widths
        if cached is not None and cached[0] == available:
            return cached[1]
        widths = plan_widths(wants(self.model.columns, self.natural), available, self.max_auto_width)
        self._widths = (available, widths)
        self._cache.clear()
        return widths

    # ---- lines ----------------------------------------------------------------------------------------

    def header(self, widths: list[int], style: Style) -> Strip:
        """The header line: the labels, the sort marker on the sorted column, in `style`."""
        model = self.model
        key = ("header", tuple(widths), model.sort_column, model.sort_reverse)
        strip = self._cache.get(key)
        if strip is None:
            segments = header_segments(model.columns, widths, model.sort_column, model.sort_reverse)
            strip = Strip(segments).apply_style(style)
            self._cache[key] = strip
        return strip

    def row(self, index: int, widths: list[int], look: RowLook) -> tuple[Strip, bool]:
        """Visible row `index` as a line, and whether it was drawn anew (False: from the cache)."""
        model = self.model
        is_cursor = index == model.cursor
        marked = model.is_marked_at(index)
        flashed = bool(look.flashed) and model.visible_key(index) in look.flashed
        key = (index, model.version, is_cursor, marked, flashed)
        strip = self._cache.get(key)
        if strip is not None:
            return strip, False
        style = look.base
        if look.zebra and index % 2:
            style += look.style("resource-table--even-row")
        if flashed:
            style += look.style("resource-table--flash")
        if marked:
            style += look.style("resource-table--marked")
        if is_cursor:
            style += look.style("resource-table--cursor")
        segments = row_segments(
            model.visible_cells(index), model.columns, widths, model.visible_row(index), marked,
            look.console, look.style("resource-table--marker"), line_style=style,
        )
        strip = Strip(segments, total_width(widths))
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = strip
        return strip, True
