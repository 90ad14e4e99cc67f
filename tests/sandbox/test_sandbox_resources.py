"""The core resources: /version, /user, /users, /projects, /groups, shaped like GitLab's responses."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}


async def get(client: httpx.AsyncClient, path: str, headers: dict[str, str] | None = None,
              **params: object) -> httpx.Response:
    return await client.get(f"/api/v4{path}", headers=headers or {}, params=params)  # type: ignore[arg-type]


async def test_version_needs_auth(client: httpx.AsyncClient) -> None:
    assert (await get(client, "/version")).status_code == 401
    body = (await get(client, "/version", ALICE)).json()
    assert set(body) >= {"version", "revision"} and body["version"].startswith("17.")


async def test_current_user_shapes(client: httpx.AsyncClient) -> None:
    root = (await get(client, "/user", ROOT)).json()
    alice = (await get(client, "/user", ALICE)).json()
    assert root["is_admin"] is True and alice["is_admin"] is False
    for field in ("id", "username", "name", "state", "email", "web_url", "created_at", "last_activity_on",
                  "two_factor_enabled", "external", "bot"):
        assert field in alice


async def test_users_listing_for_non_admins_is_basic_and_hides_banned(client: httpx.AsyncClient) -> None:
    users = (await get(client, "/users", ALICE, per_page=100)).json()
    assert set(users[0]) == {"id", "username", "name", "state", "locked", "avatar_url", "web_url"}
    assert "banned.user" not in {u["username"] for u in users}
    admin_view = (await get(client, "/users", ROOT, per_page=100)).json()
    assert "banned.user" in {u["username"] for u in admin_view} and "email" in admin_view[0]


async def test_every_moderation_condition_is_seeded(client: httpx.AsyncClient) -> None:
    users = {u["username"]: u for u in (await get(client, "/users", ROOT, per_page=100)).json()}
    assert users["pending.user"]["state"] == "blocked_pending_approval"
    assert users["blocked.user"]["state"] == "blocked"
    assert users["ldap.user"]["state"] == "ldap_blocked" and users["ldap.user"]["identities"]
    assert users["banned.user"]["state"] == "banned"
    assert users["deactivated.user"]["state"] == "deactivated"
    assert users["dormant.user"]["state"] == "active"
    assert users["dormant.user"]["last_activity_on"] < users["alice"]["last_activity_on"]
    assert users["ghost"]["bot"] is True and users["support-bot"]["user_type"] == "support_bot"
    assert users["external.user"]["external"] is True


async def test_dormant_user_is_dormant_by_the_store_rule(app: Starlette) -> None:
    store = app.state.store
    assert store.is_dormant(store.user_by_username("dormant.user"))
    assert not store.is_dormant(store.user_by_username("alice"))


@pytest.mark.parametrize(("params", "expected"), [
    ({"username": "ALICE"}, {"alice"}),
    ({"search": "dorm"}, {"dormant.user"}),
    ({"blocked": "true", "search": ".user"}, {"blocked.user", "ldap.user", "pending.user"}),
    ({"external": "true"}, {"external.user"}),
    ({"admins": "true"}, {"root"}),
])
async def test_user_filters(client: httpx.AsyncClient, params: dict[str, str], expected: set[str]) -> None:
    users = (await get(client, "/users", ROOT, per_page=100, **params)).json()
    assert {u["username"] for u in users} == expected


async def test_active_filter_excludes_every_inactive_state(client: httpx.AsyncClient) -> None:
    users = (await get(client, "/users", ROOT, per_page=100, active="true")).json()
    assert users and {u["state"] for u in users} == {"active"}


async def test_admin_only_user_filters_are_forbidden_to_others(client: httpx.AsyncClient) -> None:
    response = await get(client, "/users", ALICE, external="true")
    assert (response.status_code, response.json()) == (403, {"message": "403 Forbidden"})


async def test_single_user(client: httpx.AsyncClient) -> None:
    alice = (await get(client, "/users/2", ALICE)).json()
    assert alice["username"] == "alice" and "email" in alice
    as_other = (await get(client, "/users/3", ALICE)).json()
    assert as_other["username"] == "bob" and "email" not in as_other
    missing = await get(client, "/users/99999", ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 User Not Found"})


async def test_project_visibility_per_caller(client: httpx.AsyncClient) -> None:
    anonymous = {p["path_with_namespace"] for p in (await get(client, "/projects", per_page=100)).json()}
    alice = {p["path_with_namespace"] for p in (await get(client, "/projects", ALICE, per_page=100)).json()}
    root = {p["path_with_namespace"] for p in (await get(client, "/projects", ROOT, per_page=100)).json()}
    assert "acme/platform/api-gateway" in anonymous and "opensource/tools" not in anonymous
    assert {"opensource/tools", "acme/security/vault", "alice/dotfiles"} <= alice
    assert "hidden-lab/secrets" not in alice and "hidden-lab/secrets" in root


@pytest.mark.parametrize(("params", "check"), [
    ({"membership": "true"}, lambda ps: "acme/handbook" in ps and "root/sandbox-notes" not in ps),
    ({"owned": "true"}, lambda ps: ps == {"alice/dotfiles", "opensource/labdeck", "opensource/tools"}),
    ({"visibility": "private"}, lambda ps: ps == {"alice/dotfiles", "acme/security/vault"}),
    ({"archived": "true"}, lambda ps: ps == {"acme/legacy-app"}),
    ({"search": "gateway"}, lambda ps: ps == {"acme/platform/api-gateway"}),
    ({"min_access_level": "50"}, lambda ps: ps == {"opensource/labdeck", "opensource/tools"}),
])
async def test_project_filters(client: httpx.AsyncClient, params: dict[str, str], check: object) -> None:
    projects = (await get(client, "/projects", ALICE, per_page=100, **params)).json()
    assert check({p["path_with_namespace"] for p in projects})  # type: ignore[operator]


async def test_project_order_and_simple(client: httpx.AsyncClient) -> None:
    by_name = (await get(client, "/projects", ROOT, order_by="name", sort="asc", per_page=100)).json()
    names = [p["name"].lower() for p in by_name]
    assert names == sorted(names)
    default = (await get(client, "/projects", ROOT, per_page=100)).json()
    created = [p["created_at"] for p in default]
    assert created == sorted(created, reverse=True)
    simple = (await get(client, "/projects", ROOT, simple="true")).json()
    assert "visibility" not in simple[0] and {"id", "name", "path", "web_url"} <= set(simple[0])


async def test_project_by_id_and_by_encoded_path(client: httpx.AsyncClient) -> None:
    by_path = (await get(client, "/projects/acme%2Fplatform%2Fapi-gateway", ALICE)).json()
    by_id = (await get(client, f"/projects/{by_path['id']}", ALICE)).json()
    assert by_id == by_path
    for field in ("namespace", "_links", "container_expiration_policy", "issues_access_level", "topics",
                  "tag_list", "permissions", "visibility", "archived", "import_status", "web_url"):
        assert field in by_path
    assert by_path["namespace"]["full_path"] == "acme/platform"
    assert by_path["permissions"]["group_access"] == {"access_level": 30, "notification_level": 3}
    missing = await get(client, "/projects/nope%2Fnothing", ROOT)
    assert missing.json() == {"message": "404 Project Not Found"}


async def test_groups_visibility_per_caller(client: httpx.AsyncClient) -> None:
    anonymous = {g["full_path"] for g in (await get(client, "/groups", per_page=100)).json()}
    alice = {g["full_path"] for g in (await get(client, "/groups", ALICE, per_page=100)).json()}
    root = {g["full_path"] for g in (await get(client, "/groups", ROOT, per_page=100)).json()}
    assert anonymous == {"acme", "acme/platform", "opensource"}
    assert {"acme/security", "acme/infra", "opensource"} <= alice and "hidden-lab" not in alice
    assert "hidden-lab" in root


async def test_group_listing_search_order_and_top_level(client: httpx.AsyncClient) -> None:
    found = (await get(client, "/groups", ROOT, search="plat")).json()
    assert [g["full_path"] for g in found] == ["acme/platform"]
    top = (await get(client, "/groups", ROOT, top_level_only="true", order_by="id", sort="desc")).json()
    assert all(g["parent_id"] is None for g in top)
    assert [g["id"] for g in top] == sorted((g["id"] for g in top), reverse=True)


async def test_group_by_id_and_full_path(client: httpx.AsyncClient) -> None:
    group = (await get(client, "/groups/acme%2Fsecurity", ALICE)).json()
    assert group["full_path"] == "acme/security" and group["visibility"] == "private"
    assert [p["path"] for p in group["projects"]] == ["vault"]
    assert (await get(client, f"/groups/{group['id']}", ALICE)).json()["id"] == group["id"]
    hidden = await get(client, "/groups/hidden-lab", ALICE)
    assert (hidden.status_code, hidden.json()) == (404, {"message": "404 Group Not Found"})


async def test_members_at_every_access_level_are_seeded(app: Starlette) -> None:
    store = app.state.store
    levels = {m.access_level for members in store.group_members.values() for m in members.values()}
    levels |= {m.access_level for members in store.project_members.values() for m in members.values()}
    assert {10, 15, 20, 30, 40, 50} <= levels


def test_seed_is_deterministic_and_scales() -> None:
    from labdeck.sandbox.clock import ManualClock
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.sandbox.seed import build_store

    def snapshot(seed: int) -> list[tuple[str, str]]:
        store = build_store(SandboxOptions(scale="demo", seed=seed), ManualClock())
        return [(p.path_with_namespace, p.visibility) for p in store.projects.values()]

    assert snapshot(1) == snapshot(1)
    assert snapshot(1) != snapshot(2)
    demo = build_store(SandboxOptions(scale="demo"), ManualClock())
    assert 25 <= len(demo.groups) <= 60 and 80 <= len(demo.projects) <= 150


async def test_project_statistics_only_for_admins(client: httpx.AsyncClient) -> None:
    listed = (await get(client, "/projects", ROOT, statistics="true", per_page=3)).json()
    assert all(p["statistics"]["storage_size"] >= p["statistics"]["repository_size"] > 0 for p in listed)
    one = (await get(client, "/projects/acme%2Fhandbook", ROOT, statistics="true")).json()
    assert "statistics" in one
    as_alice = (await get(client, "/projects/acme%2Fhandbook", ALICE, statistics="true")).json()
    assert "statistics" not in as_alice
    plain = (await get(client, "/projects", ROOT, per_page=3)).json()
    assert "statistics" not in plain[0]


async def test_encoded_path_segments_decode_once(client: httpx.AsyncClient) -> None:
    lower = await get(client, "/projects/acme%2fhandbook", ALICE)
    assert lower.json()["path_with_namespace"] == "acme/handbook"
    double = await get(client, "/projects/acme%252Fhandbook", ALICE)
    assert double.status_code == 404


def test_large_scale_sizes() -> None:
    from labdeck.sandbox.clock import ManualClock
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.sandbox.seed import build_store

    store = build_store(SandboxOptions(scale="large"), ManualClock())
    assert len(store.users) >= 5_000 and len(store.projects) >= 20_000
    assert {u.state for u in store.users.values()} >= {"active", "blocked", "ldap_blocked", "banned",
                                                       "deactivated", "blocked_pending_approval"}


async def test_application_settings_are_for_administrators_only() -> None:
    import httpx

    from labdeck.sandbox.app import create_app
    from labdeck.sandbox.options import SandboxOptions

    app = create_app(SandboxOptions(scale="tiny"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://s/api/v4") as http:
        root = await http.get("/application/settings", headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
        assert root.status_code == 200 and root.json()["deactivate_dormant_users_period"] == 90
        alice = await http.get("/application/settings", headers={"PRIVATE-TOKEN": "glpat-sandbox-alice"})
        assert (alice.status_code, alice.json()) == (403, {"message": "403 Forbidden"})
        anonymous = await http.get("/application/settings")
        assert (anonymous.status_code, anonymous.json()) == (401, {"message": "401 Unauthorized"})
