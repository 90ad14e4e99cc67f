"""`delete_exactly` against the sandbox: exact names by one bulk request (never the preview's rules), tag by
tag past GitLab's per-run limit or within the hour lock, and a read-back that names every difference."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from test_registry_service import GATEWAY, World, sample_tags

from labdeck.api.registry_exact import BULK, EACH, Remaining, WaitGone, delete_exactly
from labdeck.domain.registry_cleanup import BULK_EXACT_MAX, CleanupRules
from labdeck.sandbox.seed.registry import Tag


@pytest.fixture
async def world() -> AsyncIterator[World]:
    made = World()
    yield made
    await made.pool.aclose()


def waiter(world: World) -> WaitGone:
    async def wait_gone(remaining: Remaining) -> object:
        world.clock.advance(2)  # the sandbox completes its asynchronous bulk delete on its clock
        return await remaining()
    return wait_gone


async def test_one_bulk_request_of_exact_names_leaves_what_was_pushed_since(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    seen = list(repo.tags)
    repo.tags["pr-8"] = Tag("pr-8", world.now, "sha256:" + "e" * 64, "e" * 64, 5)  # pushed after the preview
    outcome = await delete_exactly(world.service, GATEWAY, repo.id, ["pr-7", "v1.0.0"], seen=seen,
                                   wait_gone=waiter(world))
    assert outcome.how == BULK and outcome.found.exact
    assert set(repo.tags) == {"latest", "v2.0.0", "nocache", "pr-8"}


async def test_past_the_per_run_limit_each_tag_is_its_own_request(world: World) -> None:
    now = world.now
    tags = [Tag(f"t{i}", now - timedelta(days=i), "sha256:" + f"{i:064x}", f"{i:064x}", 1)
            for i in range(BULK_EXACT_MAX + 5)]
    repo = world.add(tags)
    names = [t.name for t in tags[:-1]]
    done: list[str] = []
    outcome = await delete_exactly(world.service, GATEWAY, repo.id, names, seen=list(repo.tags),
                                   wait_gone=waiter(world),
                                   on_item=lambda name, ok, _m: done.append(name) if ok else None)
    assert outcome.how == EACH and outcome.found.exact and sorted(done) == sorted(names)
    assert set(repo.tags) == {tags[-1].name}


async def test_the_read_back_names_what_differs(world: World) -> None:
    repo = world.add(sample_tags(world.now))
    seen = [*repo.tags, "gone-meanwhile"]  # the preview saw a tag that someone else has deleted since
    await world.service.bulk_delete(GATEWAY, repo.id, CleanupRules("nothing"))  # the hour lock: tag by tag

    async def never(remaining: Remaining) -> object:
        raise AssertionError("no bulk request within the hour")

    outcome = await delete_exactly(world.service, GATEWAY, repo.id, ["pr-7"], seen=seen, wait_gone=never)
    assert outcome.how == EACH
    assert outcome.found.left == () and outcome.found.extra == ("gone-meanwhile",)
