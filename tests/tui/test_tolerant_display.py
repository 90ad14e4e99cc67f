"""Tolerant reading on screen (issue 15, item 4): a detail pane names the fields that could not be read,
and `:log` shows the decode notes as `READ` lines with a `warn` status."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from labdeck.api.models.base import parse_many
from labdeck.api.models.members import Member
from labdeck.api.request_log import RequestLog
from labdeck.tui.screens.shell.request_log import log_cells
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column


class _ViewApp(App[None]):
    def __init__(self, rows: list[Member]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield ResourceView([Column("username", "User")], self.rows, cells=lambda m: (Text(m.username or ""),),
                           row_key=lambda m: m.id, detail=lambda m: Text(f"member {m.username}"),
                           show_detail=True, id="view")


async def test_the_detail_pane_names_unreadable_fields() -> None:
    rows = parse_many(Member, [{"id": 1, "username": "odd", "access_level": "thirty"},
                               {"id": 2, "username": "fine", "access_level": 30}])
    app = _ViewApp(rows)
    async with app.run_test() as pilot:
        view = app.query_one("#view", ResourceView)
        await pilot.pause()
        pane = str(view.query_one(".resource-view--detail", Static).render())
        assert "member odd" in pane and "unreadable: access_level (see :log)" in pane
        view.table.move_cursor(1)
        await pilot.pause()
        pane = str(view.query_one(".resource-view--detail", Static).render())
        assert "member fine" in pane and "unreadable" not in pane


def test_log_shows_decode_notes_as_warnings() -> None:
    log = RequestLog()
    entry = log.note("Member #1", "unreadable access_level (int_parsing)")
    cells = log_cells((0, entry))
    assert cells[1].plain == "READ" and cells[2].plain == "warn" and str(cells[2].style) == "yellow"
    assert cells[5].plain == "Member #1" and "access_level" in cells[6].plain
    assert log.entries == [entry] and entry.kind == "decode"
