"""Fixtures for the sandbox conformance tests: a tiny seeded app driven over httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def app(clock: ManualClock) -> Starlette:
    return create_app(SandboxOptions(scale="tiny", async_delay=0.05), clock=clock)


def client_for(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test")


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as http:
        yield http
