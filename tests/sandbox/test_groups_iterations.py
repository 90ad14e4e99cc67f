"""Iterations of groups and projects: state integers and filters, search, ancestors (GitLab's API docs)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, call
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock


async def titles(client: httpx.AsyncClient, path: str, **params: object) -> list[str]:
    response = await call(client, "GET", path, ROOT, params=params)
    assert response.status_code == 200, response.text
    return [it["title"] for it in response.json()]


async def test_state_integers_and_filters(client: httpx.AsyncClient) -> None:
    listed = (
        await call(client, "GET", "/groups/acme/iterations", ROOT, params={"include_ancestors": "false"})
    ).json()
    assert {it["title"]: it["state"] for it in listed} == {"Sprint 41": 3, "Sprint 42": 2, "Sprint 43": 1}
    for field in (
        "id",
        "iid",
        "group_id",
        "title",
        "description",
        "state",
        "created_at",
        "updated_at",
        "due_date",
        "start_date",
        "web_url",
    ):
        assert field in listed[0]
    assert await titles(client, "/groups/acme/iterations", state="opened") == ["Sprint 42", "Sprint 43"]
    assert await titles(client, "/groups/acme/iterations", state="upcoming") == ["Sprint 43"]
    assert await titles(client, "/groups/acme/iterations", state="started") == ["Sprint 42"]
    assert await titles(client, "/groups/acme/iterations", state="closed") == ["Sprint 41"]
    assert len(await titles(client, "/groups/acme/iterations", state="all")) == 3
    bad = await call(client, "GET", "/groups/acme/iterations", ROOT, params={"state": "done"})
    assert (bad.status_code, bad.json()) == (400, {"error": "state does not have a valid value"})


async def test_search_and_ancestors(client: httpx.AsyncClient) -> None:
    platform = await titles(client, "/groups/acme%2Fplatform/iterations")
    assert set(platform) == {"Sprint 41", "Sprint 42", "Sprint 43", "Platform hardening", "Platform launch"}
    own = await titles(client, "/groups/acme%2Fplatform/iterations", include_ancestors="false")
    assert set(own) == {"Platform hardening", "Platform launch"}
    assert await titles(client, "/groups/acme%2Fplatform/iterations", search="LAUNCH") == ["Platform launch"]


async def test_project_iterations_are_those_of_its_ancestor_groups(client: httpx.AsyncClient) -> None:
    gateway = await titles(client, "/projects/acme%2Fplatform%2Fapi-gateway/iterations")
    assert set(gateway) == {"Sprint 41", "Sprint 42", "Sprint 43", "Platform hardening", "Platform launch"}
    parent_only = await titles(
        client, "/projects/acme%2Fplatform%2Fapi-gateway/iterations", include_ancestors="false"
    )
    assert set(parent_only) == {"Platform hardening", "Platform launch"}
    assert await titles(client, "/projects/root%2Fsandbox-notes/iterations") == []
    hidden = await call(client, "GET", "/projects/hidden-lab%2Fsecrets/iterations", ALICE)
    assert hidden.status_code == 404


async def test_states_follow_the_clock(app: Starlette, clock: ManualClock, client: httpx.AsyncClient) -> None:
    clock.advance(30 * 86_400)
    states = {
        it["title"]: it["state"] for it in (await call(client, "GET", "/groups/acme/iterations", ROOT)).json()
    }
    assert states == {"Sprint 41": 3, "Sprint 42": 3, "Sprint 43": 3}
