"""Project sharing kept in one place (issue 15, item 9): a group's shared projects, a project's
`shared_with_groups` and the protected environments' group rule read the same shares."""

from __future__ import annotations

import httpx
from starlette.applications import Starlette

from labdeck.sandbox.seed.sharing import share

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
API = "/api/v4"


async def _views(client: httpx.AsyncClient, project: str, group: str) -> tuple[list[str], list[dict], int]:
    shared = await client.get(f"{API}/groups/{group}/projects/shared", headers=ROOT)
    detail = await client.get(f"{API}/projects/{project}", headers=ROOT)
    group_id = (await client.get(f"{API}/groups/{group}", headers=ROOT,
                                 params={"with_projects": "false"})).json()["id"]
    rule = await client.post(f"{API}/projects/{project}/protected_environments", headers=ROOT,
                             json={"name": "qa", "deploy_access_levels": [{"group_id": group_id}]})
    if rule.status_code == 201:
        await client.delete(f"{API}/projects/{project}/protected_environments/qa", headers=ROOT)
    return ([p["path_with_namespace"] for p in shared.json()], detail.json()["shared_with_groups"],
            rule.status_code)


async def test_the_three_views_agree(app: Starlette, client: httpx.AsyncClient) -> None:
    gateway = "acme%2Fplatform%2Fapi-gateway"
    paths, with_groups, rule = await _views(client, gateway, "opensource")
    assert "acme/platform/api-gateway" in paths and rule == 201
    opensource = app.state.store.group_by_path("opensource")
    assert with_groups == [{"group_id": opensource.id, "group_name": opensource.name,
                            "group_full_path": "opensource", "group_access_level": 30, "expires_at": None}]
    # not shared with hidden-lab: no view shows it, and the rule is refused
    paths, with_groups, rule = await _views(client, gateway, "hidden-lab")
    assert "acme/platform/api-gateway" not in paths and rule == 400
    assert all(g["group_full_path"] != "hidden-lab" for g in with_groups)
    # one share added in the one place shows everywhere
    store = app.state.store
    share(store, store.project_by_path("acme/platform/api-gateway").id,
          store.group_by_path("hidden-lab").id, 20)
    store.touch()
    paths, with_groups, rule = await _views(client, gateway, "hidden-lab")
    assert "acme/platform/api-gateway" in paths and rule == 201
    assert {"group_full_path": "hidden-lab", "group_access_level": 20}.items() <= next(
        g for g in with_groups if g["group_full_path"] == "hidden-lab").items()
