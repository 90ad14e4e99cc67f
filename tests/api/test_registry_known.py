"""What the overview knows of registry storage without a request: reading a whole repository's tag details
records its size (its unique blobs: here, without layers, a shared digest counted once), largest first, per
instance."""

from __future__ import annotations

from sandbox_clients import ClientPool

from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import KnownRepositories, known_for
from labdeck.domain.registry_cleanup import TagInfo
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions


def sized(items: list[tuple[str, str, int]]) -> list[TagInfo]:
    return [TagInfo(name, None, digest, size) for name, digest, size in items]


def test_shared_digests_count_once_and_largest_first() -> None:
    known = KnownRepositories(clock=lambda: 5.0)
    known.record("https://a", 1, "p/one", "p", sized([("a", "sha:1", 100), ("b", "sha:1", 100),
                                                       ("c", "sha:2", 50)]))
    known.record("https://a", 2, "p/two", "p", sized([("d", "sha:3", 400)]))
    known.record("https://b", 3, "q/three", "q", sized([("e", "sha:4", 999)]))
    assert [(r.repository_id, r.bytes, r.tags) for r in known.largest("https://a")] == [(2, 400, 1),
                                                                                       (1, 150, 3)]


async def test_reading_a_repositorys_tag_details_records_it() -> None:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny")))
    try:
        client = pool.client()
        service = RegistryService(client)
        repository = (await service.project_repositories("acme/platform/api-gateway"))[0]
        details = await service.tag_details("acme/platform/api-gateway", repository.id)
        found = known_for(client).get(client.settings.base_url, repository.id)
        assert known_for(pool.client()).get(client.settings.base_url, repository.id) is None  # per session
        assert found is not None and found.tags == len(details) and found.bytes > 0
    finally:
        await pool.aclose()


def test_deleted_tags_and_repositories_leave_the_figures() -> None:
    """Issue 24: the overview's figure followed no deletion; now a deleted tag leaves it (a digest still
    shared by a tag left is still counted), a tag list read drops the tags gone, a deleted repository goes."""
    known = KnownRepositories(clock=lambda: 5.0)
    known.record("https://a", 1, "p/one", "p", sized([("a", "sha:1", 100), ("b", "sha:1", 100),
                                                       ("c", "sha:2", 50), ("d", "sha:3", 7)]))
    known.forget_tags("https://a", 1, ["a"])
    found = known.get("https://a", 1)
    assert found is not None and (found.tags, found.bytes, found.path) == (3, 157, "p/one")
    known.keep_tags("https://a", 1, ["b", "zzz"])
    found = known.get("https://a", 1)
    assert found is not None and (found.tags, found.bytes) == (1, 100)
    known.forget("https://a", 1)
    assert known.get("https://a", 1) is None and known.largest("https://a") == []


async def test_the_service_names_the_repository_by_its_path_and_follows_its_deletes() -> None:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny")))
    try:
        client = pool.client()
        service = RegistryService(client)
        repository = (await service.project_repositories("acme/platform/api-gateway"))[0]
        details = await service.tag_details(repository.project_id or 0, repository.id, path=repository.path)
        instance = client.settings.base_url
        before = known_for(client).get(instance, repository.id)
        assert before is not None and before.path == repository.path == "acme/platform/api-gateway"
        await service.delete_tag("acme/platform/api-gateway", repository.id, details[0].name)
        after = known_for(client).get(instance, repository.id)
        assert after is not None and after.tags == before.tags - 1
        await service.delete_repository("acme/platform/api-gateway", repository.id)
        assert known_for(client).get(instance, repository.id) is None
    finally:
        await pool.aclose()


def test_locked_repositories_of_one_instance_with_the_time_left() -> None:
    from labdeck.api.registry import LOCK_SECONDS, BulkDeleteLocks

    now = [1000.0]
    locks = BulkDeleteLocks(clock=lambda: now[0])
    locks.record("https://a", 1)
    locks.record("https://b", 2)
    now[0] += 60
    assert locks.locked("https://a") == [(1, LOCK_SECONDS - 60)]
    now[0] += LOCK_SECONDS
    assert locks.locked("https://a") == []
