"""Writing a list export (`ctrl+e`; the dialog and the job are in `screens/shell/export.py`): the filtered
rows, or the marked ones, to CSV or JSON, with the columns on screen plus each row's id and web URL.

One exporter for every list, made of its columns' data (`Column(data=..., extra_data=...)`), never of the
drawn cells: a field is named by its column's key (`labels`, `state`, `confidential`, `stars`); labels
and other lists are lists, a state is GitLab's word, a flag is a bool, numbers are numbers, times and dates
are ISO 8601 (`2026-01-02T03:04:05+00:00`), nothing is a Python repr (`json_value`). In CSV a list is one
cell joined by `LIST_SEPARATOR` (`,`: GitLab refuses a comma in a label's title, `app/models/label.rb`
`format: { with: /\\A[^,]+\\z/ }`, and its API takes label lists so); an item a server sent with a `,` or
`\\` anyway has them escaped with `\\` (`split_list` reads a cell back); a bool is `true`/`false`, no value
an empty cell (`csv_cell`). A column that declares no data (none of labdeck's lists: a test holds them to
it) is exported as its cell's text.

What an export never holds:
- a CI variable's value, masked, revealed or not: a list of variables is exported with the columns Key,
  Type, Scope, Protected and Masked only (`VARIABLE_COLUMNS`), and the value column is `exported=False`;
- an e-mail address: the Email column is dropped (`Column(..., exported=False)`), not masked.
Every column marked `exported=False` is left out. In a CSV file, a text cell that begins with `=`, `+`, `-`,
`@`, a tab or a carriage return gets a leading `'` (OWASP's advice against formula injection), so a
spreadsheet shows it as text and never runs it; a number is written as a number (`-5`).

The file is created by `labdeck.api.private_files.create_unique`: 0600 from the first byte, never over an
existing file (a name that exists gets ` (1)`, ` (2)`, ... before its extension; two exports at once cannot
meet), never through a symbolic link (a link at the name, even dangling, is refused). The export runs as a
job with progress: records are built in chunks on the event loop and written in a worker thread, so a list
of 100,000 rows never freezes the screen.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labdeck.api.models.variables import CiVariable
from labdeck.api.private_files import create_unique
from labdeck.tui.links import web_url_of
from labdeck.tui.widgets.table_model import plain

if TYPE_CHECKING:
    from labdeck.tui.widgets.resource_table import ResourceTable

FORMATS = (".csv", ".json")
CHUNK = 2000
# The only columns an export of CI variables holds (never the value).
VARIABLE_COLUMNS = frozenset({"key", "type", "scope", "protected", "masked"})
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
LIST_SEPARATOR = ","  # a list in one CSV cell (labels, assignees); a backslash escapes it inside an item


def rows_to_export(table: ResourceTable) -> tuple[list[Any], str]:
    """The marked rows if any, else the rows the filter shows; and which of the two it is."""
    marked = table.marked_rows
    return (list(marked), "marked") if marked else (list(table.visible_rows), "shown")


def exported(table: ResourceTable, rows: Sequence[Any]) -> list[int]:
    """The indexes of the columns an export of `rows` writes: not `exported=False`, and for CI variables
    only `VARIABLE_COLUMNS`."""
    variables = any(isinstance(row, CiVariable) for row in rows)
    return [at for at, column in enumerate(table.columns)
            if column.exported and (not variables or column.key in VARIABLE_COLUMNS)]


def header(table: ResourceTable, columns: Sequence[int]) -> list[str]:
    """The field names: each exported column's key and its `extra_data` names, then `id` and `web_url`."""
    names: list[str] = []
    for at in columns:
        column = table.columns[at]
        names.append(column.key)
        names.extend(name for name, _ in column.extra_data)
    return [*names, "id", "web_url"]


def record(table: ResourceTable, row: Any, columns: Sequence[int] | None = None) -> list[Any]:
    """One row as data: each exported column's `data` (and `extra_data`), then the resource's id and web
    URL (None when it has none)."""
    chosen = exported(table, [row]) if columns is None else columns
    cells: Sequence[Any] | None = None
    values: list[Any] = []
    for at in chosen:
        column = table.columns[at]
        if column.data is not None:
            values.append(column.data(row))
        else:  # a column that declares no data: its text
            cells = table.model.cells_of(row) if cells is None else cells
            values.append(plain(cells[at]))
        values.extend(value(row) for _, value in column.extra_data)
    ident = getattr(row, "id", None)
    if ident is None and isinstance(row, dict):
        ident = row.get("id")
    return [*values, ident, web_url_of(row)]


def neutralised(cell: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula (OWASP: prefix a single quote)."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def json_value(value: Any) -> Any:
    """A value as JSON holds it: numbers, bools, text and None as they are (a number that is not finite is
    None), lists as lists, times and dates ISO 8601, an enum its value; anything else its text."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Enum):
        return json_value(value.value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_value(item) for item in value]
    return str(value)


def _list_item(item: Any) -> str:
    text = _scalar_text(json_value(item))
    return text.replace("\\", "\\\\").replace(LIST_SEPARATOR, "\\" + LIST_SEPARATOR)


def _scalar_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def csv_cell(value: Any) -> str:
    """One CSV cell: a number as written (never neutralised), `true`/`false`, an empty cell for None, a
    time ISO 8601, a list joined by `LIST_SEPARATOR` (its items escaped), text neutralised."""
    data = json_value(value)
    if data is None or isinstance(data, bool | int | float):
        return _scalar_text(data)
    if isinstance(data, list):
        return neutralised(LIST_SEPARATOR.join(_list_item(item) for item in data))
    return neutralised(_scalar_text(data))


def split_list(cell: str) -> list[str]:
    """A list cell of a CSV export read back (the inverse of `csv_cell` on a list of text)."""
    items: list[str] = []
    current: list[str] = []
    escaped = False
    for char in cell:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == LIST_SEPARATOR:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if cell:
        items.append("".join(current))
    return items


def create_exclusive(wanted: Path) -> tuple[Path, Any]:
    """Create the first free name for `wanted` (0600, never an existing file, never through a link);
    returns the path and the file."""
    path, fd = create_unique(wanted)
    return path, os.fdopen(fd, "w", encoding="utf-8", newline="")


def check_target(text: str) -> Path | str:
    """The path typed in the export dialog, or what is wrong with it."""
    if not text.strip():
        return "Type a file name ending in .csv or .json"
    path = Path(text.strip()).expanduser()
    if path.suffix.lower() not in FORMATS:
        return "The file name must end in .csv or .json (that chooses the format)"
    if path.parent.exists() and not path.parent.is_dir():
        return f"{path.parent} is not a folder"
    if path.is_symlink():  # said at once; `create_unique` refuses it anyway
        return f"{path} is a symbolic link: labdeck never writes through one; choose another name"
    return path


async def write_rows(path: Path, table: ResourceTable, rows: Sequence[Any],
                     advance: Callable[[int], None]) -> Path:
    """Write `rows` to `path` (CSV or JSON by its extension); returns the path actually used."""
    columns = exported(table, rows)
    names = header(table, columns)
    as_json = path.suffix.lower() == ".json"
    used, handle = await asyncio.to_thread(create_exclusive, path)
    try:
        for start in range(0, len(rows), CHUNK):
            chunk = [record(table, row, columns) for row in rows[start:start + CHUNK]]
            await asyncio.to_thread(handle.write, _encode(names, chunk, as_json, first=start == 0))
            advance(len(chunk))
            await asyncio.sleep(0)  # let the screen paint between chunks
        await asyncio.to_thread(handle.write, "\n]\n" if as_json else "")
    finally:
        await asyncio.to_thread(handle.close)
    return used


def _encode(names: list[str], chunk: list[list[Any]], as_json: bool, *, first: bool) -> str:
    """One chunk of the file: CSV lines (the header before the first), or JSON objects of a list."""
    if as_json:
        objects = ",\n".join(json.dumps({name: json_value(value) for name, value in zip(names, values,
                                                                                         strict=True)},
                                         ensure_ascii=False, allow_nan=False)
                              for values in chunk)
        return ("[\n" if first else ",\n") + objects
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if first:
        writer.writerow([neutralised(name) for name in names])
    writer.writerows([csv_cell(value) for value in values] for values in chunk)
    return buffer.getvalue()
