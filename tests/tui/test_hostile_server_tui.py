"""The TUI against a hostile server (issue 13, "make the class impossible", TUI side): a fake instance
whose answers are chosen per test (the tiny sandbox, with chosen paths answered by the test). Each case ends
in one clear notification (or none, where nothing failed), no crash report, and a working app: another
list still loads afterwards.

The applied-but-lost write (a truncated body on a POST) is `test_lost_answers.py`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, settle
from test_hostile_faults import record_errors
from tiny_sandbox import Sandbox

import labdeck.tui.session as session_module
from labdeck.api.client import ApiClient
from labdeck.api.settings import RetryPolicy
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.screens.users.users import UsersScreen

SIZE = (140, 40)
Answer = Callable[[httpx.Request], httpx.Response | None]


class HostileServer(httpx.AsyncBaseTransport):
    """The sandbox, except where `answer(request)` returns a response; `headers` are added to every
    response."""

    def __init__(self, answer: Answer, headers: dict[str, str] | None = None) -> None:
        self.inner = Sandbox().factory(None)
        self.answer = answer
        self.headers = headers or {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = self.answer(request)
        if response is None:
            response = await self.inner.handle_async_request(request)
            await response.aread()
        headers = httpx.Headers(response.headers)
        for name, value in self.headers.items():
            headers[name] = value  # replaces the sandbox's own header of that name
        del headers["content-length"]
        return httpx.Response(response.status_code, headers=headers, content=response.content,
                              request=request)


@pytest.fixture(autouse=True)
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The app's client waits (pacing, retry back-off) through a sleep that records them and returns at
    once: the cases take no real minute, and a test can check what was waited."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    class RecordedWaits(ApiClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "sleep": sleep})

    monkeypatch.setattr(session_module, "ApiClient", RecordedWaits)
    return waits


def users_path(request: httpx.Request) -> bool:
    return request.url.path == "/api/v4/users"


@dataclass
class Seen:
    errors: list[str]  # the error notifications of the hostile answer
    load_error: str | None  # what the users table says where its rows would be
    rows: int


async def run_case(tmp_path: Path, server: HostileServer) -> Seen:
    """Open `:users` against `server`; then check that the app still works (a registry list loads)."""
    app = make_app(transport_factory=lambda settings: server, crash_dir=tmp_path)
    errors = record_errors(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2, failed_ok=True)
        users = UsersScreen()
        await app.push_screen(users)
        await settle(pilot, rounds=2, failed_ok=True)
        assert app.is_running and app.return_code is None
        seen = Seen(list(errors), users.table.load_error, len(users.table.rows))
        await pilot.press("escape")
        registry = RegistryScreen(AreaRequest(scope="acme/platform/api-gateway"))
        await app.push_screen(registry)
        await settle(pilot, rounds=2, failed_ok=True)
        assert registry.table.rows, "the app works after the hostile answer"
        assert app.is_running and app.return_code is None
    assert no_crash_report(tmp_path)
    return seen


def no_crash_report(folder: Path) -> bool:
    return not list(folder.iterdir())


def only_users(response: Callable[[], httpx.Response]) -> Answer:
    return lambda request: response() if users_path(request) else None


async def test_deeply_nested_body(tmp_path: Path) -> None:
    body = b"[" * 200_000 + b"]" * 200_000
    server = HostileServer(only_users(lambda: httpx.Response(200, content=body,
                                                            headers={"content-type": "application/json"})))
    seen = await run_case(tmp_path, server)
    assert len(seen.errors) == 1 and seen.load_error is not None, seen


async def test_html_error_page(tmp_path: Path) -> None:
    page = b"<html><body><h1>Bad gateway</h1><p>upstream went away</p></body></html>"
    server = HostileServer(only_users(lambda: httpx.Response(502, content=page,
                                                            headers={"content-type": "text/html"})))
    seen = await run_case(tmp_path, server)
    assert seen.errors == ["502 Bad Gateway"], seen
    assert seen.load_error == "502 Bad Gateway"


async def test_wrong_types_in_model_fields(tmp_path: Path) -> None:
    rows = [{"id": "seven", "username": ["x"], "state": 5, "created_at": "yesterday", "is_admin": "maybe"}]
    server = HostileServer(only_users(lambda: httpx.Response(200, json=rows)))
    seen = await run_case(tmp_path, server)
    if seen.errors:  # refused as a whole: one notification naming the shape, said in the table too
        assert len(seen.errors) == 1 and "Unexpected error" not in seen.errors[0], seen
        assert seen.load_error is not None
    else:  # or read tolerantly: the row is shown
        assert seen.rows == 1


async def test_negative_rate_limit_headers(tmp_path: Path, slept: list[float]) -> None:
    """A budget of -1 until a reset a minute away: the client paces its requests (each wait finite and at
    most the retry policy's `max_delay`), and nothing fails."""
    server = HostileServer(lambda request: None, headers={
        "RateLimit-Remaining": "-1", "RateLimit-Limit": "600", "RateLimit-Reset": str(int(time.time()) + 60)})
    seen = await run_case(tmp_path, server)
    assert seen.errors == [] and seen.rows  # nothing failed: no notification, the list loaded
    assert slept, "the exhausted budget paced the requests"
    assert all(0 < pace <= RetryPolicy().max_delay for pace in slept), slept


async def test_absurd_rate_limit_headers(tmp_path: Path) -> None:
    server = HostileServer(lambda request: None, headers={
        "RateLimit-Remaining": "1e400", "RateLimit-Limit": "abc", "RateLimit-Reset": "-7"})
    seen = await run_case(tmp_path, server)
    assert seen.errors == [] and seen.rows
