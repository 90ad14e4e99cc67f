"""A transport for the TUI tests that holds chosen requests until the test lets them through, so that a key
press can land exactly while a list is loading (no timing, no sleeps)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from tiny_sandbox import Sandbox


class GatedSandbox(httpx.AsyncBaseTransport):
    """The tiny sandbox in-process; requests for which `held(request)` is true wait for `release()`."""

    def __init__(self, held: Callable[[httpx.Request], bool]) -> None:
        self.inner = Sandbox().factory(None)
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
