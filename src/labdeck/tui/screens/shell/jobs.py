"""`:tasks` (formerly `:jobs`, still an alias), labdeck's own background tasks (called jobs in the code, never
on screen, where "job" means a GitLab CI job): every task with a progress bar, state and elapsed time; `c`
cancels the selected one, enter shows its per-item results. Updates live while tasks run. A task's state is
its outcome (`Job.outcome`: a task with failed items says "partly failed" or "failed", in the error's
colours, and its result counts them).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from labdeck.tui.jobs import Job, JobOutcome, outcome_text
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

_OUTCOME_STYLE = {JobOutcome.QUEUED: "dim", JobOutcome.RUNNING: "bold", JobOutcome.SUCCEEDED: "green",
                  JobOutcome.PARTLY_FAILED: "bold dark_orange", JobOutcome.FAILED: "bold red",
                  JobOutcome.CANCELLED: "yellow"}
BAR_WIDTH = 20


def progress_text(job: Job, width: int = BAR_WIDTH) -> str:
    """`████████░░░░ 12/30`, or a moving-free `working…` for indeterminate progress."""
    fraction = job.fraction
    if fraction is None:
        if job.state.finished:
            return f"{job.done} done" if job.done else "–"
        return f"working… {job.done}" if job.done else "working…"
    filled = round(fraction * width)
    count = f" {min(job.done, job.total)}/{job.total}" if job.total else ""
    return "█" * filled + "░" * (width - filled) + count


def elapsed_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


def job_detail(job: Job) -> Text:
    detail = Text(job.title, style="bold")
    detail.append(f"\n{job.outcome_text()}", style=_OUTCOME_STYLE[job.outcome])
    detail.append(f" · {progress_text(job)} · {elapsed_text(job.elapsed)}")
    if job.summary:
        detail.append(f"\n\n{job.summary}")
    if job.error:
        detail.append(f"\n\n{job.error}", style="red")
    failed = job.failed_items
    if failed:
        detail.append(f"\n\n{len(failed)} failed item(s):", style="bold")
        for result in failed[:50]:
            detail.append(f"\n  {result.item}: {result.message}")
    if job.results:
        detail.append("\n\nenter shows every item's result", style="dim")
    return detail


JOB_COLUMNS = [
    Column("id", "#", width=4, align="right", sort_key=lambda job: job.id,
           text=lambda job: Text(str(job.id)), exported=False),  # the record's own `id`
    Column("title", "Task", min_width=20, text=lambda job: Text(job.title), data=lambda job: job.title),
    Column("state", "State", width=13, text=lambda job: Text(job.outcome.value,
                                                              style=_OUTCOME_STYLE[job.outcome]),
           data=lambda job: job.outcome.value),
    Column("progress", "Progress", width=BAR_WIDTH + 12, text=lambda job: Text(progress_text(job)),
           data=lambda job: job.done, extra_data=(("total", lambda job: job.total),)),
    Column("elapsed", "Elapsed", width=8, align="right", sort_key=lambda job: job.elapsed,
           text=lambda job: Text(elapsed_text(job.elapsed)), data=lambda job: round(job.elapsed, 3)),  # s
    Column("outcome", "Result", text=lambda job: Text(
        outcome_text(job), style="red" if job.failed_items or job.error else ""), data=outcome_text),
]

# The per-item results of one task: rows are (index, ItemResult) pairs.
RESULT_COLUMNS = [
    Column("item", "Item", min_width=20, text=lambda pair: Text(pair[1].item),
           data=lambda pair: pair[1].item),
    Column("ok", "Outcome", width=8,
           text=lambda pair: Text("ok", style="green") if pair[1].ok else Text("failed", style="bold red"),
           data=lambda pair: pair[1].ok),
    Column("message", "Message", text=lambda pair: Text(pair[1].message), data=lambda pair: pair[1].message),
]


class JobsScreen(LabdeckScreen):
    FOOTER_PANES = {"": ("select", "cancel_job", "clear_finished", "open_filter", "toggle_detail")}
    AREA = "tasks"
    TITLE = "Tasks"
    BINDINGS = [
        Binding("c", "cancel_job", "Cancel task", id="jobs.cancel"),
        Binding("x", "clear_finished", "Clear finished", id="jobs.clear"),
    ]

    def compose_body(self) -> ComposeResult:
        yield ResourceView(JOB_COLUMNS, self.ctx.jobs.jobs, row_key=lambda job: job.id,
                           detail=job_detail, empty_text="No tasks yet (exports, forks, bulk changes)",
                           id="jobs-view")

    def on_mount(self) -> None:
        self._stop_listening = self.ctx.jobs.on_change(self._job_changed)
        self.set_interval(0.5, self._tick)
        self.table.focus()

    def on_unmount(self) -> None:
        self._stop_listening()

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#jobs-view", ResourceView).table

    def _job_changed(self, job: Job) -> None:
        if not self.is_mounted:
            return
        if not self.table.replace_row(job):
            self.table.append_rows([job])

    def _tick(self) -> None:
        for job in self.ctx.jobs.jobs:
            if not job.state.finished:
                self.table.replace_row(job)

    def refresh_data(self) -> None:
        self.table.set_rows(self.ctx.jobs.jobs)

    def selected_job(self) -> Job | None:
        row = self.table.cursor_row
        return row if isinstance(row, Job) else None

    def action_cancel_job(self) -> None:
        job = self.selected_job()
        if job is None:
            return
        if not job.cancel():
            self.notify(f"{job.title} has already finished", markup=False)

    def action_clear_finished(self) -> None:
        self.ctx.jobs.clear_finished()
        self.refresh_data()

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, Job):
            self.app.push_screen(JobResultsScreen(event.row))


class JobResultsScreen(ModalScreen[None]):
    """The per-item results of one job (ok/failed with message)."""

    SENDS_NO_WRITE = "shows a job's results; sends nothing"

    DEFAULT_CSS = """
    JobResultsScreen { align: center middle; background: $background 50%; }
    JobResultsScreen > Vertical { width: 90%; height: 80%; border: round $primary; background: $surface; }
    JobResultsScreen #results-title { padding: 0 1; text-style: bold; }
    """
    BINDINGS = [Binding("escape", "close", "Close", id="jobs.results_close")]

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job

    def compose(self) -> ComposeResult:
        job = self.job
        summary = (f"{job.title} · {job.outcome.value} · {len(job.results)} item(s), "
                   f"{len(job.failed_items)} failed")
        with Vertical():
            yield Static(Text(summary), id="results-title")
            yield ResourceTable(RESULT_COLUMNS, list(enumerate(job.results)),
                                row_key=lambda pair: pair[0], empty_text="This task has no per-item results")

    def action_close(self) -> None:
        self.dismiss(None)
