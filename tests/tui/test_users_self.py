"""An administrator cannot lock themselves out from `:users` (issue 13 item 11): the menu shows ban, block,
deactivate and reject disabled on their own row with the reason; a bulk job skips their row with that
reason and moderates the others; nothing is sent for their own account."""

from __future__ import annotations

from areas_fixtures import USERS_CLOCK as CLOCK
from areas_fixtures import choose, open_users
from snapshot_apps import make_app, sandbox, settle, type_to_confirm
from test_users_screen import SIZE, names, select_row, state
from textual.widgets import OptionList

from labdeck.domain.moderation import SELF_LOCKOUT_REASON, Operation
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.users.users import OperationMenu


async def test_own_row_offers_no_lockout() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search="root")
        select_row(screen, "root")
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        options = menu.query_one(OptionList)
        for op in ("ban", "block", "deactivate", "reject"):
            option = options.get_option(op)
            assert option.disabled and SELF_LOCKOUT_REASON in str(option.prompt)
        await pilot.press("escape")
        await pilot.pause()
        screen.run_single(screen.table.cursor_row, Operation.BAN)  # even called directly: refused
        await settle(pilot)
        assert state(asgi, "root") == "active"
        assert not any(e.method == "POST" for e in app.request_log.entries)


async def test_bulk_ban_skips_the_own_row() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        victim = next(n for n in names(screen) if n not in ("root",) and state(asgi, n) == "active")
        for username in ("root", victim):
            select_row(screen, username)
            await pilot.press("space")
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        assert "allowed for 1 of 2" in str(menu.query_one(OptionList).get_option("ban").prompt)
        await choose(pilot, OperationMenu, "ban")
        await type_to_confirm(pilot, app.screen, "2 users")
        await pilot.pause()
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot)
        results = {r.item: r for r in job.results}
        assert not results["root"].ok and SELF_LOCKOUT_REASON in results["root"].message
        assert results[victim].ok
        assert state(asgi, "root") == "active" and state(asgi, victim) == "banned"
