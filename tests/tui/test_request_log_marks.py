"""`:log` marks a 2xx whose body could not be read (truncated, not JSON): the entry is amended with the error,
and the row already on screen turns red, instead of staying a green 200."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, sandbox_transport_factory, settle, until

from labdeck.api.errors import MalformedResponse
from labdeck.api.request_log import RequestLog, RequestLogEntry
from labdeck.tui.screens.shell.request_log import LOG_COLUMNS, RequestLogScreen
from labdeck.tui.widgets.table_columns import column_cells

log_cells = column_cells(LOG_COLUMNS)

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


async def test_the_log_opens_at_the_newest_entry() -> None:
    """`:log` after hundreds of requests shows the newest at the bottom, cursor on it (not some middle)."""
    app = make_app(transport_factory=sandbox_transport_factory())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        log = app.context.request_log
        for number in range(300):
            log.record("GET", f"/projects/{number}", 200, 1.0, 0)
        await app.push_screen(RequestLogScreen())
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RequestLogScreen)
        table = screen.table
        assert table.cursor_index == len(table.visible_rows) - 1
        shown = "\n".join(table.line_text(y) for y in range(1, table.size.height))
        assert "/projects/299" in shown, shown


def test_the_detail_shows_parameters_and_body_without_secrets() -> None:
    from labdeck.tui.screens.shell.request_log import log_detail

    log = RequestLog()
    entry = log.record("POST", "/groups/7/variables?filter%5Benvironment_scope%5D=prod&private_token=x", 201,
                       5.0, 0, body={"key": "DEPLOY_KEY", "value": "s3cr3t-value", "masked": True,
                                     "password": "hunter2", "description": "glpat-abcdefghijklmnopqrst"})
    text = log_detail((0, entry)).plain
    assert "Params     filter[environment_scope] = prod" in text
    assert "private_token = [redacted]" in text
    assert '"key": "DEPLOY_KEY"' in text and '"masked": true' in text
    for secret in ("s3cr3t-value", "hunter2", "glpat-abcdefghijklmnopqrst"):
        assert secret not in text


async def test_expected_404s_of_an_export_poll_are_not_errors() -> None:
    """The download of a group export answers 404 until it is ready: those polls are logged as expected
    (dim, "expected: not ready yet"), not red errors; another 404 stays an error."""
    from labdeck.api.client import ApiClient
    from labdeck.api.group_transfer import GroupTransferService
    from labdeck.api.settings import ConnectionSettings

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"message": "404 Not Found"})

    client = ApiClient(ConnectionSettings(url="https://gitlab.test", name="t"),
                       transport=httpx.MockTransport(answer))
    async with client:
        assert await GroupTransferService(client).download_export(5) is None
        with pytest.raises(Exception):  # noqa: B017 - a plain 404 elsewhere
            await client.get_json("/groups/5")
    polled, other = client.request_log.entries
    assert polled.expected == "not ready yet (polling)" and other.expected is None
    cells = log_cells((0, polled))
    assert cells[2].style == "dim" and cells[5].plain == "expected: not ready yet (polling)"
    assert log_cells((1, other))[2].style == "bold red"


async def test_a_request_that_ends_while_the_log_opens_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that ends while the log opens (a save's PUT answered while `:log` opened, in tmux at 400 ms
    a request: the log read its rows while composing and listened from mount, and showed neither) is
    shown, once, after the others."""
    app = make_app(transport_factory=sandbox_transport_factory())
    read = RequestLogScreen._rows

    def rows_then_a_request(screen: RequestLogScreen) -> list[Any]:
        rows = read(screen)
        screen.ctx.request_log.record("PUT", "/projects/7", 200, 400.0, 0)
        return rows

    monkeypatch.setattr(RequestLogScreen, "_rows", rows_then_a_request)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.context.request_log.record("GET", "/projects", 200, 1.0, 0)
        await app.push_screen(RequestLogScreen())
        await settle(pilot)
        table = app.screen.table
        await until(pilot, lambda: any(row[1].method == "PUT" for row in table.visible_rows),
                    "the PUT shown (the log adds new entries every 0.25 s)", within=5)
        shown = [(row[1].method, row[1].path) for row in table.visible_rows]
        assert shown[-2:] == [("GET", "/projects"), ("PUT", "/projects/7")], shown
        assert len({row[0] for row in table.visible_rows}) == len(shown)  # each row once
