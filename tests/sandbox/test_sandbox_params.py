"""Contract document 1, conventions 4 and 5: query, form, multipart and JSON parameters, bracket arrays and
hashes; Grape's 400 shapes for missing and invalid parameters."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.sandbox.params import Params, decode_pairs

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}


def test_bracket_arrays_and_hashes_are_decoded() -> None:
    data = decode_pairs([("iids[]", "1"), ("iids[]", "2"), ("not[labels]", "x"), ("not[labels]", "y"),
                         ("custom_attributes[team]", "core"), ("not[assignee_ids][]", "4"),
                         ("not[assignee_ids][]", "5"), ("state", "opened")])
    assert data == {"iids": ["1", "2"], "not": {"labels": "y", "assignee_ids": ["4", "5"]},
                    "custom_attributes": {"team": "core"}, "state": "opened"}


def test_typed_getters_follow_grape() -> None:
    params = Params({"per_page": "5", "archived": "true", "simple": "0", "ids": "1,2", "bad": "x"})
    assert params.int("per_page") == 5 and params.bool("archived") is True and params.bool("simple") is False
    assert params.int_list("ids") == [1, 2]
    with pytest.raises(Exception) as caught:
        params.int("bad")
    assert caught.value.body == {"error": "bad is invalid"}


async def test_query_brackets_reach_the_routes(client: httpx.AsyncClient) -> None:
    echo = await client.get("/-/sandbox/echo?iids[]=1&iids[]=2&not[labels]=bug&custom_attributes[k]=v")
    assert echo.json() == {"iids": ["1", "2"], "not": {"labels": "bug"}, "custom_attributes": {"k": "v"}}


async def test_skip_groups_array_filters_the_group_listing(client: httpx.AsyncClient) -> None:
    everything = (await client.get("/api/v4/groups", headers=ROOT)).json()
    skipped = [g["id"] for g in everything[:2]]
    response = await client.get("/api/v4/groups", headers=ROOT,
                                params=[("skip_groups[]", str(i)) for i in skipped])
    assert {g["id"] for g in response.json()} == {g["id"] for g in everything} - set(skipped)


async def test_custom_attributes_hash_filters_users(client: httpx.AsyncClient, app: Starlette) -> None:
    store = app.state.store
    store.user_by_username("bob").custom_attributes["team"] = "core"
    response = await client.get("/api/v4/users", headers=ROOT, params={"custom_attributes[team]": "core"})
    assert [u["username"] for u in response.json()] == ["bob"]


@pytest.mark.parametrize("kind", ["json", "form", "multipart", "query"])
async def test_post_accepts_every_body_kind(client: httpx.AsyncClient, kind: str) -> None:
    fields = {"name": f"Made by {kind}", "path": f"made-by-{kind}", "visibility": "internal"}
    if kind == "json":
        response = await client.post("/api/v4/groups", headers=ROOT, json=fields)
    elif kind == "form":
        response = await client.post("/api/v4/groups", headers=ROOT, data=fields)
    elif kind == "multipart":
        response = await client.post("/api/v4/groups", headers=ROOT, data=fields,
                                     files={"avatar": ("a.png", b"\x89PNG", "image/png")})
    else:
        response = await client.post("/api/v4/groups", headers=ROOT, params=fields)
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["path"], body["visibility"], body["name"]) == (fields["path"], "internal", fields["name"])
    again = await client.get(f"/api/v4/groups/made-by-{kind}", headers=ROOT)
    assert again.status_code == 200


async def test_echo_reports_json_and_multipart_bodies(client: httpx.AsyncClient) -> None:
    as_json = await client.post("/-/sandbox/echo?a=1", json={"labels": ["x", "y"], "b": {"c": 2}})
    assert as_json.json() == {"a": "1", "labels": ["x", "y"], "b": {"c": 2}}
    multipart = await client.post("/-/sandbox/echo", data={"tags[]": ["a", "b"]},
                                  files={"file": ("export.tar.gz", b"data")})
    assert multipart.json() == {"tags": ["a", "b"], "file": {"filename": "export.tar.gz"}}


async def test_missing_required_attributes_are_400_in_grape_shape(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/groups", headers=ROOT, json={"path": "only-path"})
    assert (response.status_code, response.json()) == (400, {"error": "name is missing"})
    both = await client.post("/api/v4/groups", headers=ROOT, data={})
    assert both.json() == {"error": "name is missing, path is missing"}


async def test_taken_path_is_a_validation_error(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/groups", headers=ROOT, json={"name": "Acme", "path": "acme"})
    assert response.status_code == 400
    assert response.json() == {"message": {"path": ["has already been taken"]}}


async def test_post_needs_auth(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/groups", json={"name": "x", "path": "x"})
    assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"})


async def test_bad_json_body_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/groups", headers={**ROOT, "Content-Type": "application/json"},
                                 content=b"{not json")
    assert response.status_code == 400
