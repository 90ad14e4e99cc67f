"""`PUT /projects/:id/protected_environments/:name` over HTTP (issue 32 item 3), as GitLab 15.4+ answers it
(`ee/lib/api/protected_environments.rb`, `doc/api/protected_environments.md` "Update a protected
environment", gitlab#351854): nested rules changed by `id`, dropped with `_destroy`, added without `id`;
GitLab's 400s, 404s and 422s; unqualified users and groups left out; 404 before 15.4 and on CE."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer in acme
API = "/api/v4"
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
PROTECTED = f"{API}/projects/{GATEWAY}/protected_environments"
STAGING = f"{PROTECTED}/staging"  # seeded: Developers + Maintainers, and carol
CATCH_ALL = {"error": "404 Not Found"}


def sandbox(**options: Any) -> Starlette:
    return create_app(SandboxOptions(scale="tiny", **options), clock=ManualClock())


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(sandbox()), base_url="http://sandbox.test",
                                 headers=ROOT) as http:
        yield http


async def rules(client: httpx.AsyncClient, url: str = STAGING) -> list[dict[str, Any]]:
    response = await client.get(url)
    assert response.status_code == 200, response.text
    return list(response.json()["deploy_access_levels"])


def who(rule: dict[str, Any]) -> tuple[Any, Any, Any]:
    return rule["access_level"], rule["user_id"], rule["group_id"]


async def test_one_put_adds_changes_and_drops_rules_keeping_ids(client: httpx.AsyncClient) -> None:
    developers, carol = await rules(client)
    body = {"deploy_access_levels": [{"access_level": 60},  # added
                                     {"id": developers["id"], "access_level": 40},  # changed in place
                                     {"id": carol["id"], "_destroy": True}]}  # dropped
    response = await client.put(STAGING, json=body)
    assert response.status_code == 200, response.text
    answered = response.json()
    assert answered["name"] == "staging" and answered["approval_rules"] == []
    levels = answered["deploy_access_levels"]
    assert [who(r) for r in levels] == [(40, None, None), (60, None, None)]
    assert levels[0]["id"] == developers["id"] and levels[0]["access_level_description"] == "Maintainers"
    assert levels[1]["id"] not in (developers["id"], carol["id"])
    assert await rules(client) == levels


async def test_form_encoded_entries_are_read_as_nested_records(client: httpx.AsyncClient) -> None:
    _developers, carol = await rules(client)
    response = await client.put(STAGING, data={"deploy_access_levels[0][id]": str(carol["id"]),
                                               "deploy_access_levels[0][_destroy]": "true"})
    assert response.status_code == 200, response.text
    assert [who(r) for r in response.json()["deploy_access_levels"]] == [(30, None, None)]


async def test_an_id_of_another_protection_is_404_and_nothing_changes(client: httpx.AsyncClient) -> None:
    production = await rules(client, f"{PROTECTED}/production")
    before = await rules(client)
    for entry in ({"id": production[0]["id"], "_destroy": True}, {"id": 99999, "access_level": 60}):
        response = await client.put(STAGING, json={"deploy_access_levels": [{"access_level": 60}, entry]})
        assert (response.status_code, response.json()) == (404, {"message": "404 Not found"})
    assert await rules(client) == before
    assert await rules(client, f"{PROTECTED}/production") == production


async def test_the_models_refusals_are_422_and_change_nothing(client: httpx.AsyncClient) -> None:
    developers, carol = await rules(client)
    every = [{"id": developers["id"], "_destroy": True}, {"id": carol["id"], "_destroy": True}]
    emptied = await client.put(STAGING, json={"deploy_access_levels": every})
    assert (emptied.status_code, emptied.json()) == (
        422, {"message": ["Deploy access levels is too short (minimum is 1 character)"]})
    both = await client.put(STAGING, json={"deploy_access_levels": [{"id": developers["id"], "user_id": 2}]})
    assert (both.status_code, both.json()) == (422, {"message": [
        "Deploy access levels base Only one of the Group ID, User ID or Access Level must be specified."]})
    none = await client.put(STAGING, json={"deploy_access_levels": [{"group_inheritance_type": 1}]})
    assert none.status_code == 422
    assert [r["id"] for r in await rules(client)] == [developers["id"], carol["id"]]


@pytest.mark.parametrize(("body", "error"), [
    ({"deploy_access_levels": [{"access_level": 50}]},
     "deploy_access_levels[0][access_level] does not have a valid value"),
    ({"deploy_access_levels": [{"access_level": 40}, {"user_id": "me"}]},
     "deploy_access_levels[1][user_id] is invalid"),
    ({"deploy_access_levels": [{"user_id": "²"}]}, "deploy_access_levels[0][user_id] is invalid"),
    ({"deploy_access_levels": [{"id": 1, "_destroy": "perhaps"}]},
     "deploy_access_levels[0][_destroy] is invalid"),
    ({"deploy_access_levels": "40"}, "deploy_access_levels is invalid"),
    ({"approval_rules": [{"required_approvals": 2}]},
     "approval_rules[0][access_level], approval_rules[0][user_id], approval_rules[0][group_id] are missing, "
     "at least one parameter must be provided"),
])
async def test_grapes_parameter_errors_are_400(client: httpx.AsyncClient, body: dict[str, Any],
                                               error: str) -> None:
    before = await rules(client)
    response = await client.put(STAGING, json=body)
    assert (response.status_code, response.json()) == (400, {"error": error})
    assert await rules(client) == before


async def test_a_user_without_access_or_a_group_not_shared_is_left_out() -> None:
    app = sandbox()
    store = app.state.store
    gateway = store.project_by_path("acme/platform/api-gateway")
    outsider = next(u.id for u in store.users.values() if store.project_levels(u.id).get(gateway.id, 0) < 30)
    hidden = store.group_by_path("hidden-lab").id
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test",
                                 headers=ROOT) as client:
        before = await rules(client)
        response = await client.put(STAGING, json={"deploy_access_levels": [{"user_id": outsider},
                                                                            {"group_id": hidden}]})
        assert response.status_code == 200  # as GitLab: no word, nothing added
        assert response.json()["deploy_access_levels"] == before


async def test_who_may_and_what_is_not_there(client: httpx.AsyncClient) -> None:
    body = {"deploy_access_levels": [{"access_level": 60}]}
    assert (await client.put(STAGING, json=body, headers=ALICE)).json() == {"message": "403 Forbidden"}
    anonymous = await client.put(STAGING, json=body, headers={"PRIVATE-TOKEN": ""})
    assert anonymous.status_code == 401
    missing = await client.put(f"{PROTECTED}/qa", json=body)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Not found"})
    deprecated = await client.put(STAGING, json={"required_approval_count": 2})
    assert deprecated.status_code == 422 and "deprecated" in deprecated.json()["message"]


async def test_approval_rules_are_nested_records_too(client: httpx.AsyncClient) -> None:
    added = await client.put(STAGING, json={"approval_rules": [{"access_level": 40,
                                                                "required_approvals": 2}]})
    assert added.status_code == 200, added.text
    [rule] = added.json()["approval_rules"]
    assert (rule["access_level"], rule["required_approvals"], rule["access_level_description"]) == (
        40, 2, "Maintainers")
    unnamed = await client.put(STAGING, json={"approval_rules": [{"id": rule["id"],
                                                                  "required_approvals": 3}]})
    assert unnamed.status_code == 400  # a change names who, as an addition does (`at_least_one_of`)
    changed = await client.put(STAGING, json={"approval_rules": [{"id": rule["id"], "access_level": 40,
                                                                  "required_approvals": 3}]})
    assert changed.json()["approval_rules"][0]["required_approvals"] == 3
    dropped = await client.put(STAGING, json={"approval_rules": [{"id": rule["id"], "_destroy": True}]})
    assert dropped.status_code == 200 and dropped.json()["approval_rules"] == []
    assert len(dropped.json()["deploy_access_levels"]) == 2  # a list not sent is left as it is


@pytest.mark.parametrize(("edition", "version"), [("ee", "15.3"), ("ee", "15.0"), ("ce", "17.6")])
async def test_before_15_4_and_on_ce_the_put_is_the_catch_all_404(edition: str, version: str) -> None:
    app = sandbox(edition=edition, gitlab_version=version)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test",
                                 headers=ROOT) as client:
        response = await client.put(STAGING, json={"deploy_access_levels": [{"access_level": 60}]})
        assert (response.status_code, response.json()) == (404, CATCH_ALL)
        read = await client.get(STAGING)
        if edition == "ee":  # the protection is there, as GitLab of that version shows it: no ids
            assert read.status_code == 200
            assert read.json() == {"name": "staging", "deploy_access_levels": [
                {"access_level": 30, "access_level_description": "Developers + Maintainers", "user_id": None,
                 "group_id": None},
                {"access_level": None, "access_level_description": "Carol Danvers",
                 "user_id": read.json()["deploy_access_levels"][1]["user_id"], "group_id": None}]}


async def test_from_15_4_the_put_answers() -> None:
    app = sandbox(gitlab_version="15.4")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test",
                                 headers=ROOT) as client:
        response = await client.put(STAGING, json={"deploy_access_levels": [{"access_level": 60}]})
        assert response.status_code == 200 and len(response.json()["deploy_access_levels"]) == 3
