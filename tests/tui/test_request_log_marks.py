"""`:log` marks a 2xx whose body could not be read (truncated, not JSON): the entry is amended with the error,
and the row already on screen turns red, instead of staying a green 200."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, sandbox_transport_factory, settle

from labdeck.api.errors import MalformedResponse
from labdeck.api.request_log import RequestLog, RequestLogEntry
from labdeck.tui.screens.shell.request_log import RequestLogScreen, log_cells

SIZE = (120, 30)


class Truncating(httpx.AsyncBaseTransport):
    """The sandbox, but `GET /api/v4/broken` answers 200 with half a JSON array."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/broken":
            return httpx.Response(200, content=b'[{"id": 1}, {"id"',
                                  headers={"content-type": "application/json"})
        return await self.inner.handle_async_request(request)


def test_amend_replaces_the_entry_and_tells_subscribers() -> None:
    log = RequestLog()
    added: list[RequestLogEntry] = []
    amended: list[RequestLogEntry] = []
    unsubscribe = log.subscribe(added.append, on_amend=amended.append)
    first = log.record("GET", "/projects", 200, 5.0, 0)
    log.record("GET", "/users", 200, 5.0, 0)
    again = log.amend(first.seq, "the server sent a body that is not JSON")
    assert again is not None and again.seq == first.seq and again.status == 200
    assert [e.error for e in log.entries] == ["the server sent a body that is not JSON", None]
    assert amended == [again] and len(added) == 2
    unsubscribe()
    log.amend(first.seq, "x")
    assert len(amended) == 1
    assert log.amend(999, "gone") is None


def test_an_amended_200_is_drawn_red() -> None:
    log = RequestLog()
    entry = log.record("GET", "/projects", 200, 5.0, 0)
    assert log_cells((0, entry))[2].style == "green"
    bad = log.amend(entry.seq, "not JSON")
    assert bad is not None
    cells = log_cells((0, bad))
    assert cells[2].style == "bold red" and cells[-2].plain == "not JSON" and cells[-2].style == "red"
    assert cells[-1].plain == "/projects"  # the path is the last column


async def test_the_log_screen_turns_a_row_red_when_its_body_proves_unreadable() -> None:
    sandbox = sandbox_transport_factory()

    def factory(settings: Any) -> httpx.AsyncBaseTransport:
        return Truncating(sandbox(settings))

    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(RequestLogScreen())
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RequestLogScreen)
        assert app.session is not None
        with pytest.raises(MalformedResponse):
            await app.session.client.get_json("/broken")
        for _ in range(50):  # the screen takes new and amended entries on its next tick
            rows = [row for row in screen.table.rows if row[1].path == "/broken"]
            if rows and rows[0][1].error:
                break
            await pilot.pause(0.05)
        (row,) = [row for row in screen.table.rows if row[1].path == "/broken"]
        assert row[1].status == 200 and row[1].error and "not JSON" in row[1].error
        assert log_cells(row)[2].style == "bold red"
