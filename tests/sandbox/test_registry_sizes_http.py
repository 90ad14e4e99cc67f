"""The sandbox's registry sizes agree with its seeded blobs, over HTTP, as GitLab's do:

- a tag's `total_size` (REST detail, GraphQL `totalSize`) is the sum of its manifest's layers
  (`lib/container_registry/tag.rb`: `layers.sum(&:size)`), and GraphQL's `containerRepository.manifest`
  gives that manifest (`app/graphql/types/container_repository_details_type.rb`);
- a repository's `size` (`GET /registry/repositories/:id?size=true`, GraphQL `size`) is its deduplicated
  size: every layer its tags reference, once (`doc/api/container_registry.md`);
- a project's `statistics.container_registry_size` is the sum of its repositories' sizes, and a group's the
  sum over its projects (GitLab MR 142362; `doc/api/groups.md`).

The test adds the layers up itself, from the manifests the API gives: it never asks the sandbox's own
arithmetic."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from registry_fixtures import API, GATEWAY, ROOT, store_of
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import registry_data


@pytest.fixture
def app() -> Starlette:
    """Tiny, with room for the thousands of detail requests these tests send (the rate limit aside)."""
    return create_app(SandboxOptions(scale="tiny", rate_limit=1_000_000))


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test") as http:
        yield http


MANIFESTS = """query($id: ContainerRepositoryID!, $ref: String!) {
  containerRepository(id: $id) { size manifest(reference: $ref) } }"""


async def layers_of(client: httpx.AsyncClient, repository_id: int, reference: str) -> dict[str, Any]:
    response = await client.post("/api/graphql", headers=ROOT, json={"query": MANIFESTS, "variables": {
        "id": f"gid://gitlab/ContainerRepository/{repository_id}", "ref": reference}})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    details = body["data"]["containerRepository"]
    return {"size": details["size"], "manifest": json.loads(details["manifest"])}


async def unique_blobs(client: httpx.AsyncClient, project: str) -> dict[int, int]:
    """Each repository of the project: the sum of the distinct layers of its tags, from their manifests."""
    encoded = project.replace("/", "%2F")
    repos = (await client.get(f"{API}/projects/{encoded}/registry/repositories", headers=ROOT)).json()
    sizes: dict[int, int] = {}
    for repo in repos:
        names: list[dict[str, Any]] = []
        for page in range(1, 100):
            listed = f"{API}/projects/{encoded}/registry/repositories/{repo['id']}/tags"
            found_page = (await client.get(listed, params={"per_page": 100, "page": page},
                                           headers=ROOT)).json()
            names.extend(found_page)
            if len(found_page) < 100:
                break
        blobs: dict[str, int] = {}
        for tag in names:
            detail = (await client.get(f"{API}/projects/{encoded}/registry/repositories/{repo['id']}/tags/"
                                       f"{tag['name']}", headers=ROOT)).json()
            found = await layers_of(client, repo["id"], detail["digest"])
            layers = found["manifest"]["layers"]
            assert detail["total_size"] == sum(layer["size"] for layer in layers)  # GitLab's total_size
            blobs.update((layer["digest"], layer["size"]) for layer in layers)
        sizes[repo["id"]] = sum(blobs.values())
        assert found["size"] == sizes[repo["id"]]  # GraphQL's deduplicated size
        single = (await client.get(f"{API}/registry/repositories/{repo['id']}", params={"size": "true"},
                                   headers=ROOT)).json()
        assert single["size"] == sizes[repo["id"]]  # REST's
    return sizes


async def statistic(client: httpx.AsyncClient, project: str) -> int:
    encoded = project.replace("/", "%2F")
    found = (await client.get(f"{API}/projects/{encoded}", params={"statistics": "true"},
                              headers=ROOT)).json()
    return int(found["statistics"]["container_registry_size"])


async def test_the_statistic_is_the_sum_of_the_repositories_unique_blobs(client: httpx.AsyncClient) -> None:
    sizes = await unique_blobs(client, GATEWAY)
    assert len(sizes) == 3
    assert await statistic(client, GATEWAY) == sum(sizes.values())
    # the images share their base layers: the repository holds far less than its tags' sizes added up
    listed = (await client.get(f"{API}/groups/acme%2Fplatform/projects", headers=ROOT,
                               params={"statistics": "true", "per_page": 100})).json()
    assert next(p for p in listed if p["path_with_namespace"] == GATEWAY)["statistics"][
        "container_registry_size"] == sum(sizes.values())


async def test_a_deletion_changes_the_statistic_by_what_it_frees(app: Starlette,
                                                                 client: httpx.AsyncClient) -> None:
    """Deleting a tag whose manifest no other tag uses takes only its own layers off (the shared base
    stays): the statistic follows at once (GitLab's registry refreshes usage on delete)."""
    vault = "acme/security/vault"
    before = await unique_blobs(client, vault)
    store = store_of(app)
    project = store.project_by_path(vault)
    assert project is not None
    repo = next(r for r in registry_data(store).of_projects({project.id}) if r.name == "")
    by_digest: dict[str, list[str]] = {}
    for tag in repo.tags.values():
        by_digest.setdefault(tag.digest, []).append(tag.name)
    name = next(names[0] for names in by_digest.values() if len(names) == 1 and names[0] != "latest")
    gone = (await layers_of(client, repo.id, repo.tags[name].digest))["manifest"]["layers"]
    response = await client.delete(f"{API}/projects/{project.id}/registry/repositories/{repo.id}/tags/{name}",
                                   headers=ROOT)
    assert response.status_code == 200
    after = await unique_blobs(client, vault)
    freed = before[repo.id] - after[repo.id]
    assert 0 < freed < sum(layer["size"] for layer in gone)  # its own layer, not the shared base
    assert await statistic(client, vault) == sum(after.values())


async def test_without_a_metadata_database_the_size_is_null() -> None:
    """A registry without GitLab's metadata database (most self-managed instances) has no deduplicated size:
    GitLab exposes the key all the same, as null (`ContainerRepository#size` is nil unless
    `gitlab_api_client.supports_gitlab_api?`, `app/models/container_repository.rb`; the entity exposes
    `size` whenever `size=true`, `lib/api/entities/container_registry.rb`); and a listing never has it."""
    app = create_app(SandboxOptions(scale="tiny", registry_sizes=False))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test") as http:
        encoded = GATEWAY.replace("/", "%2F")
        repos = (await http.get(f"{API}/projects/{encoded}/registry/repositories", headers=ROOT,
                                params={"size": "true"})).json()
        assert repos and all("size" not in repo for repo in repos)
        single = await http.get(f"{API}/registry/repositories/{repos[0]['id']}", params={"size": "true"},
                                headers=ROOT)
        assert single.status_code == 200
        assert "size" in single.json() and single.json()["size"] is None
        plain = (await http.get(f"{API}/registry/repositories/{repos[0]['id']}", headers=ROOT)).json()
        assert "size" not in plain
