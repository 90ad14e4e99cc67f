"""The scale sandbox over HTTP (issue 25): a million issues, users and projects served without building
them, with GitLab's behaviour above 10,000 records (no totals, no `rel="last"`), offset limits, keyset
pagination where GitLab has it, and filters and orders that work on the virtual data."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from labdeck.api.pagination import parse_link_header
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
MILLION = 1_000_000


def _client(options: SandboxOptions) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(create_app(options)),
                             base_url="http://sandbox.test/api/v4", headers=ROOT)


@pytest.fixture(scope="module")
def huge_options() -> SandboxOptions:
    return SandboxOptions(scale="huge", async_delay=0.05)


@pytest.fixture
async def http(huge_options: SandboxOptions) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(huge_options) as client:
        yield client


async def _get(http: httpx.AsyncClient, url: str, **params: Any) -> httpx.Response:
    response = await http.get(url, params=params)
    assert response.status_code == 200, response.text
    return response


def test_huge_scale_means_a_million_of_each() -> None:
    options = SandboxOptions(scale="huge")
    assert (options.virtual_issues, options.virtual_users, options.virtual_projects) == (MILLION,) * 3
    assert SandboxOptions(virtual_users=5).virtual_issues == 0
    with pytest.raises(ValueError):
        SandboxOptions(virtual_users=-1)


async def test_above_ten_thousand_records_there_are_no_totals(http: httpx.AsyncClient) -> None:
    response = await _get(http, "/issues", scope="all", per_page=100)
    assert "x-total" not in response.headers and "x-total-pages" not in response.headers
    links = parse_link_header(response.headers["link"])
    assert "last" not in links and "next" in links
    assert response.headers["x-next-page"] == "2"
    issues = response.json()
    assert [i["id"] for i in issues] == list(range(MILLION, MILLION - 100, -1))  # newest first
    deep = (await _get(http, "/issues", scope="all", per_page=100, page=9_000)).json()
    assert deep[0]["id"] == MILLION - 8_999 * 100
    last = await _get(http, "/issues", scope="all", per_page=100, page=10_000)
    assert last.json()[-1]["id"] == 1 and last.headers["x-next-page"] == ""
    assert (await _get(http, "/issues", scope="all", per_page=100, page=10_001)).json() == []


async def test_records_are_deterministic_for_the_seed(huge_options: SandboxOptions) -> None:
    async with _client(huge_options) as one, _client(huge_options) as two:
        first = (await _get(one, "/issues", scope="all", page=777)).content
        assert first == (await _get(two, "/issues", scope="all", page=777)).content
    async with _client(SandboxOptions(scale="huge", seed=2)) as other:
        titles = [i["title"] for i in (await _get(other, "/issues", scope="all", page=777)).json()]
    assert titles != [i["title"] for i in httpx.Response(200, content=first).json()]


async def test_issue_filters_work_on_the_virtual_data(http: httpx.AsyncClient) -> None:
    params = {"scope": "all", "state": "closed", "labels": "bug", "search": "parser", "per_page": 100,
              "with_labels_details": "true"}
    first = await _get(http, "/issues", **params)
    total = int(first.headers["x-total"])  # few enough to be counted
    assert 0 < total <= 10_000
    seen: list[dict[str, Any]] = []
    for page in range(1, int(first.headers["x-total-pages"]) + 1):
        seen += (await _get(http, "/issues", **params, page=page)).json()
    assert len(seen) == total == len({i["id"] for i in seen})
    assert all(i["state"] == "closed" and "parser" in i["title"].lower()
               and "bug" in [label["name"] for label in i["labels"]] for i in seen)
    ids = [i["id"] for i in seen]
    assert ids == sorted(ids, reverse=True)
    none = await _get(http, "/issues", scope="all", labels="no-such-label")
    assert none.json() == [] and none.headers["x-total"] == "0"
    not_bug = (await _get(http, "/issues", scope="all", per_page=100, **{"not[labels]": "bug"})).json()
    assert not_bug and all("bug" not in i["labels"] for i in not_bug)


async def test_issue_author_filter_and_title_order(http: httpx.AsyncClient) -> None:
    one = (await _get(http, "/issues", scope="all", per_page=1)).json()[0]["author"]
    by_author = await _get(http, "/issues", scope="all", author_username=one["username"], per_page=100)
    assert {i["author"]["id"] for i in by_author.json()} == {one["id"]}
    by_id = await _get(http, "/issues", scope="all", author_id=one["id"], per_page=100)
    assert by_id.json() == by_author.json()
    pages = [(await _get(http, "/issues", scope="all", order_by="title", sort="asc", per_page=100,
                         page=page)).json() for page in (1, 2)]
    keys = [(i["title"].lower(), i["id"]) for i in pages[0] + pages[1]]
    assert keys == sorted(keys)


async def test_users_keyset_follows_an_opaque_cursor(http: httpx.AsyncClient) -> None:
    url: str | None = "/users?pagination=keyset&order_by=username&sort=asc&per_page=50"
    names: list[str] = []
    for _ in range(3):
        assert url is not None
        response = await http.get(url)
        assert response.status_code == 200
        assert "x-total" not in response.headers and "x-page" not in response.headers
        names += [u["username"] for u in response.json()]
        url = parse_link_header(response.headers.get("link")).get("next")
        assert url is not None and "cursor=" in url
    assert names == sorted(names) and len(set(names)) == 150
    refused = await http.get("/users", params={"pagination": "keyset", "order_by": "created_at"})
    assert refused.status_code == 405


async def test_user_filters(http: httpx.AsyncClient) -> None:
    some = (await _get(http, "/users", per_page=5)).json()
    assert some[0]["id"] == MILLION and "email" in some[0]  # administrators see the full record
    exact = await _get(http, "/users", username=some[2]["username"])
    assert [u["id"] for u in exact.json()] == [some[2]["id"]] and exact.headers["x-total"] == "1"
    found = await _get(http, "/users", search="ada ab", per_page=100)
    assert 500 < int(found.headers["x-total"]) < 2_000  # one name in 1,024: under 10,000, so counted
    assert found.json() and all("ada ab" in u["name"].lower() for u in found.json())
    blocked = (await _get(http, "/users", blocked="true", per_page=100)).json()
    assert blocked and all(u["state"] == "blocked" for u in blocked)


async def test_projects_offset_limit_and_keyset_by_id(http: httpx.AsyncClient) -> None:
    refused = await http.get("/projects", params={"page": 501, "per_page": 100})
    assert refused.status_code == 405 and "keyset" in refused.json()["error"]
    url: str | None = "/projects?pagination=keyset&order_by=id&sort=asc&per_page=100&visibility=public"
    ids: list[int] = []
    for _ in range(3):
        assert url is not None
        response = await http.get(url)
        page = response.json()
        assert all(p["visibility"] == "public" for p in page)
        ids += [p["id"] for p in page]
        url = parse_link_header(response.headers.get("link")).get("next")
    assert ids == sorted(ids) and len(set(ids)) == 300
    deep = (await _get(http, "/projects", pagination="keyset", order_by="id", sort="desc",
                       id_before=600_001, per_page=2)).json()
    assert [p["id"] for p in deep] == [600_000, 599_999]
    searched = (await _get(http, "/projects", search="parser", per_page=50)).json()
    assert searched and all("parser" in p["path"] for p in searched)


async def test_only_the_listings_are_virtual() -> None:
    async with _client(SandboxOptions(scale="tiny", virtual_users=50)) as http:
        users = await _get(http, "/users", per_page=100)
        assert users.headers["x-total"] == "50"
        issues = await _get(http, "/issues", scope="all")  # the seeded ones
        assert int(issues.headers["x-total"]) < 1000
