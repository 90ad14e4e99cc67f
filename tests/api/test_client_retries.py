"""Retries: Retry-After (seconds and HTTP date), RateLimit-Reset, backoff, bounds, POST never retried,
connection errors, the overall deadline and pacing when the rate limit runs low."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
from api_fakes import FakeSleep

from labdeck.api.errors import DeadlineExceeded, NetworkError, RateLimited, ServerError
from labdeck.api.settings import RetryPolicy, Timeouts

NOW = 1_800_000_000.0


def sequence(*responses: httpx.Response | Exception) -> tuple[Any, list[httpx.Request]]:
    """A handler answering with `responses` in turn (the last one repeats)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = responses[min(len(seen), len(responses)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handler, seen


OK = httpx.Response(200, json={"ok": True})


async def test_retry_after_seconds(make_client: Any, fake_sleep: FakeSleep) -> None:
    handler, seen = sequence(httpx.Response(429, headers={"Retry-After": "7"}, text="Retry later"), OK)
    client = make_client(handler, clock=lambda: NOW)
    assert await client.get_json("/projects") == {"ok": True}
    assert len(seen) == 2
    assert fake_sleep.calls == [7.0]
    assert client.request_log.entries[-1].retries == 1


async def test_retry_after_http_date(make_client: Any, fake_sleep: FakeSleep) -> None:
    when = format_datetime(datetime.fromtimestamp(NOW + 12, UTC), usegmt=True)
    handler, _seen = sequence(httpx.Response(429, headers={"Retry-After": when}), OK)
    assert await make_client(handler, clock=lambda: NOW).get_json("/x") == {"ok": True}
    assert fake_sleep.calls == [pytest.approx(12.0)]


async def test_ratelimit_reset_when_no_retry_after(make_client: Any, fake_sleep: FakeSleep) -> None:
    headers = {"RateLimit-Reset": str(int(NOW + 20)), "RateLimit-Remaining": "0", "RateLimit-Limit": "600"}
    handler, _seen = sequence(httpx.Response(429, headers=headers, json={"message": "Too many"}), OK)
    client = make_client(handler, clock=lambda: NOW)
    assert await client.get_json("/x") == {"ok": True}
    assert fake_sleep.calls[0] == pytest.approx(20.0)
    assert client.rate_limit.remaining == 0 and client.rate_limit.limit == 600


async def test_429_without_headers_backs_off_exponentially(make_client: Any, fake_sleep: FakeSleep) -> None:
    handler, _seen = sequence(httpx.Response(429), httpx.Response(429), httpx.Response(429), OK)
    assert await make_client(handler).get_json("/x") == {"ok": True}
    # rng() == 0.5 -> delay = 0.75 * ceiling; ceilings 0.5, 1, 2
    assert fake_sleep.calls == [pytest.approx(0.375), pytest.approx(0.75), pytest.approx(1.5)]


@pytest.mark.parametrize("status", [502, 503, 504])
async def test_gateway_errors_are_retried(make_client: Any, status: int) -> None:
    handler, seen = sequence(httpx.Response(status), OK)
    assert await make_client(handler).get_json("/x") == {"ok": True}
    assert len(seen) == 2


async def test_connection_errors_are_retried_then_network_error(make_client: Any) -> None:
    handler, seen = sequence(httpx.ConnectError("refused"), OK)
    assert await make_client(handler).get_json("/x") == {"ok": True}
    handler, seen = sequence(httpx.ConnectError("refused"))
    client = make_client(handler)
    with pytest.raises(NetworkError, match="ConnectError"):
        await client.get_json("/x")
    assert len(seen) == 4
    last = client.request_log.entries[-1]
    assert last.status is None and last.retries == 3 and "ConnectError" in (last.error or "")


async def test_retries_stop_at_attempt_bound(make_client: Any, fake_sleep: FakeSleep) -> None:
    handler, seen = sequence(httpx.Response(503, json={"message": "down"}))
    client = make_client(handler, retry=RetryPolicy(max_attempts=3, base_delay=0.1))
    with pytest.raises(ServerError, match="down"):
        await client.get_json("/x")
    assert len(seen) == 3 and len(fake_sleep.calls) == 2
    assert client.request_log.entries[-1].status == 503


async def test_retries_stop_at_total_time_bound(make_client: Any, fake_sleep: FakeSleep) -> None:
    handler, seen = sequence(httpx.Response(429, headers={"Retry-After": "40"}))
    client = make_client(handler, retry=RetryPolicy(max_attempts=10, max_total=60.0))
    with pytest.raises(RateLimited):
        await client.get_json("/x")
    assert len(seen) == 2 and fake_sleep.calls == [40.0]


@pytest.mark.parametrize("failure", [httpx.Response(503), httpx.Response(429, headers={"Retry-After": "1"}),
                                     httpx.ConnectError("reset")])
async def test_post_is_never_retried(make_client: Any, fake_sleep: FakeSleep, failure: Any) -> None:
    handler, seen = sequence(failure, OK)
    with pytest.raises((ServerError, RateLimited, NetworkError)):
        await make_client(handler).post_json("/projects/1/fork", {"namespace_id": 3})
    assert len(seen) == 1 and fake_sleep.calls == []


async def test_put_and_delete_are_retried(make_client: Any) -> None:
    handler, seen = sequence(httpx.Response(503), httpx.Response(204))
    assert await make_client(handler).delete("/groups/1/labels/2") is None
    handler, seen = sequence(httpx.Response(502), OK)
    assert await make_client(handler).put_json("/groups/1", {"name": "x"}) == {"ok": True}
    assert len(seen) == 2


@pytest.mark.parametrize("failure", [httpx.Response(503), httpx.ConnectError("reset")])
async def test_a_put_that_also_creates_is_never_sent_twice(make_client: Any, fake_sleep: FakeSleep,
                                                            failure: Any) -> None:
    """A protected environment's PUT creates the rules sent without an id: sent again after a lost answer,
    a rule would be added twice, so its endpoint says it is not `retry_safe` (an ordinary PUT is retried)."""
    from labdeck.domain import catalogue as ep

    handler, seen = sequence(failure, OK)
    path = ep.PROTECTED_ENVIRONMENT_UPDATE.path(1, "production")
    with pytest.raises((ServerError, NetworkError)):
        await make_client(handler).put_json(path, {"deploy_access_levels": [{"access_level": 40}]})
    assert len(seen) == 1 and fake_sleep.calls == []
    handler, seen = sequence(failure, OK)
    assert await make_client(handler).put_json(ep.ISSUE_UPDATE.path(1, 2), {"title": "x"}) == {"ok": True}
    assert len(seen) == 2


async def test_deadline_exceeded(make_client: Any) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return OK

    client = make_client(lambda r: OK, timeouts=Timeouts(deadline=0.05))
    client._http._transport = httpx.MockTransport(slow)
    with pytest.raises(DeadlineExceeded):
        await client.get_json("/x")
    assert "deadline" in (client.request_log.entries[-1].error or "")


async def test_pacing_when_rate_limit_low(make_client: Any, fake_sleep: FakeSleep) -> None:
    low = {"RateLimit-Remaining": "3", "RateLimit-Limit": "600", "RateLimit-Reset": str(int(NOW + 40))}
    handler, _seen = sequence(httpx.Response(200, json=[], headers=low))
    client = make_client(handler, clock=lambda: NOW)
    await client.get_json("/a")
    assert fake_sleep.calls == []
    await client.get_json("/b")
    # 3 remaining (2 after the first request counted itself) spread over 40 s
    assert len(fake_sleep.calls) == 1 and 5 < fake_sleep.calls[0] <= 30


async def test_no_pacing_when_plenty_remains(make_client: Any, fake_sleep: FakeSleep) -> None:
    plenty = {"RateLimit-Remaining": "500", "RateLimit-Limit": "600", "RateLimit-Reset": str(int(NOW + 40))}
    handler, _seen = sequence(httpx.Response(200, json=[], headers=plenty))
    client = make_client(handler, clock=lambda: NOW)
    await client.get_json("/a")
    await client.get_json("/b")
    assert fake_sleep.calls == []


async def test_reset_in_the_past_falls_back_to_backoff(make_client: Any, fake_sleep: FakeSleep) -> None:
    handler, _seen = sequence(httpx.Response(429, headers={"RateLimit-Reset": str(int(NOW - 100))}), OK)
    assert await make_client(handler, clock=lambda: NOW).get_json("/x") == {"ok": True}
    assert fake_sleep.calls == [pytest.approx(0.375)]
