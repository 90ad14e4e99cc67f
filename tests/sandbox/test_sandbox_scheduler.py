"""Scheduled completions: asynchronous operations finish after `async_delay` on the store's clock."""

from __future__ import annotations

import httpx
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.scheduler import Scheduler


def test_an_operation_completes_only_after_its_delay() -> None:
    clock = ManualClock()
    scheduler = Scheduler(clock, delay=1.0)
    done: list[str] = []
    scheduler.schedule(("export", 1), lambda: done.append("export"))
    assert scheduler.state(("export", 1)) == "scheduled" and done == []
    clock.advance(0.5)
    assert scheduler.state(("export", 1)) == "scheduled"
    clock.advance(0.6)
    assert scheduler.state(("export", 1)) == "finished" and done == ["export"]
    assert scheduler.state(("export", 2)) == "none"


def test_completions_run_in_due_order_and_once() -> None:
    clock = ManualClock()
    scheduler = Scheduler(clock, delay=1.0)
    order: list[int] = []
    scheduler.schedule("b", lambda: order.append(2), delay=2.0)
    scheduler.schedule("a", lambda: order.append(1), delay=1.0)
    clock.advance(5)
    assert scheduler.run_due() == 2 and order == [1, 2]
    assert scheduler.run_due() == 0 and order == [1, 2]


def test_rescheduling_replaces_and_cancel_forgets() -> None:
    clock = ManualClock()
    scheduler = Scheduler(clock, delay=1.0)
    calls: list[str] = []
    scheduler.schedule("k", lambda: calls.append("old"))
    clock.advance(0.9)
    scheduler.schedule("k", lambda: calls.append("new"))
    clock.advance(0.2)
    assert scheduler.state("k") == "scheduled" and calls == []
    clock.advance(1)
    assert scheduler.state("k") == "finished" and calls == ["new"]
    scheduler.schedule("c", lambda: calls.append("cancelled"))
    scheduler.cancel("c")
    clock.advance(5)
    assert scheduler.state("c") == "none" and "cancelled" not in calls


def test_a_failing_completion_is_recorded() -> None:
    clock = ManualClock()
    scheduler = Scheduler(clock, delay=0.1)

    def boom() -> None:
        raise RuntimeError("disk full")

    scheduler.schedule("x", boom)
    clock.advance(1)
    item = scheduler.get("x")
    assert item is not None and item.state == "failed" and item.error == "disk full"


async def test_store_scheduler_uses_async_delay_and_runs_before_requests(
        client: httpx.AsyncClient, app: Starlette, clock: ManualClock) -> None:
    store = app.state.store
    flags: list[str] = []
    store.scheduler.schedule("op", lambda: flags.append("done"))
    await client.get("/api/v4/version", headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
    assert flags == []
    clock.advance(0.06)  # the test app's async_delay is 0.05 s
    await client.get("/api/v4/version", headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
    assert flags == ["done"]
