"""`MembersService.user_id_for` / `user_ids_for`: usernames resolved through `GET /users?username=`
(case-insensitive, a leading `@` allowed), `UnknownUser` for a name nobody has."""

from __future__ import annotations

import pytest
from groups_sandbox import ALICE_TOKEN, Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.errors import LabdeckError
from labdeck.api.members import MembersService, UnknownUser


async def test_usernames_resolve_to_ids(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client(ALICE_TOKEN))
    assert await service.user_id_for("dave") == 5
    assert await service.user_id_for("@Erin") == 6
    assert await service.user_ids_for([3, "carol", 7]) == [3, 4, 7]


async def test_unknown_username_is_refused_plainly(sandbox: Sandbox) -> None:
    service = MembersService(sandbox.client())
    with pytest.raises(UnknownUser) as caught:
        await service.user_id_for("nobody-at-all")
    assert str(caught.value) == "No user with the username nobody-at-all"
    assert isinstance(caught.value, LabdeckError)
    with pytest.raises(UnknownUser):
        await service.user_id_for("  ")
