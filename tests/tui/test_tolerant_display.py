"""Tolerant reading on screen (issue 15, item 4): a detail pane names the fields that could not be read,
and `:log` shows the decode notes as `READ` lines with a `warn` status."""

from __future__ import annotations

import httpx
from rich.text import Text
from snapshot_apps import make_app, messages, sandbox, settle
from textual.app import App, ComposeResult
from textual.widgets import Static

from labdeck.api.models.base import parse_many
from labdeck.api.models.members import Member
from labdeck.api.models.tolerant import IDENTITY_UNREADABLE, NOT_AN_OBJECT, identity_unreadable
from labdeck.api.request_log import RequestLog
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.shell.request_log import LOG_COLUMNS
from labdeck.tui.screens.users.users import OperationMenu, UsersScreen
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_columns import column_cells
from labdeck.tui.widgets.table_model import Column

log_cells = column_cells(LOG_COLUMNS)


class _ViewApp(App[None]):
    def __init__(self, rows: list[Member]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield ResourceView([Column("username", "User", text=lambda m: Text(m.username or ""))], self.rows,
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
    assert cells[-1].plain == "Member #1" and "access_level" in cells[-2].plain  # the path is the last column
    assert log.entries == [entry] and entry.kind == "decode"


class _IdLessUsers(httpx.AsyncBaseTransport):
    """The tiny sandbox, with `GET /users` answering two more items: one without an id, one not an object."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        response = await self.inner.handle_async_request(request)
        if request.method != "GET" or request.url.path != "/api/v4/users":
            return response
        await response.aread()
        body = [*response.json(), {"username": "no.id.user", "name": "No id", "state": "active"}, "junk"]
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        return httpx.Response(200, json=body, headers=headers)


async def test_an_item_whose_id_is_unreadable_is_listed_and_refused() -> None:
    """Issue 15, item 4: the id-less user and the non-object element are listed, marked `?`, named in the
    detail, and `m` (moderate) on either is refused with the reason; nothing about them reaches the server."""
    asgi, _ = sandbox(ManualClock())
    transport = _IdLessUsers(httpx.ASGITransport(asgi))
    app = make_app(transport_factory=lambda settings: transport)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = UsersScreen()
        await app.push_screen(screen)
        await settle(pilot)
        rows = screen.table.visible_rows
        ghost = next(u for u in rows if u.username == "no.id.user")
        junk = next(u for u in rows if NOT_AN_OBJECT in u.unreadable)
        assert identity_unreadable(ghost) and identity_unreadable(junk)
        for target in (ghost, junk):
            screen.table.move_cursor(screen.table.visible_rows.index(target))
            await pilot.pause()
            line = screen.table.line_text(1 + screen.table.cursor_index - round(screen.table.scroll_y))
            assert line.startswith("? ")  # marked in the list
            detail = screen.query_one(ResourceView).render_detail(target)
            assert "unreadable: " in str(detail) and IDENTITY_UNREADABLE in str(detail)
            before = len(transport.sent)
            await pilot.press("m")
            await settle(pilot)
            assert not isinstance(app.screen, OperationMenu)  # no menu: refused before anything is asked
            assert messages(app)[-1] == IDENTITY_UNREADABLE
            assert transport.sent[before:] == []
        fine = next(u for u in rows if not u.unreadable and u.username != "root")
        screen.table.move_cursor(screen.table.visible_rows.index(fine))
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, OperationMenu)  # a readable user is still moderated as before
