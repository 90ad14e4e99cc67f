"""What `ResourceTable` draws, as a mixin of the widget: the column widths (`column_widths.plan_widths` over
natural widths measured from a bounded sample of the loaded rows, widened by the rows on screen, never a scan
of every row) and each line (`render_line`: the header, a row, the message after the last row), cached per
line as `Strip`s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip

from labdeck.tui.widgets.column_widths import grow, measure, plan_widths, sample_indices, total_width, wants
from labdeck.tui.widgets.table_render import header_segments, row_segments

if TYPE_CHECKING:
    from collections.abc import Hashable

    from textual.scroll_view import ScrollView as _Host

    from labdeck.tui.widgets.gc_pacing import FramePacer
    from labdeck.tui.widgets.table_model import TableModel
else:
    _Host = object  # at run time a plain mixin; for the type checker, the widget it is mixed into

# Rendered lines kept (two screens or more): each is a Strip with its caches, which every full collection
# walks while it is alive.
_CACHE_LIMIT = 128


class TableLines(_Host):
    """Column widths and line rendering of a `ResourceTable`."""

    if TYPE_CHECKING:  # what ResourceTable provides
        model: TableModel
        max_auto_width: int
        flashed: frozenset[Hashable]
        _zebra: bool
        _pacer: FramePacer

        def _message(self) -> str | None: ...

    _natural: list[int]
    _measured_rows: int
    _widths_cache: tuple[int, list[int]] | None
    _window: tuple[int, int, int] | None
    _line_cache: dict[tuple[Any, ...], Strip]
    _frame: tuple[Size, Style, int, int] | None

    def _init_lines(self) -> None:
        self._natural = []
        self._measured_rows = 0
        self._widths_cache = None
        self._window = None  # the rows on screen last measured: (first, count, model version)
        self._line_cache = {}
        self._frame = None  # see `_frame_facts`

    # ---- widths ---------------------------------------------------------------------------------------

    def _measure(self) -> None:
        """Natural widths from at most `SAMPLE_SIZE` rows spread over the loaded rows (on load)."""
        model = self.model
        sample = [model.cells_at(i) for i in sample_indices(model.row_count)]
        self._natural = measure(model.columns, sample)
        self._measured_rows = model.row_count
        self._widths_cache = None
        self._window = None

    def _measure_window(self, first: int, count: int) -> None:
        """Widen the natural widths to the rows on screen (`count` rows from visible row `first`): a value
        the sample missed is not cut while there is room. Bounded by the screen, once per new window."""
        model = self.model
        window = (first, count, model.version)
        if window == self._window:
            return
        self._window = window
        last = min(first + count, model.visible_count)
        before = list(self._natural)
        grow(self._natural, [model.visible_cells(i) for i in range(max(0, first), last)])
        if self._natural != before:
            self._widths_cache = None
            self._line_cache.clear()
            self.refresh()  # lines already drawn this frame were drawn at the old widths

    def _widths(self, available: int | None = None) -> list[int]:
        if available is None:
            available = self.scrollable_content_region.width if self.is_mounted else 0
        cached = self._widths_cache
        if cached is not None and cached[0] == available:
            return cached[1]
        widths = plan_widths(wants(self.model.columns, self._natural), available, self.max_auto_width)
        self._widths_cache = (available, widths)
        self._line_cache.clear()
        return widths

    @property
    def column_widths(self) -> dict[str, int]:
        """Each column's width now, by key (0: dropped for lack of room)."""
        return {c.key: w for c, w in zip(self.model.columns, self._widths(), strict=True)}

    # ---- rendering ------------------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        base, width, page = self._frame_facts()
        self._measure_window(scroll_y, page)
        widths = self._widths(width)
        if y == 0:
            strip = self._header_strip(widths, base)
        else:
            index = scroll_y + y - 1
            if index < self.model.visible_count:
                strip = self._row_strip(index, widths, base, page)
            elif index == self.model.visible_count and (message := self._message()) is not None:
                style = base + self._style("resource-table--message")
                strip = Strip([Segment("  " + message)]).apply_style(style)
            else:
                return Strip.blank(width, base)
        if scroll_x == 0 and strip.cell_length == width:
            return strip  # what crop_extend gives, without caching the strip in itself (a reference cycle)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _frame_facts(self) -> tuple[Style, int, int]:
        """The widget's own style (`rich_style` walks every ancestor), the width of a line and the number
        of row lines: worked out once per repaint, not once per line."""
        facts, size = self._frame, self.outer_size
        if facts is None or facts[0] != size:  # a resize marks lines dirty without a `refresh`
            region = self.scrollable_content_region
            facts = self._frame = (size, self.rich_style, region.width, max(1, region.height - 1))
        return facts[1:]

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if repaint:
            self._frame = None  # what Textual does with its own style cache on a repaint
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _header_strip(self, widths: list[int], base: Style) -> Strip:
        model = self.model
        key = ("header", tuple(widths), model.sort_column, model.sort_reverse)
        strip = self._line_cache.get(key)
        if strip is None:
            segments = header_segments(model.columns, widths, model.sort_column, model.sort_reverse)
            strip = Strip(segments).apply_style(base + self._style("resource-table--header"))
            self._line_cache[key] = strip
        return strip

    def _row_strip(self, index: int, widths: list[int], base: Style, page: int) -> Strip:
        model = self.model
        is_cursor = index == model.cursor
        marked = model.is_marked_at(index)
        flashed = bool(self.flashed) and model.visible_key(index) in self.flashed
        key = (index, model.version, is_cursor, marked, flashed)
        strip = self._line_cache.get(key)
        if strip is not None:
            return strip
        style = base
        if self._zebra and index % 2:
            style += self._style("resource-table--even-row")
        if flashed:
            style += self._style("resource-table--flash")
        if marked:
            style += self._style("resource-table--marked")
        if is_cursor:
            style += self._style("resource-table--cursor")
        segments = row_segments(
            model.visible_cells(index), model.columns, widths, model.visible_row(index), marked,
            self.app.console, self._style("resource-table--marker"), line_style=style,
        )
        strip = Strip(segments, total_width(widths))
        self._pacer.line_drawn(model.loaded_count, page)
        if len(self._line_cache) > _CACHE_LIMIT:
            self._line_cache.clear()
        self._line_cache[key] = strip
        return strip

    def line_text(self, y: int) -> str:
        """The plain text of viewport line `y` (0 is the header), as rendered now."""
        return self.render_line(y).text
