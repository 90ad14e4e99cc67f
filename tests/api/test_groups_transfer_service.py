"""`GroupTransferService` against the sandbox: export with polling, import, relations export."""

from __future__ import annotations

import gzip
import json

import pytest
from groups_sandbox import Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.group_transfer import GroupTransferService, TransferTimeout, poll_delays
from labdeck.api.groups import GroupsService
from labdeck.api.labels import GroupLabelsService
from labdeck.api.models.group_transfer import RelationState


def service_for(sandbox: Sandbox) -> tuple[GroupTransferService, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the sandbox clock moves only when we wait
        waits.append(seconds)
        sandbox.clock.advance(seconds)

    return GroupTransferService(sandbox.client(), sleep=sleep, clock=sandbox.clock.time), waits


def test_poll_delays_back_off_to_a_cap() -> None:
    delay = poll_delays(0.5, 2.0, 3.0)
    assert [delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]


async def test_export_is_polled_until_ready(sandbox: Sandbox) -> None:
    service, waits = service_for(sandbox)
    assert await service.download_export("acme") is None
    assert await service.start_export("acme") == {"message": "202 Accepted"}
    polls: list[int] = []
    archive = await service.wait_for_export("acme", on_poll=polls.append)
    assert archive[:2] == b"\x1f\x8b"  # gzip
    assert polls == [1, 2, 3] and waits == sorted(waits) and sum(waits) >= 2.0


async def test_export_times_out(sandbox: Sandbox) -> None:
    service, _ = service_for(sandbox)
    with pytest.raises(TransferTimeout):
        await service.wait_for_export("opensource", within=3.0)  # never started


async def test_import_round_trip(sandbox: Sandbox) -> None:
    service, _ = service_for(sandbox)
    await service.start_export("acme")
    archive = await service.wait_for_export("acme")
    assert await service.import_group("Copy", "copy", archive) == {"message": "202 Accepted"}
    group = await GroupsService(service.client).get_group("copy")
    assert group.visibility == "private"
    sandbox.clock.advance(2.0)
    labels = await GroupLabelsService(service.client).list_labels("copy", refresh=True)
    assert {lb.name for lb in labels} == {"bug", "feature", "documentation"}
    with pytest.raises(ValueError):
        await service.import_group("", "x", archive)


async def test_relations_export(sandbox: Sandbox) -> None:
    service, _ = service_for(sandbox)
    sandbox.store.areas["group_transfer"].failing_relations["boards"] = "no boards"
    assert await service.relations_status("acme") == []
    await service.start_relations_export("acme")
    assert {s.state for s in await service.relations_status("acme")} == {RelationState.STARTED}
    assert await service.download_relation("acme", "labels") is None
    statuses = {s.relation: s for s in await service.wait_for_relations("acme")}
    assert statuses["labels"].state is RelationState.FINISHED
    assert (statuses["boards"].state, statuses["boards"].error) == (RelationState.FAILED, "no boards")
    payload = await service.download_relation("acme", "labels")
    assert payload is not None
    names = {json.loads(line)["name"] for line in gzip.decompress(payload).splitlines()}
    assert names == {"bug", "feature", "documentation"}
    assert await service.download_relation("acme", "boards") is None
