"""The group deployments board service against the sandbox's fleet (issue 26): contents (status, drift,
rates), the fan-out's request count and concurrency, the cache (a refresh within the TTL costs nothing),
and projects answering 403 or 404 (named, not fatal)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette

from labdeck.api.cache import ListCache, make_key
from labdeck.api.client import ApiClient
from labdeck.api.deploy_board import DeployBoardService
from labdeck.api.overview import OverviewService
from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.deployments import add_deployment, add_environment, deployments_data
from labdeck.sandbox.seed.fleet import SIZES, has_environments
from labdeck.sandbox.seed.namespaces import add_project

START = 1_790_000_000.0
NOW = datetime.fromtimestamp(START, UTC)


class Counting(httpx.ASGITransport):
    """The sandbox over ASGI, counting requests and the most in flight at once."""

    def __init__(self, app: Starlette) -> None:
        super().__init__(app)
        self.count = self.flight = self.peak = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        self.flight += 1
        self.peak = max(self.peak, self.flight)
        try:
            return await super().handle_async_request(request)
        finally:
            self.flight -= 1


@pytest.fixture
def app() -> Starlette:
    return create_app(SandboxOptions(scale="demo"), clock=ManualClock(START))


@pytest.fixture
async def made() -> AsyncIterator[list[ApiClient]]:
    clients: list[ApiClient] = []
    yield clients
    for client in clients:
        await client.aclose()


def service(app: Starlette, made: list[ApiClient], sudo: str | None = None,
            concurrency: int = 4) -> tuple[DeployBoardService, Counting]:
    transport = Counting(app)
    settings = ConnectionSettings("http://sandbox.test", token=SecretStr("glpat-sandbox-root"), sudo=sudo,
                                  concurrency=concurrency)
    client = ApiClient(settings, transport=transport)
    made.append(client)
    return DeployBoardService(client), transport


def _known_project(app: Starlette) -> Any:
    """fleet/edge/known: production runs A; staging ran A, B, then C (B failed once); 7-day history of
    staging: 3 successes and 1 failure."""
    store = app.state.store
    project = add_project(store, "Known", "known", "public", group=store.group_by_path("fleet/edge"))
    production = add_environment(store, project, "production", created_at=NOW - timedelta(days=60))
    staging = add_environment(store, project, "staging", created_at=NOW - timedelta(days=60))

    def deploy(env: Any, sha: str, status: str, days: float, ref: str = "main") -> None:
        when = (NOW - timedelta(days=days)).replace(microsecond=0)
        record = add_deployment(store, project, env, ref=ref, sha=sha * 40, tag=False, status=status,
                                user_id=store.user_by_username("carol").id, created_at=when)
        record.updated_at = when

    deploy(production, "a", "success", 10)
    deploy(staging, "a", "success", 11)
    deploy(staging, "b", "failed", 5)
    deploy(staging, "b", "success", 4)
    deploy(staging, "c", "success", 3)
    deploy(staging, "d", "success", 2)
    deploy(production, "d", "failed", 0.1, ref="v9.9.9")
    store.touch()
    return project


async def test_board_contents_status_drift_and_rates(app: Starlette, made: list[ApiClient]) -> None:
    known = _known_project(app)
    board_service, _ = service(app, made)
    read = await board_service.board("fleet", now=NOW)
    assert read.projects == SIZES["demo"] + 1 and read.unreadable == []
    rows = {(r.project, r.environment): r for r in read.board.rows}
    production, staging = rows[("fleet/edge/known", "production")], rows[("fleet/edge/known", "staging")]
    assert production.status == "failed" and production.last is not None
    assert production.last.ref == "v9.9.9" and production.short_sha == "d" * 8
    assert production.last.user == "carol" and production.failed_recently
    assert production.rate_7 == 0.0 and production.rate_30 == 0.5
    assert staging.rate_7 == 3 / 4 and staging.rate_30 == 4 / 5
    assert staging.drift is not None
    assert staging.drift.text() == "staging is 3 deployments ahead of production"
    assert sum(production.per_day) == 2 and production.per_day[-1] == 1
    # failed in the last 24 hours first
    flags = [r.failed_recently for r in read.board.rows]
    assert flags == sorted(flags, reverse=True) and sum(flags) >= 5
    # every fleet project with environments has production, staging; the others are folded away
    store = app.state.store
    fleet = [p for p in store.projects.values() if p.path_with_namespace.startswith("fleet/")]
    empty = sorted(p.path_with_namespace for i, p in enumerate(sorted(fleet, key=lambda p: p.id)[:-1])
                   if not has_environments(i))
    assert sorted(read.board.without_environments) == empty
    assert {r.environment for r in read.board.rows} >= {"production", "staging", "review/*"}
    # the newest deployment of each production row is the store's
    data = deployments_data(store)
    for row in read.board.rows:
        if row.environment == "production" and row.project != known.path_with_namespace:
            env = data.environment_named(row.project_id, "production")
            newest = max((d for d in data.deployments_of(row.project_id) if d.environment_id == env.id),
                         key=lambda d: (d.created_at, d.id))
            assert row.last is not None and (row.last.id, row.status, row.last.sha) == (
                newest.id, newest.status, newest.sha)


async def test_fan_out_request_count_concurrency_and_cache(app: Starlette, made: list[ApiClient]) -> None:
    board_service, transport = service(app, made, concurrency=4)
    seen: list[tuple[int, int]] = []  # (requests so far, rows) at each project

    def on_rows(rows: list, done: int, total: int) -> None:
        seen.append((transport.count, len(rows)))

    read = await board_service.board("fleet", now=NOW, on_rows=on_rows)
    with_envs = sum(has_environments(i) for i in range(SIZES["demo"]))
    assert len(read.board.without_environments) == SIZES["demo"] - with_envs
    # one listing page, one environments request per project, one deployments page per project with any
    assert transport.count == 1 + SIZES["demo"] + with_envs
    assert transport.peak <= 4
    first = next(count for count, rows in seen if rows)
    assert first <= 1 + 2 * 4  # the first rows come after a handful of requests, not after the fan-out
    assert len(seen) == SIZES["demo"]

    before = transport.count
    again = await board_service.board("fleet", now=NOW + timedelta(minutes=1))
    assert transport.count == before  # within the TTL: no request at all
    assert len(again.board.rows) == len(read.board.rows)
    await board_service.board("fleet", now=NOW, refresh=True)
    assert transport.count == 2 * before


async def test_forbidden_and_missing_projects_are_named_not_fatal(app: Starlette,
                                                                  made: list[ApiClient]) -> None:
    store = app.state.store
    restricted = sorted(p.path_with_namespace for p in store.projects.values()
                        if p.path_with_namespace.startswith("fleet/restricted/"))
    board_service, _ = service(app, made, sudo="dave")  # a Guest of fleet/restricted only
    await board_service.projects("fleet")  # the listing is cached ...
    gone = store.project_by_path("fleet/edge/search-api") or next(
        p for p in store.projects.values() if p.path_with_namespace.startswith("fleet/edge/"))
    del store.projects[gone.id]  # ... then a project is deleted
    store.touch()
    read = await board_service.board("fleet", now=NOW)
    named = {u.project: u.status for u in read.unreadable}
    assert named == {**dict.fromkeys(restricted, 403), gone.path_with_namespace: 404}
    assert read.board.rows and all(r.project not in named for r in read.board.rows)
    assert all("403" in u.message or "Forbidden" in u.message
               for u in read.unreadable if u.status == 403)


def test_the_default_cache_holds_a_500_project_board() -> None:
    """Each project's environments and deployments are two lists: a refresh of a 500-project board
    within the TTL finds all of them (the cache once held 500 lists, and such a refresh sent 934
    requests)."""
    cache = ListCache()
    keys = [make_key("http://x", "me", f"/projects/{n}/{what}", None)
            for n in range(500) for what in ("environments", "deployments")]
    for key in keys:
        cache.set(key, [])
    assert all(cache.get(key) == ([], True) for key in keys)


def _failures_at_the_edges(app: Starlette) -> dict[str, int]:
    """fleet/edge/edges: production failed 23 h ago then succeeded (a failure of the window, though not
    the newest deployment), staging failed at the window's first second (counted: the bound includes it)
    and one second before it (not counted)."""
    store = app.state.store
    project = add_project(store, "Edges", "edges", "public", group=store.group_by_path("fleet/edge"))
    production = add_environment(store, project, "production", created_at=NOW - timedelta(days=60))
    staging = add_environment(store, project, "staging", created_at=NOW - timedelta(days=60))
    since = (NOW - timedelta(hours=24)).replace(microsecond=0)
    made = {}
    for name, env, status, updated in (
            ("recovered", production, "failed", NOW - timedelta(hours=23)),
            ("fixed", production, "success", NOW - timedelta(hours=1)),
            ("first second", staging, "failed", since),
            ("a second early", staging, "failed", since - timedelta(seconds=1))):
        record = add_deployment(store, project, env, ref="main", sha="e" * 40, tag=False, status=status,
                                user_id=store.user_by_username("carol").id,
                                created_at=updated - timedelta(minutes=5))
        record.updated_at = updated
        made[name] = record.id
    store.touch()
    return made


async def test_the_overview_and_the_board_count_the_same_failed_deployments(
        app: Starlette, made: list[ApiClient]) -> None:
    """Issue 34: the board said `6 failed in 24h` of fleet while the overview said `none` (it read only the
    projects opened). Both now count `deploy_failures`' deployments for the same scope, the fleet group:
    the same deployments, the same figure, the edges of the window included once."""
    edges = _failures_at_the_edges(app)
    board_service, _ = service(app, made)
    read = await board_service.board("fleet", now=NOW)
    overview = OverviewService(board_service.client, now=lambda: NOW)
    figures = await overview.failed_deployments(("fleet",), ())
    on_board = {f.deployment.id for f in read.failed}
    assert {f.deployment.id for f in figures.failed} == on_board and figures.count == len(on_board)
    assert len(on_board) >= 6  # the seeded failures of the last hours, and more
    assert edges["recovered"] in on_board and edges["first second"] in on_board
    assert edges["a second early"] not in on_board
    assert (figures.read, figures.total, figures.unreadable) == (SIZES["demo"] + 1, SIZES["demo"] + 1, [])
    assert figures.coverage().text() == read.coverage().text() == f"{SIZES['demo'] + 1} projects"
    assert read.window is not None and read.window.count_text(len(read.failed)) == \
        figures.window.count_text(figures.count) == f"{len(on_board)} deployments failed in 24h"
    # newest first, as the overview lists them
    times = [f.deployment.updated_at for f in figures.failed]
    assert times == sorted(times, reverse=True)


async def test_the_overview_covers_opened_projects_once_and_says_what_it_could_not_read(
        app: Starlette, made: list[ApiClient]) -> None:
    """The overview's scope is the groups whose board was opened and the projects opened outside them (a
    project inside the group is not counted twice); unreadable projects are named by both, and a budget
    too small to read every project says so instead of counting fewer."""
    store = app.state.store
    gateway = store.project_by_path("acme/platform/api-gateway")
    inside = next(p for p in store.projects.values() if p.path_with_namespace.startswith("fleet/core/"))
    board_service, _ = service(app, made, sudo="dave")  # a Guest of fleet/restricted only
    read = await board_service.board("fleet", now=NOW)
    overview = OverviewService(board_service.client, now=lambda: NOW)
    figures = await overview.failed_deployments(
        ("fleet",), ((gateway.id, gateway.path_with_namespace), (inside.id, inside.path_with_namespace)))
    assert figures.projects == (gateway.path_with_namespace,)
    assert figures.total == SIZES["demo"] + 1
    assert figures.unreadable == sorted(u.project for u in read.unreadable) and figures.unreadable
    assert figures.count == len(read.failed)  # dave's view of fleet; api-gateway had no failure
    assert "unreadable: fleet/restricted/" in figures.coverage().text()
    small = OverviewService(board_service.client, deploy_budget=10, now=lambda: NOW)
    cut = await small.failed_deployments(("fleet",), ())
    assert (cut.read + len(cut.unreadable), cut.total) == (10, SIZES["demo"])  # the board's listing: free
    assert cut.coverage().text().startswith(f"10 of {SIZES['demo']} projects (request budget)")
    cold, transport = service(app, made, sudo="dave")  # a client of its own: the listing is read
    cut = await OverviewService(cold.client, deploy_budget=10, now=lambda: NOW).failed_deployments(
        ("fleet",), ())
    assert (cut.read + len(cut.unreadable), transport.count) == (9, 10)


async def test_a_hidden_project_is_unreadable_never_one_without_environments(
        app: Starlette, made: list[ApiClient]) -> None:
    """Issue 34: a project that could not be read is never counted as one without environments. Once listed
    (the listing cached), a project without environments and one with some become private: dave, no member
    of them, is answered 404 (GitLab hides a project it will not show) and both are named unreadable."""
    store = app.state.store
    fleet = sorted((p for p in store.projects.values() if p.path_with_namespace.startswith("fleet/")
                    and not p.path_with_namespace.startswith("fleet/restricted/")), key=lambda p: p.id)
    data = deployments_data(store)
    empty = next(p for p in fleet if not data.environments_of(p.id))
    full = next(p for p in fleet if data.environments_of(p.id))
    board_service, _ = service(app, made, sudo="dave")
    await board_service.projects("fleet")  # listed while public
    for project in (empty, full):
        project.visibility = "private"
    store.touch()
    read = await board_service.board("fleet", now=NOW)
    named = {u.project: u.status for u in read.unreadable}
    assert named[empty.path_with_namespace] == named[full.path_with_namespace] == 404
    assert empty.path_with_namespace not in read.board.without_environments
    assert all(r.project not in named for r in read.board.rows)
