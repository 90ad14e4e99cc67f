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

from labdeck.tui.jobs import ItemResult, Job, JobOutcome, outcome_text
from labdeck.tui.kit.actions import Action, Shown
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


def progress_in(job: Job, width: int) -> str:
    """`progress_text` in `width` cells: the bar narrowed, the count kept."""
    whole = progress_text(job)
    if job.fraction is None or len(whole) <= width:
        return whole
    count = whole[BAR_WIDTH:]  # " 12/30"
    return progress_text(job, max(1, width - len(count)))[:width]


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


# At 80 columns: the task (the key, whole up to 30 cells), its state, its result (a failure message is
# read whole with enter) and its progress, the bar narrowed to the room; the elapsed time and the number as
# room allows.
JOB_COLUMNS = [
    Column("id", "#", width=4, align="right", sort_key=lambda job: job.id,
           text=lambda job: Text(str(job.id)), exported=False),  # the record's own `id`
    Column("title", "Task", min_width=16, max_width=30, priority=10, text=lambda job: Text(job.title),
           data=lambda job: job.title),
    Column("state", "State", width=13, priority=9, essential=True, text=lambda job: Text(job.outcome.value,
                                                                          style=_OUTCOME_STYLE[job.outcome]),
           data=lambda job: job.outcome.value),
    Column("progress", "Progress", min_width=12, max_width=BAR_WIDTH + 12, priority=7, essential=True,
           text=lambda job: Text(progress_text(job)), fitted=lambda job, width: Text(progress_in(job, width)),
           data=lambda job: job.done, extra_data=(("total", lambda job: job.total),)),
    Column("elapsed", "Elapsed", width=8, priority=4, align="right", sort_key=lambda job: job.elapsed,
           text=lambda job: Text(elapsed_text(job.elapsed)), data=lambda job: round(job.elapsed, 3)),  # s
    Column("outcome", "Result", min_width=12, priority=8, essential=True, text=lambda job: Text(
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
    AREA = "tasks"
    TITLE = "Tasks"
    ACTIONS = (
        Shown("select"),
        Action("c", "cancel_job", "Cancel task", id="jobs.cancel", footer=True),
        Action("x", "clear_finished", "Clear finished", id="jobs.clear", footer=True),
        Shown("open_filter"),
        Shown("toggle_detail"),
    )

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


def result_detail(pair: tuple[int, ItemResult]) -> Text:
    """One item's result whole (its message wraps): what the Message column cuts."""
    result = pair[1]
    detail = Text(result.item, style="bold")
    detail.append("  ")
    detail.append("ok" if result.ok else "failed", style="green" if result.ok else "bold red")
    if result.message:
        detail.append(f"\n{result.message}", style="" if result.ok else "red")
    return detail


def outcome_detail(job: Job) -> Text:
    """What the task did, whole: its error (a task that failed as a whole) or its summary, and what it
    covered when less than asked."""
    text = Text()
    for part, style in ((job.error, "red"), (job.summary, ""), (job.caveat, "yellow")):
        if part:
            if text:
                text.append("\n")
            text.append(part, style=style)
    return text


class JobResultsScreen(ModalScreen[None]):
    """One task's outcome whole (its error, its summary) and its per-item results, the cursor item's whole
    message under them (the first failed item's at first)."""

    SENDS_NO_WRITE = "shows a job's results; sends nothing"

    CSS_PATH = "jobs.tcss"
    BINDINGS = [Binding("escape", "close", "Close", id="jobs.results_close")]

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job

    def compose(self) -> ComposeResult:
        job = self.job
        summary = (f"{job.title} · {job.outcome.value} · {len(job.results)} item(s), "
                   f"{len(job.failed_items)} failed")
        outcome = outcome_detail(job)
        with Vertical():
            yield Static(Text(summary), id="results-title")
            yield Static(outcome, markup=False, id="results-outcome", classes="" if outcome else "-empty")
            yield ResourceView(RESULT_COLUMNS, list(enumerate(job.results)), row_key=lambda pair: pair[0],
                               detail=result_detail, detail_position="bottom", show_detail=bool(job.results),
                               empty_text="This task has no per-item results", id="results-view")

    def on_mount(self) -> None:
        table = self.query_one("#results-view", ResourceView).table
        first_failed = next((i for i, result in enumerate(self.job.results) if not result.ok), 0)
        table.move_cursor(first_failed)
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
