"""Fault injection (seeded, reproducible), latency, and the rate-limit headers."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.faults import SandboxConnectionReset
from labdeck.sandbox.options import SandboxOptions, parse_faults, parse_latency_ms
from labdeck.sandbox.store import Store

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
EVERY_FAULT = "429=0.1,429r=0.1,500=0.1,502=0.1,503=0.1,504=0.05,reset=0.1,slow=0.05,badjson=0.1"


def make_client(store: Store, **options: object) -> httpx.AsyncClient:
    opts = SandboxOptions(scale="tiny", slow_seconds=0.01, **options)  # type: ignore[arg-type]
    app = create_app(opts, store=store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test")


async def outcomes(client: httpx.AsyncClient, count: int) -> list[str]:
    seen = []
    for _ in range(count):
        try:
            response = await client.get("/api/v4/projects", headers=ROOT, params={"per_page": 2})
        except SandboxConnectionReset:
            seen.append("reset")
            continue
        if response.status_code != 200:
            seen.append(f"{response.status_code}{'' if 'retry-after' in response.headers else 'r'}")
            continue
        try:
            json.loads(response.content)
            seen.append("ok")
        except ValueError:
            seen.append("badjson")
    return seen


@pytest.fixture
def tiny_store() -> Store:
    from labdeck.sandbox.seed import build_store

    return build_store(SandboxOptions(scale="tiny"), ManualClock())


async def test_faults_are_reproducible_for_a_seed(tiny_store: Store) -> None:
    async with make_client(tiny_store, faults=EVERY_FAULT, fault_seed=7) as first:
        a = await outcomes(first, 60)
    async with make_client(tiny_store, faults=EVERY_FAULT, fault_seed=7) as second:
        b = await outcomes(second, 60)
    async with make_client(tiny_store, faults=EVERY_FAULT, fault_seed=8) as other:
        c = await outcomes(other, 60)
    assert a == b
    assert a != c
    assert {"ok", "429", "429r", "500r", "502r", "503r", "reset", "badjson"} <= set(a) | set(c)


async def test_no_faults_by_default(tiny_store: Store) -> None:
    async with make_client(tiny_store) as client:
        assert set(await outcomes(client, 30)) == {"ok"}


async def test_429_fault_carries_retry_after_and_429r_none(tiny_store: Store) -> None:
    async with make_client(tiny_store, faults="429=1") as client:
        response = await client.get("/api/v4/version", headers=ROOT)
        assert response.status_code == 429 and response.headers["retry-after"] == "1"
        assert "ratelimit-reset" in response.headers
    async with make_client(tiny_store, faults="429r=1") as client:
        response = await client.get("/api/v4/version", headers=ROOT)
        assert response.status_code == 429
        assert not {"retry-after", "ratelimit-reset", "ratelimit-remaining"} & set(response.headers)


async def test_badjson_is_truncated_json(tiny_store: Store) -> None:
    async with make_client(tiny_store, faults="badjson=1") as client:
        response = await client.get("/api/v4/version", headers=ROOT)
    assert response.status_code == 200
    assert response.headers["content-length"] == str(len(response.content))
    with pytest.raises(ValueError):
        json.loads(response.content)


async def test_reset_breaks_the_connection(tiny_store: Store) -> None:
    async with make_client(tiny_store, faults="reset=1") as client:
        with pytest.raises(ConnectionResetError):
            await client.get("/api/v4/version", headers=ROOT)


async def test_latency_is_added_to_each_request(tiny_store: Store) -> None:
    async with make_client(tiny_store, latency_ms=40) as client:
        started = time.perf_counter()
        await client.get("/api/v4/version", headers=ROOT)
        await client.get("/api/v4/version", headers=ROOT)
    assert time.perf_counter() - started >= 0.08


async def test_rate_limit_headers_count_down_per_token_and_refuse() -> None:
    from labdeck.sandbox.seed import build_store

    clock = ManualClock(1_000_000.0)
    store = build_store(SandboxOptions(scale="tiny"), clock)
    app = create_app(SandboxOptions(scale="tiny", rate_limit=3, rate_window=60), clock=clock, store=store)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.test") as client:
        remaining = []
        for _ in range(3):
            response = await client.get("/api/v4/version", headers=ROOT)
            assert response.headers["ratelimit-limit"] == "3"
            assert response.headers["ratelimit-reset"] == str(1_000_060)
            remaining.append(response.headers["ratelimit-remaining"])
        assert remaining == ["2", "1", "0"]
        other_token = await client.get("/api/v4/user", headers={"PRIVATE-TOKEN": "glpat-sandbox-alice"})
        assert other_token.status_code == 200
        same_token_as_bearer = await client.get("/api/v4/version",
                                                headers={"Authorization": "Bearer glpat-sandbox-root"})
        assert same_token_as_bearer.status_code == 429
        refused = await client.get("/api/v4/version", params={"private_token": "glpat-sandbox-root"})
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        clock.advance(61)
        assert (await client.get("/api/v4/version", headers=ROOT)).status_code == 200


def test_option_parsers() -> None:
    assert parse_latency_ms("50ms") == 50 and parse_latency_ms("0.2s") == 200 and parse_latency_ms("7") == 7
    assert parse_faults("429=0.05, reset=0.02") == {"429": 0.05, "reset": 0.02}
    for bad in ("teapot=0.1", "500=2", "500", "500=0.6,502=0.6"):
        with pytest.raises(ValueError):
            parse_faults(bad)
    with pytest.raises(ValueError):
        parse_latency_ms("fast")
