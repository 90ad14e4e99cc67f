"""`WindowedList` against the scale sandbox (issue 25): the first page at once and no more than two more
before anyone scrolls, pages on demand, keyset links followed, a ceiling on the rows held whatever the
size (a million rows paged through with a ceiling of 500), counts that never look complete when they are
not, and "read everything" as a cancellable operation with progress."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sandbox_clients import ClientPool

from labdeck.api.client import ApiClient
from labdeck.api.issues import IssuesService
from labdeck.api.models.moderation import ModeratedUser
from labdeck.api.users import UsersService
from labdeck.api.windowed import WindowedList
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

MILLION = 1_000_000


async def until(condition: Callable[[], bool], turns: int = 2_000) -> None:
    """Wait for `condition` (checked every 5 ms), failing after `turns` checks."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the condition did not come true")


async def settled(window: WindowedList[Any]) -> None:
    await until(lambda: not window._readahead and not window._running)


@pytest.fixture
async def pool_for() -> AsyncIterator[Callable[[SandboxOptions], ApiClient]]:
    pools: list[ClientPool] = []

    def make(options: SandboxOptions) -> ApiClient:
        pool = ClientPool(create_app(options))
        pools.append(pool)
        return pool.client()

    yield make
    for pool in pools:
        await pool.aclose()


@pytest.fixture
def huge(pool_for: Callable[[SandboxOptions], ApiClient]) -> ApiClient:
    return pool_for(SandboxOptions(scale="huge", async_delay=0.05))


async def test_first_page_at_once_and_at_most_two_more_before_scrolling(huge: ApiClient) -> None:
    window = IssuesService(huge).window()
    first = await window.start()
    assert len(first) == 100 and first[0].id == MILLION
    assert window.requests == 1
    await settled(window)
    assert window.requests == 3 and window.held_rows == 300  # a page or two ahead, no more
    assert window.total is None and not window.exhausted and not window.complete
    assert window.count_text(1, 40) == "1-40 of the first 300 (more on the server)"


async def test_a_partial_list_never_claims_to_be_complete(
        pool_for: Callable[[SandboxOptions], ApiClient]) -> None:
    window = UsersService(pool_for(SandboxOptions(scale="tiny", virtual_users=2_500))).window(max_rows=None)
    await window.start()
    assert window.total == 2_500  # the server's total counts every row...
    assert not window.exhausted and not window.complete  # ...but 100 of them are not the list
    assert window.count_text(1, 20) == "1-20 of 2,500"
    rows = await window.read_all()
    assert window.complete and len({u.id for u in rows}) == 2_500

    for ceiling in (None, 250):
        far = UsersService(pool_for(SandboxOptions(scale="huge"))).window(max_rows=ceiling)
        for index in (0, 150, 420, 999):
            await far.ensure(index)
            assert not far.complete and not far.exhausted
            assert "more on the server" in far.count_text()
            assert f"{far.known:,}" in far.count_text()


async def test_memory_stays_under_the_ceiling_through_a_million_rows(huge: ApiClient) -> None:
    ceiling = 500
    dropped: list[int] = []
    window = UsersService(huge).window(max_rows=ceiling)
    window.on_drop = lambda start, rows: dropped.append(start)
    window.readahead = 1
    first_id = (await window.start())[0].id
    peak_held = 0

    async def visit(indexes: range) -> None:
        nonlocal peak_held
        for index in indexes:
            rows = await window.ensure(index)
            assert rows and window.row(index) is rows[0]
            peak_held = max(peak_held, window.held_rows)

    await visit(range(0, 200_000, 10_000))  # warm: the sandbox's caches, the client's request log
    await settled(window)
    gc.collect()
    tracemalloc.start()
    try:  # the held rows allocated before tracing are gone by the middle: compare middle and end
        await visit(range(200_000, 600_000, 10_000))
        await settled(window)
        gc.collect()
        middle, _ = tracemalloc.get_traced_memory()
        await visit(range(600_000, MILLION, 10_000))
        last = await window.ensure(MILLION - 1)
        await settled(window)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - middle
    finally:
        tracemalloc.stop()
    assert peak_held <= ceiling + window.per_page  # a read-ahead page may land before the next trim
    assert window.held_rows <= ceiling
    assert middle < 3_000_000, f"{middle:,} bytes traced after 400,000 rows"  # 600 users, the log
    assert grown < 150_000, f"{grown:,} bytes more after 400,000 more rows"  # a page of users: ~150 KB
    assert last[-1].id == MILLION and window.exhausted and window.known == MILLION
    assert window.count_text() == f"{MILLION:,}" and not window.complete
    assert 0 in dropped
    before = window.requests
    again = await window.ensure(0, readahead=False)  # dropped, so read again
    assert window.requests == before + 1 and again[0].id == first_id


async def test_keyset_links_are_followed_and_kept_to_read_dropped_pages(huge: ApiClient) -> None:
    window = UsersService(huge).window(keyset=True, order_by="username", max_rows=200)
    window.readahead = 0
    page = await window.ensure(350)  # the fourth page: only links lead there
    assert window.offset is False and window.requests == 4
    assert all("cursor=" in window.links[p] for p in (1, 2, 3))
    names = [u.username for p in sorted(window.pages) for u in window.pages[p]]
    assert names == sorted(names) and page[50] is window.row(350)
    assert sorted(window.pages) == [2, 3]  # the ceiling dropped the first two pages
    refetched = await window.ensure(150)  # read again through the link kept for page 1
    assert window.requests == 5 and refetched[0].username < names[0]


async def test_an_instance_without_keyset_is_read_by_offset(
        pool_for: Callable[[SandboxOptions], ApiClient], huge: ApiClient) -> None:
    seeded = UsersService(pool_for(SandboxOptions(scale="demo"))).window(keyset=True, order_by="username")
    await seeded.start()  # the seeded /users ignores `pagination`: offset pages, counted
    assert seeded.offset is True and seeded.total is not None
    refused = WindowedList(huge, "/users", {"pagination": "keyset", "order_by": "created_at"},
                           lambda items: items, readahead=0)
    rows = await refused.start()  # 405 for keyset by created_at: read again by offset
    assert rows and refused.offset is True and refused.requests == 2 and "pagination" not in refused.params


async def test_read_ahead_is_concurrent_only_when_totals_are_known(
        pool_for: Callable[[SandboxOptions], ApiClient]) -> None:
    counted = UsersService(pool_for(SandboxOptions(scale="tiny", virtual_users=5_000))).window()
    await counted.start()
    uncounted = UsersService(pool_for(SandboxOptions(scale="huge"))).window()
    await uncounted.start()
    await settled(counted)
    await settled(uncounted)
    assert counted.requests == uncounted.requests == 3
    assert counted.peak_in_flight == 2  # both pages ahead asked for at once
    assert uncounted.peak_in_flight == 1  # one after the other: the end is not known


async def test_read_all_reports_progress_and_can_be_cancelled(huge: ApiClient) -> None:
    window: WindowedList[ModeratedUser] = UsersService(huge).window(max_rows=1_000)
    seen: list[tuple[int, int | None]] = []
    task = asyncio.create_task(window.read_all(lambda done, total: seen.append((done, total))))
    await until(lambda: bool(seen) and seen[-1][0] >= 2_000)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert window.max_rows == 1_000 and window.held_rows <= 1_000  # the ceiling is back
    await until(lambda: window.in_flight == 0)  # the reads under way (shielded) land after the cancel
    assert window.held_rows <= 1_000  # and are trimmed to the ceiling as they land
    assert all(total is None for _, total in seen) and not window.complete
