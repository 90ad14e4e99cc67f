"""When a task says done, the lists show what it did (issue 34): at the moment the "done" notification is
posted, every open list that shows the task's targets already shows their new state (no 1 to 3 s of
`active` after "Block 2 users: done"), for bulk tasks and single-row actions alike.

Each test records the rows at the very call that posts the notification (`app.notify` observed), then
also waits on the notification and reads the rows with no further wait."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from areas_fixtures import USERS_CLOCK as CLOCK
from areas_fixtures import choose, open_issues, open_users, users_today
from snapshot_apps import make_app, messages, sandbox, settle, until
from test_issues_screen import SIZE as ISSUES_SIZE
from test_issues_screen import sandbox_issue
from test_users_screen import SIZE, names, select_row, state
from textual.widgets import OptionList

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.app import LabdeckApp
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.dialogs import BulkMenu
from labdeck.tui.screens.users.moderation import OperationMenu


def watch_notifications(app: LabdeckApp, wanted: str, snapshot: Callable[[], Any]) -> list[Any]:
    """What `snapshot()` gave at the moment each notification holding `wanted` was posted."""
    seen: list[Any] = []
    notify = app.notify

    def observed(message: str, *args: Any, **kwargs: Any) -> None:
        if wanted in str(message):
            seen.append(snapshot())
        notify(message, *args, **kwargs)

    app.notify = observed  # type: ignore[method-assign]
    return seen


async def test_a_bulk_block_shows_blocked_rows_when_the_task_says_done() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        for username in ("bob", "carol"):
            select_row(screen, username)
            await pilot.press("space")

        def shown() -> dict[str, str]:
            return {u.username: u.state_label(users_today()) for u in screen.table.rows
                    if u.username in ("bob", "carol")}

        assert shown() == {"bob": "active", "carol": "active"}
        at_done = watch_notifications(app, "Block 2 users: done", shown)
        await pilot.press("m")
        await choose(pilot, OperationMenu, "block")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await until(pilot, lambda: any("Block 2 users: done" in m for m in messages(app)), "the done notice")
        assert shown() == {"bob": "blocked", "carol": "blocked"}  # no further wait
        assert at_done == [{"bob": "blocked", "carol": "blocked"}]
        assert state(asgi, "bob") == state(asgi, "carol") == "blocked"
        await settle(pilot)  # the re-read that follows agrees
        assert shown() == {"bob": "blocked", "carol": "blocked"}


async def test_a_single_block_shows_the_blocked_row_with_its_notification() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot)
        select_row(screen, "erin")

        def shown() -> str:
            return next(u.state_label(users_today()) for u in screen.table.rows if u.username == "erin")

        at_done = watch_notifications(app, "erin: done", shown)
        await pilot.press("m")
        menu = app.screen
        assert isinstance(menu, OperationMenu)
        options = menu.query_one(OptionList)
        options.highlighted = options.get_option_index("block")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.click("#confirm")
        await until(pilot, lambda: any("erin: done" in m for m in messages(app)), "the done notice")
        assert shown() == "blocked" and at_done == ["blocked"]
        assert state(asgi, "erin") == "blocked" and "erin" in names(screen)


async def test_a_bulk_close_shows_closed_rows_when_the_task_says_done() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)  # root: may close every issue
    async with app.run_test(size=ISSUES_SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature")

        def shown() -> dict[str, str]:
            return {i.reference: i.state for i in screen.table.rows}

        before = shown()
        assert len(before) >= 2 and set(before.values()) == {"opened"}
        screen.table.focus()
        await pilot.press("ctrl+a", "b")
        await choose(pilot, BulkMenu, "close")
        assert isinstance(app.screen, ConfirmScreen)
        done = f"Close ({len(before)} issues): done"  # the bulk title names the action and its count
        at_done = watch_notifications(app, done, shown)
        await pilot.click("#confirm")
        await until(pilot, lambda: any(done in m for m in messages(app)), "the done notice")
        expected = dict.fromkeys(before, "closed")
        assert shown() == expected  # no further wait
        assert at_done == [expected]
        for reference in before:
            path, _, iid = reference.partition("#")
            assert sandbox_issue(asgi, path, int(iid)).state == "closed"
