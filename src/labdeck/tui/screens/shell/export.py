"""List export from any screen (`ctrl+e`): the dialog (one labelled field for the file, whose extension,
.csv or .json, chooses the format, checked before it closes; enter exports, escape cancels) and the job that
writes the rows (`labdeck.tui.list_export`). On a partial list (read on demand) it first says which rows
the export covers and offers "all matching", read in the job before the file is written
(`screens/scope_choice.py`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from labdeck.tui.downloads import default_download_dir, ensure_folder
from labdeck.tui.jobs import counted
from labdeck.tui.list_export import check_target, rows_to_export, write_rows
from labdeck.tui.screens.scope_choice import Scope, choose_scope

if TYPE_CHECKING:
    from labdeck.tui.jobs import Job
    from labdeck.tui.screens.base import LabdeckScreen
    from labdeck.tui.widgets.resource_table import ResourceTable


class ExportDialog(ModalScreen[Path | None]):
    SENDS_NO_WRITE = "writes a local file; sends nothing"

    CSS_PATH = "export.tcss"
    AUTO_FOCUS = "#export-path"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, count: int, which: str, target: Path, *, text: str | None = None) -> None:
        super().__init__()
        self.count = count
        self.which = which
        self.target = target
        self.text = text  # what the export covers, when not simply the rows ("all about 1,204,331 issues")

    def compose(self) -> ComposeResult:
        title = f"Export {self.text}" if self.text else f"Export the {self.count} {self.which} row(s)"
        with Vertical(classes="export-box"):
            yield Static(Content(title), classes="export-title")
            yield Label("File (.csv or .json; an existing file is never overwritten)")
            yield Input(str(self.target), id="export-path")
            yield Static("", id="export-error")
            yield Static("enter: export · escape: cancel", classes="export-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        checked = check_target(event.value)
        if isinstance(checked, str):
            self.query_one("#export-error", Static).update(Content(checked))
            return
        self.dismiss(checked)

    def action_cancel(self) -> None:
        self.dismiss(None)


def default_target(screen: LabdeckScreen) -> Path:
    """The last folder used for a download or an export (else the user's downloads folder)."""
    return default_download_dir() / f"{screen.AREA or 'list'}-{time.strftime('%Y%m%d-%H%M%S')}.csv"


def start_export(screen: LabdeckScreen, table: ResourceTable) -> None:
    """Say which rows (a partial list: the loaded ones or all matching), ask where, then write them as a
    job."""
    rows, which = rows_to_export(table)
    if not rows:
        screen.notify("The list is empty: nothing to export", severity="warning", markup=False)
        return
    choose_scope(screen, table, rows, "loaded" if which == "shown" else which, "Export",
                 lambda scope: _ask_target(screen, table, scope, which))


def _ask_target(screen: LabdeckScreen, table: ResourceTable, scope: Scope[object], which: str) -> None:
    rows = scope.rows

    def chosen(target: Path | None) -> None:
        if target is None:
            return
        what = scope.text if scope.all_matching else counted(len(rows), "row")

        async def run(job: Job) -> None:
            written = await scope.rows_for(job)  # all matching: the rest read first
            used = await write_rows(target, table, written, job.advance)
            job.add_result(str(used), True, f"{counted(len(written), 'row')} written", advance=False)

        # a missing folder is created after asking; the folder is remembered for the next time
        ensure_folder(screen.app, target.parent, lambda _folder: screen.ctx.start_job(
            f"Export {what} to {target.name}", run, total=None if scope.all_matching else len(rows)))

    text = scope.text if scope.partial else None
    screen.app.push_screen(ExportDialog(len(rows), which, default_target(screen), text=text), chosen)
