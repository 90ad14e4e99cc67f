"""Each tag's layers through the registry service (GitLab's GraphQL `containerRepository.manifest`, one batch
of manifests per request, cached by digest), so the figures of `domain.registry_sizes` count a shared layer
once: the size labdeck computes from the tags is the instance's own deduplicated size. Without GraphQL the
instance gives no layers: the figure says it is an upper bound, and it is one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sandbox_clients import ClientPool
from starlette.applications import Starlette

from labdeck.api.registry import RegistryService
from labdeck.api.registry_graphql import manifest_layers
from labdeck.api.registry_known import known_for
from labdeck.api.tag_cache import TagDetailCache
from labdeck.domain.registry_sizes import repository_size
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import registry_data
from labdeck.sandbox.seed.registry import repository_size as served_size

GATEWAY = "acme/platform/api-gateway"


@pytest.fixture
def app() -> Starlette:
    return create_app(SandboxOptions(scale="tiny"))


@pytest.fixture
async def pool(app: Starlette) -> AsyncIterator[ClientPool]:
    made = ClientPool(app)
    yield made
    await made.aclose()


def gateway_root(app: Starlette) -> int:
    store = app.state.store
    project = store.project_by_path(GATEWAY)
    return next(r.id for r in registry_data(store).of_projects({project.id}) if r.name == "")


async def test_layers_make_the_size_the_instances_own(app: Starlette, pool: ClientPool) -> None:
    repo_id = gateway_root(app)
    service = RegistryService(pool.client())
    details = await service.tag_details(GATEWAY, repo_id)
    assert all(d.layers for d in details)
    size = repository_size([d.to_tag_info() for d in details])
    assert size.exact and size.bytes == served_size(registry_data(app.state.store).repositories[repo_id])
    assert size.bytes < sum({d.digest: d.total_size or 0 for d in details}.values())  # shared base: once
    known = known_for(service.client).get(service.client.settings.base_url, repo_id)
    assert known is not None and known.size == size  # the overview's figure is the same one


async def test_without_graphql_the_size_is_an_upper_bound(app: Starlette, pool: ClientPool) -> None:
    repo_id = gateway_root(app)
    details = await RegistryService(pool.client(), graphql=False).tag_details(GATEWAY, repo_id)
    size = repository_size([d.to_tag_info() for d in details])
    assert not size.exact
    assert size.bytes >= served_size(registry_data(app.state.store).repositories[repo_id])


async def test_layers_come_from_the_cache_on_a_warm_read(app: Starlette, pool: ClientPool,
                                                         tmp_path: Path) -> None:
    repo_id = gateway_root(app)
    cache = TagDetailCache(tmp_path / "tags.json")
    cold = RegistryService(pool.client(), tag_cache=cache)
    first = await cold.tag_details(GATEWAY, repo_id)
    warm_client = pool.client()
    warm = RegistryService(warm_client, tag_cache=TagDetailCache(tmp_path / "tags.json"))
    again = await warm.tag_details(GATEWAY, repo_id, refresh=True)  # names read again, digests cached
    assert [d.layers for d in again] == [d.layers for d in first]
    asked = [e for e in warm_client.request_log.entries if "graphql" in e.path]
    assert asked and not any("manifest" in (e.body or "") for e in asked)  # no manifest batch


def test_manifests_are_read_as_the_registry_serves_them() -> None:
    """A schema 2 manifest's layers; a manifest list, a schema 1 manifest, text that is not JSON (a Ruby
    hash, say) or a layer of the wrong type give no layers (the figure stays an upper bound)."""
    text = ('{"schemaVersion":2,"config":{"size":7,"digest":"sha256:c"},'
            '"layers":[{"size":10,"digest":"sha256:a"},{"size":5,"digest":"sha256:b"}]}')
    assert manifest_layers(text) == (("sha256:a", 10), ("sha256:b", 5))
    assert manifest_layers('{"schemaVersion":2,"manifests":[{"digest":"sha256:x","size":1}]}') is None
    assert manifest_layers('{"schemaVersion":1,"fsLayers":[{"blobSum":"sha256:a"}]}') is None
    assert manifest_layers('{"schemaVersion"=>2}') is None
    assert manifest_layers('{"schemaVersion":2,"layers":[{"size":"10","digest":"sha256:a"}]}') is None
    assert manifest_layers(None) is None
