"""How wide each column of a `ResourceTable` is, from its content and the room: the one layout rule.

Pure (no Textual): `measure` gives each column's natural width from a bounded sample of rows (the label
counts too), `grow` widens those from the rows on screen, and `plan_widths` decides, for the room there is,
which columns show and how wide:

- the **key column** (the highest `priority`, the first of equals) takes its whole content first: it is
  never dropped, and cut only when it alone does not fit, or to leave the **essential** columns (the
  others a list cannot do without at 80x24: `:log`'s method, status and time) their floors;
- then each other column is let in at its floor (`min_width`, or its content when narrower) if that still
  fits, the essential ones first, the others in priority order (a narrow one may take room a wider, more
  useful one could not use);
- room left widens them in priority order: to half their content, to their content up to their soft
  cap (`max_width`, else the table's, at most a third of the line), then to their whole content, then the
  last column fills the line: nothing is cut while room is left;
- while a column more useful than the least useful one shown is still under half its content (up to its
  cap), that least useful one is **dropped** (of equal priority, the rightmost goes first; an essential
  one never): at 80 columns a few readable columns, not many unreadable ones.

A dropped column has width 0; `total_width`, `column_at` and the renderers skip it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len

from labdeck.domain.text import sanitize_line

if TYPE_CHECKING:
    from labdeck.tui.widgets.table_columns import Cell, Column

MARKER_WIDTH = 2  # "● " before a marked row
SEPARATOR_WIDTH = 1
SAMPLE_SIZE = 200  # rows measured for column widths, spread over the loaded rows
MAX_AUTO_WIDTH = 40  # the soft cap of a column that declares none: wider only once every column has its room
MIN_DEFAULT_CAP = 8  # ... and a third of the line, but not less than this
MEASURE_LIMIT = 200  # cells measured of one value (a longer one is as wide as this)
LABEL_EXTRA = 2  # room after a label for the sort marker (" ▲")


@dataclass(frozen=True)
class Want:
    """What one column asks for: its `natural` width (content and label), the `floor` below which it is
    dropped rather than cut further, a soft `cap`, a `fixed` width (or None), its `priority`, and whether
    it is `essential` (let in before the key column takes more than its floor needs)."""

    natural: int
    floor: int = 3
    cap: int | None = None  # None: the table's default (the key column: none)
    fixed: int | None = None
    priority: int = 0
    essential: bool = False

    @property
    def low(self) -> int:
        """The narrowest this column is shown at."""
        return self.fixed if self.fixed is not None else max(1, min(self.natural, self.floor))


def sample_indices(count: int, size: int = SAMPLE_SIZE) -> range:
    """Indices of at most `size` rows spread evenly over `count` rows."""
    if count <= size:
        return range(count)
    return range(0, count, -(-count // size))


def cell_width(text: str, limit: int = MEASURE_LIMIT) -> int:
    """The cells `text` takes on one line (controls made visible), counted up to `limit`."""
    if len(text) <= limit and text.isascii() and text.isprintable():
        return len(text)
    return min(limit, cell_len(sanitize_line(text[: limit * 2 + 1])))


def _plain(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell.plain


def measure(columns: Sequence[Column], sample: Sequence[Sequence[Cell]],
            limit: int = MEASURE_LIMIT) -> list[int]:
    """Each column's natural width: its label (with room for the sort marker) or its widest sampled cell."""
    widths = [cell_len(column.label) + LABEL_EXTRA for column in columns]
    return grow(widths, sample, limit)


def grow(widths: list[int], rows: Sequence[Sequence[Cell]], limit: int = MEASURE_LIMIT) -> list[int]:
    """`widths` widened (in place, and returned) to fit the cells of `rows`."""
    count = len(widths)
    for cells in rows:
        for index, cell in enumerate(cells[:count]):
            width = cell_width(_plain(cell), limit)
            if width > widths[index]:
                widths[index] = width
    return widths


def wants(columns: Sequence[Column], natural: Sequence[int]) -> list[Want]:
    """The `Want` of each column from its declaration and its natural width."""
    return [Want(natural=natural[i] if i < len(natural) else 0, floor=max(1, column.min_width),
                 cap=column.max_width,
                 fixed=max(column.width, 1) if column.width is not None else None, priority=column.priority,
                 essential=column.essential)
            for i, column in enumerate(columns)]


def key_index(wanted: Sequence[Want]) -> int:
    """The key column: the highest priority, the first of equals."""
    return max(range(len(wanted)), key=lambda i: (wanted[i].priority, -i))


def total_width(widths: Sequence[int]) -> int:
    """The cells a line takes: the marker, the shown columns and a separator between each two."""
    shown = [w for w in widths if w > 0]
    return MARKER_WIDTH + sum(shown) + SEPARATOR_WIDTH * max(len(shown) - 1, 0)


def plan_widths(wanted: Sequence[Want], available: int, default_cap: int = MAX_AUTO_WIDTH) -> list[int]:
    """Each column's width in `available` cells (0: dropped). With no room known (`available <= 0`, not
    laid out yet), every column gets its content up to its cap.

    The key column takes its whole content (up to its cap, if it declares one), less what the essential
    columns' floors need. Then each other column is let in at its floor if that still fits, the essential
    ones first, the others in priority order. Room left widens them in priority order
    (content up to the soft cap, then whole content, then the last fills the line); while that leaves a
    column more useful than the least useful one shown below half its content (up to its cap), the least
    useful one is dropped."""
    if not wanted:
        return []
    if available > 0:  # a column without a cap of its own is whole enough at a third of the line
        default_cap = min(default_cap, max(MIN_DEFAULT_CAP, (available - MARKER_WIDTH) // 3))
    caps = [w.cap if w.cap is not None else default_cap for w in wanted]
    if available <= 0:
        return [w.fixed if w.fixed is not None else max(w.low, min(w.natural, cap))
                for w, cap in zip(wanted, caps, strict=True)]
    key = key_index(wanted)
    head = wanted[key]
    others = sorted((i for i in range(len(wanted)) if i != key),
                    key=lambda i: (not wanted[i].essential, -wanted[i].priority, i))
    if head.fixed is not None:
        key_width = head.fixed
    else:
        target = head.natural if head.cap is None else min(head.natural, head.cap)
        target = max(head.low, min(target, available - MARKER_WIDTH - essential_room(wanted, others,
                                                                                     available - head.low)))
        key_width = max(1, min(target, available - MARKER_WIDTH))
    shown: list[int] = []
    room = available - MARKER_WIDTH - key_width
    for index in others:
        if room >= SEPARATOR_WIDTH + wanted[index].low:
            shown.append(index)
            room -= SEPARATOR_WIDTH + wanted[index].low
    while True:
        widths = _grow_shown(wanted, caps, key, key_width, shown, available)
        cut = [i for i in shown if wanted[i].fixed is None and widths[i] < readable(wanted[i], caps[i])]
        if not cut or cut == [shown[-1]] or wanted[shown[-1]].essential:
            return widths
        shown.pop()  # the least useful makes way for a more useful one that is cut


def essential_room(wanted: Sequence[Want], order: Sequence[int], available: int) -> int:
    """The cells the essential columns of `order` take at their floors (with their separators) in
    `available` cells beside the marker: those that fit, in turn (one that cannot be shown is not
    made room for)."""
    room, taken = available - MARKER_WIDTH, 0
    for index in order:
        need = SEPARATOR_WIDTH + wanted[index].low
        if wanted[index].essential and need <= room - taken:
            taken += need
    return taken


def readable(want: Want, cap: int) -> int:
    """The width from which a column reads well enough: half its content up to its cap (its floor, at
    least)."""
    return max(want.low, (min(want.natural, cap) + 1) // 2)


def _grow_shown(wanted: Sequence[Want], caps: Sequence[int], key: int, key_width: int, shown: list[int],
                available: int) -> list[int]:
    """The key at `key_width`, the `shown` columns (in priority order) at their floor, then widened by the
    room left: to `readable`, to their content up to their cap, to their whole content; the last fills the
    line."""
    widths = [0] * len(wanted)
    widths[key] = key_width
    for index in shown:
        widths[index] = wanted[index].low
    room = available - total_width(widths)
    room = _give(widths, wanted, shown, room, lambda i: readable(wanted[i], caps[i]))
    room = _give(widths, wanted, shown, room, lambda i: min(wanted[i].natural, caps[i]))
    room = _give(widths, wanted, [key, *shown], room, lambda i: wanted[i].natural)
    if room > 0:
        last = max([key, *shown])
        fill = last if wanted[last].fixed is None else key if wanted[key].fixed is None else None
        if fill is not None:
            widths[fill] += room
    return widths


def _give(widths: list[int], wanted: Sequence[Want], order: Sequence[int], room: int,
          target: Callable[[int], int]) -> int:
    """Widen the columns of `order`, in turn, towards `target(index)`; returns the room left."""
    for index in order:
        if room <= 0:
            break
        if wanted[index].fixed is not None:
            continue
        extra = min(room, target(index) - widths[index])
        if extra > 0:
            widths[index] += extra
            room -= extra
    return room


def column_at(widths: Sequence[int], x: int) -> int | None:
    """The index of the column under cell offset `x` of a line (None on the marker or past the end)."""
    position = MARKER_WIDTH
    for index, width in enumerate(widths):
        if width <= 0:
            continue
        if position <= x < position + width + SEPARATOR_WIDTH:
            return index
        position += width + SEPARATOR_WIDTH
    return None
