"""`CleanupPolicyService` against the sandbox: the simulation (tag details through the registry service)
is what the sandbox's own run then deletes, for each seeded policy; saving refuses what GitLab refuses
before sending, verifies after a lost answer, and is journalled with the old policy as its undo; a group's
storage, sorted by size."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sandbox_clients import ALICE_TOKEN, ClientPool

from faulty_sandbox import fast_retry_settings
from labdeck.api.cleanup_policy import CleanupPolicyService, PolicyNotApplied, PolicyRefused
from labdeck.api.client import ApiClient
from labdeck.api.journal import Journal, UndoService
from labdeck.domain.cleanup_policy import Policy
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

SEEDED = ("acme/platform/api-gateway", "acme/platform/web-portal", "opensource/labdeck",
          "acme/security/vault")
DAY = 86_400


@pytest.fixture
async def pool() -> AsyncIterator[ClientPool]:
    made = ClientPool(create_app(SandboxOptions(scale="tiny"), clock=ManualClock()))
    yield made
    await made.aclose()


async def test_what_labdeck_said_is_what_the_sandbox_did(pool: ClientPool) -> None:
    client = pool.client()
    service = CleanupPolicyService(client)
    when = pool.app.state.store.now() + timedelta(seconds=DAY)
    said = {path: await service.simulate(path, now=when) for path in SEEDED}
    assert said["acme/security/vault"].max_list_size == 200
    assert said["acme/security/vault"].limit_source == "application settings"
    assert said["acme/platform/api-gateway"].protected == ["pr-1[0-4]"]
    assert any("matches no tag" in line for line in said["acme/platform/web-portal"].why)
    assert any("per-run limit" in line for line in said["acme/security/vault"].why)
    vault_when = said["acme/security/vault"].when
    assert vault_when is not None and vault_when.runs >= 2
    http = httpx.AsyncClient(transport=httpx.ASGITransport(pool.app), base_url="http://sandbox.test")
    ran = await http.post("/-/sandbox/clock", params={"advance": str(DAY)},
                          headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
    await http.aclose()
    deleted = {e["repository_id"]: {n for run in e["runs"] for n in run} for e in ran.json()["runs"]}
    for path, simulation in said.items():
        for repo in simulation.repositories:
            assert repo.plan is not None, path
            planned = {t.name for t in repo.plan.to_delete()}
            assert deleted[repo.repository.id] == planned, (path, repo.repository.name)
            left = {t.name for t in await service.registry.tags(path, repo.repository.id)}
            assert planned.isdisjoint(left) and len(left) == len(repo.plan.tags) - len(planned)
    assert sum(s.deleted_count for s in said.values()) > 0


async def test_replan_is_the_live_preview(pool: ClientPool) -> None:
    service = CleanupPolicyService(pool.client())
    simulation = await service.simulate("acme/platform/api-gateway")
    before = simulation.deleted_count
    assert simulation.policy is not None
    wider = simulation.replan(replace(simulation.policy, name_regex=".*", name_regex_keep=None, keep_n=1,
                                      older_than=None))
    assert wider.deleted_count > before
    broken = simulation.replan(replace(simulation.policy, name_regex="(a"))
    assert broken.invalid is not None and any("invalid" in line for line in broken.why)


async def test_save_refuses_before_sending_what_gitlab_refuses(pool: ClientPool) -> None:
    client = pool.client()
    service = CleanupPolicyService(client)
    sent: list[object] = []
    client.request_log.subscribe(sent.append)
    with pytest.raises(PolicyRefused, match="keep_n is not included in the list"):
        await service.save("acme/infra/terraform", Policy(keep_n=3))
    with pytest.raises(PolicyRefused, match="cadence is not included"):
        await service.save("acme/infra/terraform", Policy(cadence="2w"))
    assert sent == []  # nothing left for the server
    unchanged = await service.policy("acme/infra/terraform")
    assert unchanged is not None and unchanged.same_settings(Policy(enabled=False, cadence="14d"))


async def test_save_sends_only_what_the_operator_changed(pool: ClientPool) -> None:
    """A policy stored with `older_than: 60d` (GitLab 14.4+), edited in `keep_n` only: the PUT carries
    `keep_n` alone, so `older_than` stays 60d (before, labdeck knew no 60d and sent it back as null, every
    tag past keep_n then deletable whatever its age); an enabled policy with a blank `name_regex` is
    refused before sending, in GitLab's words."""
    client = pool.client()
    service = CleanupPolicyService(client)
    await service.save("acme/infra/terraform", Policy(enabled=False, cadence="14d", older_than="60d"))
    loaded = await service.policy("acme/infra/terraform")
    assert loaded is not None and loaded.older_than == "60d"
    bodies: list[object] = []
    client.request_log.subscribe(lambda record: bodies.append(record) if record.method == "PUT" else None)
    sent: list[dict[str, object]] = []
    real_put = client.put_json

    async def put_json(path, body, **kw):  # type: ignore[no-untyped-def]
        sent.append(body)
        return await real_put(path, body, **kw)

    client.put_json = put_json  # type: ignore[method-assign]
    saved = await service.save("acme/infra/terraform", replace(loaded, keep_n=25), loaded=loaded)
    assert sent == [{"container_expiration_policy_attributes": {"keep_n": 25}}]
    assert (saved.keep_n, saved.older_than) == (25, "60d")
    back = await service.policy("acme/infra/terraform")
    assert back is not None and back.older_than == "60d" and back.keep_n == 25
    with pytest.raises(PolicyRefused, match="name_regex can't be blank"):
        await service.save("acme/infra/terraform", replace(back, enabled=True, name_regex=""), loaded=back)
    assert len(sent) == 1 and len(bodies) == 1  # refused before sending
    assert await service.save("acme/infra/terraform", back, loaded=back) == back  # nothing changed: no PUT
    assert len(sent) == 1


async def test_save_is_journalled_with_the_old_policy_as_its_undo(pool: ClientPool, tmp_path: Path) -> None:
    client = pool.client()
    client.journal = Journal(tmp_path / "journal.jsonl")
    service = CleanupPolicyService(client)
    old = await service.policy("acme/infra/terraform")
    assert old is not None
    new = replace(old, enabled=True, keep_n=25, name_regex="v.*")
    saved = await service.save("acme/infra/terraform", new)
    assert saved.same_settings(new) and saved.next_run_at != old.next_run_at
    entry = client.journal.entries()[-1]
    assert entry.kind == "project.update" and entry.ok and entry.inverse is not None
    await UndoService(client, client.journal).undo(entry)
    back = await service.policy("acme/infra/terraform")
    assert back is not None and back.same_settings(old)


async def test_undo_refused_when_the_policy_changed_since(pool: ClientPool, tmp_path: Path) -> None:
    client = pool.client()
    client.journal = Journal(tmp_path / "journal.jsonl")
    service = CleanupPolicyService(client)
    old = await service.policy("acme/infra/terraform")
    assert old is not None
    await service.save("acme/infra/terraform", replace(old, keep_n=5))
    entry = client.journal.entries()[-1]
    await CleanupPolicyService(pool.client()).save("acme/infra/terraform", replace(old, keep_n=50))
    with pytest.raises(Exception, match="changed since"):
        await UndoService(client, client.journal).undo(entry)


class LosePut(httpx.AsyncBaseTransport):
    """The sandbox; every PUT to a project loses its answer, "after" it was applied or "before"."""

    def __init__(self, how: str) -> None:
        self.inner = httpx.ASGITransport(create_app(SandboxOptions(scale="tiny")))
        self.how = how

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PUT":
            if self.how == "before":
                raise httpx.ReadError("connection reset by peer", request=request)
            response = await self.inner.handle_async_request(request)
            await response.aread()
            return httpx.Response(200, content=response.content[:7], request=request)
        return await self.inner.handle_async_request(request)


async def test_a_lost_answer_is_verified_by_reading_back() -> None:
    async with ApiClient(fast_retry_settings("t"), transport=LosePut("after")) as client:
        service = CleanupPolicyService(client)
        old = await service.policy("acme/infra/terraform")
        assert old is not None
        saved = await service.save("acme/infra/terraform", replace(old, keep_n=100))
        assert saved.keep_n == 100
    async with ApiClient(fast_retry_settings("t"), transport=LosePut("before")) as client:
        service = CleanupPolicyService(client)
        with pytest.raises(PolicyNotApplied):
            await service.save("acme/infra/terraform", replace(old, keep_n=100))


async def test_group_storage_sorted_by_size_with_policy_state(pool: ClientPool) -> None:
    rows = await CleanupPolicyService(pool.client()).group_storage("acme")
    sizes = [r.registry_size for r in rows]
    assert sizes and all(isinstance(s, int) for s in sizes) and sizes == sorted(sizes, reverse=True)
    states = {r.path: r.policy_state for r in rows}
    assert states["acme/platform/api-gateway"] == "enabled" and states["acme/infra/terraform"] == "disabled"
    plain = await CleanupPolicyService(pool.client(ALICE_TOKEN)).group_storage("acme")
    assert all(r.registry_size is None for r in plain)  # statistics are for administrators


async def test_group_storage_parses_the_pages_into_storage_rows_not_full_projects(
        pool: ClientPool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The storage view reads four fields of each project: the pages are parsed from the bytes into
    `StorageProject` rows (a page of 100 full projects is some 380 KB; parsing them into `Project` models
    took most of the client's time on a 500-project group). A control character is still made visible."""
    from labdeck.api import cleanup_policy
    from labdeck.api.groups import ProjectQuery
    from labdeck.api.models.registry import StorageProject
    from labdeck.domain import catalogue as ep
    from labdeck.sandbox.store import Store

    client = pool.client()
    store: Store = pool.app.state.store
    terraform = next(p for p in store.projects.values() if p.path_with_namespace == "acme/infra/terraform")
    terraform.path_with_namespace += "\x1b"
    store.touch()
    rows = await CleanupPolicyService(client).group_storage("acme")
    assert "acme/infra/terraform\u241b" in {r.path for r in rows}  # made visible
    query = ProjectQuery(include_subgroups=True, with_shared=False, statistics=True)
    cached = client.cached_list(ep.GROUP_PROJECTS.path("acme"), query.params(shared=False))
    assert cached is not None and cached[0] and all(type(item) is StorageProject for item in cached[0])
    monkeypatch.setattr(cleanup_policy, "fast_decoder", lambda model: None)  # the tolerant path agrees
    again = await CleanupPolicyService(pool.client()).group_storage("acme", statistics=True)
    assert [(r.id, r.path, r.registry_size, r.policy) for r in again] == \
        [(r.id, r.path, r.registry_size, r.policy) for r in rows]


async def test_a_warm_simulation_reads_names_only_and_writes_the_cache_once(
        pool: ClientPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.api import tag_cache
    from labdeck.api.registry import RegistryService

    writes: list[int] = []
    encode = tag_cache._encode
    monkeypatch.setattr(tag_cache, "_encode", lambda value: writes.append(1) or encode(value))

    async def simulate() -> tuple[list[str], int]:
        client = pool.client()
        seen: list[str] = []
        client.request_log.subscribe(lambda entry: seen.append(f"{entry.method} {entry.path}"))
        registry = RegistryService(client, tag_cache=tag_cache.TagDetailCache(tmp_path / "tags.json"))
        sim = await CleanupPolicyService(client, registry).simulate("acme/security/vault")
        return seen, sim.deleted_count

    cold, cold_deleted = await simulate()
    assert len(writes) == 1  # one write for both repositories
    warm, warm_deleted = await simulate()
    assert warm_deleted == cold_deleted and len(warm) < len(cold) and len(writes) == 2
    graphql = [line for line in warm if "graphql" in line]
    # the project's cleanup states only: GraphQL known to serve, no repository reads its first page
    assert len(graphql) == 1
    assert not any(line.startswith("GET /user") for line in warm)


async def test_the_simulation_runs_at_the_instance_time_its_answers_tell(pool: ClientPool) -> None:
    """After `POST /-/sandbox/clock` moved the sandbox 40 days on, the simulation's now is the sandbox's
    time (its answers' `Date`), not the local wall time: the preview is what the sandbox's run will do."""
    from datetime import UTC, datetime

    store = pool.app.state.store
    service = CleanupPolicyService(pool.client())
    before = await service.simulate("acme/platform/api-gateway")
    assert abs((before.now - store.now()).total_seconds()) <= 1.5
    async with httpx.AsyncClient(transport=httpx.ASGITransport(pool.app), base_url="http://s.test") as http:
        answer = await http.post("/-/sandbox/clock", params={"advance": str(40 * DAY)},
                                 headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
    assert answer.status_code == 200
    sim = await service.simulate("acme/platform/api-gateway")
    assert abs((sim.now - store.now()).total_seconds()) <= 1.5
    assert abs((sim.now - before.now).total_seconds() - 40 * DAY) <= 1.5
    assert abs((sim.now - datetime.now(UTC)).total_seconds()) > DAY  # the sandbox's clock is not ours
    exact = await service.simulate("acme/platform/api-gateway", now=store.now())
    assert (sim.deleted_count, sim.why) == (exact.deleted_count, exact.why)
