"""Fixtures for the api tests: a client over an `httpx.MockTransport` that never really sleeps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from api_fakes import FakeSleep, settings

from labdeck.api.client import ApiClient

Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
async def make_client(fake_sleep: FakeSleep) -> Any:
    """`make_client(handler, **settings_overrides)` -> ApiClient (closed after the test)."""
    made: list[ApiClient] = []

    def factory(handler: Handler, *, clock: Callable[[], float] | None = None, **overrides: Any) -> ApiClient:
        extra: dict[str, Any] = {"clock": clock} if clock else {}
        client = ApiClient(settings(**overrides), transport=httpx.MockTransport(handler), sleep=fake_sleep,
                           rng=lambda: 0.5, **extra)
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.aclose()
