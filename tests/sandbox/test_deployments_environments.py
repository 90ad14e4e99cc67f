"""Environments and protected environments conformance over HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer in acme
FRANK = {"PRIVATE-TOKEN": "glpat-sandbox-root", "Sudo": "frank"}  # Maintainer in acme
API = "/api/v4"
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
PROTECTED = f"{API}/projects/{GATEWAY}/protected_environments"
ENVIRONMENTS = f"{API}/projects/{GATEWAY}/environments"


def _user_id(app: Starlette, username: str) -> int:
    return int(app.state.store.user_by_username(username).id)


def _group_id(app: Starlette, path: str) -> int:
    return int(app.state.store.group_by_path(path).id)


async def test_environments_listing_and_filters(client: httpx.AsyncClient) -> None:
    response = await client.get(ENVIRONMENTS, headers=ROOT)
    assert response.status_code == 200
    names = [e["name"] for e in response.json()]
    assert names[:2] == ["production", "staging"]
    assert sum(n.startswith("review/") for n in names) == 3
    production = response.json()[0]
    assert production["tier"] == "production" and production["state"] == "available"
    assert production["external_url"] == "https://gateway.acme.example"
    assert {"id", "name", "slug", "external_url", "state", "tier", "created_at",
            "updated_at"} <= set(production)
    stopped = await client.get(ENVIRONMENTS, params={"states": "stopped"}, headers=ROOT)
    assert [e["state"] for e in stopped.json()] == ["stopped"]
    searched = await client.get(ENVIRONMENTS, params={"search": "review"}, headers=ROOT)
    assert len(searched.json()) == 3
    named = await client.get(ENVIRONMENTS, params={"name": "staging"}, headers=ROOT)
    assert [e["name"] for e in named.json()] == ["staging"]


@pytest.mark.parametrize(("params", "body"), [
    ({"name": "a", "search": "abc"}, {"error": "name, search are mutually exclusive"}),
    ({"search": "ab"}, {"message": "400 Bad request - Search query must be at least 3 characters"}),
    ({"states": "gone"}, {"message": "400 Bad request - Requested states are invalid"}),
])
async def test_environment_listing_errors(client: httpx.AsyncClient, params: dict[str, str],
                                          body: dict[str, str]) -> None:
    response = await client.get(ENVIRONMENTS, params=params, headers=ROOT)
    assert (response.status_code, response.json()) == (400, body)


async def test_environment_detail_has_last_successful_deployment(client: httpx.AsyncClient) -> None:
    production = (await client.get(ENVIRONMENTS, params={"name": "production"}, headers=ROOT)).json()[0]
    detail = (await client.get(f"{ENVIRONMENTS}/{production['id']}", headers=ROOT)).json()
    successes = (await client.get(f"{API}/projects/{GATEWAY}/deployments", headers=ROOT, params={
        "environment": "production", "status": "success", "order_by": "created_at", "sort": "desc",
        "per_page": 1})).json()
    assert detail["last_deployment"]["id"] == successes[0]["id"]
    assert detail["project"]["path_with_namespace"] == "acme/platform/api-gateway"
    missing = await client.get(f"{ENVIRONMENTS}/99999", headers=ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Environment Not Found"})


async def test_protected_environments_list_and_read(client: httpx.AsyncClient) -> None:
    response = await client.get(PROTECTED, headers=FRANK)
    assert response.status_code == 200
    first = response.json()[0]
    assert first == {"name": "production", "deploy_access_levels": [
        {"id": first["deploy_access_levels"][0]["id"], "access_level": 40,
         "access_level_description": "Maintainers", "user_id": None, "group_id": None,
         "group_inheritance_type": 0}], "required_approval_count": 0, "approval_rules": []}
    staging = await client.get(f"{PROTECTED}/staging", headers=ROOT)
    assert [r["access_level_description"] for r in staging.json()["deploy_access_levels"]] == [
        "Developers + Maintainers", "Carol Danvers"]
    missing = await client.get(f"{PROTECTED}/nope", headers=ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Not found"})


async def test_protected_environments_need_maintainer(client: httpx.AsyncClient) -> None:
    assert (await client.get(PROTECTED, headers=ALICE)).status_code == 403
    post = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": [{"access_level": 40}]},
                             headers=ALICE)
    assert (post.status_code, post.json()) == (403, {"message": "403 Forbidden"})
    assert (await client.delete(f"{PROTECTED}/production", headers=ALICE)).status_code == 403
    assert (await client.get(PROTECTED)).status_code == 401


async def test_create_each_kind_and_delete(app: Starlette, client: httpx.AsyncClient) -> None:
    alice, opensource = _user_id(app, "alice"), _group_id(app, "opensource")
    body = {"name": "review/*", "deploy_access_levels": [{"access_level": 60}, {"user_id": alice},
                                                          {"group_id": opensource}]}
    response = await client.post(PROTECTED, json=body, headers=FRANK)
    assert response.status_code == 201
    created = response.json()
    ids = [rule.pop("id") for rule in created["deploy_access_levels"]]
    assert len(set(ids)) == 3 and all(isinstance(i, int) for i in ids)
    assert created == {"name": "review/*", "deploy_access_levels": [
        {"access_level": 60, "access_level_description": "Administrators", "user_id": None, "group_id": None,
         "group_inheritance_type": 0},
        {"access_level": None, "access_level_description": "Alice Liddell", "user_id": alice,
         "group_id": None, "group_inheritance_type": 0},
        {"access_level": None, "access_level_description": "Open Source", "user_id": None,
         "group_id": opensource, "group_inheritance_type": 0}], "required_approval_count": 0,
        "approval_rules": []}
    read = await client.get(f"{PROTECTED}/review%2F%2A", headers=FRANK)
    assert read.json()["name"] == "review/*"
    taken = await client.post(PROTECTED, json=body, headers=FRANK)
    assert (taken.status_code, taken.json()) == (400, {"message": {"name": ["has already been taken"]}})
    deleted = await client.delete(f"{PROTECTED}/review%2F%2A", headers=FRANK)
    assert deleted.status_code == 204
    assert (await client.get(f"{PROTECTED}/review%2F%2A", headers=FRANK)).status_code == 404
    assert (await client.delete(f"{PROTECTED}/review%2F%2A", headers=FRANK)).status_code == 404


async def test_form_encoded_rules_are_accepted(client: httpx.AsyncClient) -> None:
    response = await client.post(PROTECTED, data={"name": "qa", "deploy_access_levels[0][access_level]": "30",
                                                        "deploy_access_levels[1][user_id]": "2"},
                                 headers=ROOT)
    assert response.status_code == 201, response.text
    assert [(r["access_level"], r["user_id"]) for r in response.json()["deploy_access_levels"]] == [
        (30, None), (None, 2)]


@pytest.mark.parametrize(("rules", "error"), [
    ([{}], "deploy_access_levels[0][access_level], deploy_access_levels[0][user_id], "
           "deploy_access_levels[0][group_id] are missing, exactly one parameter must be provided"),
    ([{"access_level": 40, "user_id": 2}],
     "deploy_access_levels[0][access_level], deploy_access_levels[0][user_id] are mutually exclusive"),
    ([{"access_level": 40}, {"access_level": 50}],
     "deploy_access_levels[1][access_level] does not have a valid value"),
    ([{"user_id": "me"}], "deploy_access_levels[0][user_id] is invalid"),
])
async def test_rule_shape_errors(client: httpx.AsyncClient, rules: list[dict[str, Any]], error: str) -> None:
    response = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": rules}, headers=ROOT)
    assert (response.status_code, response.json()) == (400, {"error": error})


async def test_required_parameters(client: httpx.AsyncClient) -> None:
    response = await client.post(PROTECTED, json={}, headers=ROOT)
    assert response.json() == {"error": "name is missing, deploy_access_levels is missing"}
    bad = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": "40"}, headers=ROOT)
    assert bad.json() == {"error": "deploy_access_levels is invalid"}


async def test_user_without_access_and_group_not_shared(app: Starlette, client: httpx.AsyncClient) -> None:
    outsider = next(u.id for u in app.state.store.users.values()
                    if u.id > 20 and 1 not in app.state.store.project_levels(u.id))
    user = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": [{"user_id": outsider}]},
                             headers=ROOT)
    assert (user.status_code, user.json()) == (
        400, {"message": {"deploy_access_levels.user": ["must have access to the project"]}})
    hidden = _group_id(app, "hidden-lab")
    group = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": [{"group_id": hidden}]},
                              headers=ROOT)
    assert (group.status_code, group.json()) == (
        400, {"message": {"deploy_access_levels.group": ["must have the project shared with it"]}})
    unknown = await client.post(PROTECTED, json={"name": "x", "deploy_access_levels": [{"user_id": 99999}]},
                                headers=ROOT)
    assert unknown.status_code == 400
    assert (await client.get(f"{PROTECTED}/x", headers=ROOT)).status_code == 404
