"""A repository's size by the cheapest request GitLab has (issue 35): `GET /registry/repositories/:id
?size=true` gives the registry's deduplicated size in one request (`doc/api/container_registry.md`, "Get
details of a single repository"; `lib/api/container_repositories.rb`). Where the instance has no such
figure it answers `"size": null` (a registry without the metadata database: `ContainerRepository#size` is
nil unless `gitlab_api_client.supports_gitlab_api?`, `app/models/container_repository.rb`): only then is
the size computed from the tags' details and layers. Either way it is the one figure, the repository's
unique blobs, and the session's record (what the overview and a second visit read) holds it."""

from __future__ import annotations

import httpx
import pytest
from sandbox_clients import ROOT_TOKEN, sandbox_settings

from labdeck.api.client import ApiClient
from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import KnownRepositories, known_for
from labdeck.api.registry_paths import repository_size
from labdeck.domain.registry_sizes import Figure
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import registry_data
from labdeck.sandbox.seed.registry import repository_size as seeded_size

GATEWAY = "acme/platform/api-gateway"


class Seen(httpx.AsyncBaseTransport):
    """The sandbox, every request it received noted as `METHOD /path?query`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(f"{request.method} {request.url.path}?{request.url.query.decode()}")
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize("registry_sizes", [True, False])
async def test_the_size_is_the_instance_s_figure_else_the_tags(registry_sizes: bool) -> None:
    app = create_app(SandboxOptions(scale="tiny", registry_sizes=registry_sizes))
    transport = Seen(httpx.ASGITransport(app))
    paths = transport.paths
    async with ApiClient(sandbox_settings(ROOT_TOKEN), transport=transport) as client:
        service = RegistryService(client)
        repo = (await service.project_repositories(GATEWAY))[0]
        paths.clear()
        figure = await repository_size(service, repo)
        expected = seeded_size(registry_data(app.state.store).repositories[repo.id])
        assert figure == Figure(expected)  # the unique blobs, exact (the layers come from GraphQL)
        assert paths[0] == f"GET /api/v4/registry/repositories/{repo.id}?size=true"
        assert len(paths) == 1 if registry_sizes else len(paths) > 2  # else tags, details and manifests
        record = known_for(client).get(client.settings.base_url, repo.id)
        assert record is not None and record.size == figure and record.path == repo.path


def test_a_size_the_instance_gave_goes_when_the_tags_change() -> None:
    """A size read whole (no tags held to take a deleted one off) is out of date once a tag goes."""
    known = KnownRepositories(clock=lambda: 5.0)
    known.record_size("https://a", 1, "p/one", "p", 3, Figure(900))
    known.record_size("https://a", 2, "p/two", "p", 2, Figure(400))
    assert [(r.repository_id, r.bytes, r.tags) for r in known.largest("https://a")] == [(1, 900, 3),
                                                                                       (2, 400, 2)]
    known.forget_tags("https://a", 1, ["a"])
    known.keep_tags("https://a", 2, ["x", "y"])
    assert known.get("https://a", 1) is None and known.get("https://a", 2) is None
