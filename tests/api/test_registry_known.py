"""What the overview knows of registry storage without a request: reading a whole repository's tag details
records its size (shared digests counted once), largest first, per instance."""

from __future__ import annotations

from sandbox_clients import ClientPool

from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import KnownRepositories, known_for
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions


def test_shared_digests_count_once_and_largest_first() -> None:
    known = KnownRepositories(clock=lambda: 5.0)
    known.record("https://a", 1, "p/one", "p", [("sha:1", 100), ("sha:1", 100), ("sha:2", 50)])
    known.record("https://a", 2, "p/two", "p", [("sha:3", 400)])
    known.record("https://b", 3, "q/three", "q", [("sha:4", 999)])
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
