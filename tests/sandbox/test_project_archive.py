"""`POST /projects/:id/archive` and `/unarchive` as GitLab serves them (lib/api/projects.rb):
`authorize!(:archive_project, user_project)`, then `Entities::Project` of the project, 201 (a POST's
status; the docs' `success code: 201, model: Entities::Project`). `archive_project` is enabled by
`owner_access` only (app/policies/project_policy.rb: `rule { owner | admin }.enable :owner_access` and
`rule { can?(:owner_access) }.policy { enable :archive_project }`): a project's Owner (its group's owners, the
owner of a personal project) or an administrator; a Maintainer is answered `authorize!`'s 403
`{"message":"403 Forbidden"}`. A project the caller cannot see, or none at all, is `user_project`'s 404
`{"message":"404 Project Not Found"}`. The listings give `archived` and filter by it
(`archived=true|false`)."""

from __future__ import annotations

import httpx
from registry_fixtures import ALICE, API, ROOT

FORBIDDEN = {"message": "403 Forbidden"}
NOT_FOUND = {"message": "404 Project Not Found"}
GATEWAY = "acme%2Fplatform%2Fapi-gateway"


def as_user(username: str) -> dict[str, str]:
    return {**ROOT, "Sudo": username}


async def paths(client: httpx.AsyncClient, **params: str) -> set[str]:
    response = await client.get(f"{API}/projects", params={"per_page": "100", **params}, headers=ROOT)
    assert response.status_code == 200
    return {p["path_with_namespace"] for p in response.json()}


async def test_archive_then_unarchive_answers_201_with_the_project(client: httpx.AsyncClient) -> None:
    archived = await client.post(f"{API}/projects/{GATEWAY}/archive", headers=ROOT)
    assert archived.status_code == 201
    body = archived.json()
    assert body["path_with_namespace"] == "acme/platform/api-gateway" and body["archived"] is True
    assert "container_expiration_policy" in body and "permissions" not in body  # Entities::Project
    shown = await client.get(f"{API}/projects/{GATEWAY}", headers=ROOT)
    assert shown.json()["archived"] is True
    assert "acme/platform/api-gateway" in await paths(client, archived="true")
    assert "acme/platform/api-gateway" not in await paths(client, archived="false")
    group = await client.get(f"{API}/groups/acme%2Fplatform/projects", params={"archived": "true"},
                             headers=ROOT)
    assert [p["path_with_namespace"] for p in group.json()] == ["acme/platform/api-gateway"]
    again = await client.post(f"{API}/projects/{GATEWAY}/archive", headers=ROOT)
    assert (again.status_code, again.json()["archived"]) == (201, True)  # already archived: the same answer
    back = await client.post(f"{API}/projects/{GATEWAY}/unarchive", headers=ROOT)
    assert (back.status_code, back.json()["archived"]) == (201, False)
    assert "acme/platform/api-gateway" in await paths(client, archived="false")
    assert "acme/platform/api-gateway" not in await paths(client, archived="true")


async def test_owners_and_administrators_may_archive(client: httpx.AsyncClient) -> None:
    owner = await client.post(f"{API}/projects/opensource%2Flabdeck/archive", headers=ALICE)  # group owner
    assert (owner.status_code, owner.json()["archived"]) == (201, True)
    personal = await client.post(f"{API}/projects/alice%2Fdotfiles/archive", headers=ALICE)  # her own
    assert (personal.status_code, personal.json()["archived"]) == (201, True)
    carol = await client.post(f"{API}/projects/{GATEWAY}/archive", headers=as_user("carol"))  # acme's owner
    assert carol.status_code == 201
    undo = await client.post(f"{API}/projects/{GATEWAY}/unarchive", headers=as_user("carol"))
    assert (undo.status_code, undo.json()["archived"]) == (201, False)


async def test_a_maintainer_or_less_is_refused_as_gitlab_refuses(client: httpx.AsyncClient) -> None:
    tries = (("frank", "archive"), ("frank", "unarchive"), ("alice", "archive"), ("bob", "archive"))
    for user, verb in tries:
        response = await client.post(f"{API}/projects/{GATEWAY}/{verb}", headers=as_user(user))
        assert (response.status_code, response.json()) == (403, FORBIDDEN), (user, verb)
    legacy = await client.post(f"{API}/projects/acme%2Flegacy-app/unarchive", headers=as_user("frank"))
    assert (legacy.status_code, legacy.json()) == (403, FORBIDDEN)
    assert (await client.get(f"{API}/projects/{GATEWAY}", headers=ROOT)).json()["archived"] is False
    anonymous = await client.post(f"{API}/projects/{GATEWAY}/archive")
    assert (anonymous.status_code, anonymous.json()) == (401, {"message": "401 Unauthorized"})


async def test_a_missing_or_hidden_project_is_not_found(client: httpx.AsyncClient) -> None:
    for ident in ("999999", "nobody%2Fnothing"):
        for verb in ("archive", "unarchive"):
            response = await client.post(f"{API}/projects/{ident}/{verb}", headers=ROOT)
            assert (response.status_code, response.json()) == (404, NOT_FOUND), (ident, verb)
    hidden = await client.post(f"{API}/projects/hidden-lab%2Fsecrets/archive", headers=ALICE)  # not a member
    assert (hidden.status_code, hidden.json()) == (404, NOT_FOUND)
