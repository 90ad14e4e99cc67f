"""Conformance of `GET /projects/:id/repository/branches` (GitLab's `doc/api/branches.md`): branches sorted by
name, paginated, each GitLab's `Branch` entity (`lib/api/entities/branch.rb`) with a `Commit` entity; `merged`
as `Repository#merged_to_root_ref?` says (an ancestor of the default branch's head, never the default branch
itself); the default branch protected; `can_push` the caller's (`Gitlab::UserAccess#can_push_to_branch?`);
the same branches every time (seeded from the project id)."""

from __future__ import annotations

import httpx
from gitlab_entities import fields

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer (30) in acme
BRANCHES = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/repository/branches"


async def test_branches_are_gitlabs_entity_sorted_by_name(client: httpx.AsyncClient) -> None:
    response = await client.get(BRANCHES, headers=ALICE)
    assert response.status_code == 200 and response.headers["x-total"] == "3"
    branches = response.json()
    assert [b["name"] for b in branches] == ["develop", "feature/health-endpoint", "main"]
    for branch in branches:
        assert set(branch) == fields("Branch")
        assert set(branch["commit"]) == fields("Commit")
        assert branch["web_url"].endswith(f"/acme/platform/api-gateway/-/tree/{branch['name']}")
    by_name = {b["name"]: b for b in branches}
    main, develop, feature = by_name["main"], by_name["develop"], by_name["feature/health-endpoint"]
    assert (main["default"], main["protected"], main["merged"]) == (True, True, False)
    assert (develop["default"], develop["protected"], develop["merged"]) == (False, False, False)  # ahead
    assert feature["merged"] is True and feature["protected"] is False
    assert develop["commit"]["parent_ids"] == [main["commit"]["id"]]
    assert not any(b["developers_can_push"] or b["developers_can_merge"] for b in branches)
    # a Developer pushes to unprotected branches only; the default branch is for Maintainers
    assert [b["can_push"] for b in branches] == [True, True, False]


async def test_can_push_is_the_callers(client: httpx.AsyncClient) -> None:
    root = (await client.get(BRANCHES, headers=ROOT)).json()
    assert all(b["can_push"] for b in root)  # an administrator
    anonymous = (await client.get(BRANCHES)).json()  # a public project: readable, never pushable
    assert [b["name"] for b in anonymous] == ["develop", "feature/health-endpoint", "main"]
    assert not any(b["can_push"] for b in anonymous)


async def test_branches_are_paginated_and_the_same_each_time(client: httpx.AsyncClient) -> None:
    first = await client.get(BRANCHES, params={"per_page": 2})
    assert [b["name"] for b in first.json()] == ["develop", "feature/health-endpoint"]
    assert first.headers["x-total-pages"] == "2" and 'rel="next"' in first.headers["link"]
    second = await client.get(BRANCHES, params={"per_page": 2, "page": 2})
    assert [b["name"] for b in second.json()] == ["main"]
    again = await client.get(BRANCHES)
    assert again.json() == (await client.get(BRANCHES)).json()


async def test_private_project_branches_need_access(client: httpx.AsyncClient) -> None:
    path = "/api/v4/projects/acme%2Fsecurity%2Fvault/repository/branches"
    assert (await client.get(path)).status_code == 404
    assert (await client.get(path, headers=ALICE)).status_code == 200
