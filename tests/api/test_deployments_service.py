"""`DeploymentsService` against the tiny sandbox: filters and sorting, detail, shipped merge requests,
create and status changes, environments, protected environments and their rule checks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sandbox_clients import ALICE_TOKEN, ROOT_TOKEN, ClientPool

from labdeck.api.deployments import DeploymentsService, RuleNotApplied
from labdeck.api.errors import BadRequest, Forbidden, NotFound
from labdeck.domain.capabilities import Capabilities, parse_version
from labdeck.domain.deployments import DeployRule, RuleError
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "acme/platform/api-gateway"


@pytest.fixture
async def services() -> AsyncIterator[dict[str, DeploymentsService]]:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny")))
    yield {name: DeploymentsService(pool.client(token)) for name, token in (("root", ROOT_TOKEN),
                                                                             ("alice", ALICE_TOKEN))}
    await pool.aclose()


async def test_list_filters_and_sorting(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    everything = await service.deployments(GATEWAY)
    assert len(everything) > 300
    assert [d.id for d in everything] == sorted(d.id for d in everything)
    production = await service.deployments(GATEWAY, environment="production", status="success",
                                           order_by="created_at", sort="desc")
    assert production and {d.environment_name for d in production} == {"production"}
    assert {d.status for d in production} == {"success"}
    times = [d.created_at for d in production]
    assert times == sorted(times, reverse=True)
    first = production[0]
    assert first.deployable is not None and first.deployable.name == "deploy:production"
    assert first.deployable.commit is not None and first.deployable.commit.id == first.sha
    assert first.user is not None and first.user.username
    assert first.next_statuses == ("failed", "canceled")


async def test_updated_bounds_are_sent_as_iso(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    everything = await service.deployments(GATEWAY)
    middle = sorted(d.updated_at for d in everything if d.updated_at)[len(everything) // 2]
    after = await service.deployments(GATEWAY, updated_after=middle, order_by="updated_at")
    before = await service.deployments(GATEWAY, updated_before=middle - timedelta(microseconds=1))
    # both bounds include their instant (GitLab's UpdatedAtFilterable: >= after, <= before)
    assert all(d.updated_at and d.updated_at >= middle for d in after)
    assert any(d.updated_at == middle for d in after)
    assert len(after) + len(before) == len(everything)


async def test_detail_and_shipped_merge_requests(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    shipped = [d for d in await service.deployments(GATEWAY, environment="production", status="success")]
    for deployment in reversed(shipped):
        mrs = await service.merge_requests(GATEWAY, deployment.id)
        if mrs:
            break
    assert mrs and all(mr.state == "merged" for mr in mrs)
    assert mrs[0].reference.startswith(f"{GATEWAY}!")
    detail = await service.deployment(GATEWAY, deployment.id)
    assert detail.id == deployment.id and detail.sha == deployment.sha
    with pytest.raises(NotFound):
        await service.deployment(GATEWAY, 999_999)


async def test_create_and_change_status(services: dict[str, DeploymentsService]) -> None:
    service = services["alice"]
    before = await service.deployments(GATEWAY, environment="canary")
    created = await service.create_deployment(GATEWAY, environment="canary", sha="c" * 40, ref="v2.0.0",
                                              tag=True)
    # GitLab requires a status on create: the service always sends one (running by default)
    assert created.status == "running" and created.deployable is None
    assert created.next_statuses == ("success", "failed", "canceled")
    after = await service.deployments(GATEWAY, environment="canary")
    assert len(after) == len(before) + 1  # the mutation invalidated the cached list
    with pytest.raises(BadRequest) as refused:
        await service.set_status(GATEWAY, created.id, "running")
    assert "cannot transition" in str(refused.value.message)
    assert (await service.set_status(GATEWAY, created.id, "success")).status == "success"
    with pytest.raises(ValueError):
        await service.create_deployment(GATEWAY, environment="x", sha="1", ref="m", tag=False,
                                        status="created")
    with pytest.raises(ValueError):
        await service.set_status(GATEWAY, created.id, "created")
    with pytest.raises(ValueError, match="hexadecimal"):  # refused before anything is sent
        await service.create_deployment(GATEWAY, environment="canary", sha="zzz-not-a-sha", ref="main",
                                        tag=False)
    assert len(await service.deployments(GATEWAY, environment="canary")) == len(after)
    blocked = await service.deployments(GATEWAY, status="blocked")  # a filter GitLab knows
    assert [d.status for d in blocked] == ["blocked"]
    seeded = (await service.deployments(GATEWAY))[0]
    with pytest.raises(Forbidden):
        await service.set_status(GATEWAY, seeded.id, "canceled")


async def test_environments(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    envs = await service.environments(GATEWAY)
    assert [e.name for e in envs][:2] == ["production", "staging"]
    stopped = await service.environments(GATEWAY, states="stopped")
    assert len(stopped) == 1 and stopped[0].state == "stopped"
    production = await service.environment(GATEWAY, envs[0].id)
    assert production.last_deployment is not None and production.last_deployment.status == "success"


async def test_protected_environments(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    listed = await service.protected_environments(GATEWAY)
    assert [p.name for p in listed] == ["production", "staging"]
    assert [r.kind for r in listed[1].deploy_access_levels] == ["role", "user"]
    created = await service.protect(GATEWAY, "review/*", [DeployRule(access_level=30), {"user_id": 2}])
    assert [r.access_level_description for r in created.deploy_access_levels] == [
        "Developers + Maintainers", "Alice Liddell"]
    assert (await service.protected_environment(GATEWAY, "review/*")).name == "review/*"
    assert len(await service.protected_environments(GATEWAY)) == 3
    await service.unprotect(GATEWAY, "review/*")
    assert len(await service.protected_environments(GATEWAY)) == 2
    with pytest.raises(NotFound):
        await service.protected_environment(GATEWAY, "review/*")


async def test_protect_checks_rules_before_sending(services: dict[str, DeploymentsService]) -> None:
    service = services["root"]
    requests_before = len(service.client.request_log.entries)
    with pytest.raises(RuleError):
        await service.protect(GATEWAY, "x", [{"user_id": 2, "group_id": 3}])
    with pytest.raises(RuleError):
        await service.protect(GATEWAY, "x", [DeployRule(access_level=50)])
    with pytest.raises(ValueError):
        await service.protect(GATEWAY, "x", [])
    assert len(service.client.request_log.entries) == requests_before
    with pytest.raises(BadRequest) as refused:
        await service.protect(GATEWAY, "x", [{"group_id": 999}])
    assert "shared" in str(refused.value.message)
    with pytest.raises(Forbidden):
        await services["alice"].protected_environments(GATEWAY)


def test_dates_are_utc_iso() -> None:
    from labdeck.api.deployments import _when

    assert _when(datetime(2026, 3, 1, 8, tzinfo=UTC)) == "2026-03-01T08:00:00Z"


@pytest.mark.parametrize("version", ["15.0", "17.6"])
async def test_add_and_remove_rules(version: str) -> None:
    """The same operations whether GitLab changes rules in place (15.4+) or labdeck replaces the protection;
    a user without access is refused (before 15.4, by the sandbox's create) or left out (15.4+, as GitLab
    does), and either way the rules stay as they were."""
    pool = ClientPool(create_app(SandboxOptions(scale="tiny", gitlab_version=version)))
    playing = Capabilities(edition="ee", version=parse_version(version)[0])
    service = DeploymentsService(pool.client(ROOT_TOKEN), supports=playing.supports)
    try:
        await _add_and_remove_rules(service)
    finally:
        await pool.aclose()


async def _add_and_remove_rules(service: DeploymentsService) -> None:
    fresh = await service.add_rule(GATEWAY, "canary", DeployRule(access_level=60))
    assert [r.access_level for r in fresh.deploy_access_levels] == [60]
    opensource = await service.find_group_id("opensource")
    assert opensource is not None and await service.find_group_id("no/such/group") is None
    grown = await service.add_rule(GATEWAY, "canary", DeployRule(group_id=opensource))
    assert [r.kind for r in grown.deploy_access_levels] == ["role", "group"]
    outsider = await service.find_user_id("pending.user")
    assert outsider is not None and await service.find_user_id("nobody-here") is None
    with pytest.raises(BadRequest if not service.rules_in_place() else RuleNotApplied):
        await service.add_rule(GATEWAY, "canary", DeployRule(user_id=outsider))
    kept = await service.protected_environment(GATEWAY, "canary")  # the old rules were put back
    assert [r.kind for r in kept.deploy_access_levels] == ["role", "group"]
    with pytest.raises(LookupError):
        await service.remove_rule(GATEWAY, "canary", DeployRule(access_level=30))
    shrunk = await service.remove_rule(GATEWAY, "canary", DeployRule(access_level=60))
    assert shrunk is not None and [r.kind for r in shrunk.deploy_access_levels] == ["group"]
    assert await service.remove_rule(GATEWAY, "canary", DeployRule(group_id=opensource)) is None
    with pytest.raises(NotFound):
        await service.protected_environment(GATEWAY, "canary")
