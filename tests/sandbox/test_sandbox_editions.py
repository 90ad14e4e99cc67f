"""`--edition` and `--gitlab-version`: Community Edition answers premium endpoints as GitLab CE does (its
catch-all 404), ignores premium parameters; `/version` and `/metadata` tell the truth per version; endpoints
newer than the version played answer 404."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.routing import Route

from labdeck.domain.capabilities import Capabilities
from labdeck.domain.catalogue import ENDPOINTS
from labdeck.domain.endpoints import shape
from labdeck.sandbox.app import api_routes, create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.editions import route_available
from labdeck.sandbox.options import SandboxOptions

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
CATCH_ALL = {"error": "404 Not Found"}
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
PREMIUM = [
    ("GET", "/groups/acme/iterations"),
    ("GET", f"/projects/{GATEWAY}/iterations"),
    ("GET", f"/projects/{GATEWAY}/protected_environments"),
    ("POST", f"/projects/{GATEWAY}/protected_environments"),
    ("GET", "/groups/acme/billable_members"),
    ("DELETE", "/groups/acme/billable_members/2"),
    ("POST", "/groups/acme/members/2/override"),
]


async def sandbox(**options: object) -> httpx.AsyncClient:
    app = create_app(SandboxOptions(scale="tiny", **options), clock=ManualClock())  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test/api/v4",
                             headers=ROOT)


@pytest.fixture
async def ce() -> AsyncIterator[httpx.AsyncClient]:
    async with await sandbox(edition="ce", gitlab_version="16.11") as client:
        yield client


@pytest.fixture
async def ee() -> AsyncIterator[httpx.AsyncClient]:
    async with await sandbox(edition="ee", gitlab_version="16.11") as client:
        yield client


@pytest.mark.parametrize(("method", "path"), PREMIUM)
async def test_premium_endpoints_are_the_catch_all_404_on_ce(ce: httpx.AsyncClient, method: str,
                                                             path: str) -> None:
    response = await ce.request(method, path)
    assert (response.status_code, response.json()) == (404, CATCH_ALL)


async def test_premium_endpoints_answer_on_ee(ee: httpx.AsyncClient) -> None:
    for path in ("/groups/acme/iterations", f"/projects/{GATEWAY}/protected_environments",
                 "/groups/acme/billable_members"):
        assert (await ee.get(path)).status_code == 200, path


async def test_version_and_metadata_per_edition(ce: httpx.AsyncClient, ee: httpx.AsyncClient) -> None:
    community = (await ce.get("/version")).json()
    assert community["version"] == "16.11.0" and community["enterprise"] is False
    assert len(community["revision"]) == 11
    assert community == (await ce.get("/metadata")).json()
    assert set(community["kas"]) == {"enabled", "externalUrl", "version"}  # externalK8sProxyUrl came in 17.6
    enterprise = (await ee.get("/metadata")).json()
    assert enterprise["version"] == "16.11.0-ee" and enterprise["enterprise"] is True


async def test_an_old_version_has_no_metadata_and_a_short_version() -> None:
    async with await sandbox(gitlab_version="15.0") as old:
        assert (await old.get("/version")).json().keys() == {"version", "revision"}
        assert (await old.get("/version")).json()["version"] == "15.0.0-ee"
        response = await old.get("/metadata")
        assert (response.status_code, response.json()) == (404, CATCH_ALL)
    async with await sandbox(gitlab_version="15.3") as before_enterprise:
        body = (await before_enterprise.get("/metadata")).json()
        assert "enterprise" not in body and body["kas"]["enabled"] is False
        assert (await before_enterprise.get("/version")).json().keys() == {"version", "revision"}
    async with await sandbox(gitlab_version="17.6.2") as recent:
        assert (await recent.get("/version")).json()["kas"]["externalK8sProxyUrl"] is None


async def test_endpoints_newer_than_the_version_answer_404() -> None:
    async with await sandbox(gitlab_version="13.4") as old:
        for path in ("/groups/acme/iterations", "/groups/acme/export_relations/status", "/metadata"):
            response = await old.get(path)
            assert (response.status_code, response.json()) == (404, CATCH_ALL), path
        assert (await old.get("/groups/acme")).status_code == 200
    async with await sandbox(gitlab_version="13.11") as before_relations:
        assert (await before_relations.get("/groups/acme/iterations")).status_code == 200
        assert (await before_relations.get("/groups/acme/export_relations/status")).status_code == 404


@pytest.mark.parametrize(("edition", "version"), [("ce", "13.0"), ("ee", "13.4"), ("ee", "13.11"),
                                                  ("ce", "16.11"), ("ee", "17.6")])
def test_the_sandbox_mounts_what_the_client_expects(edition: str, version: str) -> None:
    """One set of facts: an endpoint the client's capabilities call missing on this edition and version
    is not mounted by a sandbox playing it, and every other endpoint of the catalogue is."""
    options = SandboxOptions(edition=edition, gitlab_version=version)  # type: ignore[arg-type]
    mounted = {(method, shape(route.path)) for route in api_routes(options) if isinstance(route, Route)
               for method in route.methods or ()}
    served = {(method, shape(route.path)) for route in api_routes(SandboxOptions(gitlab_version="17.6"))
              if isinstance(route, Route) for method in route.methods or ()}
    major, minor = (int(part) for part in version.split("."))
    instance = Capabilities(edition=edition, version=(major, minor, 0))  # type: ignore[arg-type]
    for endpoint in ENDPOINTS:
        if (endpoint.method, endpoint.shape) not in served:
            continue  # labdeck calls it, the sandbox does not play it (tests/test_endpoint_catalogue.py)
        expected = endpoint.feature is None or instance.supports(endpoint.feature) is None
        assert ((endpoint.method, endpoint.shape) in mounted) is expected, endpoint.name


def test_the_table_decides_by_route_family() -> None:
    old_ce = SandboxOptions(edition="ce", gitlab_version="13.0")
    assert not route_available("/groups/{id}/export_relations/download", old_ce)
    assert route_available("/groups/{id}/export_relations/download", SandboxOptions(gitlab_version="13.12"))
    assert not route_available("/projects/{id}/protected_environments/{name}", old_ce)
    assert route_available("/groups/{id}/members", old_ce)
    with pytest.raises(ValueError, match="GitLab version"):
        SandboxOptions(gitlab_version="sixteen")
    with pytest.raises(ValueError, match="edition"):
        SandboxOptions(edition="ultimate")  # type: ignore[arg-type]


async def test_ce_ignores_weight_and_leaves_ee_fields_out(ce: httpx.AsyncClient) -> None:
    path = f"/projects/{GATEWAY}/issues"
    issue = (await ce.post(path, json={"title": "weighed", "weight": 5})).json()
    assert "weight" not in issue and "epic" not in issue and "health_status" not in issue
    updated = (await ce.put(f"{path}/{issue['iid']}", json={"weight": 3})).json()
    assert "weight" not in updated and updated["title"] == "weighed"


async def test_promote_is_plain_text_on_ce(ce: httpx.AsyncClient, ee: httpx.AsyncClient) -> None:
    for client, promoted in ((ce, False), (ee, True)):
        path = f"/projects/{GATEWAY}/issues"
        issue = (await client.post(path, json={"title": "promote me"})).json()
        note = await client.post(f"{path}/{issue['iid']}/notes", json={"body": "/promote"})
        assert note.status_code == 201
        body = note.json()
        assert bool(body.get("commands_changes", {}).get("promote_to_epic")) is promoted
        after = (await client.get(f"{path}/{issue['iid']}")).json()
        assert (after["state"] == "closed") is promoted


async def test_group_variable_environment_scope_is_ignored_on_ce(ce: httpx.AsyncClient,
                                                                ee: httpx.AsyncClient) -> None:
    for client, scope in ((ce, "*"), (ee, "production")):
        created = await client.post("/groups/acme/variables", json={
            "key": "SCOPED_KEY", "value": "v4lue-long", "environment_scope": "production"})
        assert created.status_code == 201, created.text
        assert created.json()["environment_scope"] == scope
