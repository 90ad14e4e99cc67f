"""Helpers of the groups-area service tests: an `ApiClient` over a tiny sandbox with a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sandbox_clients import ALICE_TOKEN, ROOT_TOKEN, ClientPool

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

__all__ = ["ALICE_TOKEN", "ROOT_TOKEN", "Sandbox", "sandbox_fixture"]


class Sandbox(ClientPool):
    """A tiny sandbox with a manual clock (async jobs take 2 s of it), and clients over it."""

    def __init__(self, app: Any, clock: ManualClock) -> None:
        super().__init__(app)
        self.clock = clock

    @property
    def store(self) -> Any:
        return self.app.state.store


@pytest.fixture(name="sandbox")
async def sandbox_fixture() -> AsyncIterator[Sandbox]:
    clock = ManualClock()
    box = Sandbox(create_app(SandboxOptions(scale="tiny", async_delay=2.0), clock=clock), clock)
    yield box
    await box.aclose()
