"""`ServerTime`: the instance's clock read from its answers' `Date` header (untrusted), and the client
keeping it for every answer."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import formatdate

import httpx
from hypothesis import given
from hypothesis import strategies as st

from labdeck.api.client import ApiClient
from labdeck.api.server_time import MAX_SKEW, SKEW_MIN, ServerTime, told_time
from labdeck.api.settings import ConnectionSettings

WALL = 1_800_000_000.0


def at(seconds: float) -> dict[str, str]:
    return {"date": formatdate(seconds, usegmt=True)}


def test_a_clock_ahead_moves_now_and_one_in_step_does_not() -> None:
    clock = ServerTime(wall=lambda: WALL)
    assert clock.now() == datetime.fromtimestamp(WALL, UTC)  # nothing told yet: the wall time
    clock.update(at(WALL + 30 * 86_400))
    assert abs(clock.now().timestamp() - (WALL + 30 * 86_400)) <= 1.0
    clock.update(at(WALL))  # the instance's clock as ours: the header's rounding is not a skew
    assert clock.offset is not None and abs(clock.offset) < SKEW_MIN
    assert clock.now() == datetime.fromtimestamp(WALL, UTC)
    clock.update(at(WALL - 3_600))  # behind counts as well
    assert abs(clock.now().timestamp() - (WALL - 3_600)) <= 1.0


def test_unreadable_or_absurd_dates_leave_the_last_one() -> None:
    clock = ServerTime(wall=lambda: WALL)
    clock.update(at(WALL + 86_400))
    for headers in ({}, {"date": ""}, {"date": "yesterday"}, {"date": "Mon, 99 Foo 2026 99:99:99 GMT"},
                    {"date": "Thu, 01 Jan 2026 00:00:00"},  # no zone
                    at(WALL + MAX_SKEW + 86_400), {"date": "Fri, 31 Dec 9999 23:59:59 GMT"},
                    {"date": "Mon, 01 Jan 0001 00:00:00 GMT"}):
        clock.update(headers)
        assert abs(clock.now().timestamp() - (WALL + 86_400)) <= 1.0


@given(st.text(max_size=60))
def test_any_header_text_is_read_or_ignored_never_raised(raw: str) -> None:
    told_time({"date": raw})
    clock = ServerTime(wall=lambda: WALL)
    clock.update({"date": raw})
    clock.now()


async def test_the_client_keeps_the_time_its_answers_tell() -> None:
    ahead = WALL + 40 * 86_400

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"version": "17.6.0"}, headers=at(ahead))

    settings = ConnectionSettings("http://gitlab.test", name="t")
    async with ApiClient(settings, transport=httpx.MockTransport(answer)) as client:
        client.server_time.wall = lambda: WALL
        await client.get_json("/version")
        assert abs(client.server_time.now().timestamp() - ahead) <= 1.0
