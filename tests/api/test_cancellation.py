"""Cancellation safety against a real loopback server (httpcore issue 1093): hundreds of requests cancelled
mid-flight must not poison the pool or leak concurrency slots; a normal request still succeeds."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from labdeck.api.client import ApiClient
from labdeck.api.errors import DeadlineExceeded
from labdeck.api.settings import ConnectionSettings, Timeouts


async def slow(request: Request) -> JSONResponse:
    await asyncio.sleep(float(request.query_params.get("s", "0.3")))
    return JSONResponse([{"id": i} for i in range(50)])


async def fast(request: Request) -> JSONResponse:
    return JSONResponse({"version": "17.0.0", "token_seen": "private-token" in request.headers})


@pytest.fixture(scope="module")
def loopback() -> Iterator[str]:
    app = Starlette(routes=[Route("/api/v4/slow", slow), Route("/api/v4/version", fast)])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="off",
                                                timeout_graceful_shutdown=0.5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("loopback server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=5)


class WatchedTransport(httpx.AsyncHTTPTransport):
    """The real transport, counting exchanges that were cancelled inside httpcore (what issue 1093 needs)."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled_inside = 0
        self.completed = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            response = await super().handle_async_request(request)
            await response.aread()
        except asyncio.CancelledError:
            self.cancelled_inside += 1
            raise
        self.completed += 1
        return response


def make(url: str, transport: httpx.AsyncBaseTransport | None = None, concurrency: int = 8) -> ApiClient:
    return ApiClient(ConnectionSettings(url, token=SecretStr("glpat-loopback"), concurrency=concurrency,
                                        timeouts=Timeouts(connect=2, read=5, pool=2, deadline=20)),
                     transport=transport)


async def test_mass_cancellation_leaves_the_client_usable(loopback: str) -> None:
    rng = random.Random(1093)
    watched = WatchedTransport()
    async with make(loopback, watched) as client:
        tasks = [asyncio.create_task(client.get_json("/slow", {"s": rng.choice([0.05, 0.2, 0.4])}))
                 for _ in range(300)]

        async def cancel_later(task: asyncio.Task[object], delay: float) -> None:
            await asyncio.sleep(delay)
            task.cancel()

        await asyncio.gather(*(cancel_later(t, rng.uniform(0, 0.6)) for t in tasks))
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert sum(isinstance(r, asyncio.CancelledError) for r in results) > 250
        # A normal request still succeeds within a few seconds, with auth.
        answer = await asyncio.wait_for(client.get_json("/version"), timeout=5)
        assert answer == {"version": "17.0.0", "token_seen": True}
        # Every concurrency slot comes back once the abandoned exchanges finish.
        for _ in range(100):
            if not client._inflight:
                break
            await asyncio.sleep(0.05)
        assert not client._inflight
        assert client._semaphore._value == 8
        # Callers were cancelled, but no exchange was ever cancelled inside the transport.
        assert watched.cancelled_inside == 0 and watched.completed > 0
        # And the full concurrency is usable again.
        batch = await asyncio.wait_for(
            asyncio.gather(*(client.get_json("/slow", {"s": 0.05}) for _ in range(16))), timeout=5)
        assert len(batch) == 16


async def test_deadline_cancellation_then_success(loopback: str) -> None:
    timeouts = Timeouts(connect=2, read=5, pool=2, deadline=0.1)
    client = ApiClient(ConnectionSettings(loopback, timeouts=timeouts, concurrency=2))
    async with client:
        for _ in range(10):
            with pytest.raises(DeadlineExceeded):
                await client.get_json("/slow", {"s": 0.2})
        for _ in range(100):  # abandoned exchanges end on their own
            if not client._inflight:
                break
            await asyncio.sleep(0.05)
        assert (await asyncio.wait_for(client.get_json("/version"), timeout=5))["version"] == "17.0.0"
        assert client._semaphore._value == 2


async def test_abandoned_exchange_hands_its_slot_back_at_once(loopback: str) -> None:
    async with make(loopback, concurrency=1) as client:
        slow_call = asyncio.create_task(client.get_json("/slow", {"s": 3}))
        await asyncio.sleep(0.2)
        slow_call.cancel()
        started = time.monotonic()
        answer = await asyncio.wait_for(client.get_json("/version"), timeout=2)
        assert answer["version"] == "17.0.0" and time.monotonic() - started < 1.5
        assert len(client._inflight) == 1  # the abandoned exchange is still finishing in the background
