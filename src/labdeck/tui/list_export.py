"""Writing a list export (`ctrl+e`; the dialog and the job are in `screens/shell/export.py`): the filtered
rows, or the marked ones, to CSV or JSON, with the columns on screen plus each row's id and web URL.

A file is never overwritten: a name that exists gets ` (1)`, ` (2)`, ... before its extension, and the file
is created exclusively (so two exports at once cannot meet). The export runs as a job with progress: cells
are built in chunks on the event loop (they come from the screen's own cell functions) and written in a
worker thread, so a list of 100,000 rows never freezes the screen.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labdeck.tui.downloads import free_target
from labdeck.tui.links import web_url_of
from labdeck.tui.widgets.table_model import plain

if TYPE_CHECKING:
    from labdeck.tui.widgets.resource_table import ResourceTable

FORMATS = (".csv", ".json")
CHUNK = 2000


def rows_to_export(table: ResourceTable) -> tuple[list[Any], str]:
    """The marked rows if any, else the rows the filter shows; and which of the two it is."""
    marked = table.marked_rows
    return (list(marked), "marked") if marked else (list(table.visible_rows), "shown")


def header(table: ResourceTable) -> list[str]:
    return [*(column.label for column in table.columns), "id", "web_url"]


def record(table: ResourceTable, row: Any) -> list[str]:
    """One row as text: the cells on screen, then the resource's id and web URL (empty when it has none)."""
    cells = [plain(cell) for cell in table.model.cells_of(row)]
    ident = getattr(row, "id", None)
    if ident is None and isinstance(row, dict):
        ident = row.get("id")
    return [*cells, "" if ident is None else str(ident), web_url_of(row) or ""]


def create_exclusive(wanted: Path) -> tuple[Path, Any]:
    """Create the first free name for `wanted` (never an existing file); returns the path and the file."""
    while True:
        path = free_target(wanted.parent, wanted.name)
        try:
            return path, path.open("x", encoding="utf-8", newline="")
        except FileExistsError:
            continue  # someone took the name between the check and the creation: try the next one


def check_target(text: str) -> Path | str:
    """The path typed in the export dialog, or what is wrong with it."""
    if not text.strip():
        return "Type a file name ending in .csv or .json"
    path = Path(text.strip()).expanduser()
    if path.suffix.lower() not in FORMATS:
        return "The file name must end in .csv or .json (that chooses the format)"
    if path.parent.exists() and not path.parent.is_dir():
        return f"{path.parent} is not a folder"
    return path


async def write_rows(path: Path, table: ResourceTable, rows: Sequence[Any],
                     advance: Callable[[int], None]) -> Path:
    """Write `rows` to `path` (CSV or JSON by its extension); returns the path actually used."""
    names = header(table)
    as_json = path.suffix.lower() == ".json"
    used, handle = await asyncio.to_thread(create_exclusive, path)
    try:
        for start in range(0, len(rows), CHUNK):
            chunk = [record(table, row) for row in rows[start:start + CHUNK]]
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
        writer.writerow(names)
    writer.writerows(chunk)
    return buffer.getvalue()
