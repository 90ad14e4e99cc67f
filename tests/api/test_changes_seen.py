"""What a piece of work changed (`api.changes_seen`, issue 34): a `watching()` block sees the cache
families of the successful changes its own task sends (nested blocks too), never another task's and never
a refused change; and the rows a moderation leaves (`ModeratedUser.after`), which GitLab does not send."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sandbox_clients import ClientPool

from labdeck.api import changes_seen
from labdeck.api.errors import ApiError
from labdeck.api.models.moderation import ModeratedUser
from labdeck.domain.moderation import Operation
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

CLOCK = ManualClock()
TODAY = datetime.fromtimestamp(CLOCK.time(), UTC).date()


async def test_a_watch_sees_its_own_changes_only() -> None:
    app = create_app(SandboxOptions(scale="tiny"), clock=CLOCK)
    pool = ClientPool(app)
    try:
        client = pool.client()
        users = {name: app.state.store.user_by_username(name)
                 for name in ("bob", "carol", "dave", "erin", "ldap.user")}

        go = asyncio.Event()

        async def elsewhere() -> None:  # another task's change, sent while the watch runs
            await go.wait()
            await client.post_json(f"/users/{users['dave'].id}/block")

        other = asyncio.create_task(elsewhere())  # started before the watch: not its work
        with changes_seen.watching() as outer:
            with changes_seen.watching() as inner:
                await client.post_json(f"/users/{users['bob'].id}/block")
                go.set()
                await other
                await asyncio.create_task(client.post_json(f"/users/{users['erin'].id}/block"))  # its own
            with pytest.raises(ApiError):  # refused (403): nothing changed
                await client.post_json(f"/users/{users['ldap.user'].id}/block")
        bob = f"/users/{users['bob'].id}/block"
        assert bob in inner and "/users" in inner  # the path's family and the catalogue's
        assert f"/users/{users['erin'].id}/block" in inner  # a task the watched work started
        assert inner == outer
        assert not any(str(users["dave"].id) in family for family in outer)
        assert not any(str(users["ldap.user"].id) in family for family in outer)
        await client.post_json(f"/users/{users['carol'].id}/block")  # after the block: not seen
        assert not any(str(users["carol"].id) in family for family in outer)
    finally:
        await pool.aclose()


def test_the_row_a_moderation_leaves() -> None:
    active = ModeratedUser(id=1, username="bob", state="active", last_activity_on=TODAY)
    pending = ModeratedUser(id=2, username="new", state="blocked_pending_approval")
    blocked = active.after(Operation.BLOCK, TODAY)
    assert blocked is not None and blocked.state == "blocked" and blocked.username == "bob"
    assert active.state == "active"  # a copy
    approved = pending.after(Operation.APPROVE, TODAY)
    assert approved is not None and approved.state == "active"
    assert pending.after(Operation.REJECT, TODAY) is None  # the account is removed
    odd = ModeratedUser(id=3, username="odd", state="suspended_by_plugin")
    assert odd.after(Operation.BLOCK, TODAY) is odd  # the rules cannot say: the re-read will
    assert active.after(Operation.UNBAN, TODAY) is active  # a refusal the server did not make
