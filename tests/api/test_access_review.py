"""The access review's services against the sandbox (issue 36, demo scale: the `fleet` group and the seeded
cases): what each tab finds (the seeded cases, nothing more), the fan-out's request count, a refresh within
the cache's TTL costing no request, 403/404 items named and skipped, and no variable value or token value
held by a row, the list cache, the request log or the journal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from sandbox_clients import ClientPool

from labdeck.api.access_members import MembersReview
from labdeck.api.access_tokens import AccessTokensService, TokensReview
from labdeck.api.access_variables import VariablesReview
from labdeck.api.client import ApiClient
from labdeck.api.journal import Journal
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.access_members import MemberFilter
from labdeck.domain.access_tokens import TokenFilter
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

SEEDED_VALUES = ("fleet-deploy-token-0451", "edge-deploy-token-7719", "eu-west-1")


@pytest.fixture
def app() -> Any:
    return create_app(SandboxOptions(scale="demo"), clock=ManualClock())


@pytest.fixture
async def pool(app: Any) -> AsyncIterator[ClientPool]:
    made = ClientPool(app)
    yield made
    await made.aclose()


class Refusing(httpx.ASGITransport):
    """The sandbox, but `refused` paths answer 403 and `missing` ones 404 (GitLab's bodies)."""

    def __init__(self, app: Any, refused: str, missing: str) -> None:
        super().__init__(app)
        self.refused, self.missing = refused, missing

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode().split("?")[0]
        if path.startswith(self.refused):
            return httpx.Response(403, json={"message": "403 Forbidden"})
        if path.startswith(self.missing):
            return httpx.Response(404, json={"message": "404 Project Not Found"})
        return await super().handle_async_request(request)


def cache_text(client: ApiClient) -> str:
    """Everything the list cache holds, in memory."""
    return repr(client.cache._entries) + repr(client.cache._heads)


async def test_variables_review_of_fleet_finds_the_deploy_token_and_nothing_more(pool: ClientPool,
                                                                                 app: Any) -> None:
    client = pool.client()
    read = await VariablesReview(client).review("fleet")
    assert not read.unreadable
    found = {(r.definition.key, r.definition.level, r.definition.path): r for r in read.rows if r.findings}
    store = app.state.store
    edge_group = store.group_by_path("fleet/edge").id
    edge = store.projects[min(p.id for p in store.projects.values() if p.namespace_id == edge_group)] \
        .path_with_namespace
    assert set(found) == {("DEPLOY_TOKEN", "group", "fleet"), ("DEPLOY_TOKEN", "project", edge)}
    assert found[("DEPLOY_TOKEN", "group", "fleet")].findings == ("secret_not_masked", "flags_differ")
    assert found[("DEPLOY_TOKEN", "project", edge)].findings == ("flags_differ",)
    assert all(r.wins for r in read.rows if r.definition.key.startswith("DEPLOY_"))
    # no value anywhere: not a field of a row, not in the cache, not in the request log
    assert all(not hasattr(r.definition, "value") for r in read.rows)
    held = repr(read.rows) + cache_text(client) + repr(client.request_log.entries)
    assert not any(value in held for value in SEEDED_VALUES)


async def test_the_fan_out_reads_each_item_once_and_a_refresh_within_the_ttl_reads_nothing(
        pool: ClientPool) -> None:
    client = pool.client()
    first: list[tuple[int, int]] = []
    read = await VariablesReview(client).review(
        "fleet", on_rows=lambda rows, done, total: first.append((done, total)) if not first else None)
    assert first == [(1, read.items)]  # rows as they come: the first item's before the others
    sent = len(client.request_log.entries)
    # the scope (descendant groups, projects), the instance's variables, each group's and project's
    assert sent == 2 + 1 + len(read.scope.groups) + len(read.scope.projects)
    assert len(read.scope.groups) == 6 and len(read.scope.projects) == 36
    heard: list[int] = []
    again = await VariablesReview(client).review("fleet",
                                                 on_rows=lambda rows, done, total: heard.append(done))
    assert len(client.request_log.entries) == sent  # 0 requests
    assert [r.definition for r in again.rows] == [r.definition for r in read.rows]
    assert heard[-1] == again.items


async def test_403_and_404_projects_are_named_and_skipped(app: Any) -> None:
    store = app.state.store
    web = store.group_by_path("fleet/web")
    ids = sorted(p.id for p in store.projects.values() if p.namespace_id == web.id)
    refused, missing = store.projects[ids[0]], store.projects[ids[1]]
    transport = Refusing(app, f"/api/v4/projects/{refused.path_with_namespace.replace('/', '%2F')}/variables",
                         f"/api/v4/projects/{missing.path_with_namespace.replace('/', '%2F')}/variables")
    settings = ConnectionSettings("http://sandbox.test", token=SecretStr("glpat-sandbox-root"))
    async with ApiClient(settings, transport=transport) as client:
        read = await VariablesReview(client).review("fleet")
    assert [(u.path, u.status) for u in read.unreadable] == sorted(
        [(refused.path_with_namespace, 403), (missing.path_with_namespace, 404)])
    assert any(r.definition.key == "DEPLOY_TOKEN" for r in read.rows)  # the rest was read


async def test_members_review_of_fleet(pool: ClientPool, app: Any) -> None:
    client = pool.client()
    read = await MembersReview(client).review("fleet")
    assert not read.unreadable
    assert read.owners["fleet/core"] == 5  # alice, bob, erin, frank directly, carol from fleet
    today = app.state.store.now().date()
    soon = [g for g in read.grants if MemberFilter(expires_within=7).matches(g, today)]
    assert [(g.username, g.path, g.level) for g in soon] == [("external.user", "fleet/web", "developer")]
    assert soon[0].expires_at == today + timedelta(days=5)
    assert {g.username for g in read.grants if g.path == "fleet" and g.via == "direct"} >= {"carol", "bob"}
    assert all(count < 5 for path, count in read.owners.items() if path != "fleet/core")


async def test_tokens_review_of_fleet(pool: ClientPool, app: Any) -> None:
    client = pool.client()
    read = await TokensReview(AccessTokensService(client)).review("fleet")
    now = app.state.store.now()
    rows = {r.name: r for r in read.rows}
    assert set(rows) == {"release-bot", "nightly-export", "metrics-push", "mirror-sync", "healthy-bot"}
    assert rows["release-bot"].kind == "group" and rows["release-bot"].owner == "fleet/core"
    assert [r.name for r in read.rows if TokenFilter(expires_within=30).matches(r, now)] == ["release-bot"]
    assert [r.name for r in read.rows if TokenFilter(state="expired").matches(r, now)] == ["nightly-export"]
    assert [r.name for r in read.rows if TokenFilter(never_expires=True).matches(r, now)] == ["metrics-push"]
    assert [r.name for r in read.rows if TokenFilter(unused_for=90).matches(r, now)] == ["mirror-sync"]


async def test_personal_tokens_of_the_instance(pool: ClientPool, app: Any) -> None:
    """Read on demand: the first page's rows come before the rest is read (owners not named yet), the
    owners are named at the end, and a read within the cache's TTL sends nothing."""
    client = pool.client()
    service = AccessTokensService(client)
    heard: list[tuple[int, int]] = []
    read = await service.personal_review(per_page=3, on_rows=lambda rows, done, total: heard.append(
        (len(rows), done)))
    assert heard[0] == (3, 3) and len(heard) == 5 and not read.cut  # 13 tokens (5 of bots), 3 a page
    rows = read.rows
    sent = len(client.request_log.entries)
    assert [r.name for r in (await service.personal_review()).rows] == [r.name for r in rows]
    assert len(client.request_log.entries) == sent
    owners = {r.name: r.owner for r in rows}
    assert owners["ci-pipeline"] == "@alice" and owners["old-laptop"] == "@bob"
    kinds = {r.name: r.kind for r in rows}  # a bot's token says whose it is by its bot's username
    assert kinds["release-bot"] == "group" and kinds["mirror-sync"] == "project"
    assert kinds["automation"] == "personal" and owners["release-bot"].startswith("@group_")
    now = app.state.store.now()
    assert [r.name for r in rows if TokenFilter(unused_for=150).matches(r, now)] == ["backup-script",
                                                                                      "mirror-sync"]


async def test_rotation_s_new_value_is_returned_once_and_held_nowhere(pool: ClientPool,
                                                                     tmp_path: Path) -> None:
    client = pool.client()
    client.journal = Journal(tmp_path / "journal.jsonl")
    service = AccessTokensService(client)
    [alice] = [t for t in await service.personal() if t.name == "ci-pipeline"]
    rotated = await service.rotate_personal(alice.id)
    value = rotated.secret.get_secret_value()
    assert value.startswith("glpat-") and value not in repr(rotated)
    await service.personal(refresh=True)
    [bot] = await service.tokens("groups", "fleet/core")
    group_value = (await service.rotate("groups", "fleet/core", bot.id)).secret.get_secret_value()
    await service.revoke("groups", "fleet/core", bot.id + 0)
    held = (repr(client.request_log.entries) + cache_text(client)
            + (tmp_path / "journal.jsonl").read_text())
    assert value not in held and group_value not in held
    entries = client.journal.entries()
    assert [(e.operation, e.ok) for e in entries] == [("rotate personal access token", True),
                                                      ("rotate group access token", True),
                                                      ("revoke group access token", True)]
    assert all(e.no_undo for e in entries)


async def test_the_instance_s_members_review_of_one_user(pool: ClientPool) -> None:
    """An administrator's review of the instance for one user reads their memberships (`GET
    /users/:id/memberships`): each named by its path, with the user's flags (external)."""
    client = pool.client()
    read = await MembersReview(client).review(None, user="external.user")
    assert not read.unreadable
    web = [g for g in read.grants if g.path == "fleet/web"]
    assert [(g.username, g.level, g.kind, g.external) for g in web] == [
        ("external.user", "developer", "group", True)]
    assert "external" in web[0].flags
