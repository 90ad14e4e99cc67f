"""Conformance of the sandbox's access token endpoints and `GET /users/:id/memberships` (issue 36), over HTTP
with GitLab's statuses and bodies: `lib/api/personal_access_tokens.rb`, `lib/api/resource_access_tokens.rb`,
`lib/api/entities/personal_access_token.rb` (`id name revoked created_at description scopes user_id
last_used_at active expires_at`; the rotation's answer adds `token`, `PersonalAccessTokenWithToken`) and
`lib/api/users.rb` (memberships: administrators only). The demo scale holds the issue's seeded cases.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, timedelta

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
API = "/api/v4"
ENTITY = {"id", "name", "revoked", "created_at", "description", "scopes", "user_id", "last_used_at", "active",
          "expires_at"}


@pytest.fixture(scope="module")
def demo_app() -> Starlette:
    return create_app(SandboxOptions(scale="demo"), clock=ManualClock())


@pytest.fixture
async def http(demo_app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(demo_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.test") as c:
        yield c


@pytest.fixture
async def fresh() -> AsyncIterator[tuple[httpx.AsyncClient, Starlette]]:
    """A sandbox of the test's own (for the tests that change tokens)."""
    app = create_app(SandboxOptions(scale="demo"), clock=ManualClock())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test") as c:
        yield c, app


def today(app: Starlette) -> date:
    return app.state.store.now().date()


async def names(http: httpx.AsyncClient, path: str, headers: dict[str, str] = ROOT,
                **params: object) -> list[str]:
    response = await http.get(API + path, headers=headers, params=params)
    assert response.status_code == 200, response.text
    return [t["name"] for t in response.json()]


async def test_admin_lists_every_personal_token_in_gitlab_s_entity(http: httpx.AsyncClient,
                                                                    demo_app: Starlette) -> None:
    response = await http.get(API + "/personal_access_tokens", headers=ROOT, params={"per_page": 100})
    assert response.status_code == 200
    tokens = {t["name"]: t for t in response.json()}
    assert {"ci-pipeline", "old-laptop", "automation", "backup-script", "leaked", "release-bot",
            "metrics-push"} <= set(tokens)
    bot = (await http.get(API + f"/users/{tokens['release-bot']['user_id']}", headers=ROOT)).json()
    assert bot["bot"] is True and bot["username"].startswith("group_") and bot["user_type"] == "project_bot"
    assert set(tokens["ci-pipeline"]) == ENTITY
    assert all("token" not in t for t in tokens.values())
    day = today(demo_app)
    assert tokens["ci-pipeline"]["expires_at"] == (day + timedelta(days=3)).isoformat()
    # expired, still listed
    assert tokens["old-laptop"]["active"] is False and tokens["old-laptop"]["revoked"] is False
    assert tokens["automation"]["expires_at"] is None
    assert tokens["leaked"]["revoked"] is True


async def test_personal_token_filters(http: httpx.AsyncClient, demo_app: Starlette) -> None:
    day = today(demo_app)
    # the bots' tokens too (`finder_params`: an administrator's listing has no user filter)
    assert set(await names(http, "/personal_access_tokens", state="inactive")) == {"old-laptop", "leaked",
                                                                                 "nightly-export"}
    soon = (day + timedelta(days=4)).isoformat()
    found = await names(http, "/personal_access_tokens", expires_before=soon, state="active")
    assert found == ["ci-pipeline", "release-bot"]
    assert await names(http, "/personal_access_tokens",
                       last_used_before=(day - timedelta(days=100)).isoformat()) == ["backup-script",
                                                                                    "mirror-sync"]
    alice = (await http.get(API + "/users", headers=ROOT, params={"username": "alice"})).json()[0]["id"]
    assert set(await names(http, "/personal_access_tokens", user_id=alice)) == {"sandbox-alice",
                                                                                 "ci-pipeline"}
    unknown = await http.get(API + "/personal_access_tokens", headers=ROOT, params={"user_id": 999999})
    assert unknown.status_code == 404
    bad = await http.get(API + "/personal_access_tokens", headers=ROOT, params={"state": "gone"})
    assert bad.status_code == 400 and bad.json() == {"error": "state does not have a valid value"}


async def test_a_non_administrator_sees_their_own_tokens_only(http: httpx.AsyncClient) -> None:
    assert set(await names(http, "/personal_access_tokens", ALICE)) == {"sandbox-alice", "ci-pipeline"}
    other = await http.get(API + "/personal_access_tokens", headers=ALICE, params={"user_id": 1})
    assert other.status_code == 401 and other.json() == {"message": "401 Unauthorized"}


async def test_group_and_project_tokens_for_owners_and_maintainers(http: httpx.AsyncClient,
                                                                    demo_app: Starlette) -> None:
    group = await http.get(API + "/groups/fleet%2Fcore/access_tokens", headers=ROOT)
    assert group.status_code == 200
    [bot] = group.json()
    assert bot["name"] == "release-bot" and bot["access_level"] == 40
    assert bot["resource_type"] == "group" and set(ENTITY) < set(bot)
    # alice is a Developer of fleet (30) and an Owner of fleet/core (the seeded five Owners)
    assert (await http.get(API + "/groups/fleet%2Fcore/access_tokens", headers=ALICE)).status_code == 200
    refused = await http.get(API + "/groups/fleet/access_tokens", headers=ALICE)
    assert refused.status_code == 401
    store = demo_app.state.store
    data = store.group_by_path("fleet/data")
    first = min(p.id for p in store.projects.values() if p.namespace_id == data.id)
    listed = await names(http, f"/projects/{first}/access_tokens")
    assert listed == ["nightly-export", "metrics-push", "mirror-sync"]
    assert await names(http, f"/projects/{first}/access_tokens", state="active") == ["metrics-push",
                                                                                     "mirror-sync"]
    missing = await http.get(API + "/projects/99999999/access_tokens", headers=ROOT)
    assert missing.status_code == 404


async def test_rotate_gives_the_new_token_once_and_revokes_the_old(
        fresh: tuple[httpx.AsyncClient, Starlette]) -> None:
    http, app = fresh
    listed = (await http.get(API + "/personal_access_tokens", headers=ROOT,
                             params={"search": "sandbox-alice"})).json()
    [old] = listed
    rotated = await http.post(API + f"/personal_access_tokens/{old['id']}/rotate", headers=ROOT)
    assert rotated.status_code == 200
    body = rotated.json()
    assert set(body) == ENTITY | {"token"} and body["token"].startswith("glpat-")
    assert body["expires_at"] == (today(app) + timedelta(days=7)).isoformat()  # GitLab's week
    # the old value stops authenticating, the new one does
    assert (await http.get(API + "/user", headers=ALICE)).status_code == 401
    assert (await http.get(API + "/user", headers={"PRIVATE-TOKEN": body["token"]})).status_code == 200
    again = await http.post(API + f"/personal_access_tokens/{old['id']}/rotate", headers=ROOT)
    assert again.status_code == 400 and again.json() == {"message": "400 Bad request - Token already revoked"}
    chosen = await http.post(API + f"/personal_access_tokens/{body['id']}/rotate", headers=ROOT,
                             json={"expires_at": "2030-01-01"})
    assert chosen.json()["expires_at"] == "2030-01-01"
    # the listings never hold a value
    everything = (await http.get(API + "/personal_access_tokens", headers=ROOT)).text
    assert body["token"] not in everything and chosen.json()["token"] not in everything


async def test_revoke_personal_and_resource_tokens(fresh: tuple[httpx.AsyncClient, Starlette]) -> None:
    http, _ = fresh
    tokens = {t["name"]: t["id"] for t in (await http.get(API + "/personal_access_tokens",
                                                          headers=ROOT, params={"per_page": 100})).json()}
    assert (await http.delete(API + f"/personal_access_tokens/{tokens['automation']}",
                              headers=ALICE)).status_code == 400  # someone else's: GitLab's bad_request!(nil)
    assert (await http.delete(API + f"/personal_access_tokens/{tokens['automation']}",
                              headers=ROOT)).status_code == 204
    after = (await http.get(API + "/personal_access_tokens", headers=ROOT,
                            params={"search": "automation"})).json()
    assert after[0]["revoked"] is True and after[0]["active"] is False
    assert (await http.delete(API + "/personal_access_tokens/99999999", headers=ROOT)).status_code == 404
    [bot] = (await http.get(API + "/groups/fleet%2Fcore/access_tokens", headers=ROOT)).json()
    rotated = await http.post(API + f"/groups/fleet%2Fcore/access_tokens/{bot['id']}/rotate", headers=ROOT)
    assert rotated.status_code == 200 and rotated.json()["access_level"] == 40 and "token" in rotated.json()
    new = rotated.json()["id"]
    revoked = await http.delete(API + f"/groups/fleet%2Fcore/access_tokens/{new}", headers=ROOT)
    assert revoked.status_code == 204
    states = {t["id"]: t["revoked"] for t in
              (await http.get(API + "/groups/fleet%2Fcore/access_tokens", headers=ROOT)).json()}
    assert states == {bot["id"]: True, new: True}
    gone = await http.get(API + "/groups/fleet%2Fcore/access_tokens/99999999", headers=ROOT)
    assert gone.status_code == 404


async def test_user_memberships_for_administrators(http: httpx.AsyncClient) -> None:
    ext = (await http.get(API + "/users", headers=ROOT, params={"username": "external.user"})).json()[0]["id"]
    response = await http.get(API + f"/users/{ext}/memberships", headers=ROOT, params={"per_page": 100})
    assert response.status_code == 200
    rows = response.json()
    assert all(set(r) == {"source_id", "source_name", "source_type", "access_level"} for r in rows)
    web = [r for r in rows if r["source_type"] == "Namespace" and r["source_name"] == "Web"]
    assert [r["access_level"] for r in web] == [30]
    only = await http.get(API + f"/users/{ext}/memberships", headers=ROOT, params={"type": "Project"})
    assert all(r["source_type"] == "Project" for r in only.json())
    assert (await http.get(API + f"/users/{ext}/memberships", headers=ALICE)).status_code == 403
    assert (await http.get(API + "/users/99999999/memberships", headers=ROOT)).json() == \
        {"message": "404 User Not Found"}
    wrong = await http.get(API + f"/users/{ext}/memberships", headers=ROOT, params={"type": "Group"})
    assert wrong.status_code == 400
