"""Writing a list export (`ctrl+e`; the dialog and the job are in `screens/shell/export.py`): the filtered
rows, or the marked ones, to CSV or JSON, with the columns on screen plus each row's id and web URL.

What an export never holds:
- a CI variable's value, masked, revealed or not: a list of variables is exported with the columns Key,
  Type, Scope, Protected and Masked only (`VARIABLE_COLUMNS`), and the value column is `exported=False`;
- an e-mail address: the Email column is dropped (`Column(..., exported=False)`), not masked.
Every column marked `exported=False` is left out. In a CSV file, a cell that begins with `=`, `+`, `-`, `@`,
a tab or a carriage return gets a leading `'` (OWASP's advice against formula injection), so a spreadsheet
shows it as text and never runs it.

The file is created by `labdeck.api.private_files.create_unique`: 0600 from the first byte, never over an
existing file (a name that exists gets ` (1)`, ` (2)`, ... before its extension; two exports at once cannot
meet), never through a symbolic link (a link at the name, even dangling, is refused). The export runs as a
job with progress: cells are built in chunks on the event loop (they come from the screen's own cell
functions) and written in a worker thread, so a list of 100,000 rows never freezes the screen.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
from collections.abc import Callable, Sequence
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
    return [*(table.columns[at].label for at in columns), "id", "web_url"]


def record(table: ResourceTable, row: Any, columns: Sequence[int] | None = None) -> list[str]:
    """One row as text: the exported cells, then the resource's id and web URL (empty when it has none)."""
    cells = table.model.cells_of(row)
    texts = [plain(cells[at]) for at in (exported(table, [row]) if columns is None else columns)]
    ident = getattr(row, "id", None)
    if ident is None and isinstance(row, dict):
        ident = row.get("id")
    return [*texts, "" if ident is None else str(ident), web_url_of(row) or ""]


def neutralised(cell: str) -> str:
    """A CSV cell a spreadsheet will not run as a formula (OWASP: prefix a single quote)."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


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


def _encode(names: list[str], chunk: list[list[str]], as_json: bool, *, first: bool) -> str:
    """One chunk of the file: CSV lines (the header before the first), or JSON objects of a list."""
    if as_json:
        objects = ",\n".join(json.dumps(dict(zip(names, values, strict=True)), ensure_ascii=False)
                              for values in chunk)
        return ("[\n" if first else ",\n") + objects
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if first:
        writer.writerow([neutralised(name) for name in names])
    writer.writerows([neutralised(cell) for cell in values] for values in chunk)
    return buffer.getvalue()
