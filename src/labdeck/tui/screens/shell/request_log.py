"""`:log`: every request of this session (time, method, status, duration, retries, error, path), live, and
the notes of tolerant reading (method READ, status `warn`: which item, which fields were unreadable).

Time, method, status and duration come first (at 80 columns too) and the path, the last column, takes the
width left; enter (or `d`) shows the whole request in the detail pane under the table, and `y` copies the
request line (`GET /api/v4/... → 200 · 35 ms`).

The log follows its newest request, as `tail -f` does: new requests move the cursor along while it is on
the last row and no detail is open, and the log shown again (`:log`, from another area or from itself) is
on its newest request, unless an entry's detail is open (the operator is reading it: it stays).

Entries come from the client's `RequestLog`, which has already removed secrets from paths; headers are
never shown.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from rich.text import Text
from textual.app import ComposeResult

from labdeck.api.request_log import RequestLogEntry
from labdeck.tui.area_events import AreaShownAgain
from labdeck.tui.kit.actions import Action, Shown
from labdeck.tui.links import copy_text
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

Row = tuple[int, RequestLogEntry]


def _status_style(status: int | None) -> str:
    if status is None or status >= 500:
        return "bold red"
    if status >= 400:
        return "red"
    if status >= 300:
        return "yellow"
    return "green"


def _status_cell(row: Row) -> Text:
    entry = row[1]
    if entry.kind == "decode":  # tolerant reading: an item kept with fields it could not read
        return Text("warn", style="yellow")
    status = "—" if entry.status is None else str(entry.status)
    if entry.expected:  # an answer the caller waited for (a poll's 404): not an error
        return Text(status, style="dim")
    # A 2xx whose body was truncated or unreadable carries an error: red, not a green success.
    return Text(status, style="bold red" if entry.error else _status_style(entry.status))


def _error_cell(row: Row) -> Text:
    entry = row[1]
    if entry.kind != "decode" and entry.expected:
        return Text(f"expected: {entry.expected}", style="dim")
    return Text(entry.error or "", style="yellow" if entry.kind == "decode" else "red")


def request_line(entry: RequestLogEntry) -> str:
    """The whole request on one line, as `y` copies it."""
    status = "no answer" if entry.status is None else str(entry.status)
    line = f"{entry.method} {entry.path} → {status} · {entry.duration_ms:.0f} ms"
    if entry.retries:
        line += f" · {entry.retries} retr{'y' if entry.retries == 1 else 'ies'}"
    if entry.error:
        line += f" · {entry.error}"
    return line


def log_detail(row: Row) -> Text:
    """The detail pane: every field of the request, the path in full, its parameters one a line and its
    body (both with secrets removed by the request log), as literal text."""
    _, entry = row
    text = Text()
    query = entry.path.partition("?")[2]
    status = "no answer" if entry.status is None else str(entry.status)
    if entry.expected:
        status += f" (expected: {entry.expected})"
    pairs = parse_qsl(query, keep_blank_values=True)
    params = "\n".join(f"{' ' * 11}{key} = {value}" for key, value in pairs)
    for label, value in (("Method", entry.method), ("Path", entry.path), ("Params", params.strip() or "—"),
                         ("Body", entry.body or "—"), ("Status", status),
                         ("Duration", f"{entry.duration_ms:.0f} ms"), ("Retries", str(entry.retries)),
                         ("At", entry.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")),
                         ("Error", entry.error or "—")):
        text.append(f"{label:<11}", style="bold")
        style = ("dim" if entry.expected else _status_style(entry.status)) if label == "Status" else ""
        text.append(f"{value}\n", style=style)
    text.append("y copies the request line", style="dim")
    return text


LOG_COLUMNS = [
    Column("at", "Time", width=8, priority=6, essential=True, sort_key=lambda row: row[0],
           text=lambda row: Text(row[1].at.astimezone().strftime("%H:%M:%S")), data=lambda row: row[1].at),
    Column("method", "Method", width=6, priority=8, essential=True, text=lambda row: Text(row[1].method),
           data=lambda row: row[1].method),
    Column("status", "Status", width=6, priority=9, essential=True, align="right",
           sort_key=lambda row: row[1].status or 0, text=_status_cell, data=lambda row: row[1].status,
           extra_data=(("kind", lambda row: row[1].kind),)),
    Column("duration", "Duration", width=9, priority=5, align="right",
           sort_key=lambda row: row[1].duration_ms, text=lambda row: Text(f"{row[1].duration_ms:.0f} ms"),
           data=lambda row: round(row[1].duration_ms, 1)),  # milliseconds
    Column("retries", "Retries", width=7, priority=2, align="right", sort_key=lambda row: row[1].retries,
           text=lambda row: Text(str(row[1].retries) if row[1].retries else ""),
           data=lambda row: row[1].retries),
    Column("error", "Error", min_width=5, priority=4, text=_error_cell, data=lambda row: row[1].error,
           extra_data=(("expected", lambda row: row[1].expected),)),
    # the key; last: it takes the room left. Whole enough at 40 cells (the rest is in the detail), so that
    # method, status and time are never pushed out by a long query string
    Column("path", "Path", min_width=20, max_width=40, priority=10, text=lambda row: Text(row[1].path),
           data=lambda row: row[1].path),
]


class RequestLogScreen(LabdeckScreen):
    AREA = "log"
    TITLE = "Request log"
    ACTIONS = (
        Shown("select"),
        Action("y", "copy_reference", "Copy request", id="log.copy", footer=True),
        Shown("open_filter"),
        Shown("toggle_detail"),
        Shown("cycle_sort"),
    )

    def compose_body(self) -> ComposeResult:
        yield ResourceView(LOG_COLUMNS, [], row_key=lambda row: row[0],
                           detail=log_detail, detail_position="bottom", empty_text="No requests yet",
                           id="log-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#log-view", ResourceView).table

    def _rows(self) -> list[Row]:
        self._count = len(self.ctx.request_log.entries)
        return list(enumerate(self.ctx.request_log.entries))

    def on_mount(self) -> None:
        self._pending: list[RequestLogEntry] = []
        self._amended: list[RequestLogEntry] = []
        self._unsubscribe = self.ctx.request_log.subscribe(self._pending.append,
                                                               on_amend=self._amended.append)
        # the rows are read here, once listening, not while composing: a request that ended in between (a
        # save's PUT, answered while `:log` opened) was in neither and never shown
        table = self.table
        table.set_rows(self._rows())
        self.set_interval(0.25, self._flush)
        table.move_cursor(len(table.visible_rows) - 1)
        table.focus()
        self.mark_data_loaded()

    def on_unmount(self) -> None:
        self._unsubscribe()

    def _flush(self) -> None:
        if self._amended:
            self._apply_amended()
        if not self._pending:
            return
        fresh, self._pending[:] = list(self._pending), []
        rows = [(self._count + offset, entry) for offset, entry in enumerate(fresh)]
        self._count += len(fresh)
        table = self.table
        following = table.cursor_index >= len(table.visible_rows) - 1 and not self._reading()
        table.append_rows(rows)
        if following:
            table.move_cursor(len(table.visible_rows) - 1)
        self.mark_data_loaded()

    def _reading(self) -> bool:
        """Whether an entry's detail is open: the log then stays on that entry."""
        return self.query_one("#log-view", ResourceView).detail_shown

    def on_area_shown_again(self, _message: AreaShownAgain) -> None:
        """`:log` again: the newest requests, the cursor on the newest (unless a detail is being read)."""
        self._flush()
        if self._reading():
            return
        rows = self.table.visible_rows  # in the order shown: the newest is the last unless sorted otherwise
        newest = max(range(len(rows)), key=lambda i: rows[i][0], default=None)
        if newest is not None:
            self.table.move_cursor(newest)

    def _apply_amended(self) -> None:
        """Entries marked failed after they were shown (an unreadable 2xx body): redraw their rows."""
        amended = {entry.seq: entry for entry in self._amended}
        self._amended.clear()
        table = self.table
        for index, entry in list(table.rows):
            if entry.seq in amended:
                table.replace_row((index, amended[entry.seq]))
        self._pending[:] = [amended.get(entry.seq, entry) for entry in self._pending]

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        """Enter opens the request's detail (the pane under the table)."""
        event.stop()
        view = self.query_one("#log-view", ResourceView)
        if not view.detail_shown:
            view.action_toggle_detail()

    def action_copy_reference(self) -> None:
        row = self.table.cursor_row
        if row is None:
            self.notify("Nothing to copy here", severity="warning")
            return
        copy_text(self.app, request_line(row[1]), "request")

    def refresh_data(self) -> None:
        self._pending.clear()
        self.table.set_rows(self._rows())
        self.mark_data_loaded()
