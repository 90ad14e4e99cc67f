"""Polling a long operation through a faulty connection: one failed status request does not fail the job,
a run of them does (with the error's message), and giving up is an expected outcome (no crash report)."""

from __future__ import annotations

import pytest

from labdeck.api.errors import MalformedResponse, NetworkError, NotFound, ServerError
from labdeck.tui.errors import describe_error, is_expected
from labdeck.tui.jobs import PollTimeout, poll_until


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_transient_poll_failures_are_asked_again() -> None:
    clock = Clock()
    outcomes = iter([NetworkError("reset"), ServerError(503, "busy"), MalformedResponse("cut"), 1, 2])

    async def fetch() -> int:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome  # type: ignore[return-value]

    assert await poll_until(fetch, lambda n: n == 2, sleep=clock.sleep, clock=clock) == 2


async def test_a_run_of_failures_or_a_real_refusal_ends_the_poll() -> None:
    clock = Clock()

    async def down() -> int:
        raise NetworkError("connection refused")

    with pytest.raises(NetworkError):
        await poll_until(down, lambda n: True, sleep=clock.sleep, clock=clock, max_failures=3)

    async def refused() -> int:
        raise NotFound(404, "404 Not Found")

    with pytest.raises(NotFound):
        await poll_until(refused, lambda n: True, sleep=clock.sleep, clock=clock)


async def test_giving_up_is_an_expected_error() -> None:
    clock = Clock()

    async def never() -> int:
        return 0

    with pytest.raises(PollTimeout) as caught:
        await poll_until(never, lambda n: n == 1, timeout=10, sleep=clock.sleep, clock=clock)
    assert is_expected(caught.value) and describe_error(caught.value) == "gave up after 10 s"
