"""Contract document 1, Limits: offset pagination headers and Link URLs, the >10,000 omission, keyset
pagination of /projects to the end, and the errors for unsupported keyset orders."""

from __future__ import annotations

import re

import httpx
import pytest

from labdeck.sandbox import http as sandbox_http

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}


def links(response: httpx.Response) -> dict[str, str]:
    return {rel: url for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', response.headers.get("link", ""))}


async def test_offset_page_headers_and_full_link_urls(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/users", headers=ROOT, params={"per_page": 5, "page": 2})
    total = len((await client.get("/api/v4/users", headers=ROOT, params={"per_page": 100})).json())
    assert len(response.json()) == 5
    h = response.headers
    assert (h["x-page"], h["x-per-page"], h["x-prev-page"], h["x-next-page"]) == ("2", "5", "1", "3")
    assert h["x-total"] == str(total)
    assert h["x-total-pages"] == str(-(-total // 5))
    rels = links(response)
    assert set(rels) == {"prev", "next", "first", "last"}
    assert rels["next"].startswith("http://sandbox.test/api/v4/users?")
    assert "page=3" in rels["next"] and "per_page=5" in rels["next"]
    assert "page=1" in rels["first"] and f"page={h['x-total-pages']}" in rels["last"]


async def test_following_next_links_visits_every_record_once(client: httpx.AsyncClient) -> None:
    url: str | None = "/api/v4/users?per_page=4&order_by=id&sort=asc"
    seen: list[int] = []
    while url:
        response = await client.get(url, headers=ROOT)
        seen += [u["id"] for u in response.json()]
        url = links(response).get("next")
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == 34  # the tiny scale's users


async def test_first_and_last_pages_have_empty_prev_and_next(client: httpx.AsyncClient) -> None:
    first = await client.get("/api/v4/users", headers=ROOT, params={"per_page": 10})
    assert first.headers["x-prev-page"] == "" and "prev" not in links(first)
    last_page = first.headers["x-total-pages"]
    last = await client.get("/api/v4/users", headers=ROOT, params={"per_page": 10, "page": last_page})
    assert last.headers["x-next-page"] == "" and "next" not in links(last)


async def test_per_page_defaults_to_20_and_is_capped_at_100(client: httpx.AsyncClient) -> None:
    default = await client.get("/api/v4/users", headers=ROOT)
    assert default.headers["x-per-page"] == "20" and len(default.json()) == 20
    capped = await client.get("/api/v4/users", headers=ROOT, params={"per_page": 1000})
    assert capped.headers["x-per-page"] == "100"
    assert "per_page=100" in links(capped)["first"] and "per_page=1000" not in capped.headers["link"]


async def test_links_use_the_request_base_url_and_drop_tokens(client: httpx.AsyncClient) -> None:
    response = await client.get("http://other.example:8123/api/v4/users",
                                params={"per_page": 3, "private_token": "glpat-sandbox-root"})
    rels = links(response)
    assert rels["next"].startswith("http://other.example:8123/api/v4/users?")
    assert "glpat" not in response.headers["link"]


async def test_totals_and_last_are_omitted_above_the_count_limit(client: httpx.AsyncClient,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_http, "COUNT_LIMIT", 10)
    response = await client.get("/api/v4/users", headers=ROOT, params={"per_page": 5})
    assert "x-total" not in response.headers and "x-total-pages" not in response.headers
    assert set(links(response)) == {"next", "first"}
    assert response.headers["x-next-page"] == "2"


async def test_keyset_pagination_of_projects_to_the_end(client: httpx.AsyncClient) -> None:
    everything = (await client.get("/api/v4/projects", headers=ROOT, params={"per_page": 100})).json()
    url: str | None = "/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=3"
    seen: list[int] = []
    last: httpx.Response | None = None
    while url:
        last = await client.get(url, headers=ROOT)
        assert last.status_code == 200
        seen += [p["id"] for p in last.json()]
        assert "x-total" not in last.headers and "x-page" not in last.headers
        if "link" in last.headers:
            assert last.headers["links"] == last.headers["link"]
            assert "id_after=" in last.headers["link"]
        url = links(last).get("next")
    assert seen == sorted(p["id"] for p in everything)
    assert last is not None and "link" not in last.headers


async def test_keyset_reaches_an_empty_page_after_a_full_last_page(client: httpx.AsyncClient) -> None:
    total = len((await client.get("/api/v4/projects", headers=ROOT, params={"per_page": 100})).json())
    first = await client.get("/api/v4/projects", headers=ROOT,
                             params={"pagination": "keyset", "order_by": "id", "per_page": total})
    assert len(first.json()) == total
    end = await client.get(links(first)["next"], headers=ROOT)
    assert end.json() == [] and "link" not in end.headers


async def test_keyset_descending_uses_id_before(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects", headers=ROOT, params={
        "pagination": "keyset", "order_by": "id", "sort": "desc", "per_page": 2})
    ids = [p["id"] for p in response.json()]
    assert ids == sorted(ids, reverse=True)
    assert f"id_before={ids[-1]}" in links(response)["next"]


@pytest.mark.parametrize("params", [{"order_by": "name"}, {}])
async def test_keyset_with_another_order_is_405(client: httpx.AsyncClient, params: dict[str, str]) -> None:
    response = await client.get("/api/v4/projects", params={"pagination": "keyset", **params})
    assert response.status_code == 405
    assert response.json() == {"error": "Keyset pagination is not yet available for this type of request"}


async def test_unknown_order_is_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects", params={"pagination": "keyset", "order_by": "bogus"})
    assert response.status_code == 400
    assert response.json() == {"error": "order_by does not have a valid value"}


async def test_non_integer_page_is_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects", params={"page": "two"})
    assert (response.status_code, response.json()) == (400, {"error": "page is invalid"})
