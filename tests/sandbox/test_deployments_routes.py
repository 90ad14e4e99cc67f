"""Deployments conformance over HTTP: listing parameters, detail, create, status updates, shipped MRs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from gitlab_entities import fields
from starlette.applications import Starlette

from labdeck.sandbox.seed.deployments import add_deployment, add_environment, deployments_data

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
BOB = {"PRIVATE-TOKEN": "glpat-sandbox-root", "Sudo": "bob"}  # Reporter in acme
API = "/api/v4"
GATEWAY = "acme%2Fplatform%2Fapi-gateway"
DEPLOYMENTS = f"{API}/projects/{GATEWAY}/deployments"


def _known(app: Starlette) -> tuple[int, list[int]]:
    """A fresh project-like setup on labdeck: environment `known` with four deployments of set times."""
    store = app.state.store
    project = store.project_by_path("opensource/labdeck")
    env = add_environment(store, project, "known", external_url="https://known.example")
    base = datetime(2026, 3, 1, tzinfo=UTC)
    ids = []
    for offset, (ref, status) in enumerate((("b", "success"), ("a", "failed"), ("c", "created"),
                                            ("a", "running"))):
        deployment = add_deployment(store, project, env, ref=ref, sha=f"{offset:040d}", tag=False,
                                    status=status, user_id=2, created_at=base + timedelta(days=offset))
        deployment.updated_at = base + timedelta(days=10 - offset)
        ids.append(deployment.id)
    store.touch()
    return project.id, ids


async def _ids(client: httpx.AsyncClient, pid: int, **params: str) -> list[int]:
    response = await client.get(f"{API}/projects/{pid}/deployments", params={"environment": "known",
                                                                             **params}, headers=ROOT)
    assert response.status_code == 200, response.text
    return [d["id"] for d in response.json()]


async def test_default_order_is_id_ascending_and_environment_filters(app: Starlette,
                                                                     client: httpx.AsyncClient) -> None:
    pid, ids = _known(app)
    assert await _ids(client, pid) == ids
    everything = await client.get(f"{API}/projects/{pid}/deployments", params={"per_page": 100},
                                  headers=ROOT)
    assert int(everything.headers["x-total"]) > len(ids)
    assert await _ids(client, pid, environment="nope") == []


@pytest.mark.parametrize(("order_by", "sort", "expected"), [
    ("id", "desc", [3, 2, 1, 0]), ("iid", "asc", [0, 1, 2, 3]), ("created_at", "desc", [3, 2, 1, 0]),
    ("updated_at", "asc", [3, 2, 1, 0]), ("ref", "asc", [1, 3, 0, 2]), ("ref", "desc", [2, 0, 3, 1]),
])
async def test_order_by_and_sort(app: Starlette, client: httpx.AsyncClient, order_by: str, sort: str,
                                 expected: list[int]) -> None:
    pid, ids = _known(app)
    assert await _ids(client, pid, order_by=order_by, sort=sort) == [ids[i] for i in expected]


async def test_status_and_updated_bounds(app: Starlette, client: httpx.AsyncClient) -> None:
    pid, ids = _known(app)
    assert await _ids(client, pid, status="failed") == [ids[1]]
    assert await _ids(client, pid, status="canceled") == []
    # updated_at: 11th, 10th, 9th, 8th of March for ids[0..3]; bounds include the instant, as GitLab's
    # (Deployment includes UpdatedAtFilterable, app/models/concerns/updated_at_filterable.rb:
    # `updated_at >= updated_after`, `updated_at <= updated_before`)
    assert await _ids(client, pid, updated_after="2026-03-09T00:00:00Z") == [ids[0], ids[1], ids[2]]
    assert await _ids(client, pid, updated_after="2026-03-09T00:00:01Z") == [ids[0], ids[1]]
    assert await _ids(client, pid, updated_before="2026-03-09T00:00:00Z") == [ids[2], ids[3]]
    assert await _ids(client, pid, updated_before="2026-03-09T00:00:00") == [ids[2], ids[3]]  # bare: UTC
    assert await _ids(client, pid, updated_after="2026-03-08T00:00:01Z",
                      updated_before="2026-03-10T23:59:59+00:00") == [ids[1], ids[2]]


@pytest.mark.parametrize(("params", "error"), [
    ({"order_by": "name"}, "order_by does not have a valid value"),
    ({"sort": "up"}, "sort does not have a valid value"),
    ({"status": "waiting"}, "status does not have a valid value"),
    ({"updated_after": "yesterday"}, "updated_after is invalid"),
    ({"updated_before": "2026-13-01"}, "updated_before is invalid"),
    ({"sort": "up", "status": "x"}, "sort does not have a valid value, status does not have a valid value"),
])
async def test_invalid_listing_parameters(client: httpx.AsyncClient, params: dict[str, str],
                                          error: str) -> None:
    response = await client.get(DEPLOYMENTS, params=params, headers=ROOT)
    assert response.status_code == 400
    assert response.json() == {"error": error}


async def test_seeded_deployment_has_the_contract_fields(client: httpx.AsyncClient) -> None:
    response = await client.get(DEPLOYMENTS, params={"status": "success", "environment": "production",
                                                     "per_page": 1}, headers=ROOT)
    first = response.json()[0]
    assert set(first) == {"id", "iid", "ref", "sha", "created_at", "updated_at", "status", "user",
                          "environment", "deployable"}
    assert set(first["environment"]) == fields("EnvironmentBasic")
    job = first["deployable"]
    assert job["name"] == "deploy:production" and job["status"] == "success"
    assert set(job) == fields("Job", "build") and set(job["commit"]) == fields("Commit")
    assert job["commit"]["id"] == first["sha"] and job["commit"]["short_id"] == first["sha"][:8]
    assert {"id", "ref", "sha", "status", "created_at", "updated_at", "web_url"} <= set(job["pipeline"])
    assert "bio" in job["user"] and "bio" not in first["user"]
    detail = await client.get(f"{DEPLOYMENTS}/{first['id']}", headers=ROOT)
    assert detail.json() == first


async def test_seeded_history_spans_ninety_days_with_mixed_statuses(app: Starlette) -> None:
    store = app.state.store
    gateway = store.project_by_path("acme/platform/api-gateway")
    rows = deployments_data(store).deployments_of(gateway.id)
    days = {d.created_at.date() for d in rows}
    assert len(days) > 60
    assert (store.anchor.date() - min(days)).days >= 89
    assert {d.status for d in rows} == {"success", "failed", "canceled", "running", "blocked"}
    assert len(rows) / 90 > 3


async def test_unknown_deployment_and_foreign_project(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{DEPLOYMENTS}/999999", headers=ROOT)
    assert (response.status_code, response.json()) == (404, {"message": "404 Deployment Not Found"})
    hidden = await client.get(f"{API}/projects/hidden-lab%2Fsecrets/deployments", headers=ALICE)
    assert (hidden.status_code, hidden.json()) == (404, {"message": "404 Project Not Found"})


async def test_create_deployment_with_its_status(client: httpx.AsyncClient) -> None:
    body = {"environment": "canary", "sha": "a" * 40, "ref": "main", "tag": False}
    refused = await client.post(DEPLOYMENTS, json=body, headers=ALICE)
    assert (refused.status_code, refused.json()) == (400, {"error": "status is missing"})
    response = await client.post(DEPLOYMENTS, json={**body, "status": "running"}, headers=ALICE)
    assert response.status_code == 201
    created = response.json()
    assert created["status"] == "running" and created["deployable"] is None
    assert created["environment"]["name"] == "canary" and created["user"]["username"] == "alice"
    envs = await client.get(f"{API}/projects/{GATEWAY}/environments", params={"name": "canary"},
                            headers=ROOT)
    assert [e["name"] for e in envs.json()] == ["canary"]
    again = await client.post(DEPLOYMENTS, json={**body, "status": "success"}, headers=ALICE)
    assert again.json()["status"] == "success"
    assert again.json()["environment"]["id"] == created["environment"]["id"]
    assert again.json()["iid"] == created["iid"] + 1


async def test_create_validation(client: httpx.AsyncClient) -> None:
    response = await client.post(DEPLOYMENTS, data={"ref": "main"}, headers=ALICE)
    assert response.status_code == 400
    assert response.json() == {
        "error": "environment is missing, sha is missing, tag is missing, status is missing"}
    bad = await client.post(DEPLOYMENTS, data={"environment": "x", "sha": "1", "ref": "m", "tag": "false",
                                               "status": "created"}, headers=ALICE)
    assert (bad.status_code, bad.json()) == (400, {"error": "status does not have a valid value"})
    reporter = await client.post(DEPLOYMENTS, data={"environment": "x", "sha": "1", "ref": "m",
                                                    "tag": "false", "status": "success"}, headers=BOB)
    assert (reporter.status_code, reporter.json()) == (403, {"message": "403 Forbidden"})
    anonymous = await client.post(DEPLOYMENTS, data={"ref": "m"})  # authentication comes first
    assert (anonymous.status_code, anonymous.json()) == (401, {"message": "401 Unauthorized"})


async def test_every_deployment_endpoint_needs_a_user(client: httpx.AsyncClient) -> None:
    """GitLab's deployments API has `before { authenticate! }`: 401 even on a public project."""
    public = f"{API}/projects/opensource%2Flabdeck/deployments"
    for response in (await client.get(public), await client.get(DEPLOYMENTS), await client.get(f"{public}/1"),
                     await client.put(f"{public}/1", data={"status": "success"}),
                     await client.get(f"{public}/1/merge_requests")):
        assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"})


async def test_blocked_is_a_listing_filter(client: httpx.AsyncClient) -> None:
    response = await client.get(DEPLOYMENTS, params={"status": "blocked"}, headers=ROOT)
    assert response.status_code == 200
    blocked = response.json()
    assert len(blocked) == 1 and blocked[0]["status"] == "blocked"  # the seeded one awaiting approval
    assert blocked[0]["environment"]["name"] == "production"
    assert blocked[0]["deployable"]["status"] == "manual"
    skipped = await client.get(DEPLOYMENTS, params={"status": "skipped"}, headers=ROOT)
    assert skipped.status_code == 200


async def test_update_requires_a_status(client: httpx.AsyncClient) -> None:
    deployment = await _created(client, "running")
    missing = await client.put(f"{DEPLOYMENTS}/{deployment}", data={}, headers=ALICE)
    assert (missing.status_code, missing.json()) == (400, {"error": "status is missing"})
    invalid = await client.put(f"{DEPLOYMENTS}/{deployment}", data={"status": "created"}, headers=ALICE)
    assert (invalid.status_code, invalid.json()) == (400, {"error": "status does not have a valid value"})


async def _created(client: httpx.AsyncClient, status: str = "running") -> int:
    body = {"environment": "production", "sha": "b" * 40, "ref": "v9.9.9", "tag": True, "status": status}
    response = await client.post(DEPLOYMENTS, json=body, headers=ALICE)
    return int(response.json()["id"])


async def test_status_transitions(app: Starlette, client: httpx.AsyncClient) -> None:
    pid, ids = _known(app)  # ids[2] is `created` (only a CI job makes one on GitLab)
    running = await client.put(f"{API}/projects/{pid}/deployments/{ids[2]}", data={"status": "running"},
                               headers=ROOT)
    assert (running.status_code, running.json()["status"]) == (200, "running")
    deployment = await _created(client)
    again = await client.put(f"{DEPLOYMENTS}/{deployment}", data={"status": "running"}, headers=ALICE)
    assert (again.status_code, again.json()) == (
        400, {"message": {"status": ['cannot transition via "run"']}})
    done = await client.put(f"{DEPLOYMENTS}/{deployment}", json={"status": "success"}, headers=ALICE)
    assert done.json()["status"] == "success"
    same = await client.put(f"{DEPLOYMENTS}/{deployment}", json={"status": "success"}, headers=ALICE)
    assert same.json() == {"message": {"status": ['cannot transition via "succeed"']}}
    dropped = await client.put(f"{DEPLOYMENTS}/{deployment}", json={"status": "failed"}, headers=ALICE)
    assert dropped.json()["status"] == "failed"
    invalid = await client.put(f"{DEPLOYMENTS}/{deployment}", json={"status": "paused"}, headers=ALICE)
    assert invalid.json() == {"error": "status does not have a valid value"}


async def test_update_refusals(client: httpx.AsyncClient) -> None:
    deployment = await _created(client, "running")
    reporter = await client.put(f"{DEPLOYMENTS}/{deployment}", json={"status": "success"}, headers=BOB)
    assert reporter.status_code == 403
    seeded = (await client.get(DEPLOYMENTS, params={"per_page": 1}, headers=ROOT)).json()[0]
    ci = await client.put(f"{DEPLOYMENTS}/{seeded['id']}", json={"status": "success"}, headers=ROOT)
    assert ci.status_code == 403
    assert ci.json() == {"message": "403 Forbidden - Deployments created using GitLab CI can not be updated "
                                    "using the API"}


async def test_merge_requests_shipped(app: Starlette, client: httpx.AsyncClient) -> None:
    data = deployments_data(app.state.store)
    shipped = next(d for d in data.deployments.values()
                   if d.project_id == 1 and len(d.merge_request_ids) >= 2)
    response = await client.get(f"{DEPLOYMENTS}/{shipped.id}/merge_requests", headers=ROOT)
    assert response.status_code == 200
    body = response.json()
    assert sorted(mr["id"] for mr in body) == sorted(shipped.merge_request_ids)
    first = body[0]
    assert first["state"] == "merged" and first["merge_commit_sha"] == shipped.sha
    assert first["references"]["full"].startswith("acme/platform/api-gateway!")
    opened = await client.get(f"{DEPLOYMENTS}/{shipped.id}/merge_requests", params={"state": "opened"},
                              headers=ROOT)
    assert opened.json() == []
    bad = await client.get(f"{DEPLOYMENTS}/{shipped.id}/merge_requests", params={"state": "x"},
                           headers=ROOT)
    assert bad.status_code == 400


async def test_seeded_ids_follow_creation_time(app: Starlette) -> None:
    store = app.state.store
    rows = deployments_data(store).deployments_of(store.project_by_path("acme/platform/api-gateway").id)
    ordered = sorted(rows, key=lambda d: d.id)
    assert [d.created_at for d in ordered] == sorted(d.created_at for d in ordered)
    assert [d.iid for d in ordered] == list(range(1, len(ordered) + 1))
