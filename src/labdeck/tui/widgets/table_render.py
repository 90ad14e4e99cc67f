"""Turning `ResourceTable` cells into Rich segments: column widths from a bounded sample, literal cell text
(never markup, control characters made visible), truncation with an ellipsis, wide characters measured.

Rich only, no Textual: the widget wraps the segments in `Strip`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from labdeck.domain.text import sanitize_line
from labdeck.tui.widgets.table_model import Cell, Column, plain

MARKER_WIDTH = 2  # "● " before a marked row
SEPARATOR = " "
SAMPLE_SIZE = 200  # rows measured for column widths, spread over the loaded rows
MAX_AUTO_WIDTH = 40  # a measured column is never wider than this (the last one takes the rest)
ELLIPSIS = "…"


def clean(text: str) -> str:
    """Cell text safe for one terminal line: controls, bidi and zero-width characters visible (`sanitize`),
    newline and tab as spaces (`domain.text.sanitize_line`)."""
    return sanitize_line(text)


def sample_indices(count: int, size: int = SAMPLE_SIZE) -> range:
    """Indices of at most `size` rows spread evenly over `count` rows."""
    if count <= size:
        return range(count)
    return range(0, count, -(-count // size))


def _measure(cell: Cell, cap: int) -> int:
    text = plain(cell)
    if len(text) <= cap and text.isascii():
        return len(text)
    return cell_len(clean(text[: cap * 2 + 1]))


def natural_widths(columns: Sequence[Column], sample: Sequence[Sequence[Cell]], cap: int = MAX_AUTO_WIDTH,
                   label_extra: int = 2) -> list[int]:
    """Each column's wanted width: a fixed `width`, else the widest of its label (plus room for the sort
    marker) and the sampled cells, capped at `cap` and at least `min_width`."""
    widths = []
    for index, column in enumerate(columns):
        if column.width is not None:
            widths.append(max(column.width, 1))
            continue
        wanted = cell_len(column.label) + label_extra
        for cells in sample:
            if index < len(cells):
                wanted = max(wanted, _measure(cells[index], cap))
        widths.append(max(column.min_width, min(wanted, cap)))
    return widths


def layout_widths(columns: Sequence[Column], natural: Sequence[int], available: int) -> list[int]:
    """Final widths: the last column (unless it has a fixed width) takes whatever room is left; when the
    room is short, the widest measured columns give way first, down to their `min_width` (past that the
    table scrolls sideways)."""
    widths = list(natural)
    if not widths or available <= 0:
        return widths
    used = MARKER_WIDTH + sum(widths) + len(SEPARATOR) * (len(widths) - 1)
    if used < available and columns[-1].width is None:
        widths[-1] += available - used
    elif used > available:
        _shrink(columns, widths, used - available)
    return widths


def _shrink(columns: Sequence[Column], widths: list[int], excess: int) -> None:
    floors = [w if c.width is not None else min(w, max(c.min_width, 1)) for c, w in zip(columns, widths,
                                                                                          strict=True)]
    while excess > 0:
        candidates = [i for i, w in enumerate(widths) if w > floors[i]]
        if not candidates:
            return
        widest = max(widths[i] for i in candidates)
        tops = [i for i in candidates if widths[i] == widest]
        below = max([widths[i] for i in candidates if widths[i] < widest] + [max(floors[i] for i in tops)])
        step = max(1, min(widest - below, -(-excess // len(tops))))
        for i in tops:
            cut = min(step, widths[i] - floors[i], excess)
            widths[i] -= cut
            excess -= cut
            if excess <= 0:
                return


def total_width(widths: Sequence[int]) -> int:
    return MARKER_WIDTH + sum(widths) + len(SEPARATOR) * max(len(widths) - 1, 0)


def fit(text: str, width: int, align: str = "left") -> str:
    """`text` padded or cut to exactly `width` cells, cut text ending in an ellipsis."""
    if width <= 0:
        return ""
    if text.isascii():
        if len(text) > width:
            text = text[: width - 1] + ELLIPSIS
        pad = width - len(text)
    else:
        text = text[: width * 2 + 1]
        length = cell_len(text)
        if length > width:
            text = set_cell_size(text, width - 1) + ELLIPSIS
            length = cell_len(text)
        pad = width - length
    return " " * pad + text if align == "right" else text + " " * pad


@lru_cache(maxsize=256)
def _parse_style(style: str) -> Style:
    return Style.parse(style)


def _as_style(style: Any) -> Style | None:
    if style is None or isinstance(style, Style):
        return style
    try:
        return _parse_style(str(style))
    except Exception:  # a bad style name from a style_fn must not break rendering
        return None


def cell_segments(cell: Cell, width: int, align: str, style: Any, console: Any) -> list[Segment]:
    """Segments for one cell, exactly `width` cells wide. A `str` is literal text; a `Text` keeps its
    styles (its text is literal too: nothing here parses markup)."""
    base = _as_style(style)
    if isinstance(cell, str):
        return [Segment(fit(clean(cell), width, align), base)]
    if not isinstance(cell, Text):
        return [Segment(fit(clean(plain(cell)), width, align), base)]
    text = cell
    cleaned = clean(text.plain)
    if cleaned is not text.plain:
        text = Text(cleaned, style=text.style)
    else:
        text = text[: width * 2 + 1] if len(text) > width * 2 + 1 else text.copy()
    text.truncate(width, overflow="ellipsis")
    pad = width - text.cell_len
    if pad > 0:
        if align == "right":
            text.pad_left(pad)
        else:
            text.pad_right(pad)
    text.no_wrap = True
    segments = [s for s in text.render(console, end="") if s.text]
    if text.style:  # Text.render leaves the base style to its caller
        own = text.style if isinstance(text.style, Style) else _as_style(text.style)
        base = own if base is None else base + own if own is not None else base
    if base is not None:
        segments = list(Segment.apply_style(segments, base))
    return segments


UNREADABLE_STYLE = Style(color="yellow", bold=True)


def row_segments(cells: Sequence[Cell], columns: Sequence[Column], widths: Sequence[int], row: Any,
                 marked: bool, console: Any, marker_style: Style | None = None,
                 line_style: Style | None = None) -> list[Segment]:
    """One table row: the marker column (`●` marked, `?` a row with fields that could not be read, see
    `:log` and its detail), then each cell at its width, separated by a space.

    With `line_style`, the segments come out ready for a `Strip`: the line's style under each segment's
    own (what `Strip.apply_style` gives) and no meta on any style (what `Strip.discard_meta` gives, so even
    a Text cell built elsewhere cannot carry a clickable `@click` action), without building those strips."""
    if marked:
        segments = [Segment("● ", marker_style)]
    elif getattr(row, "unreadable", ()):
        segments = [Segment("? ", UNREADABLE_STYLE)]
    else:
        segments = [Segment("  ")]
    last = len(columns) - 1
    for index, column in enumerate(columns):
        cell: Cell = cells[index] if index < len(cells) else ""
        style = column.style_fn(row) if column.style_fn is not None else None
        segments.extend(cell_segments(cell, widths[index], column.align, style, console))
        if index != last:
            segments.append(Segment(SEPARATOR))
    if line_style is None:
        return segments
    return [Segment(text, None if control else _without_meta(line_style + style if style else line_style),
                    control) for text, style, control in segments]


def _without_meta(style: Style) -> Style:
    if not style._meta:
        return style
    style = style.copy()
    style._meta = None
    return style


def header_segments(columns: Sequence[Column], widths: Sequence[int], sort_column: str | None,
                    reverse: bool) -> list[Segment]:
    """The header line: labels (literal), with ▲ or ▼ after the sorted column's label."""
    segments = [Segment(" " * MARKER_WIDTH)]
    last = len(columns) - 1
    for index, column in enumerate(columns):
        label = clean(column.label)
        if column.key == sort_column:
            label = f"{label} {'▼' if reverse else '▲'}"
        segments.append(Segment(fit(label, widths[index], column.align)))
        if index != last:
            segments.append(Segment(SEPARATOR))
    return segments


def column_at(widths: Sequence[int], x: int) -> int | None:
    """The index of the column under cell offset `x` of a line (None on the marker or past the end)."""
    position = MARKER_WIDTH
    for index, width in enumerate(widths):
        if position <= x < position + width + len(SEPARATOR):
            return index
        position += width + len(SEPARATOR)
    return None
