"""Pilot tests of `:users` against the tiny sandbox: condition tabs and search, a single operation with its
confirmation, a refused one (the server's message shown), disabled operations with their reasons, a bulk
job with a mix of successes and refusals, and the view for non-administrators."""

from __future__ import annotations

from typing import Any

from areas_fixtures import USERS_CLOCK as CLOCK
from areas_fixtures import choose, open_users
from snapshot_apps import jump_to, make_app, messages, sandbox, sandbox_settings, settle, type_to_confirm
from textual.widgets import Button, Input, OptionList, Tabs

from labdeck.api.models.moderation import ModeratedUser
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.users.users import OperationMenu, UsersScreen

SIZE = (140, 40)


def names(screen: UsersScreen) -> list[str]:
    return [u.username for u in screen.table.visible_rows]


def state(asgi: Any, username: str) -> str | None:
    user = asgi.state.store.user_by_username(username)
    return None if user is None else str(user.state)


def select_row(screen: UsersScreen, username: str) -> None:
    index = names(screen).index(username)
    screen.table.move_cursor(index)


async def test_jump_opens_the_users_view() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "users")
        screen = app.screen
        assert isinstance(screen, UsersScreen)
        assert len(screen.table.rows) == 34 and all(isinstance(u, ModeratedUser) for u in screen.table.rows)


async def test_condition_tabs_search_and_detail() -> None:
    app = make_app(transport_factory=sandbox(ManualClock(CLOCK.time()))[1])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        assert len(names(screen)) == 34
        await pilot.press("c", "c")  # all -> active -> pending approval
        await pilot.pause()
        assert names(screen) == ["pending.user", "nadia.new", "omar.applicant", "priya.signup",
                                 "quentin.waiting", "spam.bot.4711", "rosa.forgotten"]  # the sign-up queue
        await pilot.press("c")
        await pilot.pause()
        assert set(names(screen)) == {"blocked.user", "ldap.user", "stale.blocked"}
        await pilot.press("c", "c", "c")  # banned, deactivated, dormant
        await pilot.pause()
        assert "dormant.user" in names(screen) and "alice" not in names(screen)
        select_row(screen, "dormant.user")
        await pilot.pause()
        detail = screen.user_detail(screen.table.cursor_row).plain
        assert "active, dormant" in detail and "✓ deactivate" in detail
        assert "✗ unban: You cannot unban active users." in detail
        await pilot.press("C")
        await pilot.pause()
        assert "deactivated.user" in names(screen)
        assert {u.state for u in screen.table.visible_rows} == {"deactivated"}
        screen.query_one("#users-conditions", Tabs).active = "users-tab-all"
        await pilot.pause()
        assert len(names(screen)) == 34
        await pilot.press("f")
        search = screen.query_one("#users-search", Input)
        assert search.has_focus
        search.value = "blocked"
        await pilot.press("enter")
        await settle(pilot)
        assert names(screen) == ["blocked.user", "stale.blocked"]


async def test_single_operation_with_confirmation() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search="pending")
        assert names(screen) == ["pending.user"]
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        options = menu.query_one(OptionList)
        disabled = {options.get_option_at_index(i).id: options.get_option_at_index(i).disabled
                    for i in range(options.option_count)}
        assert disabled == {"approve": False, "reject": False, "deactivate": True, "activate": True,
                            "block": True, "unblock": False, "ban": True, "unban": True}
        await choose(pilot, OperationMenu, "approve")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.focused is not None and app.screen.focused.id == "cancel"
        await pilot.click("#confirm")
        await settle(pilot)
        assert state(asgi, "pending.user") == "active"
        assert "approve pending.user: done" in messages(app)
        assert "active" in screen.user_detail(screen.table.rows[0]).plain


async def test_cancel_changes_nothing_and_ban_needs_the_username_typed() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search="alice")
        await pilot.press("m")
        await choose(pilot, OperationMenu, "block")
        await pilot.press("escape")
        await settle(pilot)
        assert state(asgi, "alice") == "active"
        await pilot.press("m")
        await choose(pilot, OperationMenu, "ban")
        confirm = app.screen
        assert isinstance(confirm, TypeToConfirmScreen)
        assert confirm.query_one("#confirm", Button).disabled
        confirm.query_one("#confirm-name", Input).value = "alic"
        await pilot.pause()
        assert confirm.query_one("#confirm", Button).disabled
        await type_to_confirm(pilot, confirm, "alice")
        await settle(pilot)
        assert state(asgi, "alice") == "banned"
        assert names(screen) == ["alice"]


async def test_refused_operation_shows_the_servers_message() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_users(pilot, search="pending")
        asgi.state.store.user_by_username("pending.user").state = "deactivated"  # another admin acted
        await pilot.press("m")
        await choose(pilot, OperationMenu, "approve")
        await pilot.click("#confirm")
        await settle(pilot)
        refusal = "409 The user you are trying to approve is not pending approval"
        assert f"approve pending.user: refused, {refusal}" in messages(app)
        assert state(asgi, "pending.user") == "deactivated"


async def test_disabled_operations_show_their_reason_and_cannot_be_chosen() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_users(pilot, search="ldap")
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        options = menu.query_one(OptionList)
        unblock = options.get_option("unblock")
        assert unblock.disabled
        assert "LDAP blocked users cannot be unblocked by the API" in str(unblock.prompt)
        options.highlighted = options.get_option_index("unblock")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is menu  # nothing chosen
        await pilot.press("escape")
        await settle(pilot)
        assert state(asgi, "ldap.user") == "ldap_blocked"
        assert not any(e.method == "POST" for e in app.request_log.entries)


async def test_bulk_job_with_successes_and_refusals() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search=".user")
        for username in ("pending.user", "blocked.user", "deactivated.user"):
            select_row(screen, username)
            await pilot.press("space")
        assert len(screen.table.marked_rows) == 3
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        assert "allowed for 1 of 3" in str(menu.query_one(OptionList).get_option("approve").prompt)
        await choose(pilot, OperationMenu, "approve")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)  # it names who it acts on (issue 24)
        assert "3 users: pending.user, blocked.user, deactivated.user" in confirm.message.plain
        await pilot.click("#confirm")
        await pilot.pause()
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot)
        assert job.title == "Approve 3 users"
        assert [(r.item, r.ok) for r in job.results] == [
            ("pending.user", True), ("blocked.user", False), ("deactivated.user", False)]
        assert job.results[1].message == \
            "403: The user you are trying to approve is blocked and must be unblocked first"
        assert job.results[2].message == "409: The user you are trying to approve is not pending approval"
        assert state(asgi, "pending.user") == "active"
        assert any("Approve 3 users: partly failed: 2 of 3 items" in m for m in messages(app))
        assert screen.table.marked_rows == []


async def test_bulk_reject_asks_for_the_count_to_be_typed() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search=".user")
        await pilot.press("c", "c")  # pending approval
        await pilot.press("ctrl+a")
        assert [u.username for u in screen.table.marked_rows] == ["pending.user"]
        await pilot.press("m")
        await choose(pilot, OperationMenu, "reject")
        confirm = app.screen
        assert isinstance(confirm, TypeToConfirmScreen) and confirm.expected == "1 user"
        assert confirm.message.plain.endswith("\n\n1 user: pending.user")
        await type_to_confirm(pilot, confirm, "1 user")
        await pilot.pause()
        await app.jobs.wait(app.jobs.jobs[-1])
        await settle(pilot)
        assert state(asgi, "pending.user") is None


async def test_non_administrators_get_a_notice_not_the_list() -> None:
    app = make_app(settings=sandbox_settings(token="glpat-sandbox-alice"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        assert screen.denied and screen.has_class("-denied")
        assert "needs an administrator" in str(screen.query_one("#users-denied").render())
        assert not any(e.path.startswith("/users") for e in app.request_log.entries)
        await pilot.press("m")
        assert app.screen is screen


async def test_a_403_that_still_happens_is_shown() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(settings=sandbox_settings(token="glpat-sandbox-alice"), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session is not None and app.session.user is not None
        app.session.user.is_admin = True  # a stale belief: the server still says no
        screen = await open_users(pilot, search="bob")
        assert names(screen) == ["bob"]
        await pilot.press("m")
        await choose(pilot, OperationMenu, "block")
        await pilot.click("#confirm")
        await settle(pilot)
        assert "block bob: refused, 403 403 Forbidden" in messages(app)
        assert state(asgi, "bob") == "active"


async def test_revisiting_within_the_ttl_costs_no_request() -> None:
    app = make_app(transport_factory=sandbox(ManualClock(CLOCK.time()))[1])
    async with app.run_test(size=SIZE) as pilot:
        await open_users(pilot)
        listed = sum(e.path.startswith("/users") for e in app.request_log.entries)
        await pilot.press("escape")
        screen = await open_users(pilot)
        assert len(screen.table.rows) == 34
        assert sum(e.path.startswith("/users") for e in app.request_log.entries) == listed
        await pilot.press("r")
        await settle(pilot)
        assert sum(e.path.startswith("/users") for e in app.request_log.entries) > listed


async def test_quick_condition_presses_each_move_one_tab() -> None:
    """`c` pressed three times in a row lands on the third tab, even before the first switch has arrived."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        for _ in range(3):  # three presses handled before any TabActivated arrives, as in fast typing
            screen.action_next_condition()
        await settle(pilot)
        assert screen.query_one("#users-conditions", Tabs).active == "users-tab-blocked"
        assert screen.condition is not None and screen.condition.name == "BLOCKED"
        await pilot.press("C")
        await settle(pilot)
        assert screen.query_one("#users-conditions", Tabs).active == "users-tab-pending"
