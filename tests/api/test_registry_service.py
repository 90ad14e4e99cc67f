"""`RegistryService` against the sandbox: listings, details, deletes, the hour lock, and the proof (a
hypothesis property) that the preview built from the service's tag details with the domain planner is
exactly what the sandbox's bulk delete then removes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sandbox_clients import ROOT_TOKEN, ClientPool

from labdeck.api.errors import BadRequest, Forbidden, NotFound
from labdeck.api.registry import BulkDeleteLocked, BulkDeleteLocks, RegistryService, format_wait
from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import Repository, Tag, add_repository

START = 1_790_000_000.0
GATEWAY = "acme/platform/api-gateway"


class World:
    """One tiny sandbox on a manual clock, and a service (as root) over it."""

    def __init__(self) -> None:
        self.clock = ManualClock(START)
        self.pool = ClientPool(create_app(SandboxOptions(scale="tiny", async_delay=1.0), clock=self.clock))
        self.app = self.pool.app
        self.locks = BulkDeleteLocks(clock=self.clock.time)
        self.service = self.connect()

    def connect(self, token: str = ROOT_TOKEN) -> RegistryService:
        return RegistryService(self.pool.client(token), self.locks)

    def add(self, tags: list[Tag], name: str = "prop") -> Repository:
        store = self.app.state.store
        project = store.project_by_path(GATEWAY)
        return add_repository(store, project, name, tags)

    @property
    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.time(), UTC)


@pytest.fixture
async def world() -> AsyncIterator[World]:
    made = World()
    yield made
    await made.pool.aclose()


def sample_tags(now: datetime) -> list[Tag]:
    def tag(name: str, days: int | None, digest: str, size: int) -> Tag:
        return Tag(name, None if days is None else now - timedelta(days=days), f"sha256:{digest * 64}",
                   digest * 64, size)
    return [tag("latest", 1, "a", 10), tag("v2.0.0", 1, "a", 10), tag("v1.0.0", 50, "b", 20),
            tag("pr-7", 90, "c", 30), tag("nocache", None, "d", 40)]


async def test_project_and_group_repositories(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    mine = await world.service.project_repositories(GATEWAY)
    found = next(r for r in mine if r.id == repo.id)
    assert found.tags_count == 5 and found.path == f"{GATEWAY}/prop" and found.display_name == "prop"
    root = next(r for r in mine if r.name == "")
    assert root.display_name == GATEWAY
    group = await world.service.group_repositories("acme")
    assert repo.id in {r.id for r in group} and len(group) > len(mine)
    one = await world.service.repository(repo.id, tags_count=True)
    assert one.tags_count == 5 and one.project_id == repo.project_id


async def test_tags_and_details(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    names = [t.name for t in await world.service.tags(GATEWAY, repo.id)]
    assert names == sorted(names) and len(names) == 5
    seen: list[tuple[int, int]] = []
    details = await world.service.tag_details(repo.project_id, repo.id,
                                              on_progress=lambda d, t: seen.append((d, t)))
    by_name = {d.name: d for d in details}
    assert by_name["v1.0.0"].total_size == 20 and by_name["v1.0.0"].short_revision == "b" * 9
    assert by_name["nocache"].created_at is None
    info = by_name["pr-7"].to_tag_info()
    assert info.digest == "sha256:" + "c" * 64 and info.created_at == world.now - timedelta(days=90)
    assert seen[-1] == (5, 5)


async def test_details_skip_tags_deleted_meanwhile(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    details = await world.service.tag_details(GATEWAY, repo.id, ["v1.0.0", "gone"])
    assert [d.name for d in details] == ["v1.0.0"]


async def test_delete_tag_and_repository(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    await world.service.delete_tag(GATEWAY, repo.id, "pr-7")
    with pytest.raises(NotFound):
        await world.service.tag(GATEWAY, repo.id, "pr-7")
    await world.service.delete_repository(GATEWAY, repo.id)
    assert await world.service.repository_exists(repo.id)
    world.clock.advance(1.5)
    assert not await world.service.repository_exists(repo.id)


async def test_permissions_surface_as_typed_errors(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    outsider = world.connect("glpat-sandbox-alice")
    await outsider.delete_tag(GATEWAY, repo.id, "pr-7")  # alice is a developer in acme
    with pytest.raises(NotFound):
        await outsider.project_repositories("hidden-lab/secrets")
    as_bob = RegistryService(world.pool.client("glpat-sandbox-root", sudo="bob"), world.locks)
    with pytest.raises(Forbidden):
        await as_bob.delete_tag(GATEWAY, repo.id, "v1.0.0")


async def test_bulk_delete_and_the_hour_lock(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    rules = CleanupRules("pr-.*")
    assert world.service.lock_remaining(repo.id) is None
    await world.service.bulk_delete(GATEWAY, repo.id, rules)
    assert world.service.lock_remaining(repo.id) == 3600
    world.clock.advance(600)
    with pytest.raises(BulkDeleteLocked) as refused:
        await world.service.bulk_delete(GATEWAY, repo.id, rules)
    assert refused.value.remaining == 3000
    assert "at most once an hour" in str(refused.value) and "50m 00s" in str(refused.value)
    assert {t.name for t in await world.service.tags(GATEWAY, repo.id)} == {"latest", "v2.0.0", "v1.0.0",
                                                                             "nocache"}


async def test_lock_from_another_process_has_no_known_remaining_time(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    await world.service.bulk_delete(GATEWAY, repo.id, CleanupRules(".*"))
    stranger = world.connect()
    stranger.locks = BulkDeleteLocks(clock=world.clock.time)
    with pytest.raises(BulkDeleteLocked) as refused:
        await stranger.bulk_delete(GATEWAY, repo.id, CleanupRules(".*"))
    assert refused.value.remaining is None


async def test_invalid_pattern_is_a_bad_request(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    with pytest.raises(BadRequest) as refused:
        await world.service.bulk_delete(GATEWAY, repo.id, CleanupRules("(x"))
    assert refused.value.message == "name_regex_delete is an invalid regexp: missing ): (x"
    assert world.service.lock_remaining(repo.id) is None


def test_format_wait() -> None:
    assert format_wait(3000) == "50m 00s" and format_wait(44.2) == "45s" and format_wait(-3) == "0s"


# --- the property: preview == deletion ------------------------------------------------------------------

NAMES = st.one_of(st.sampled_from(["latest", "stable", "main", "v1", "pr-1"]),
                  st.from_regex(r"\A(v[0-9]\.[0-9]|main-[0-9a-f]{3}|pr-[0-9]{1,3}|[a-z]{1,4})\Z"))
PATTERNS = st.sampled_from([".*", "v.*", "main-.*", "pr-[0-9]+", "[a-z]+", "v1\\..*|pr-.*", "x", "",
                            "(main|pr)-.*", "v[0-9]\\.[0-9]", ".*[0-9]"])


RawTag = tuple[str, int | None, int, int]


@st.composite
def tag_sets(draw: Any) -> list[RawTag]:
    names = draw(st.lists(NAMES, min_size=0, max_size=14, unique=True))
    return [(name, draw(st.one_of(st.none(), st.integers(0, 400 * 24))),  # age in hours
             draw(st.integers(0, 4)), draw(st.integers(1, 1000))) for name in names]


RULES = st.builds(CleanupRules, PATTERNS, st.one_of(st.none(), PATTERNS),
                  st.one_of(st.none(), st.integers(0, 6)),
                  st.one_of(st.none(), st.sampled_from(["1h", "2d", "1w", "1month", "90d", "1y"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=tag_sets(), rules=RULES)
async def test_preview_matches_what_the_sandbox_deletes(world: World, raw: list[RawTag],
                                                        rules: CleanupRules) -> None:
    now = world.now
    tags = [Tag(name, None if age is None else now - timedelta(hours=age, minutes=7), f"sha256:{digest:064x}",
                f"{digest:064x}", size) for name, age, digest, size in raw]
    repo = world.add(tags)
    details = await world.service.tag_details(GATEWAY, repo.id)
    preview = CleanupPlanner([d.to_tag_info() for d in details]).plan(rules, now)
    expected_left = {tag.name for tag in details} - {tag.name for tag in preview.to_delete()}

    await world.service.bulk_delete(GATEWAY, repo.id, rules)
    world.clock.advance(1.5)
    left = {tag.name for tag in await world.service.tags(GATEWAY, repo.id)}
    assert left == expected_left
