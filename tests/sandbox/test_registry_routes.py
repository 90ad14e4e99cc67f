"""Container registry conformance over HTTP: listings, detail, single and repository deletes, access."""

from __future__ import annotations

import httpx
from registry_fixtures import ALICE, API, GATEWAY, JOB, ROOT, add_known_repository, store_of, tags_path
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock


async def test_project_repositories_have_the_contract_fields(app: Starlette,
                                                             client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.get(f"{API}/projects/{repo.project_id}/registry/repositories", headers=ROOT)
    assert response.status_code == 200
    body = {r["id"]: r for r in response.json()}
    assert body[repo.id] == {
        "id": repo.id, "name": "known", "path": f"{GATEWAY}/known", "project_id": repo.project_id,
        "location": f"registry.sandbox.test/{GATEWAY}/known", "created_at": "2025-01-02T03:04:05.000Z",
        "cleanup_policy_started_at": None, "status": None,
    }
    assert response.headers["x-total"] == str(len(body))


async def test_tags_and_tags_count_only_when_asked(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.get(f"{API}/projects/{repo.project_id}/registry/repositories",
                                params={"tags": "true", "tags_count": "true"}, headers=ROOT)
    known = next(r for r in response.json() if r["id"] == repo.id)
    assert known["tags_count"] == 7
    assert known["tags"][0] == {"name": "buildcache", "path": f"{GATEWAY}/known:buildcache",
                                "location": f"registry.sandbox.test/{GATEWAY}/known:buildcache"}
    assert [t["name"] for t in known["tags"]] == sorted(t["name"] for t in known["tags"])


async def test_project_by_path_and_root_repository_path(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{API}/projects/acme%2Fplatform%2Fapi-gateway/registry/repositories",
                                headers=ROOT)
    root = next(r for r in response.json() if r["name"] == "")
    assert root["path"] == GATEWAY and root["location"] == f"registry.sandbox.test/{GATEWAY}"


async def test_group_repositories_cover_subgroups(app: Starlette, client: httpx.AsyncClient) -> None:
    response = await client.get(f"{API}/groups/acme/registry/repositories", params={"per_page": 100},
                                headers=ROOT)
    assert response.status_code == 200
    paths = {r["path"] for r in response.json()}
    assert f"{GATEWAY}/worker" in paths and "acme/security/vault" in paths
    assert not any(p.startswith("opensource/") for p in paths)


async def test_group_listing_hides_private_projects_from_outsiders(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{API}/groups/acme/registry/repositories", params={"per_page": 100})
    paths = {r["path"] for r in response.json()}
    assert "acme/security/vault" not in paths and GATEWAY in paths


async def test_one_repository_by_id(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.get(f"{API}/registry/repositories/{repo.id}", params={"tags_count": 1},
                                headers=ROOT)
    assert response.status_code == 200 and response.json()["tags_count"] == 7
    missing = await client.get(f"{API}/registry/repositories/999999", headers=ROOT)
    assert missing.status_code == 404 and missing.json() == {"message": "404 Not found"}


async def test_tag_list_is_paginated_by_name(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    first = await client.get(tags_path(repo), params={"per_page": 3}, headers=ROOT)
    assert [t["name"] for t in first.json()] == ["buildcache", "latest", "main-abc1234"]
    assert first.headers["x-total"] == "7" and first.headers["x-total-pages"] == "3"
    assert 'rel="next"' in first.headers["link"]


async def test_tag_detail(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    created = repo.tags["v1.0.0"].created_at
    assert created is not None
    response = await client.get(f"{tags_path(repo)}/v1.0.0", headers=ROOT)
    assert response.status_code == 200
    assert response.json() == {
        "name": "v1.0.0", "path": f"{GATEWAY}/known:v1.0.0",
        "location": f"registry.sandbox.test/{GATEWAY}/known:v1.0.0", "revision": "b" * 64,
        "short_revision": "b" * 9, "digest": "sha256:" + "b" * 64,
        "created_at": created.strftime("%Y-%m-%dT%H:%M:%S.000+00:00"), "total_size": 200,
    }
    nameless = await client.get(f"{tags_path(repo)}/buildcache", headers=ROOT)
    assert nameless.json()["created_at"] is None


async def test_unknown_tag_and_repository(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    tag = await client.get(f"{tags_path(repo)}/nope", headers=ROOT)
    assert tag.status_code == 404 and tag.json() == {"message": "404 Tag Not Found"}
    other = await client.get(f"{API}/projects/2/registry/repositories/{repo.id}/tags", headers=ROOT)
    assert other.status_code == 404 and other.json() == {"message": "404 Not found"}


async def test_delete_one_tag_keeps_the_shared_digest(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.delete(f"{tags_path(repo)}/v1.1.0", headers=ALICE)
    assert response.status_code == 200
    assert (await client.get(f"{tags_path(repo)}/v1.1.0", headers=ROOT)).status_code == 404
    latest = await client.get(f"{tags_path(repo)}/latest", headers=ROOT)
    assert latest.json()["digest"] == "sha256:" + "a" * 64


async def test_delete_repository_is_asynchronous(app: Starlette, client: httpx.AsyncClient,
                                                 clock: ManualClock) -> None:
    repo = add_known_repository(app)
    response = await client.delete(f"{API}/projects/{repo.project_id}/registry/repositories/{repo.id}",
                                   headers=ROOT)
    assert response.status_code == 202
    pending = await client.get(f"{API}/registry/repositories/{repo.id}", headers=ROOT)
    assert pending.status_code == 200 and pending.json()["status"] == "delete_scheduled"
    clock.advance(0.1)
    gone = await client.get(f"{API}/registry/repositories/{repo.id}", headers=ROOT)
    assert gone.status_code == 404


async def test_reading_and_deleting_need_access(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    anonymous = await client.get(tags_path(repo))
    assert anonymous.status_code == 200  # a public project's registry is public
    assert (await client.delete(f"{tags_path(repo)}/pr-12")).status_code == 401
    reporter = await client.delete(f"{tags_path(repo)}/pr-12", headers={**ROOT, "Sudo": "bob"})
    assert reporter.status_code == 403 and reporter.json() == {"message": "403 Forbidden"}
    hidden = store_of(app).project_by_path("hidden-lab/secrets")
    assert hidden is not None
    private = await client.get(f"{API}/projects/{hidden.id}/registry/repositories", headers=ALICE)
    assert private.status_code == 404 and private.json() == {"message": "404 Project Not Found"}


async def test_job_token_reaches_only_its_own_project(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    own = await client.delete(f"{tags_path(repo)}/pr-13", headers=JOB)
    assert own.status_code == 200
    portal = store_of(app).project_by_path("acme/platform/web-portal")
    assert portal is not None
    other = await client.get(f"{API}/projects/{portal.id}/registry/repositories", headers=JOB)
    assert other.status_code == 404
