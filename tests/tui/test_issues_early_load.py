"""The issues listing's first page asked for while the screen is built (`EarlyLoad`): the worker takes the
window and its first page over, whether the page arrived before or after; a load for another query or scope
is cancelled, and only the first page is ever asked for (the rest is read on demand)."""

from __future__ import annotations

import asyncio
from typing import Any

from labdeck.tui.screens.issues.early_load import EarlyLoad


class FakeWindow:
    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.starts = 0
        self.cancelled = False

    async def start(self) -> list[str]:
        self.starts += 1
        await self.gate.wait()
        return ["first"]

    def cancel(self) -> None:
        self.cancelled = True


class FakeService:
    def __init__(self) -> None:
        self.windows: list[tuple[dict[str, Any], Any, FakeWindow]] = []

    def window(self, params: dict[str, Any], *, group: Any = None) -> FakeWindow:
        window = FakeWindow()
        self.windows.append((params, group, window))
        return window


async def test_the_first_page_is_handed_over_with_its_window() -> None:
    service = FakeService()
    early = EarlyLoad(service, {"state": "opened"}, None)  # type: ignore[arg-type]
    taken = early.take({"state": "opened"}, None)
    assert taken is not None
    window, task = taken
    params, group, made = service.windows[0]
    assert window is made and (params, group) == ({"state": "opened"}, None)
    made.gate.set()
    assert await task == ["first"] and made.starts == 1


async def test_a_load_for_another_listing_is_cancelled() -> None:
    service = FakeService()
    early = EarlyLoad(service, {}, None)  # type: ignore[arg-type]
    assert early.take({}, "other-group") is None
    await asyncio.sleep(0)
    assert early.task.cancelled() and service.windows[0][2].cancelled
