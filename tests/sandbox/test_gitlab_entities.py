"""Each endpoint answers with the GitLab entity that produces its response, field for field (issue 27):
the admin Pages listing (`PagesDomainBasic`: `certificate_expiration`, never `certificate`), a project's
Pages domains (`PagesDomain`), deployments in a list, alone and as an environment's `last_deployment`
(`Deployment`, its `deployable` the `Job` entity, the job's `commit` the `Commit` entity), repository tags
(`Tag`, its `commit` with `web_url`), issues with `with_labels_details=true` (`LabelBasic`), notes
(`Note`: `imported`, `imported_from`) and a registry repository (`delete_api_path` only for a user who may
administer the project's images, and only where GitLab passes the user to the entity). The field lists are
in `gitlab_entities.py`, taken from GitLab's `lib/api/entities/*.rb`."""

from __future__ import annotations

from typing import Any

import httpx
from gitlab_entities import assert_entity, fields
from registry_fixtures import add_known_repository
from starlette.applications import Starlette

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
BOB = {**ROOT, "Sudo": "bob"}  # Reporter in acme
API = "/api/v4"
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
PORTAL = "acme%2Fplatform%2Fweb-portal"


async def _get(client: httpx.AsyncClient, path: str, headers: dict[str, str] = ROOT, **params: Any) -> Any:
    response = await client.get(f"{API}{path}", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_table_names_conditions_it_knows() -> None:
    assert fields("Job", "failed") == fields("Job") | {"failure_reason"}
    assert "certificate_expiration" not in fields("PagesDomainBasic")


async def test_admin_pages_listing_is_pages_domain_basic(client: httpx.AsyncClient) -> None:
    domains = await _get(client, "/pages/domains", per_page=100)
    with_certificate = [d for d in domains if d["url"].startswith("https://")]
    assert with_certificate and len(with_certificate) < len(domains)
    for domain in domains:
        has_certificate = domain["url"].startswith("https://")
        assert_entity(domain, "PagesDomainBasic", *(["certificate"] if has_certificate else []))
        if has_certificate:
            assert_entity(domain["certificate_expiration"], "PagesDomainCertificateExpiration")


async def test_project_pages_domains_are_pages_domain(client: httpx.AsyncClient) -> None:
    domains = await _get(client, f"/projects/{PORTAL}/pages/domains")
    assert any("certificate" in d for d in domains)
    for domain in domains:
        assert_entity(domain, "PagesDomain", *(["certificate"] if "certificate" in domain else []))
        if "certificate" in domain:
            assert_entity(domain["certificate"], "PagesDomainCertificate")
        one = await _get(client, f"/projects/{PORTAL}/pages/domains/{domain['domain']}")
        assert set(one) == set(domain)


def _assert_deployment(deployment: dict[str, Any]) -> None:
    assert_entity(deployment, "Deployment")
    job = deployment["deployable"]
    assert_entity(job, "Job", "build", *(["failed"] if job["status"] == "failed" else []))
    assert_entity(job["commit"], "Commit")
    assert_entity(deployment["user"], "UserBasic", at_least=True)
    assert_entity(deployment["environment"], "EnvironmentBasic")
    assert_entity(job["pipeline"], "PipelineBasic")
    assert_entity(job["user"], "UserBasic", at_least=True)
    assert job["project"] == {"ci_job_token_scope_enabled": False}
    assert job["web_url"].endswith(f"/acme/platform/api-gateway/-/jobs/{job['id']}")
    assert job["commit"]["web_url"].endswith(f"/acme/platform/api-gateway/-/commit/{job['commit']['id']}")
    if job["finished_at"] is not None and job["started_at"] is not None:
        assert isinstance(job["duration"], float) and job["duration"] > 0


async def test_deployments_are_the_deployment_entity_with_job_and_commit(client: httpx.AsyncClient) -> None:
    listed = await _get(client, f"/projects/{GATEWAY}/deployments", per_page=100)
    assert {d["deployable"]["status"] for d in listed} >= {"success", "failed"}
    for deployment in listed:
        _assert_deployment(deployment)
    one = await _get(client, f"/projects/{GATEWAY}/deployments/{listed[0]['id']}")
    _assert_deployment(one)
    assert one == listed[0]


async def test_an_environments_last_deployment_is_the_deployment_entity(client: httpx.AsyncClient) -> None:
    environments = await _get(client, f"/projects/{GATEWAY}/environments")
    production = next(e for e in environments if e["name"] == "production")
    detail = await _get(client, f"/projects/{GATEWAY}/environments/{production['id']}")
    assert detail["last_deployment"] is not None
    _assert_deployment(detail["last_deployment"])


async def test_a_created_deployment_has_no_deployable(client: httpx.AsyncClient) -> None:
    response = await client.post(f"{API}/projects/{GATEWAY}/deployments", headers=ROOT, json={
        "environment": "production", "sha": "a" * 40, "ref": "main", "tag": False, "status": "running"})
    assert response.status_code == 201
    assert_entity(response.json(), "Deployment")
    assert response.json()["deployable"] is None


async def test_repository_tags_are_the_tag_entity(client: httpx.AsyncClient) -> None:
    tags = await _get(client, f"/projects/{GATEWAY}/repository/tags")
    assert tags
    for tag in tags:
        assert_entity(tag, "Tag", "can read releases")
        assert_entity(tag["commit"], "Commit")
        assert tag["commit"]["web_url"] == \
            f"http://sandbox.test/acme/platform/api-gateway/-/commit/{tag['commit']['id']}"
    one = await _get(client, f"/projects/{GATEWAY}/repository/tags/{tags[0]['name']}")
    assert one == tags[0]


async def test_issue_labels_with_details_are_label_basic(client: httpx.AsyncClient) -> None:
    issues = await _get(client, f"/projects/{GATEWAY}/issues", with_labels_details="true", per_page=100)
    labels = [label for issue in issues for label in issue["labels"]]
    assert labels
    for label in labels:
        assert_entity(label, "LabelBasic")
        assert label["remove_on_close"] is False
    one = await _get(client, f"/projects/{GATEWAY}/issues/{issues[0]['iid']}", with_labels_details="true")
    for label in one["labels"]:
        assert_entity(label, "LabelBasic")


async def test_notes_are_the_note_entity(client: httpx.AsyncClient) -> None:
    notes = await _get(client, f"/projects/{GATEWAY}/issues/1/notes")
    assert notes
    for note in notes:
        assert_entity(note, "Note")
        assert (note["imported"], note["imported_from"]) == (False, "none")
        assert_entity(note["author"], "UserBasic", at_least=True)
    response = await client.post(f"{API}/projects/{GATEWAY}/issues/1/notes", headers=ROOT, json={"body": "x"})
    assert response.status_code == 201
    assert_entity(response.json(), "Note")


async def test_a_registry_repository_read_by_an_administrator(app: Starlette,
                                                               client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    one = await _get(client, f"/registry/repositories/{repo.id}")
    assert_entity(one, "ContainerRepository", "user may admin_container_image")
    assert one["delete_api_path"] == \
        f"http://sandbox.test/api/v4/projects/{repo.project_id}/registry/repositories/{repo.id}"
    counted = await _get(client, f"/registry/repositories/{repo.id}", tags_count="true", tags="true",
                         size="true")
    assert_entity(counted, "ContainerRepository", "user may admin_container_image", "tags_count", "tags",
                  "size")
    # a Reporter reads the repository but may not administer its images: no delete_api_path
    reporter = await _get(client, f"/registry/repositories/{repo.id}", BOB)
    assert_entity(reporter, "ContainerRepository")
    # the listings do not pass the user to the entity: never a delete_api_path there
    for listed in await _get(client, f"/projects/{repo.project_id}/registry/repositories", per_page=100):
        assert_entity(listed, "ContainerRepository")
