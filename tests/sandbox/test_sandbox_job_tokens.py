"""Job tokens count only where GitLab accepts them (doc/ci/jobs/ci_job_token.md); elsewhere GitLab does not
read them, so the request is anonymous: 401 where a user is needed, public data where it is not."""

from __future__ import annotations

import httpx
import pytest

from labdeck.sandbox.job_tokens import job_token_allowed

JOB = {"JOB-TOKEN": "glcbt-sandbox-job"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
UNAUTHORIZED = {"message": "401 Unauthorized"}
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
API = "/api/v4"


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/user"),
    ("GET", "/version"),
    ("GET", "/metadata"),
    ("GET", "/groups/acme/variables"),
    ("GET", f"/projects/{GATEWAY}/protected_environments"),
    ("GET", "/issues"),
    ("POST", f"/projects/{GATEWAY}/issues"),
    ("GET", f"/projects/{GATEWAY}/members"),
    ("GET", "/groups/acme/members"),
])
async def test_job_token_is_401_where_gitlab_ignores_it(client: httpx.AsyncClient, method: str,
                                                        path: str) -> None:
    response = await client.request(method, API + path, headers=JOB)
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


@pytest.mark.parametrize("path", [
    "/job",
    f"/projects/{GATEWAY}/deployments",
    f"/projects/{GATEWAY}/environments",
    f"/projects/{GATEWAY}/registry/repositories",
    f"/projects/{GATEWAY}/repository/tags",
])
async def test_job_token_is_accepted_where_gitlab_accepts_it(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(API + path, headers=JOB)
    assert response.status_code == 200, response.text


async def test_job_endpoint_describes_the_tokens_job(client: httpx.AsyncClient) -> None:
    job = (await client.get(f"{API}/job", headers=JOB)).json()
    gateway = (await client.get(f"{API}/projects/{GATEWAY}")).json()
    assert job["status"] == "running" and job["pipeline"]["project_id"] == gateway["id"]
    assert job["user"]["username"] == "alice" and job["web_url"].endswith(f"/-/jobs/{job['id']}")
    other = await client.get(f"{API}/job", headers=ALICE)
    assert (other.status_code, other.json()) == (404, {"message": "404 Job Not Found"})
    anonymous = await client.get(f"{API}/job")
    assert (anonymous.status_code, anonymous.json()) == (401, UNAUTHORIZED)


async def test_ignored_job_token_reads_like_anonymous(client: httpx.AsyncClient) -> None:
    with_token = await client.get(f"{API}/projects", headers=JOB, params={"per_page": 100})
    anonymous = await client.get(f"{API}/projects", params={"per_page": 100})
    assert with_token.status_code == 200 and with_token.json() == anonymous.json()
    nonsense = await client.get(f"{API}/projects", headers={"JOB-TOKEN": "nope"})
    assert nonsense.status_code == 200  # not looked at, so not refused
    on_allowed_route = await client.get(f"{API}/job", headers={"JOB-TOKEN": "nope"})
    assert (on_allowed_route.status_code, on_allowed_route.json()) == (401, UNAUTHORIZED)


def test_the_table_matches_route_templates() -> None:
    assert job_token_allowed("PUT", "/projects/{id}/deployments/{deployment_id}")
    assert job_token_allowed("GET", "/projects/{id}/repository/tags")
    assert not job_token_allowed("GET", "/projects/{id}/repository/tags/{tag_name:path}")
    assert not job_token_allowed("DELETE", "/job")
    assert not job_token_allowed("GET", "/projects/{id}/protected_environments")
    assert not job_token_allowed("GET", None)
