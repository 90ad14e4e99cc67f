"""A transport for the TUI tests that holds chosen requests until the test lets them through, so that a key
press can land exactly while a list is loading (no timing, no sleeps)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions


class GatedSandbox(httpx.AsyncBaseTransport):
    """The tiny sandbox in-process; requests for which `held(request)` is true wait for `release()`."""

    def __init__(self, held: Callable[[httpx.Request], bool]) -> None:
        self.inner = httpx.ASGITransport(create_app(SandboxOptions(scale="tiny"), clock=ManualClock()))
        self.held = held
        self.gate = asyncio.Event()
        self.waiting = 0

    def release(self) -> None:
        self.gate.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.held(request):
            self.waiting += 1
            await self.gate.wait()
        return await self.inner.handle_async_request(request)
