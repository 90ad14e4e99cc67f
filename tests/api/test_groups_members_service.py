"""`MembersService` against the sandbox: direct and inherited, add (one and several), update, remove,
override, billable members; levels are checked before sending."""

from __future__ import annotations

from datetime import date

import pytest
from groups_sandbox import ALICE_TOKEN, Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.errors import BadRequest, Conflict, Forbidden
from labdeck.api.members import MembersService

ALICE, BOB, CAROL, DAVE, ERIN, FRANK = 2, 3, 4, 5, 6, 7


async def test_direct_and_inherited(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client())
    assert await service.list_members(("groups", "acme/platform")) == []
    inherited = {m.username: m.level_label for m in await service.list_members(("groups", "acme/platform"),
                                                                               inherited=True)}
    assert inherited["carol"] == "Owner" and inherited["alice"] == "Developer"
    found = await service.list_members(("groups", "acme"), query="car")
    assert [m.username for m in found] == ["carol"]
    some = await service.list_members(("groups", "acme"), user_ids=[BOB, DAVE])
    assert {m.id for m in some} == {BOB, DAVE}
    one = next(m for m in await service.list_members(("groups", "acme/platform"), inherited=True)
               if m.id == CAROL)
    assert one.access_level == 50 and one.created_at is not None
    assert CAROL not in {m.id for m in await service.list_members(("groups", "acme/platform"))}


async def test_lifecycle_and_cache_invalidation(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client(ALICE_TOKEN))
    source = ("groups", "opensource")
    before = {m.username for m in await service.list_members(source)}
    added = await service.add_member(source, ERIN, 20, expires_at=date(2999, 1, 31))
    assert (added.id, added.access_level, added.expires_at) == (ERIN, 20, date(2999, 1, 31))
    assert {m.username for m in await service.list_members(source)} == before | {"erin"}  # cache dropped
    with pytest.raises(Conflict):
        await service.add_member(source, ERIN, 20)
    assert (await service.update_member(source, ERIN, 40)).access_level == 40
    await service.remove_member(source, ERIN)
    assert {m.username for m in await service.list_members(source)} == before
    result = await service.add_members(source, [DAVE, FRANK], 10)
    assert result == {"status": "success"}
    assert {"dave", "frank"} <= {m.username for m in await service.list_members(source)}


async def test_levels_are_checked_before_sending(sandbox: Sandbox) -> None:
    client = sandbox.client()
    service = MembersService(client)
    with pytest.raises(ValueError, match="cannot be given"):
        await service.add_member(("projects", "acme/handbook"), ERIN, 50)
    with pytest.raises(ValueError):
        await service.update_member(("groups", "acme"), ERIN, 35)
    assert len(client.request_log) == 0
    project = await service.add_member(("projects", "acme/handbook"), ERIN, 40)
    assert project.access_level == 40


async def test_refusals_surface_as_errors(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client(ALICE_TOKEN))
    with pytest.raises(Forbidden):
        await service.add_member(("groups", "acme"), ERIN, 10)
    with pytest.raises(Forbidden):
        await service.billable_members("acme")


async def test_override(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client())
    on = await service.set_override("acme", BOB, True)
    assert on.override is True and on.id == BOB
    off = await service.set_override("acme", BOB, False)
    assert off.override is False


async def test_billable_members(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client())
    everyone = await service.billable_members("hidden-lab", sort="name_asc")
    assert {m.username for m in everyone} == {"bob", "carol", "dave", "erin", "frank"}
    assert all(m.membership_type == "group_member" for m in everyone)
    assert [m.username for m in await service.billable_members("hidden-lab", search="erin")] == ["erin"]
    with pytest.raises(ValueError):
        await service.billable_members("hidden-lab", sort="shuffle")  # type: ignore[arg-type]
    with pytest.raises(BadRequest):
        await service.billable_members("acme/platform")
    await service.remove_billable_member("hidden-lab", ERIN)
    assert "erin" not in {m.username for m in await service.billable_members("hidden-lab")}
    left = await service.list_members(("projects", "hidden-lab/experiments"), refresh=True)
    assert [m.username for m in left] == ["frank"]
