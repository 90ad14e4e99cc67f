"""The TUI with every answer carrying hostile rate-limit headers (`RateLimit-Remaining: -1`, absurd and
fractional values, a reset moments away): lists load, the status bar shows a sane count, nothing crashes."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, sandbox_settings, sandbox_transport_factory, settle

from labdeck.api.settings import RetryPolicy
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.users.users import UsersScreen

SIZE = (120, 30)


class HostileRateLimit(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, remaining: str, limit: str) -> None:
        self.inner, self.remaining, self.limit = inner, remaining, limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        response.headers["RateLimit-Remaining"] = self.remaining
        response.headers["RateLimit-Limit"] = self.limit
        response.headers["RateLimit-Reset"] = str(int(time.time()) + 2)
        return response


@pytest.mark.parametrize(("remaining", "limit"), [("-1", "-1"), ("-1", "600"), ("0.5", "1e999"),
                                                  ("1e999", "nan"), ("abc", "-5")])
async def test_the_tui_survives_hostile_rate_limit_headers(remaining: str, limit: str) -> None:
    sandbox = sandbox_transport_factory()

    def factory(settings: Any) -> httpx.AsyncBaseTransport:
        return HostileRateLimit(sandbox(settings), remaining, limit)

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.01, max_total=0.05)  # pacing stays short
    app = make_app(settings=dataclasses.replace(sandbox_settings(), retry=fast), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(UsersScreen(AreaRequest()))
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, UsersScreen) and app.screen.table.rows
        assert app.session is not None
        rate = app.session.client.rate_limit
        assert rate.remaining is None or rate.remaining >= 0
        info = app.status_info(app.screen)
        assert info.rate_remaining is None or info.rate_remaining >= 0
        assert app.is_running and app.return_code is None
