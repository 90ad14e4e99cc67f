"""Hostile rate-limit headers: negative, absurd, fractional, missing or garbage `RateLimit-*` and
`Retry-After` values never raise anywhere (pacing, retries, `labdeck api`), and every wait stays bounded."""

from __future__ import annotations

import json
import math
import time

import pytest
from hostile_server import build_app, hostile_settings, json_answer
from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.api.backoff import parse_ratelimit_reset, parse_retry_after, retry_delay
from labdeck.api.client import ApiClient
from labdeck.api.errors import RateLimited
from labdeck.api.rate_limit import RateLimitState
from labdeck.api.settings import RetryPolicy

pytestmark = pytest.mark.timeout(60)

HOSTILE_VALUES = ["-1", "-0", "-1e9", "0.5", "0.0001", "1e999", "-1e999", "nan", "inf", "-inf", "abc", "",
                  " ", "18446744073709551616", "99999999999999999999999999999", "1,000", "0x10", "١٢٣"]


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        assert math.isfinite(seconds) and seconds >= 0
        self.calls.append(seconds)


def _headers(remaining: str, limit: str, reset: str) -> dict[str, str]:
    return {"RateLimit-Remaining": remaining, "RateLimit-Limit": limit, "RateLimit-Reset": reset}


@pytest.mark.parametrize("remaining", HOSTILE_VALUES)
@pytest.mark.parametrize("reset", ["-1", "nan", "1e999", "in-an-hour", "soon"])
async def test_any_rate_limit_header_leaves_requests_working(remaining: str, reset: str) -> None:
    if reset == "in-an-hour":  # a real epoch, computed here: test ids must not depend on the clock (xdist)
        reset = str(int(time.time()) + 3600)
    app = build_app({"/projects": json_answer([{"id": 1}], headers=_headers(remaining, remaining, reset))})
    sleeps = Sleeps()
    import httpx

    policy = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=5.0, max_total=1.0)
    async with ApiClient(hostile_settings(retry=policy), transport=httpx.ASGITransport(app=app),
                         sleep=sleeps) as client:
        for _ in range(3):  # the second and third requests are paced by what the first said
            assert await client.get_json("/projects") == [{"id": 1}]
        state = client.rate_limit
        assert state.remaining is None or 0 <= state.remaining <= 10**9
    assert all(0 <= s <= policy.max_delay for s in sleeps.calls)


@given(remaining=st.text(max_size=30) | st.sampled_from(HOSTILE_VALUES),
       limit=st.text(max_size=30) | st.sampled_from(HOSTILE_VALUES),
       reset=st.text(max_size=30) | st.floats(allow_nan=True).map(repr),
       now=st.floats(min_value=0, max_value=4e9), max_delay=st.floats(min_value=0, max_value=60))
@settings(max_examples=300, deadline=None)
def test_pacing_is_always_a_finite_bounded_delay(remaining: str, limit: str, reset: str, now: float,
                                                 max_delay: float) -> None:
    state = RateLimitState()
    state.update(_headers(remaining, limit, reset))
    state.consume()
    delay = state.pace_delay(now, max_delay)
    assert math.isfinite(delay) and 0 <= delay <= max_delay


@given(value=st.text(max_size=40) | st.sampled_from([*HOSTILE_VALUES, "Wed, 21 Oct 2015 07:28:00 GMT",
                                                     "Fri, 31 Dec 99999 23:59:59 GMT"]),
       status=st.sampled_from([None, 429, 502, 503, 504]), attempt=st.integers(1, 10))
@settings(max_examples=300, deadline=None)
def test_retry_waits_are_finite_whatever_retry_after_says(value: str, status: int | None,
                                                          attempt: int) -> None:
    now = 1.7e9
    for parsed in (parse_retry_after(value, now), parse_ratelimit_reset(value, now)):
        assert parsed is None or (math.isfinite(parsed) and parsed >= 0)
    headers = {"retry-after": value, "ratelimit-reset": value}
    delay = retry_delay(status, headers, attempt, RetryPolicy(), now, lambda: 0.5)
    assert math.isfinite(delay) and delay >= 0


@pytest.mark.parametrize("retry_after", ["-5", "nan", "1e999", "tomorrow", "Fri, 31 Dec 99999 23:59:59 GMT"])
async def test_429_with_garbage_retry_after_ends_in_a_clear_error(retry_after: str) -> None:
    import httpx

    answer = json_answer({"message": "429 Too Many Requests"}, 429,
                         headers={"Retry-After": retry_after, **_headers("-1", "-1", retry_after)})
    app = build_app({"/projects": answer})
    async with ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(RateLimited) as caught:
            await client.get_json("/projects")
    assert str(caught.value).startswith("429 Too Many Requests") and len(app.calls) <= 3


@pytest.mark.parametrize("remaining", ["-1", "1e999", "0.5", "nan", "abc"])
def test_labdeck_api_survives_any_rate_limit_header(labdeck_api, remaining: str) -> None:
    reset = str(int(time.time()) + 2)
    pages = {"/projects": lambda call: json_answer(
        [{"id": int(call.param("page", "1") or 1)}],
        headers={**_headers(remaining, remaining, reset), "X-Page": call.param("page", "1") or "1",
                 **({"X-Next-Page": "2"} if call.param("page", "1") == "1" else {})})}
    app = build_app(pages)
    result = labdeck_api(["projects", "--paginate"], app, hostile_settings())
    assert result.status == 0, result.err
    assert json.loads(result.out) == [{"id": 1}, {"id": 2}]
    result = labdeck_api(["projects"], app, hostile_settings())
    assert result.status == 0 and json.loads(result.out) == [{"id": 1}]
