"""The deployment fleet seed (issue 26) over HTTP: a group of 30+ projects with production, staging and
review apps, 30 days of history with failed and running deployments, deterministic from the seed; a Guest
reads no environment of a private project (403); the per-project index sees records added later."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.http import iso
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store
from labdeck.sandbox.seed.deployments import add_deployment, deployments_data
from labdeck.sandbox.seed.fleet import SIZES, has_environments

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
DAVE = {"PRIVATE-TOKEN": "glpat-sandbox-root", "Sudo": "dave"}  # a Guest of fleet/restricted only
API = "/api/v4"
START = 1_790_000_000.0


@pytest.fixture(scope="module")
def demo() -> Starlette:
    return create_app(SandboxOptions(scale="demo"), clock=ManualClock(START))


def http(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test")


async def _all(client: httpx.AsyncClient, path: str, headers: dict[str, str],
               **params: str) -> list[dict]:
    response = await client.get(f"{API}{path}", params={"per_page": "100", **params}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers.get("x-total-pages", "1") == "1"
    return response.json()


async def test_fleet_group_has_30_projects_with_environments_and_30_days(demo: Starlette) -> None:
    now = datetime.fromtimestamp(START, UTC)
    async with http(demo) as client:
        projects = await _all(client, "/groups/fleet/projects", ROOT, include_subgroups="true")
        assert len(projects) == SIZES["demo"] >= 30
        with_envs = failed_recent = running = 0
        for project in projects:
            envs = await _all(client, f"/projects/{project['id']}/environments", ROOT)
            if not envs:
                continue
            with_envs += 1
            names = {e["name"] for e in envs}
            assert {"production", "staging"} <= names
            assert all(n in ("production", "staging") or n.startswith("review/") for n in names)
            deployments = await _all(client, f"/projects/{project['id']}/deployments", ROOT)
            times = [datetime.fromisoformat(d["created_at"].replace("Z", "+00:00")) for d in deployments]
            assert min(times) >= now - timedelta(days=31) and max(times) <= now
            pairs = zip(deployments, times, strict=True)
            failed_recent += any(d["status"] == "failed" and d["environment"]["name"] == "production"
                                 and t > now - timedelta(hours=24) for d, t in pairs)
            running += any(d["status"] == "running" for d in deployments)
    assert with_envs == sum(has_environments(i) for i in range(SIZES["demo"]))
    assert with_envs < len(projects)  # some projects have no environment at all
    assert failed_recent >= 5 and running >= 5


async def test_review_apps_live_in_the_review_folder_and_one_is_stopped(demo: Starlette) -> None:
    store = demo.state.store
    data = deployments_data(store)
    fleet = store.group_by_path("fleet")
    groups = {fleet.id, *store.descendants(fleet.id)}
    reviews = [e for e in data.environments.values()
               if store.projects[e.project_id].namespace_id in groups and e.name.startswith("review/")]
    assert len(reviews) >= 10
    assert any(e.state == "stopped" for e in reviews)


def test_same_seed_same_fleet() -> None:
    def shas(seed: int) -> list[str]:
        store = build_store(SandboxOptions(scale="demo", seed=seed), clock=ManualClock(START))
        fleet = store.group_by_path("fleet")
        groups = {fleet.id, *store.descendants(fleet.id)}
        return [d.sha for d in deployments_data(store).deployments.values()
                if store.projects[d.project_id].namespace_id in groups]

    assert shas(1) == shas(1)
    assert shas(1) != shas(2)


async def test_a_guest_reads_no_environment_of_a_private_project(demo: Starlette) -> None:
    store = demo.state.store
    restricted = next(p for p in store.projects.values()
                      if p.path_with_namespace.startswith("fleet/restricted/"))
    async with http(demo) as client:
        for what in ("environments", "deployments"):
            refused = await client.get(f"{API}/projects/{restricted.id}/{what}", headers=DAVE)
            assert refused.status_code == 403, refused.text
            allowed = await client.get(f"{API}/projects/{restricted.id}/{what}", headers=ROOT)
            assert allowed.status_code == 200
        public = await client.get(f"{API}/groups/fleet/projects", headers=DAVE,
                                  params={"include_subgroups": "true", "per_page": "100"})
        assert restricted.id in {p["id"] for p in public.json()}  # he sees the project itself


def test_the_per_project_index_sees_later_records() -> None:
    store = build_store(SandboxOptions(scale="tiny"), clock=ManualClock(START))
    data = deployments_data(store)
    project = store.project_by_path("opensource/labdeck")
    before = data.deployments_of(project.id)
    env = data.environments_of(project.id)[0]
    added = add_deployment(store, project, env, ref="main", sha="f" * 40, tag=False, status="success",
                           user_id=1)
    assert [d.id for d in data.deployments_of(project.id)] == [d.id for d in before] + [added.id]
    other = store.project_by_path("acme/platform/api-gateway")
    assert added.id not in {d.id for d in data.deployments_of(other.id)}


@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)))
def test_timestamps_keep_gitlabs_form(value: datetime) -> None:
    """`iso` is formatted by hand (for the board's listings): exactly what `strftime` gave."""
    assert iso(value) == value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
