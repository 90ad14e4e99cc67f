"""Conformance of the repository tag routes: ordering, `^`/`$` search, anonymous reads of public projects,
lightweight and annotated creation, the 405 refusals with their messages, and deletion."""

from __future__ import annotations

import httpx
from gitlab_entities import fields

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer (30) in acme
TAGS = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/repository/tags"


async def names(client: httpx.AsyncClient, **params: str) -> list[str]:
    response = await client.get(TAGS, params=params)
    assert response.status_code == 200
    return [tag["name"] for tag in response.json()]


async def test_anonymous_listing_of_a_public_project_by_update_desc(client: httpx.AsyncClient) -> None:
    response = await client.get(TAGS)
    assert response.status_code == 200 and response.headers["x-total"] == "3"
    tags = response.json()
    assert [t["name"] for t in tags] == ["v1.0.0-rc1", "v0.2.0", "v0.1.0"]
    dates = [t["commit"]["committed_date"] for t in tags]
    assert dates == sorted(dates, reverse=True)
    assert set(tags[0]) == {"commit", "release", "name", "target", "message", "protected", "created_at"}
    assert set(tags[0]["commit"]) == fields("Commit")  # GitLab's Commit entity, web_url included


async def test_order_sort_and_search(client: httpx.AsyncClient) -> None:
    assert await names(client, order_by="name", sort="asc") == ["v0.1.0", "v0.2.0", "v1.0.0-rc1"]
    assert await names(client, order_by="updated", sort="asc") == ["v0.1.0", "v0.2.0", "v1.0.0-rc1"]
    assert await names(client, search="^v0") == ["v0.2.0", "v0.1.0"]
    assert await names(client, search="rc1$") == ["v1.0.0-rc1"]
    assert await names(client, search="^rc1") == []
    assert await names(client, search="2.0") == ["v0.2.0"]
    bad = await client.get(TAGS, params={"order_by": "size"})
    assert (bad.status_code, bad.json()) == (400, {"error": "order_by does not have a valid value"})


async def test_tags_point_at_real_commits(client: httpx.AsyncClient) -> None:
    tag = (await client.get(f"{TAGS}/v0.1.0")).json()
    assert tag["message"] is None and tag["target"] == tag["commit"]["id"] and tag["release"] is None
    annotated = (await client.get(f"{TAGS}/v0.2.0")).json()
    assert annotated["message"] == "Release v0.2.0" and annotated["target"] != annotated["commit"]["id"]
    assert annotated["release"] == {"tag_name": "v0.2.0", "description": "First public release"}
    assert annotated["protected"] is True
    parent = annotated["commit"]["parent_ids"][0]
    assert tag["commit"]["id"] == parent  # v0.1.0 is the commit before v0.2.0's
    missing = await client.get(f"{TAGS}/v9")
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Tag Not Found"})


async def test_private_project_tags_need_access(client: httpx.AsyncClient) -> None:
    path = "/api/v4/projects/acme%2Fsecurity%2Fvault/repository/tags"
    assert (await client.get(path)).status_code == 404
    assert (await client.get(path, headers=ALICE)).status_code == 200


async def test_create_lightweight_and_annotated(client: httpx.AsyncClient) -> None:
    light = await client.post(TAGS, headers=ALICE, json={"tag_name": "v2.0.0", "ref": "main"})
    assert light.status_code == 201
    body = light.json()
    main_tip = (await client.get(f"{TAGS}/v1.0.0-rc1")).json()["commit"]["id"]
    assert body["commit"]["id"] == main_tip and body["message"] is None and body["target"] == main_tip
    annotated = await client.post(TAGS, headers=ALICE, data={"tag_name": "v2.1.0", "ref": "develop",
                                                             "message": "Second"})
    assert annotated.status_code == 201
    assert annotated.json()["message"] == "Second" and annotated.json()["target"] != main_tip
    by_sha = await client.post(TAGS, headers=ALICE, json={"tag_name": "old", "ref": main_tip[:10]})
    assert by_sha.json()["commit"]["id"] == main_tip
    by_tag = await client.post(TAGS, headers=ALICE, json={"tag_name": "copy", "ref": "v0.1.0"})
    assert by_tag.status_code == 201
    assert "v2.0.0" in await names(client, search="^v2")


async def test_create_refusals_are_405_with_a_message(client: httpx.AsyncClient) -> None:
    taken = await client.post(TAGS, headers=ALICE, json={"tag_name": "v0.1.0", "ref": "main"})
    assert (taken.status_code, taken.json()) == (405, {"message": "Tag v0.1.0 already exists"})
    target = await client.post(TAGS, headers=ALICE, json={"tag_name": "v3", "ref": "nope"})
    assert (target.status_code, target.json()) == (405, {"message": "Target nope is invalid"})
    name = await client.post(TAGS, headers=ALICE, json={"tag_name": "bad name", "ref": "main"})
    assert (name.status_code, name.json()) == (405, {"message": "Tag name invalid"})
    missing = await client.post(TAGS, headers=ALICE, json={})
    assert (missing.status_code, missing.json()) == (400, {"error": "tag_name is missing, ref is missing"})
    reporter = await client.post(TAGS, headers={**ROOT, "Sudo": "bob"}, json={"tag_name": "x", "ref": "main"})
    assert reporter.status_code == 403
    anonymous = await client.post(TAGS, json={"tag_name": "x", "ref": "main"})
    assert anonymous.status_code == 401


async def test_delete(client: httpx.AsyncClient) -> None:
    deleted = await client.delete(f"{TAGS}/v0.1.0", headers=ALICE)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert (await client.get(f"{TAGS}/v0.1.0")).status_code == 404
    assert (await client.delete(f"{TAGS}/v0.1.0", headers=ALICE)).status_code == 404
    protected = await client.delete(f"{TAGS}/v0.2.0", headers=ALICE)
    assert protected.status_code == 403
    assert (await client.delete(f"{TAGS}/v0.2.0", headers=ROOT)).status_code == 204


async def test_slash_in_a_tag_name(client: httpx.AsyncClient) -> None:
    created = await client.post(TAGS, headers=ALICE, json={"tag_name": "release/1.0", "ref": "main"})
    assert created.status_code == 201
    fetched = await client.get(f"{TAGS}/release%2F1.0")
    assert fetched.json()["name"] == "release/1.0"
    assert (await client.delete(f"{TAGS}/release%2F1.0", headers=ALICE)).status_code == 204


async def test_tags_carry_created_at(client: httpx.AsyncClient) -> None:
    """GitLab's tag entity has `created_at`: the annotated tag's date; null for a lightweight tag."""
    base = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/repository/tags"
    tags = {t["name"]: t for t in (await client.get(base, headers=ROOT)).json()}
    assert all("created_at" in t for t in tags.values())
    assert tags["v0.2.0"]["created_at"] is not None and tags["v0.1.0"]["created_at"] is None
    made = await client.post(base, headers=ROOT,
                             json={"tag_name": "v9.0.0", "ref": "main", "message": "Nine"})
    assert made.status_code == 201 and made.json()["created_at"] is not None
