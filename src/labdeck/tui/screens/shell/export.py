"""List export from any screen (`ctrl+e`): the dialog (one labelled field for the file, whose extension,
.csv or .json, chooses the format, checked before it closes; enter exports, escape cancels) and the job that
writes the rows (`labdeck.tui.list_export`)."""

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

if TYPE_CHECKING:
    from labdeck.tui.jobs import Job
    from labdeck.tui.screens.base import LabdeckScreen
    from labdeck.tui.widgets.resource_table import ResourceTable


class ExportDialog(ModalScreen[Path | None]):
    SENDS_NO_WRITE = "writes a local file; sends nothing"

    CSS_PATH = "export.tcss"
    AUTO_FOCUS = "#export-path"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, count: int, which: str, target: Path) -> None:
        super().__init__()
        self.count = count
        self.which = which
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(classes="export-box"):
            yield Static(Content(f"Export the {self.count} {self.which} row(s)"), classes="export-title")
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
    """Ask where, then write the rows as a job."""
    rows, which = rows_to_export(table)
    if not rows:
        screen.notify("The list is empty: nothing to export", severity="warning", markup=False)
        return

    def chosen(target: Path | None) -> None:
        if target is None:
            return

        async def run(job: Job) -> None:
            used = await write_rows(target, table, rows, job.advance)
            job.add_result(str(used), True, f"{counted(len(rows), 'row')} written", advance=False)

        # a missing folder is created after asking; the folder is remembered for the next time
        ensure_folder(screen.app, target.parent, lambda _folder: screen.ctx.start_job(
            f"Export {counted(len(rows), 'row')} to {target.name}", run, total=len(rows)))

    screen.app.push_screen(ExportDialog(len(rows), which, default_target(screen)), chosen)
