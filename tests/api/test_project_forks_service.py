"""`ProjectsService` and `ForksService` against the tiny sandbox: one project, archiving; forking with a
namespace, polling `import_status` to the end, conflicts, the forks listing with filters, and fork
relationships."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sandbox_clients import ClientPool

from labdeck.api import bindings
from labdeck.api.errors import Conflict, Forbidden, NotFound
from labdeck.api.forks import ForksService, import_done
from labdeck.api.projects import ProjectsService
from labdeck.api.services import Services
from labdeck.domain.paths import segment as project_ref
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.tui.jobs import poll_until

GATEWAY = "acme/platform/api-gateway"


class World(ClientPool):
    def __init__(self) -> None:
        self.clock = ManualClock()
        super().__init__(create_app(SandboxOptions(scale="tiny", async_delay=1.0), clock=self.clock))


@pytest.fixture
async def world() -> AsyncIterator[World]:
    made = World()
    yield made
    await made.aclose()


def test_project_ref_encodes_paths() -> None:
    assert project_ref("acme/platform/api-gateway") == "acme%2Fplatform%2Fapi-gateway"
    assert project_ref(12) == "12"


async def test_one_project(world: World) -> None:
    projects = ProjectsService(world.client())
    gateway = await projects.project(GATEWAY)
    assert gateway.path_with_namespace == GATEWAY
    with pytest.raises(NotFound):
        await projects.project("nope/nothing")


async def test_fork_and_poll_to_completion(world: World) -> None:
    forks = ForksService(world.client("glpat-sandbox-alice"))
    started = await forks.fork(GATEWAY, namespace_path="opensource", name="Gateway", path="gateway",
                               mr_default_target_self=True)
    assert started.import_status == "scheduled" and not import_done(started)
    assert started.path_with_namespace == "opensource/gateway"
    assert started.model_extra is not None and started.model_extra["mr_default_target_self"] is True
    seen: list[str] = []

    async def fetch() -> object:
        project = await forks.import_status(started.id)
        seen.append(project.import_status or "")
        return project

    async def tick(seconds: float) -> None:
        world.clock.advance(seconds)

    done = await poll_until(fetch, lambda p: import_done(p), initial=0.6, sleep=tick)  # type: ignore[arg-type]
    assert done.import_status == "finished"  # type: ignore[attr-defined]
    assert seen[0] == "scheduled" and "started" in seen and seen[-1] == "finished"


async def test_fork_conflict_and_namespace_by_id(world: World) -> None:
    forks = ForksService(world.client("glpat-sandbox-alice"))
    first = await forks.fork(GATEWAY)
    assert first.path_with_namespace == "alice/api-gateway"
    with pytest.raises(Conflict) as conflict:
        await forks.fork(GATEWAY)
    assert conflict.value.status == 409
    group = await world.client().get_json("/groups/opensource")
    by_id = await forks.fork(GATEWAY, namespace_id=group["id"], visibility="internal")
    assert by_id.path_with_namespace == "opensource/api-gateway" and by_id.visibility == "internal"
    with pytest.raises(NotFound):
        await forks.fork(GATEWAY, namespace_path="bob")


async def test_forks_listing_with_filters(world: World) -> None:
    alice = ForksService(world.client("glpat-sandbox-alice"))
    await alice.fork(GATEWAY)
    await alice.fork(GATEWAY, namespace_path="opensource", visibility="internal")
    root = Services(world.client())
    every = await root.read(bindings.PROJECT_FORKS, GATEWAY)
    assert {p.path_with_namespace for p in every} == {"alice/api-gateway", "opensource/api-gateway"}
    internal = await root.read(bindings.PROJECT_FORKS, GATEWAY, params={"visibility": "internal"})
    assert [p.path_with_namespace for p in internal] == ["opensource/api-gateway"]
    ordered = await root.read(bindings.PROJECT_FORKS, GATEWAY, params={"order_by": "id", "sort": "asc"},
                              refresh=True)
    assert [p.path_with_namespace for p in ordered] == ["alice/api-gateway", "opensource/api-gateway"]
    # a new fork drops the cached listing
    await ForksService(world.client("glpat-sandbox-alice")).fork(GATEWAY, namespace_path="acme",
                                                                   path="gw", name="gw")
    assert len(await root.read(bindings.PROJECT_FORKS, GATEWAY)) == 2  # another client's cache is its own
    await root.forks.fork(GATEWAY, path="gw-root", name="gw root")
    assert len(await root.read(bindings.PROJECT_FORKS, GATEWAY)) == 4


async def test_fork_relationships(world: World) -> None:
    forks = ForksService(world.client("glpat-sandbox-alice"))
    labdeck = await ProjectsService(forks.client).project("opensource/labdeck")
    marked = await forks.create_relationship("alice/dotfiles", labdeck.id)
    assert marked.forked_from_project is not None and marked.forked_from_project["id"] == labdeck.id
    with pytest.raises(Conflict):
        await forks.create_relationship("alice/dotfiles", labdeck.id)
    assert await forks.delete_relationship("alice/dotfiles") is True
    assert await forks.delete_relationship("alice/dotfiles") is False
    with pytest.raises(Forbidden):
        await forks.delete_relationship("acme/handbook")
