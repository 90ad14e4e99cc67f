"""What a `ResourceTable` column is: the `Column` declaration (label, cell text, sort, style, width and
its place in the layout), the cell types, and the cells function built from the columns (`cells_from`,
`LazyCells`, `plain_column`). A column is one declaration: a screen never passes a cells function of its
own. No Textual here, and nothing else of the table: the model, the width rule and the drawing read it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rich.text import Text


class HasPlain(Protocol):
    """A cell that is not a plain string (a `rich.text.Text`, in practice)."""

    @property
    def plain(self) -> str: ...


Cell = str | HasPlain
CellsFn = Callable[[Any], Sequence[Cell]]
RowKeyFn = Callable[[Any], Hashable]


@dataclass(frozen=True)
class Column:
    """One column: `key` names it, `label` heads it.

    `text(row)` gives the cell (a `rich.text.Text` or a plain string): with it on every column, a table's
    cells come from its columns (`cells_from`), so a column is one declaration: label, text, style, sort.
    `sort_key(row)` gives the value to sort by (default: the cell text, case-insensitive); `style_fn(row)`
    gives an optional Rich style (a string or `rich.style.Style`) for the cell. `exported=False` keeps the
    column out of list exports (`ctrl+e`): a CI variable's value, an e-mail address. `data(row)` is the
    column's value for exports (`tui/list_export.py`), the data and not its drawing: GitLab's word (`closed`),
    a list (label names), a number, a `datetime`/`date` (written ISO 8601), a bool, or None; `extra_data`
    names the other fields the cell shows (`(("confidential", ...),)` beside the state, whose cell shows
    an icon for it), exported after the column. `plain(row)` gives
    the cell's text without styling, cheaply (it must equal the text of `text(row)`): with it on every
    column, the table builds styled cells only for the rows it draws (`LazyCells`), as the issues list at
    100,000 rows needs.

    Its width comes from its content and the room (`column_widths.plan_widths`): `width` fixes it;
    `min_width` is the narrowest it is cut to (below that it is dropped instead); `max_width` is a soft cap
    (more only once every column has its room). `priority` says how useful it is: at a narrow terminal the
    lowest are dropped first, and the highest is the key column (the path, the title, the username), cut
    only when every other column is at its narrowest. Equal priorities: the first column is the key and the
    rightmost is dropped first. `essential=True` marks a column the list cannot do without, at 80x24 too
    (`:log`'s method, status and time): the key column leaves room for it before it takes its whole
    content, and it is never dropped for another. `fitted(row, width)` gives the cell in `width` cells when
    its content is wider (by default it is cut at its end with an ellipsis), keeping what matters of it (an
    issue's labels with a `+N` for those left out, a reference with its `#iid`).
    """

    key: str
    label: str
    width: int | None = None
    min_width: int = 3
    align: Literal["left", "right"] = "left"
    sort_key: Callable[[Any], Any] | None = None
    style_fn: Callable[[Any], Any] | None = None
    exported: bool = True
    text: Callable[[Any], Cell] | None = None
    priority: int = 0
    max_width: int | None = None
    plain: Callable[[Any], str] | None = None
    data: Callable[[Any], Any] | None = None
    extra_data: tuple[tuple[str, Callable[[Any], Any]], ...] = ()
    fitted: Callable[[Any, int], Cell] | None = None
    essential: bool = False


def plain_column(key: str, label: str, value: Callable[[Any], str], *, style: str = "",
                 **layout: Any) -> Column:
    """A column whose cell is `value(row)` as one-styled `Text`: its plain text is `value` itself, so a
    list of such columns builds its styled cells only for the rows it draws (`LazyCells`)."""
    return Column(key, label, text=lambda row: Text(value(row), style=style), plain=value, **layout)


def _each_of(fns: Sequence[Callable[[Any], Any]]) -> Callable[[Any], tuple[Any, ...]]:
    """`row -> (fns[0](row), fns[1](row), ...)`."""
    bound = tuple(fns)

    def each(row: Any) -> tuple[Any, ...]:
        return tuple([fn(row) for fn in bound])

    return each


def cells_from(columns: Sequence[Column]) -> CellsFn | None:
    """The cells function of a table whose every column says its own `text` (None when one does not): a
    `LazyCells` when every column also says its `plain` text."""
    texts = [column.text for column in columns]
    if not texts or any(text is None for text in texts):
        return None
    cells = _each_of([t for t in texts if t is not None])
    plains = [column.plain for column in columns if column.plain is not None]
    if len(plains) < len(texts):
        return cells
    return LazyCells(build=cells, plains=_each_of(plains))


def column_cells(columns: Sequence[Column]) -> CellsFn:
    """The cells function of columns that each say their own `text` (exports, tests); raises otherwise."""
    cells = cells_from(columns)
    if cells is None:
        raise ValueError("a column does not declare its text")
    return cells


@dataclass(frozen=True)
class LazyCells:
    """A cells function whose styled cells are built only for rows that are drawn or measured.

    `plains(row)` gives each cell's plain text cheaply (what the filter searches and what columns without a
    `sort_key` sort by); it must equal `plain(c)` for each cell of `build(row)`. Calling a `LazyCells` builds
    the cells, so it can stand wherever a plain cells function does.
    """

    build: CellsFn
    plains: Callable[[Any], Sequence[str]]

    def __call__(self, row: Any) -> Sequence[Cell]:
        return self.build(row)


def plain(cell: Cell) -> str:
    """The text of a cell, whatever its type."""
    return cell if isinstance(cell, str) else cell.plain


def tuple_cells(row: Any) -> Sequence[Cell]:
    """The cells of a row that is a tuple of them (the default cells function)."""
    return tuple(row)


def identity_key(row: Any) -> Hashable:
    """A row's own identity (the default row key): the row itself when hashable."""
    return row if isinstance(row, Hashable) else id(row)


def none_last(values: list[Any]) -> list[Any]:
    """Sort values with None after everything else (wrapped only when a None is there: tuples are slower)."""
    if any(v is None for v in values):
        return [(v is None, v) for v in values]
    return values
