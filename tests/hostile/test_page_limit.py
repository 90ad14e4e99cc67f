"""A list longer than `max_pages` (issue 22 item 14): the walk stops at the limit but never throws away what
it read. `PageLimit` carries the items of pages 1 to max_pages, in order, whatever the walk's mode; the stop
is noted in the request log; the issues service hands on the issues it parsed (the issues screen's side is in
tests/tui/test_issues_page_limit.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hostile_server import BASE_URL, Call, build_app, hostile_settings, json_answer

from labdeck.api.client import ApiClient
from labdeck.api.errors import PageLimit, PaginationLoop
from labdeck.api.issues import IssuesService

pytestmark = pytest.mark.timeout(60)
LINK = BASE_URL + "/api/v4/projects"
PER_PAGE = 20


def endless(headers: str) -> Any:
    """A list that never ends, announced with `headers`: "offsets" (X-Page, X-Next-Page), "totals" (X-Total-
    Pages far beyond the limit) or "links" (a `rel="next"` link only)."""
    def answer(call: Call) -> object:
        n = int(call.param("page", "1") or 1)
        size = int(call.param("per_page", str(PER_PAGE)) or PER_PAGE)
        items = [{"id": n * 1000 + i, "iid": n * 1000 + i, "project_id": 1, "title": f"item {n}.{i}"}
                 for i in range(size)]
        sent = {"Link": f'<{LINK}?page={n + 1}&per_page={size}>; rel="next"'}
        if headers != "links":
            sent |= {"X-Page": str(n), "X-Per-Page": str(size), "X-Next-Page": str(n + 1)}
        if headers == "totals":
            sent |= {"X-Total-Pages": "500", "X-Total": str(500 * size)}
        return json_answer(items, headers=sent)
    return answer


def expected(pages: int, size: int = PER_PAGE) -> list[int]:
    return [n * 1000 + i for n in range(1, pages + 1) for i in range(size)]


@pytest.mark.parametrize(("headers", "mode"), [("offsets", "auto"), ("offsets", "sequential"),
                                               ("totals", "auto"), ("links", "auto")])
async def test_fetch_all_keeps_what_it_read_at_the_page_limit(headers: str, mode: str) -> None:
    app = build_app({"/projects": endless(headers)})
    async with ApiClient(hostile_settings(max_pages=25), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(PageLimit) as caught:
            await client.fetch_all("/projects", mode=mode, per_page=PER_PAGE)  # type: ignore[arg-type]
        notes = [e for e in client.request_log.entries if e.kind == "decode"]
    limit = caught.value
    assert isinstance(limit, PaginationLoop)  # callers that stop on a loop still stop
    assert [item["id"] for item in limit.items] == expected(25)  # pages 1 to 25, in order, each once
    assert limit.count == 500 and limit.partial == "first 500 (stopped at the page limit of 25 pages)"
    assert any("stopped at the page limit" in (e.error or "") for e in notes)
    assert len(app.calls) <= 25 + 8


async def test_fetch_all_counts_what_it_handed_on() -> None:
    app = build_app({"/projects": endless("offsets")})
    seen: list[Any] = []
    async with ApiClient(hostile_settings(max_pages=5), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(PageLimit) as caught:
            await client.fetch_all("/projects", per_page=PER_PAGE, on_items=seen.extend)
    assert caught.value.count == 100 and [i["id"] for i in seen] == expected(5) and caught.value.items == []


async def test_the_issues_service_hands_on_the_issues_it_read() -> None:
    app = build_app({"/issues": endless("offsets")})
    async with ApiClient(hostile_settings(max_pages=3), transport=httpx.ASGITransport(app=app)) as client:
        service = IssuesService(client)
        with pytest.raises(PageLimit) as caught:
            await service.load({})
        assert [issue.id for issue in caught.value.items] == expected(3, 100)
        assert caught.value.count == 300
        assert not service.has_cached({})  # a partial list is never cached as the whole one
