"""Helpers of the groups-area service tests: an `ApiClient` over a tiny sandbox with a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

ROOT_TOKEN = "glpat-sandbox-root"
ALICE_TOKEN = "glpat-sandbox-alice"


@dataclass
class Sandbox:
    app: Any
    clock: ManualClock
    clients: list[ApiClient]

    def client(self, token: str = ROOT_TOKEN, sudo: str | None = None) -> ApiClient:
        settings = ConnectionSettings("http://sandbox.test", token=SecretStr(token), sudo=sudo)
        client = ApiClient(settings, transport=httpx.ASGITransport(self.app))
        self.clients.append(client)
        return client

    @property
    def store(self) -> Any:
        return self.app.state.store


@pytest.fixture(name="sandbox")
async def sandbox_fixture() -> AsyncIterator[Sandbox]:
    clock = ManualClock()
    box = Sandbox(create_app(SandboxOptions(scale="tiny", async_delay=2.0), clock=clock), clock, [])
    yield box
    for client in box.clients:
        await client.aclose()
