"""`:journal`: every change labdeck made on this instance, newest first (time, operation, target, result,
job), and its undo: `u` undoes the entry under the cursor, `U` the whole bulk job it belongs to. An undo asks
first, runs as a job with a result per item, is itself journalled, and is refused with the reason when
GitLab has no inverse or the target changed since.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from labdeck.api.errors import LabdeckError
from labdeck.api.journal import JournalEntry
from labdeck.domain.catalogue import changed_families
from labdeck.domain.journal_words import change_phrase, change_rows, undo_phrase, undo_question
from labdeck.tui.areas import AreaRequest
from labdeck.tui.bulk import refresh_lists, targets_text
from labdeck.tui.errors import describe_error
from labdeck.tui.screens.base import StatusTableScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

# At 80 columns every column is shown: the target (the key) is cut first, at 24 cells, and the undo's
# reason at 14, both read whole with the rest of the change in its detail (enter); undo comes right after
# the target, so it is seen.
TARGET_WIDTH = 24  # what the target takes before the other columns are let in (more once they have room)


def _result_cell(entry: JournalEntry) -> Text:
    result = Text(entry.result, style="green" if entry.ok else "red")
    if entry.undoes:
        result.append(" (an undo)", style="dim")
    return result


def journal_columns(refusal: Callable[[JournalEntry], str | None]) -> list[Column]:
    """The journal's columns; `refusal(entry)` says why an entry cannot be undone (None: it can)."""
    def undo_cell(entry: JournalEntry) -> Text:
        why = refusal(entry)
        return Text("u undoes it", style="green") if why is None else Text(f"no: {why}", style="dim")

    return [
        Column("at", "Time", width=8, priority=7, essential=True, sort_key=lambda e: e.at,
               text=lambda e: Text(_when(e, "%H:%M:%S")), data=lambda e: datetime.fromtimestamp(e.at, UTC)),
        Column("operation", "Operation", min_width=12, priority=9, essential=True,
               sort_key=lambda e: e.operation, text=lambda e: Text(e.operation), data=lambda e: e.operation),
        Column("target", "Target", min_width=16, max_width=TARGET_WIDTH, priority=10,
               sort_key=lambda e: e.target, text=lambda e: Text(e.target), data=lambda e: e.target),
        Column("undo", "Undo", min_width=6, max_width=14, priority=8, essential=True, text=undo_cell,
               data=lambda e: refusal(e) is None, extra_data=(("no_undo", refusal),)),
        Column("result", "Result", min_width=10, priority=6, essential=True, sort_key=lambda e: e.result,
               text=_result_cell, data=lambda e: e.result,
               extra_data=(("ok", lambda e: e.ok), ("undoes", lambda e: e.undoes))),
        Column("job", "Task", min_width=10, priority=3, sort_key=lambda e: e.job_title or "",
               text=lambda e: Text(e.job_title or ""), data=lambda e: e.job_title),
    ]


def damaged_notice(lines: list[int]) -> str:
    """`1 damaged journal line skipped (line 7)`, or "" when none was."""
    if not lines:
        return ""
    shown = ", ".join(str(n) for n in lines[:5]) + (", ..." if len(lines) > 5 else "")
    plural = "s" if len(lines) > 1 else ""
    return f"{len(lines)} damaged journal line{plural} skipped (line{plural} {shown})"


def _undo_words(entry: JournalEntry) -> str:
    """What undoing `entry` does: `unblock @bob`."""
    return undo_phrase(entry.kind, entry.target, entry.before, entry.inverse)


def _when(entry: JournalEntry, form: str = "%Y-%m-%d %H:%M:%S") -> str:
    return datetime.fromtimestamp(entry.at).strftime(form)


def entry_detail(entry: JournalEntry, refusal: str | None) -> Text:
    """What `enter` opens: the change in words, before and after, the target by its path and name, the
    request, and whether it can be undone (literal text; never a Python repr)."""
    text = Text(change_phrase(entry.operation, entry.target), style="bold")
    rows = change_rows(entry.kind, entry.operation, entry.before, entry.after, entry.ok)
    befores = " · ".join(f"{what} {old}".strip() for what, old, _ in rows)
    afters = " · ".join(f"{what} {new}".strip() for what, _, new in rows)
    undo = "u undoes it" if refusal is None else f"no: {refusal}"
    result = entry.result + (" (an undo)" if entry.undoes else "")
    fields = [("When", _when(entry)), ("Target", entry.target), ("Before", befores), ("After", afters),
              ("Result", result), ("Task", entry.job_title or ""),
              ("Request", f"{entry.method} {entry.path}"), ("Undo", undo)]
    return append_fields(text, fields, width=7)


class JournalScreen(StatusTableScreen):
    FOOTER_PANES = {"": ("undo", "undo_job", "select", "open_filter", "toggle_detail", "cycle_sort")}
    AREA = "journal"
    TITLE = "Journal"
    VIEW_ID = "journal-view"
    STATUS_ID = "journal-status"
    MUTATING_ACTIONS = frozenset({"undo", "undo_job"})
    BINDINGS = [
        # priority: the table's own `u` (unmark all) means nothing here, where rows are never marked
        Binding("u", "undo", "Undo", id="journal.undo", priority=True),
        Binding("U", "undo_job", "Undo task", id="journal.undo_job", priority=True),
    ]

    refusals: dict[str, str | None]  # entry id -> why it cannot be undone (None: it can), per load
    _damage_told = False  # damaged lines are notified once per screen, and stay said in the status line

    def compose_body(self) -> ComposeResult:
        self.refusals = {}
        yield Static(Text("Changes labdeck made on this instance, newest first", style="dim"),
                     id=self.STATUS_ID)
        yield ResourceView(journal_columns(self._refusal), row_key=lambda e: e.id, detail=self._detail,
                           detail_position="bottom", enter_opens_detail=True, empty_text="No changes yet",
                           id=self.VIEW_ID)

    # -- data -----------------------------------------------------------------------------------------
    def _refusal(self, entry: JournalEntry) -> str | None:
        return self.refusals.get(entry.id, "no session")

    def _detail(self, entry: JournalEntry) -> Text:
        return entry_detail(entry, self.refusals.get(entry.id, "no session"))

    def load(self, refresh: bool = False) -> None:
        service = self.ctx.services.undo
        entries = list(reversed(service.journal.entries())) if service is not None else []
        if service is not None:  # once per load, not per drawn cell: each asks the whole journal
            undone = service.journal.undone()
            self.refusals = {e.id: service.refusal(e, undone) for e in entries}
        self.table.set_rows(entries)
        undoable = sum(1 for e in entries if self.refusals.get(e.id, "") is None)
        damaged = damaged_notice(service.journal.damaged) if service is not None else ""
        status = f"{len(entries)} change(s); {undoable} can be undone"
        self.show_status(f"{status}; {damaged}" if damaged else status)
        if damaged and not self._damage_told:
            self._damage_told = True
            self.notify(damaged, severity="warning", markup=False)
        self.mark_data_loaded()

    def on_mount(self) -> None:
        super().on_mount()
        service = self.ctx.services.undo
        if service is not None:
            self._journal = service.journal
            self._journal.subscribe(self._journal_changed)

    def on_unmount(self) -> None:
        journal = getattr(self, "_journal", None)
        if journal is not None:  # listeners go with the screen: mounting again adds one, not another
            journal.unsubscribe(self._journal_changed)

    def _journal_changed(self, _entry: JournalEntry) -> None:
        self.app.call_later(self._reload_if_shown)

    def _reload_if_shown(self) -> None:
        if self.is_attached:
            self.load()

    # -- undo -----------------------------------------------------------------------------------------
    def action_undo(self) -> None:
        entry = self.table.cursor_row
        service = self.ctx.services.undo
        if not isinstance(entry, JournalEntry) or service is None:
            return
        refusal = service.refusal(entry)
        question = undo_question(entry.kind, entry.operation, entry.target, entry.before, entry.inverse,
                                 refusal)
        if refusal is not None:
            notify_content(self, Content(question), severity="warning")
            return
        self._confirm_and_run([entry], Content(question))

    def action_undo_job(self) -> None:
        entry = self.table.cursor_row
        service = self.ctx.services.undo
        if not isinstance(entry, JournalEntry) or service is None:
            return
        if not entry.job:
            self.notify("This change was not part of a task: u undoes it", severity="warning")
            return
        items = service.job_entries(entry.job)
        undone = [_undo_words(item) for item in items]
        self._confirm_and_run(items, Content(f"Undo {len(items)} change(s) of the task {entry.job_title}: "
                                             f"{targets_text(undone)}?"))

    def _confirm_and_run(self, entries: list[JournalEntry], question: Content) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._start_undo(entries)

        self.app.push_screen(ConfirmScreen(Content("Undo"), question, confirm_label="Undo", danger=False),
                             answered)

    def _start_undo(self, entries: list[JournalEntry]) -> None:
        service = self.ctx.services.undo
        if service is None:
            return

        app = self.app

        async def run(job: Any) -> None:
            job.set_total(len(entries))
            changed: list[str] = []
            for entry in entries:
                try:
                    job.add_result(entry.target, True, await service.undo(entry))
                except LabdeckError as error:  # a lost answer says the server may have applied it
                    job.add_result(entry.target, False, describe_error(error))
                changed.extend(changed_families(entry.method, entry.path))  # (a lost answer may have)
            app.call_later(self._reload_if_shown)
            refresh_lists(app, changed)  # every open list the undo changed is read again (Users, unbanned)

        title = f"Undo: {_undo_words(entries[0])}" if len(entries) == 1 else f"Undo {len(entries)} changes"
        self.ctx.start_job(title, run, total=len(entries))


def open_journal(request: AreaRequest) -> JournalScreen:
    """The area factory (`:journal`)."""
    return JournalScreen()
