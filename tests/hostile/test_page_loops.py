"""Hostile pagination: a server that answers every page as page 1, links a page to itself, ignores the page
number, or never ends. Every walk (`fetch_all` in each mode, `pages()`, `labdeck api --paginate`) stops
with one clear `PaginationLoop` after a bounded number of requests."""

from __future__ import annotations

import httpx
import pytest
from hostile_server import BASE_URL, Call, build_app, hostile_settings, json_answer

from labdeck.api.client import ApiClient
from labdeck.api.errors import PaginationLoop

pytestmark = pytest.mark.timeout(60)
LINK = BASE_URL + "/api/v4/projects"


def always_page_one(call: Call) -> object:
    """Every page is page 1 of a longer list: `X-Page: 1`, a next page and a next link."""
    return json_answer([{"id": i} for i in range(1, 21)], headers={
        "X-Page": "1", "X-Per-Page": "20", "X-Next-Page": "2",
        "Link": f'<{LINK}?page=2&per_page=20>; rel="next"'})


def self_link(call: Call) -> object:
    """No page headers; the next link points to the page itself."""
    return json_answer([{"id": 1}], headers={"Link": f'<{LINK}?cursor=abc>; rel="next"'})


def same_body_new_link(call: Call) -> object:
    """The next link moves on each time, the content never does."""
    return json_answer([{"id": 1}, {"id": 2}], headers={"Link": f'<{LINK}?cursor={call.number}>; rel="next"'})


def ignores_page_number(call: Call) -> object:
    """Claims 50 pages but answers page 1 for any page number (no X-Page)."""
    return json_answer([{"id": i} for i in range(1, 21)], headers={
        "X-Total-Pages": "50", "X-Total": "1000", "X-Per-Page": "20", "X-Next-Page": "2",
        "Link": f'<{LINK}?page=2>; rel="next"'})


def endless(call: Call) -> object:
    """A new, different page for ever."""
    n = int(call.param("page", "1") or 1)
    return json_answer([{"id": n * 100 + i} for i in range(20)], headers={
        "X-Page": str(n), "X-Per-Page": "20", "X-Next-Page": str(n + 1),
        "Link": f'<{LINK}?page={n + 1}&per_page=20>; rel="next"'})


LOOPS = {"always_page_one": always_page_one, "self_link": self_link, "same_body_new_link": same_body_new_link,
         "ignores_page_number": ignores_page_number}


@pytest.mark.parametrize("mode", ["auto", "sequential", "concurrent"])
@pytest.mark.parametrize("name", sorted(LOOPS))
async def test_fetch_all_stops_a_loop(name: str, mode: str) -> None:
    app = build_app({"/projects": LOOPS[name]})
    async with ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(PaginationLoop) as caught:
            await client.fetch_all("/projects", mode=mode, per_page=20)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("GET /projects") and "stopped following pages" in message
    assert len(app.calls) <= 60  # a handful of requests, not 16,000


@pytest.mark.parametrize("name", sorted(LOOPS))
async def test_pages_on_demand_stop_a_loop(name: str) -> None:
    app = build_app({"/projects": LOOPS[name]})
    seen = 0
    async with ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(PaginationLoop):
            async for _page in client.pages("/projects", per_page=20):
                seen += 1
    assert seen <= 3 and len(app.calls) <= 4


@pytest.mark.parametrize("mode", ["auto", "sequential"])
async def test_an_endless_list_stops_at_max_pages(mode: str) -> None:
    app = build_app({"/projects": endless})
    async with ApiClient(hostile_settings(max_pages=25), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(PaginationLoop, match=r"limit of 25 pages \(max_pages\)"):
            await client.fetch_all("/projects", mode=mode, per_page=20)  # type: ignore[arg-type]
    assert len(app.calls) <= 25 + 8  # at most one speculative window past the limit


async def test_a_list_of_exactly_max_pages_is_not_refused() -> None:
    def ten_pages(call: Call) -> object:
        answer = endless(call)
        if call.param("page", "1") == "10":
            answer.headers = {"X-Page": "10", "X-Per-Page": "20"}  # the last page
        return answer

    app = build_app({"/projects": ten_pages})
    async with ApiClient(hostile_settings(max_pages=10), transport=httpx.ASGITransport(app=app)) as client:
        for mode in ("auto", "sequential"):
            items = await client.fetch_all("/projects", mode=mode, per_page=20)  # type: ignore[arg-type]
            assert len(items) == 200


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_labdeck_api_paginate_ends_with_one_line(labdeck_api, name: str) -> None:
    app = build_app({"/projects": LOOPS[name]})
    result = labdeck_api(["projects", "--paginate", "-f", "per_page=20"], app, hostile_settings())
    line = result.one_clear_line()
    assert "stopped following pages" in line and len(app.calls) <= 60


def test_labdeck_api_paginate_stops_at_max_pages(labdeck_api) -> None:
    app = build_app({"/projects": endless})
    line = labdeck_api(["projects", "--paginate"], app, hostile_settings(max_pages=30)).one_clear_line()
    assert "max_pages" in line and len(app.calls) <= 40
