"""Turning `ResourceTable` cells into Rich segments: literal cell text (never markup, control characters
made visible), truncation with an ellipsis (or the column's own `fitted` cell), wide characters measured,
dropped columns (width 0) left out.
The widths themselves come from `column_widths.py`.

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
from labdeck.tui.widgets.column_widths import MARKER_WIDTH, SEPARATOR_WIDTH, cell_width
from labdeck.tui.widgets.table_columns import Cell, Column, plain

ELLIPSIS = "…"
SEPARATOR = " " * SEPARATOR_WIDTH


def clean(text: str) -> str:
    """Cell text safe for one terminal line: controls, bidi and zero-width characters visible (`sanitize`),
    newline and tab as spaces (`domain.text.sanitize_line`)."""
    return sanitize_line(text)


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
    first = True
    for index, column in enumerate(columns):
        if widths[index] <= 0:
            continue
        if not first:
            segments.append(Segment(SEPARATOR))
        first = False
        cell: Cell = cells[index] if index < len(cells) else ""
        if column.fitted is not None and cell_width(plain(cell)) > widths[index]:
            cell = column.fitted(row, widths[index])  # cut where it matters, not at its end
        style = column.style_fn(row) if column.style_fn is not None else None
        segments.extend(cell_segments(cell, widths[index], column.align, style, console))
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
    first = True
    for index, column in enumerate(columns):
        if widths[index] <= 0:
            continue
        if not first:
            segments.append(Segment(SEPARATOR))
        first = False
        label = clean(column.label)
        if column.key == sort_column:
            label = f"{label} {'▼' if reverse else '▲'}"
        segments.append(Segment(fit(label, widths[index], column.align)))
    return segments
