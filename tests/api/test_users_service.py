"""`UsersService` against the sandbox: listing with conditions, single and bulk moderation, and the proof
that what the TUI offers (`ModeratedUser.operations`) is exactly what the server then does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sandbox_clients import ROOT_TOKEN, ClientPool

from labdeck.api.models.base import parse_one
from labdeck.api.models.moderation import Condition, ModeratedUser
from labdeck.api.users import UsersService
from labdeck.domain.moderation import Allowed, Operation, UserState
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

CLOCK_START = 1_790_000_000.0
TODAY = datetime.fromtimestamp(CLOCK_START, UTC).date()

Connect = Callable[..., UsersService]


def new_app() -> Any:
    return create_app(SandboxOptions(scale="tiny"), clock=ManualClock(CLOCK_START))


@pytest.fixture
async def connect() -> AsyncIterator[Callable[..., UsersService]]:
    pools: list[ClientPool] = []

    def factory(app: Any, token: str = ROOT_TOKEN) -> UsersService:
        pools.append(pool := ClientPool(app))
        return UsersService(pool.client(token))

    yield factory
    for pool in pools:
        await pool.aclose()


async def by_name(service: UsersService, **filters: Any) -> dict[str, ModeratedUser]:
    return {u.username or "": u for u in await service.list_users(refresh=True, **filters)}


async def test_listing_gives_every_condition(connect: Connect) -> None:
    users = await by_name(connect(new_app()))
    assert len(users) == 34  # the tiny scale: 25 users, then the sign-up queue and the long-idle ones
    expected = {
        "alice": {Condition.ACTIVE}, "dormant.user": {Condition.ACTIVE, Condition.DORMANT},
        "pending.user": {Condition.PENDING}, "blocked.user": {Condition.BLOCKED},
        "ldap.user": {Condition.BLOCKED}, "banned.user": {Condition.BANNED},
        "deactivated.user": {Condition.DEACTIVATED},
    }
    for name, conditions in expected.items():
        assert users[name].conditions(TODAY) == conditions, name
    assert users["ldap.user"].state_label(TODAY) == "blocked (directory sync)"
    assert users["dormant.user"].state_label(TODAY) == "active, dormant"
    assert users["ghost"].internal and not users["project_1_bot_3f2a"].internal
    assert not users["alice"].internal


async def test_the_demo_data_has_a_sign_up_queue_and_long_idle_users(connect: Connect) -> None:
    """Issue 15, item 10: bulk approval and rejection have a queue to work on, and inactivity shows in
    every state where it matters."""
    users = await by_name(connect(new_app()))
    queue = {name: u for name, u in users.items() if u.conditions(TODAY) == {Condition.PENDING}}
    assert len(queue) >= 6
    assert all(u.last_activity_on is None and u.last_sign_in_at is None for u in queue.values())
    ages = [(TODAY - u.created_at.date()).days for u in queue.values() if u.created_at]
    assert min(ages) <= 1 and max(ages) >= 60  # some signed up today, one was forgotten for weeks
    long_ago = TODAY - timedelta(days=365)
    for name, condition in (("stale.blocked", Condition.BLOCKED), ("stale.banned", Condition.BANNED),
                            ("deactivated.user", Condition.DEACTIVATED)):
        user = users[name]
        assert user.conditions(TODAY) == {condition}, name
        assert user.last_activity_on is not None and user.last_activity_on <= long_ago, name
    never = users["never.signed.in"]
    assert never.conditions(TODAY) == {Condition.ACTIVE, Condition.DORMANT}
    assert never.last_activity_on is None and never.current_sign_in_at is None


async def test_search_and_server_filters(connect: Connect) -> None:
    service = connect(new_app())
    assert set(await by_name(service, search="dorm")) == {"dormant.user"}
    blocked = await by_name(service, blocked=True, search=".user")
    assert set(blocked) == {"blocked.user", "ldap.user", "pending.user"}
    assert UsersService.list_params(search="x", active=True) == {
        "order_by": "id", "sort": "asc", "search": "x", "active": "true"}


async def test_single_operations_and_their_answers(connect: Connect) -> None:
    service = connect(new_app())
    users = await by_name(service)

    async def answer(name: str, op: Operation) -> tuple[bool, str, bool]:
        result = await service.try_moderate(users[name].id, op, name)
        return result.ok, result.message, result.changed

    assert await answer("pending.user", Operation.APPROVE) == (True, "Success", True)
    assert (await answer("deactivated.user", Operation.ACTIVATE))[::2] == (True, True)
    assert (await answer("alice", Operation.BAN))[::2] == (True, True)
    assert (await answer("alice", Operation.UNBAN))[::2] == (True, True)
    assert (await answer("bob", Operation.BLOCK))[::2] == (True, True)
    assert (await answer("bob", Operation.UNBLOCK))[::2] == (True, True)
    assert (await answer("dormant.user", Operation.DEACTIVATE))[::2] == (True, True)
    after = await by_name(service)  # the listing the screen reads
    assert after["dormant.user"].state == "deactivated"
    refused = await service.try_moderate(users["alice"].id, Operation.APPROVE, "alice")
    assert (refused.ok, refused.status) == (False, 409) and "not pending approval" in refused.message
    missing = await service.try_moderate(99999, Operation.REJECT)
    assert (missing.ok, missing.status) == (False, 404) and "404 User Not Found" in missing.message


async def test_reject_removes_the_user(connect: Connect) -> None:
    service = connect(new_app())
    pending = (await by_name(service))["pending.user"]
    result = await service.try_moderate(pending.id, Operation.REJECT, "pending.user")
    assert (result.ok, result.message) == (True, "Success")
    assert "pending.user" not in await by_name(service)


async def test_a_mutation_invalidates_the_cached_listing(connect: Connect) -> None:
    service = connect(new_app())
    before = {u.username: u for u in await service.list_users()}
    assert before["bob"].state == "active"
    await service.try_moderate(int(before["bob"].id), Operation.BLOCK)
    after = {u.username: u for u in await service.list_users()}  # no refresh: the cache was dropped
    assert after["bob"].state == "blocked"


async def test_non_administrators_get_the_servers_403(connect: Connect) -> None:
    app = new_app()
    pending = (await by_name(connect(app)))["pending.user"]
    alice = connect(app, token="glpat-sandbox-alice")
    refused = await alice.try_moderate(pending.id, Operation.APPROVE, "pending.user")
    assert (refused.ok, refused.status) == (False, 403) and "not allowed to approve" in refused.message
    result = await alice.try_moderate(pending.id, "block", "pending.user")
    assert (result.ok, result.status, result.message) == (False, 403, "403 Forbidden")


async def test_bulk_job_records_each_result_and_keeps_going(connect: Connect) -> None:
    """What the screen's bulk job (`tui/bulk.start_bulk`) does with the service: `try_moderate`, user by
    user; a refusal is that user's result and the rest go on."""
    service = connect(new_app())
    users = await by_name(service)
    targets = [(users[n].id, n) for n in ("pending.user", "blocked.user", "alice")] + [(99999, None)]
    results = [await service.try_moderate(uid, Operation.APPROVE, name) for uid, name in targets]
    assert [(r.ok, r.status) for r in results] == [(True, 201), (False, 403), (False, 409), (False, 404)]
    assert results[1].message == "The user you are trying to approve is blocked and must be unblocked first"
    assert results[3].summary == "approve user 99999: refused, 404 404 User Not Found"
    assert results[0].summary == "approve pending.user: done"
    assert (await by_name(service))["pending.user"].state == "active"


async def test_unblocking_an_active_user_is_reported_as_nothing_to_change(connect: Connect) -> None:
    service = connect(new_app())
    alice = (await by_name(service))["alice"]
    result = await service.try_moderate(alice.id, "unblock", "alice")
    assert (result.ok, result.changed, result.summary) == (True, False, "unblock alice: nothing to change")


@pytest.mark.parametrize("op", list(Operation))
async def test_offered_operations_match_the_server_for_every_user(connect: Connect, op: Operation) -> None:
    """For each seeded user: the TUI's prediction for `op` (status, message) is what the sandbox answers.
    (root is left out: banning or blocking itself would end the session; the sandbox tests cover it.)"""
    service = connect(new_app())
    users = await service.list_users(refresh=True)
    root_id = next(u.id for u in users if u.username == "root")
    for user in (u for u in users if u.id != root_id):
        predicted = next(a for a in user.operations(TODAY, caller_id=root_id) if a.op is op).outcome
        result = await service.try_moderate(user.id, op, user.username)
        assert result.status == predicted.status, (user.username, op)
        if isinstance(predicted, Allowed):
            assert result.ok and result.changed == (predicted.changed or predicted.body is not False)
        else:
            assert not result.ok and result.message == predicted.message, (user.username, op)


def test_unknown_state_offers_nothing() -> None:
    user = parse_one(ModeratedUser, {"id": 5, "username": "x", "state": "frozen"})
    assert user.known_state is None and user.operations(TODAY) == [] and user.state_label(TODAY) == "frozen"
    assert user.conditions(TODAY) == set()


def test_dormancy_follows_last_activity_on() -> None:
    def user(last: str | None, state: str = "active", created: str = "2025-01-01T09:00:00Z") -> ModeratedUser:
        return parse_one(ModeratedUser, {"id": 1, "state": state, "last_activity_on": last,
                                         "created_at": created})

    today = date(2026, 6, 1)
    assert user("2026-03-03").is_dormant(today)  # 90 days
    assert not user("2026-03-04").is_dormant(today)
    assert user(None).is_dormant(today)  # never active, created long ago
    assert not user(None, created="2026-05-29T10:00:00Z").is_dormant(today)  # signed up 3 days ago
    assert not user("2020-01-01", "blocked").is_dormant(today)
    account = user("2026-03-03").account(today)
    assert account is not None and account.state is UserState.ACTIVE and account.dormant
