"""Registry tag details through GraphQL against the sandbox: the GraphQL and REST paths give the same
preview, the fallback engages when GraphQL answers 404, 401 or an error, it is remembered for the session,
big repositories go by `tagDetails` batches, and the tag-detail cache saves requests on a second read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sandbox_clients import ClientPool

from labdeck.api.registry import RegistryService
from labdeck.api.registry_graphql import ADMIN_BATCH, BATCH, MANIFEST_BATCH, PAGE, availability
from labdeck.api.tag_cache import TagDetailCache
from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import Repository, Tag, add_repository

GATEWAY = "acme/platform/api-gateway"
RULES = [CleanupRules(".*", "v.*", 3, "30d"), CleanupRules("pr-.*|main-.*", None, 5, None),
         CleanupRules(".*", None, None, "7d")]


def whole_second_tags(now: datetime, count: int) -> list[Tag]:
    """Tags with times to the second (GraphQL's `Time` has no fractions); every fifth is a second name
    for the manifest of the tag four before it (same digest, time and size, as a release of a build)."""
    tags: list[Tag] = []
    for i in range(count):
        name = ("latest" if i == 0 else f"v1.{i}.0" if i % 6 == 0 else f"pr-{i}" if i % 4 == 0
                else f"main-{i:04x}")
        if i % 5 == 4:
            twin = tags[i - 4]
            tags.append(Tag(name, twin.created_at, twin.digest, twin.revision, twin.total_size))
            continue
        created = None if i == 7 else (now - timedelta(hours=19 * i + 1)).replace(microsecond=0)
        tags.append(Tag(name, created, f"sha256:{i:064x}", f"{i:040x}", 1_000_000 + 37 * i))
    return tags


class World:
    def __init__(self, graphql: bool = True) -> None:
        self.app = create_app(SandboxOptions(scale="tiny", graphql=graphql))
        self.pool = ClientPool(self.app)
        self.store = self.app.state.store
        self.now = self.store.now()

    def add(self, count: int, name: str = "gql") -> Repository:
        project = self.store.project_by_path(GATEWAY)
        return add_repository(self.store, project, name, whole_second_tags(self.now, count))

    def service(self, *, cache: TagDetailCache | None = None, graphql: bool = True,
                transport: httpx.AsyncBaseTransport | None = None) -> RegistryService:
        client = self.pool.client()
        if transport is not None:
            client._http._transport = transport  # a transport wrapping the sandbox
        return RegistryService(client, tag_cache=cache, graphql=graphql)


@pytest.fixture
async def world() -> AsyncIterator[World]:
    made = World()
    yield made
    await made.pool.aclose()


def plans(details: list, now: datetime) -> list:
    """Each rule set's plan as comparable data: every tag's decision and reason, and the space freed."""
    planner = CleanupPlanner([d.to_tag_info() for d in details])
    out = []
    for rules in RULES:
        plan = planner.plan(rules, now)
        out.append((plan.bytes_freed, plan.deleted_count,
                    sorted((plan.tags[i].name, plan.decision(i).describe()) for i in range(len(plan.tags)))))
    return out


def requests(service: RegistryService) -> list[str]:
    return [f"{e.method} {e.path}" for e in service.client.request_log.entries]


@pytest.mark.parametrize("count", [PAGE - 3, 150])
async def test_graphql_and_rest_give_the_same_preview(world: World, count: int) -> None:
    repo = world.add(count)
    via_graphql = world.service()
    via_rest = world.service(graphql=False)
    a = await via_graphql.tag_details(repo.project_id, repo.id)
    b = await via_rest.tag_details(repo.project_id, repo.id)
    assert via_graphql.last_source.startswith("graphql") and via_rest.last_source == "rest"
    assert len(a) == len(b) == count
    assert [(d.name, d.digest, d.created_at, d.total_size) for d in a] == \
        [(d.name, d.digest, d.created_at, d.total_size) for d in b]
    assert plans(a, world.now) == plans(b, world.now)


async def test_a_small_repository_is_one_graphql_request(world: World) -> None:
    """One request for the tags, and one for their manifests' layers (the size figures' blobs)."""
    repo = world.add(PAGE)
    service = world.service()
    details = await service.tag_details(repo.project_id, repo.id)
    assert len(details) == PAGE and all(d.layers for d in details)
    assert requests(service) == ["POST http://sandbox.test/api/graphql"] * 2
    assert await world.service().tag_details(repo.project_id, repo.id, layers=False) == \
        [d.model_copy(update={"layers": None}) for d in details]


async def test_a_big_repository_goes_by_concurrent_batches_not_one_request_per_tag(world: World) -> None:
    repo = world.add(500)
    service = world.service()  # root: an administrator, whose complexity limit is 300
    details = await service.tag_details(repo.project_id, repo.id)
    assert len(details) == 500
    sent = requests(service)
    assert ADMIN_BATCH == 74  # 1 + 74 x (1 + 3 fields) = 297 <= 300
    manifests = -(-len({d.digest for d in details}) // MANIFEST_BATCH)  # the layers, 120 manifests a request
    assert sum("graphql" in r for r in sent) == 1 + -(-(500 - PAGE) // ADMIN_BATCH) + manifests
    # the names: every tag in one request, not the tag list's five pages (and whether root is an admin)
    assert sorted(r for r in sent if "graphql" not in r) == \
        [f"GET /registry/repositories/{repo.id}?tags=true", "GET /user"]
    assert not any("/tags/" in r for r in sent)  # no REST detail request at all
    as_user = RegistryService(world.pool.client("glpat-sandbox-alice"))  # a user's complexity limit: 250
    assert await as_user.tag_details(repo.project_id, repo.id) == details
    assert as_user.last_source == "graphql" and as_user.admin is False
    assert BATCH == 62  # 1 + 62 x (1 + 3 fields) = 249 <= 250
    assert sum("graphql" in r for r in requests(as_user)) == 1 + -(-(500 - PAGE) // BATCH) + manifests


async def test_a_batch_too_complex_is_asked_again_in_smaller_ones(world: World) -> None:
    """Told (wrongly) that the caller is an administrator, labdeck sends batches of 74 that GitLab refuses
    for a user's limit; each is asked again in batches of 62, and nothing goes by REST."""
    repo = world.add(300)
    service = RegistryService(world.pool.client("glpat-sandbox-alice"), admin=True)
    details = await service.tag_details(repo.project_id, repo.id)
    assert service.last_source == "graphql" and len(details) == 300
    assert not any("/tags/" in r for r in requests(service))
    expected = await world.service(graphql=False).tag_details(repo.project_id, repo.id)
    assert plans(details, world.now) == plans(expected, world.now)


async def test_fallback_when_graphql_answers_404_is_remembered_for_the_session() -> None:
    world = World(graphql=False)
    try:
        repo = world.add(30)
        service = world.service()
        details = await service.tag_details(repo.project_id, repo.id)
        assert len(details) == 30 and service.last_source == "rest"
        assert not availability(service.client).usable
        await service.tag_details(repo.project_id, repo.id)
        assert sum("graphql" in r for r in requests(service)) == 1  # asked once per session
    finally:
        await world.pool.aclose()


class Refusing(httpx.AsyncBaseTransport):
    """The sandbox, except that /api/graphql answers `status` with `body`."""

    def __init__(self, app: object, status: int, body: bytes) -> None:
        self.inner = httpx.ASGITransport(app)  # type: ignore[arg-type]
        self.status, self.body = status, body

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/graphql":
            return httpx.Response(self.status, content=self.body,
                                  headers={"content-type": "application/json"})
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize(("status", "body", "session_wide"), [
    (200, b'{"errors":[{"message":"Field \'tags\' doesn\'t exist on type \'ContainerRepositoryDetails\'"}]}',
     False),
    (401, b'{"errors":[{"message":"Invalid token"}]}', True),
    (403, b'{"errors":[{"message":"API not accessible for user"}]}', True),
    (200, b"<html>not json", False),
])
async def test_fallback_when_graphql_refuses(world: World, status: int, body: bytes,
                                             session_wide: bool) -> None:
    repo = world.add(30)
    service = world.service(transport=Refusing(world.app, status, body))
    details = await service.tag_details(repo.project_id, repo.id)
    assert len(details) == 30 and service.last_source == "rest"
    assert availability(service.client).usable is (False if session_wide else None)
    expected = await world.service(graphql=False).tag_details(repo.project_id, repo.id)
    assert plans(details, world.now) == plans(expected, world.now)


async def test_an_unreadable_repository_falls_back_to_rest_and_its_error(world: World) -> None:
    repo = world.add(5)
    service = RegistryService(world.pool.client("glpat-sandbox-alice"))
    hidden = world.store.project_by_path("hidden-lab/secrets")
    if hidden is None or world.store.can_read_project(world.store.user_by_username("alice"), hidden):
        pytest.skip("no project hidden from alice at this scale")
    hidden_repo = add_repository(world.store, hidden, "x", whole_second_tags(world.now, 3))
    from labdeck.api.errors import NotFound

    with pytest.raises(NotFound):
        await service.tag_details(hidden.id, hidden_repo.id)
    assert repo.id != hidden_repo.id


async def test_the_cache_saves_requests_on_the_second_read(world: World, tmp_path: Path) -> None:
    repo = world.add(400)
    path = tmp_path / "cache" / "tags.json"
    for graphql in (True, False):
        path.unlink(missing_ok=True)
        cold = world.service(cache=TagDetailCache(path), graphql=graphql)
        first = await cold.tag_details(repo.project_id, repo.id)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        warm = world.service(cache=TagDetailCache(path), graphql=graphql)  # a new run reads the file
        second = await warm.tag_details(repo.project_id, repo.id)
        assert [(d.name, d.digest, d.created_at, d.total_size) for d in second] == \
            [(d.name, d.digest, d.created_at, d.total_size) for d in first]
        assert plans(second, world.now) == plans(first, world.now)
        assert len(requests(warm)) < len(requests(cold)) * 2 // 3
        assert not any("/tags/" in r for r in requests(warm))  # no REST detail request
        assert sum("graphql" in r for r in requests(warm)) <= 1  # no tagDetails batch


async def test_a_moved_tag_is_read_again_after_a_delete(world: World, tmp_path: Path) -> None:
    repo = world.add(60)
    cache = TagDetailCache(tmp_path / "tags.json")
    service = world.service(cache=cache)
    await service.tag_details(repo.project_id, repo.id)
    await service.delete_tag(repo.project_id, repo.id, "latest")
    repo.tags["latest"] = Tag("latest", world.now.replace(microsecond=0), "sha256:" + "f" * 64, "f" * 40, 5)
    details = {d.name: d for d in await service.tag_details(repo.project_id, repo.id)}
    assert details["latest"].digest == "sha256:" + "f" * 64


async def test_cached_names_expire(world: World, tmp_path: Path) -> None:
    repo = world.add(60)
    last = max(repo.tags)  # beyond the first GraphQL page, which every read gets from the server
    clock = [1000.0]
    cache = TagDetailCache(tmp_path / "tags.json", name_ttl=60, clock=lambda: clock[0])
    await world.service(cache=cache).tag_details(repo.project_id, repo.id)
    assert cache.lookup(repo.id, [last])
    clock[0] += 40
    warm = world.service(cache=cache)
    await warm.tag_details(repo.project_id, repo.id)  # answered from the cache: makes nothing younger
    assert "cached" in warm.last_source
    clock[0] += 21
    assert cache.lookup(repo.id, [last]) == {}
    again = world.service(cache=cache)
    await again.tag_details(repo.project_id, repo.id)
    # only the first GraphQL page, read again at +40 s, is still trusted, and it is read every time anyway:
    # the cache answers none of the names asked in batches
    assert again.last_source == "graphql"
    assert cache.lookup(repo.id, [last])


def test_graphql_times_are_whole_seconds_as_gitlab_sends_them() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert all(t.created_at is None or t.created_at.microsecond == 0 for t in whole_second_tags(now, 20))


async def test_control_characters_in_graphql_answers_are_made_visible(world: World) -> None:
    repo = world.add(3)
    hostile = "evil\x1b]52;c;aGk=\x07"  # an OSC 52 clipboard write
    repo.tags[hostile] = Tag(hostile, None, "sha256:" + "e" * 64, "e" * 40, 1)
    details = await world.service().tag_details(repo.project_id, repo.id)
    evil = next(d for d in details if d.name.startswith("evil"))
    assert "\x1b" not in evil.name and "\x07" not in evil.name


class HoldingLastPage(httpx.AsyncBaseTransport):
    """The sandbox as a GitLab before 13.6 (no `GET /registry/repositories/:id`: 404, so the tag list is
    walked page by page), except that the last page of the list is answered only once a `tagDetails`
    batch has arrived (or after a long guard, so a reader that waits for the whole list still ends)."""

    def __init__(self, app: object, last_page: int) -> None:
        self.inner = httpx.ASGITransport(app)  # type: ignore[arg-type]
        self.last_page = str(last_page)
        self.batch_seen = asyncio.Event()
        self.batch_before_last_page: bool | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/api/v4/registry/repositories/"):
            return httpx.Response(404, json={"error": "404 Not Found"})
        if request.url.path == "/api/graphql" and b"tagDetails" in request.content:
            self.batch_seen.set()
        elif request.url.path.endswith("/tags") and request.url.params.get("page") == self.last_page:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.batch_seen.wait(), 10)
            self.batch_before_last_page = self.batch_seen.is_set()
        return await self.inner.handle_async_request(request)


async def test_details_are_read_while_the_tag_list_still_arrives(world: World) -> None:
    repo = world.add(500)  # 5 list pages of 100
    holding = HoldingLastPage(world.app, last_page=5)
    service = world.service(transport=holding)
    details = await service.tag_details(repo.project_id, repo.id)
    assert holding.batch_before_last_page is True
    assert sum("/tags" in r and "/tags/" not in r for r in requests(service)) >= 5  # walked page by page
    expected = await world.service(graphql=False).tag_details(repo.project_id, repo.id)
    assert plans(details, world.now) == plans(expected, world.now)


class Tampering(httpx.AsyncBaseTransport):
    """The sandbox, except that the first `tagDetails` batch answers a size that is not a number for `t0`
    and a digest that is not a string for `t1`."""

    def __init__(self, app: object) -> None:
        self.inner = httpx.ASGITransport(app)  # type: ignore[arg-type]
        self.done = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path != "/api/graphql" or b"tagDetails" not in request.content or self.done:
            return response
        self.done = True
        body = json.loads(await response.aread())
        repo = body["data"]["containerRepository"]
        repo["t1"]["digest"] = {"not": "a string"}
        return httpx.Response(200, json=body, headers={"content-type": "application/json"})


async def test_an_unreadable_batch_is_read_by_rest_instead(world: World) -> None:
    repo = world.add(150)
    service = world.service(transport=Tampering(world.app))
    details = await service.tag_details(repo.project_id, repo.id)
    assert service.last_source == "graphql + rest"
    assert sum("/tags/" in r for r in requests(service)) == ADMIN_BATCH  # that batch's tags, one by one
    expected = await world.service(graphql=False).tag_details(repo.project_id, repo.id)
    assert plans(details, world.now) == plans(expected, world.now)


def test_the_cache_keeps_a_size_beyond_64_bits(tmp_path: Path) -> None:
    from labdeck.api.models.registry import RegistryTagDetail

    path = tmp_path / "tags.json"
    huge = 2 ** 80
    TagDetailCache(path).store(1, [RegistryTagDetail(name="big", digest="sha256:" + "b" * 64,
                                                     total_size=huge)])
    assert TagDetailCache(path).lookup(1, ["big"])["big"].total_size == huge


def test_cached_details_are_the_models_that_were_stored(tmp_path: Path) -> None:
    """The cache builds its details without validation: each must equal (fields, set fields, dump) the
    model `model_construct` would build, and unreadable entries are left out, not raised."""
    from labdeck.api.models.registry import RegistryTagDetail

    created = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    stored = RegistryTagDetail(name="v1", digest="sha256:" + "a" * 64, created_at=created,
                               published_at=created, total_size=42, revision="r" * 40)
    cache = TagDetailCache(tmp_path / "tags.json")
    cache.store(7, [stored])
    found = TagDetailCache(tmp_path / "tags.json").lookup(7, ["v1", "missing"])
    assert list(found) == ["v1"]
    expected = RegistryTagDetail.model_construct(name="v1", digest=stored.digest, created_at=created,
                                                 published_at=created, total_size=42, revision="r" * 40)
    assert found["v1"] == expected and found["v1"].model_dump() == expected.model_dump()
    assert found["v1"].model_fields_set == expected.model_fields_set
    assert found["v1"].to_tag_info() == stored.to_tag_info()
    data = cache._load()["7"]
    data["digests"][stored.digest][0] = "not a time"
    assert cache.lookup(7, ["v1"]) == {}


def test_graphql_rows_read_directly_equal_the_validated_models() -> None:
    """Rows whose values have their types already are built without pydantic: the same models (values,
    set fields) as validation gives; a row with a value of another type goes through validation."""
    from labdeck.api.models.base import parse_many
    from labdeck.api.models.registry import RegistryTagDetail
    from labdeck.api.registry_graphql import GraphQLRefused, details_of

    rows = [{"name": "v1", "path": None, "location": None, "digest": "sha256:" + "a" * 64, "revision": None,
             "short_revision": None, "created_at": "2026-03-01T12:00:00Z", "published_at": None,
             "total_size": 42},
            {"name": "v2", "path": "g/p:v2", "location": "r/g/p:v2", "digest": None, "revision": "r",
             "short_revision": "r", "created_at": "2026-03-01T12:00:00",
             "published_at": "2026-03-02T00:00:00+02:00", "total_size": None}]
    direct = details_of(rows, sanitised=True)
    validated = parse_many(RegistryTagDetail, rows, sanitised=True)
    assert [d.model_dump() for d in direct] == [d.model_dump() for d in validated]
    assert [d.model_fields_set for d in direct] == [d.model_fields_set for d in validated]
    assert direct[1].created_at is not None and direct[1].created_at.utcoffset() is not None  # UTC if none
    with pytest.raises(GraphQLRefused):
        details_of([{**rows[0], "created_at": "yesterday"}], sanitised=True)


async def test_rest_detail_reads_share_one_gate_across_chunks(world: World) -> None:
    """A preview streams a chunk of names per list page; every chunk's REST reads wait at one gate (twice
    the client's concurrency), so thousands of reads never queue on the client's slots at once (each
    queued read's deadline would run out on a 15,000-tag repository)."""
    repo = world.add(300)
    service = world.service(graphql=False)
    names = [f"t{i}" for i in range(300)]
    inner, active, peak = service.tag, 0, 0

    async def counting(project: object, repository_id: int, name: str) -> object:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        try:
            await asyncio.sleep(0)
            return await inner(project, repository_id, name)
        finally:
            active -= 1

    service.tag = counting  # type: ignore[method-assign]
    chunks = [names[i:i + 50] for i in range(0, 300, 50)]
    found = await asyncio.gather(*(service._rest_details(repo.project_id, repo.id, chunk, None)
                                   for chunk in chunks))
    assert sum(len(f) for f in found) == 300
    assert peak <= 2 * service.client.settings.concurrency < 50, peak


@pytest.mark.parametrize("repositories", [[1, 2], "text", 3])
def test_a_cache_file_whose_repositories_are_not_a_table_is_read_as_empty(tmp_path: Path,
                                                                          repositories: object) -> None:
    path = tmp_path / "tags.json"
    path.write_text(json.dumps({"version": 2, "repositories": repositories}))
    cache = TagDetailCache(path)
    assert cache.lookup(7, ["latest"]) == {}
