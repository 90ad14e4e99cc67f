"""The issues listing's load started while the screen is built (`EarlyLoad`): the worker takes it over and
gets page 1 whether it arrived before or after; a load for another query or scope is cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

from labdeck.tui.screens.issues.early_load import EarlyLoad


class FakeService:
    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.calls: list[tuple[dict[str, Any], Any]] = []

    async def load(self, params: dict[str, Any], *, group: Any = None,
                   on_first_page: Any = None) -> list[str]:
        self.calls.append((params, group))
        on_first_page(["first"])
        await self.gate.wait()
        return ["first", "rest"]


async def test_page_one_that_arrived_before_the_worker_is_handed_over() -> None:
    service = FakeService()
    early = EarlyLoad(service, {"state": "opened"}, None)  # type: ignore[arg-type]
    await asyncio.sleep(0)  # page 1 arrives before the screen is mounted
    shown: list[list[str]] = []
    task = early.take({"state": "opened"}, None, shown.append)
    assert task is not None and shown == [["first"]]
    service.gate.set()
    assert await task == ["first", "rest"] and service.calls == [({"state": "opened"}, None)]


async def test_page_one_that_arrives_after_the_worker_took_over_is_shown_then() -> None:
    service = FakeService()
    early = EarlyLoad(service, {}, "grp")  # type: ignore[arg-type]
    shown: list[list[str]] = []
    task = early.take({}, "grp", shown.append)
    assert task is not None and shown == []
    service.gate.set()
    assert await task == ["first", "rest"] and shown == [["first"]]


async def test_a_load_for_another_listing_is_cancelled() -> None:
    service = FakeService()
    early = EarlyLoad(service, {}, None)  # type: ignore[arg-type]
    assert early.take({}, "other-group", lambda page: None) is None
    await asyncio.sleep(0)
    assert early.task.cancelled()
