"""`pages()` and `fetch_all()`: concurrent with known totals, speculative without, sequential, keyset."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from api_fakes import BASE

from labdeck.api.errors import Forbidden
from labdeck.api.pagination import format_link_header


class FakeList:
    """A GitLab-like list endpoint over `count` items; totals omitted above `totals_limit`."""

    def __init__(self, count: int, *, totals_limit: int = 10_000, delay: float = 0.0) -> None:
        self.count = count
        self.totals_limit = totals_limit
        self.delay = delay
        self.requests: list[httpx.Request] = []
        self.in_flight = 0
        self.max_in_flight = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        q = request.url.params
        per_page = min(int(q.get("per_page", "20")), 100)
        if q.get("pagination") == "keyset":
            after = int(q.get("id_after", "0"))
            items = [{"id": i} for i in range(after + 1, min(after + per_page, self.count) + 1)]
            headers = {}
            if items and items[-1]["id"] < self.count:
                nxt = f"{BASE}/api/v4/projects?" + urlencode(
                    {"pagination": "keyset", "per_page": per_page, "order_by": "id",
                     "id_after": items[-1]["id"], "search": "a;b,c"})
                headers["link"] = format_link_header({"next": nxt})
            return httpx.Response(200, json=items, headers=headers)
        page = int(q.get("page", "1"))
        start = (page - 1) * per_page
        items = [{"id": i} for i in range(start + 1, min(start + per_page, self.count) + 1)]
        headers = {"x-page": str(page), "x-per-page": str(per_page), "x-prev-page": str(page - 1) if page > 1
                   else ""}
        links = {}
        if start + per_page < self.count:
            headers["x-next-page"] = str(page + 1)
            links["next"] = f"{BASE}/api/v4/projects?page={page + 1}&per_page={per_page}&search=a;b,c"
        if self.count <= self.totals_limit:
            pages = max(1, -(-self.count // per_page))
            headers["x-total"] = str(self.count)
            headers["x-total-pages"] = str(pages)
            links["last"] = f"{BASE}/api/v4/projects?page={pages}&per_page={per_page}"
        if links:
            headers["link"] = format_link_header(links)
        return httpx.Response(200, json=items, headers=headers)


def ids(items: list[Any]) -> list[int]:
    return [item["id"] for item in items]


@pytest.mark.parametrize("count", [0, 1, 100, 101, 950, 1000])
async def test_concurrent_with_known_total(make_client: Any, count: int) -> None:
    fake = FakeList(count)
    progress: list[tuple[int, int | None]] = []
    items = await make_client(fake).fetch_all("/projects", on_progress=lambda d, t: progress.append((d, t)))
    assert ids(items) == list(range(1, count + 1))
    assert len(fake.requests) == max(1, -(-count // 100))
    assert progress[-1] == (count, count)


@pytest.mark.parametrize("count", [250, 1000, 1001, 1099, 1100])
async def test_speculative_without_totals(make_client: Any, count: int) -> None:
    fake = FakeList(count, totals_limit=0, delay=0.002)
    progress: list[tuple[int, int | None]] = []
    client = make_client(fake, concurrency=4)
    items = await client.fetch_all("/projects", on_progress=lambda d, t: progress.append((d, t)))
    assert ids(items) == list(range(1, count + 1))
    assert fake.max_in_flight > 1  # concurrent even without totals
    assert fake.max_in_flight <= 4
    pages_needed = -(-count // 100)
    assert pages_needed <= len({r.url.params["page"] for r in fake.requests}) <= pages_needed + 4
    assert progress[-1] == (count, count)


async def test_concurrency_is_bounded_by_the_semaphore(make_client: Any) -> None:
    fake = FakeList(3000, delay=0.002)
    items = await make_client(fake, concurrency=3).fetch_all("/projects")
    assert len(items) == 3000 and fake.max_in_flight == 3


async def test_sequential_follows_next_links(make_client: Any) -> None:
    fake = FakeList(350, totals_limit=0)
    items = await make_client(fake).fetch_all("/projects", {"search": "a;b,c"}, mode="sequential")
    assert ids(items) == list(range(1, 351))
    assert [r.url.params.get("page") for r in fake.requests] == [None, "2", "3", "4"]
    assert all(r.url.params["search"] == "a;b,c" for r in fake.requests)


async def test_keyset_follows_next(make_client: Any) -> None:
    fake = FakeList(230)
    items = await make_client(fake).fetch_all("/projects", keyset=True)
    assert ids(items) == list(range(1, 231))
    assert all(r.url.params["pagination"] == "keyset" for r in fake.requests)
    assert fake.requests[0].url.params["order_by"] == "id"
    assert [r.url.params.get("id_after") for r in fake.requests] == [None, "100", "200"]


async def test_pages_on_demand(make_client: Any) -> None:
    fake = FakeList(250)
    client = make_client(fake)
    seen = []
    async for page in client.pages("/projects", per_page=100):
        seen.append((page.page, len(page.items), page.total))
        if page.page == 2:
            break
    assert seen == [(1, 100, 250), (2, 100, 250)]
    assert len(fake.requests) == 2


async def test_params_encoding(make_client: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[])

    await make_client(handler).get_json("/issues", {"iids": [1, 2], "custom_attributes": {"team": "ops"},
                                                    "confidential": False, "milestone": None,
                                                    "labels": "a,b"})
    assert seen[0].url.params.multi_items() == [("iids[]", "1"), ("iids[]", "2"),
                                                ("custom_attributes[team]", "ops"),
                                                ("confidential", "false"), ("labels", "a,b")]


async def test_server_capped_per_page_still_gets_everything(make_client: Any) -> None:
    fake = FakeList(1234, totals_limit=0)
    items = await make_client(fake).fetch_all("/projects", per_page=500)  # the server caps at 100
    assert ids(items) == list(range(1, 1235))


@pytest.mark.parametrize("totals_limit", [10_000, 0])
async def test_a_failing_page_fails_the_whole_fetch_and_stops_the_rest(make_client: Any,
                                                                       totals_limit: int) -> None:
    fake = FakeList(5000, totals_limit=totals_limit, delay=0.001)

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "7":
            return httpx.Response(403, json={"message": "403 Forbidden"})
        return await fake(request)

    client = make_client(handler, concurrency=4)
    with pytest.raises(Forbidden):
        await client.fetch_all("/projects")
    assert len(fake.requests) < 50
    await asyncio.sleep(0.01)
    assert not client._inflight or all(t.done() for t in client._inflight)
