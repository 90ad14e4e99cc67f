"""The client against odd answers: unusable rate-limit headers, an invalid `Link`, absurd or zero page
totals, timestamps without an offset, bad JSON after a moderation that succeeded, and what the request log
says about a request whose last attempt got no answer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.errors import MalformedResponse, NetworkError, PaginationLoop
from labdeck.api.models.registry import RegistryTagDetail
from labdeck.api.registry import format_age
from labdeck.api.settings import ConnectionSettings, RetryPolicy
from labdeck.api.users import UsersService
from labdeck.domain.moderation import Operation
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

BASE = "https://gitlab.example.com"


async def no_sleep(seconds: float) -> None:
    return None


def client(handler: Any, url: str = BASE) -> ApiClient:
    settings = ConnectionSettings(url=url, token=SecretStr("glpat-sandbox-root"),
                                  retry=RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.01,
                                                    max_total=1.0))
    transport = handler if isinstance(handler, httpx.AsyncBaseTransport) else httpx.MockTransport(handler)
    return ApiClient(settings, transport=transport, sleep=no_sleep)


@pytest.mark.parametrize("value", ["inf", "1e999", "-inf", "nan", "12abc", ""])
async def test_unusable_rate_limit_headers_are_ignored(value: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"ok": True}, headers={
            "ratelimit-remaining": value, "ratelimit-limit": value, "ratelimit-reset": value})

    async with client(handler) as api:
        assert await api.get_json("/version") == {"ok": True}
        assert await api.get_json("/version") == {"ok": True}


async def test_an_invalid_link_is_a_malformed_response() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"id": 1}], headers={"link": '<http://[::1>; rel="next"'})

    async with client(handler) as api:
        with pytest.raises(MalformedResponse, match="invalid URL"):
            await api.fetch_all("/users")


async def test_zero_total_pages_with_a_next_page_still_fetches_everything() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        nxt = str(page + 1) if page < 3 else ""
        return httpx.Response(200, json=[{"id": page}], headers={
            "x-page": str(page), "x-per-page": "1", "x-total-pages": "0", "x-next-page": nxt})

    async with client(handler) as api:
        assert [item["id"] for item in await api.fetch_all("/users", per_page=1)] == [1, 2, 3]


def test_timestamps_without_an_offset_are_utc() -> None:
    tag = RegistryTagDetail.model_validate({"name": "v1", "created_at": "2024-01-01T10:00:00"})
    assert tag.created_at == datetime(2024, 1, 1, 10, tzinfo=UTC)
    assert format_age(tag.created_at, datetime(2024, 1, 3, 10, tzinfo=UTC)) == "2d"  # no TypeError


async def test_bad_json_after_a_successful_moderation_is_still_a_success() -> None:
    asgi = create_app(SandboxOptions(scale="tiny", faults="badjson=1"), clock=ManualClock())
    async with client(httpx.ASGITransport(asgi), url="http://sandbox.test") as api:
        result = await UsersService(api).try_moderate(3, Operation.BLOCK, "bob")
    assert result.ok and result.status == 201
    assert asgi.state.store.users[3].state == "blocked"


async def test_the_log_shows_no_status_when_the_last_attempt_got_no_answer() -> None:
    answers = iter([httpx.Response(503, text="busy")])

    def handler(request: httpx.Request) -> httpx.Response:
        answer = next(answers, None)
        if answer is None:
            raise httpx.ReadError("connection reset", request=request)
        return answer

    async with client(handler) as api:
        with pytest.raises(NetworkError):
            await api.get_json("/version")
        (entry,) = api.request_log.entries
    assert entry.status is None and entry.retries == 2 and "ReadError" in (entry.error or "")


async def test_an_x_next_page_that_does_not_move_forward_ends_the_walk() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        items = [{"id": len(calls)}] if len(calls) < 50 else []  # without the guard: 50 requests, not 2
        return httpx.Response(200, json=items, headers={"x-next-page": "2"})

    async with client(handler) as api:
        with pytest.raises(PaginationLoop, match="does not move forward"):
            await api.fetch_all("/users", mode="sequential")
    assert len(calls) == 2
