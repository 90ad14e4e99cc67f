"""An area name always opens its own area (issue 32 item 4): re-reading the open lists after a change (the
journal's undo) re-reads screens of areas in the background, and what they open lands on their own stack,
never on the stack of the area shown. Before the fix, an undo from `:journal` with the `fleet` deployments
board open put a second board on the journal's stack: the screen jumped to the board, and from then on
`:journal` (and the palette's "Go to Journal") opened the board."""

from __future__ import annotations

from typing import Any

from snapshot_apps import jump_to, make_app, palette_choose, sandbox, settle, until
from test_deployments_board import open_board
from test_journal_screen import undo_under_cursor

from labdeck.domain import catalogue
from labdeck.tui.navigation import mode_name
from labdeck.tui.screens.deployments.board import DeployBoardScreen
from labdeck.tui.screens.shell.journal import JournalScreen
from labdeck.tui.textual_internals import screen_stacks

SIZE = (160, 50)


def boards(app: Any) -> dict[str, int]:
    """How many boards each mode's stack holds."""
    return {mode: sum(isinstance(s, DeployBoardScreen) for s in stack)
            for mode, stack in screen_stacks(app).items()}


async def test_an_undo_with_the_fleet_board_open_leaves_the_journal_on_top() -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_board(pilot, "fleet")
        session = app.session
        assert session is not None
        listed = await session.client.get_json(catalogue.ISSUES.path(), {"scope": "all", "state": "opened"})
        issue = listed[0]
        await session.services.issues.update_issue(issue["project_id"], issue["iid"], add_labels="urgent")
        await jump_to(pilot, "journal")
        await settle(pilot)
        journal = app.screen
        assert isinstance(journal, JournalScreen)
        assert journal.table.rows[0].operation == "update issue"
        await undo_under_cursor(pilot)
        await settle(pilot, rounds=3)
        assert app.screen is journal, app.screen  # the undo did not put the board over the journal
        assert boards(app) == {**{m: 0 for m in screen_stacks(app)}, mode_name("deployments"): 1}
        await jump_to(pilot, "overview")
        await settle(pilot)
        await jump_to(pilot, "journal")
        await settle(pilot)
        assert app.screen is journal, app.screen
        await jump_to(pilot, "overview")
        await settle(pilot)
        await palette_choose(pilot, "go to journal", "Go to Journal", wait=15)
        await until(pilot, lambda: app.screen is journal, "the palette's Go to Journal opened the journal")
        await jump_to(pilot, "deployments")
        await settle(pilot)
        assert isinstance(app.screen, DeployBoardScreen)  # the board is where it was opened, once


async def test_a_background_areas_screen_opens_screens_on_its_own_stack() -> None:
    """The rule itself, whatever the screen: code of an area in the background (a worker of its screen)
    that opens a screen puts it on that area's stack; the area shown and its name stay as they were, and
    the screen is there when the area is shown again."""
    from labdeck.tui.screens.confirm import ConfirmScreen
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "users")
        await settle(pilot)
        users = app.screen
        assert isinstance(users, UsersScreen)
        await jump_to(pilot, "journal")
        await settle(pilot)
        journal = app.screen
        assert isinstance(journal, JournalScreen)

        async def open_a_dialog() -> None:
            users.app.push_screen(ConfirmScreen("Opened by Users", "in the background"))

        users.run_worker(open_a_dialog())
        await settle(pilot)
        assert app.screen is journal
        stacks = screen_stacks(app)
        assert [type(s) for s in stacks[mode_name("journal")]] == [JournalScreen]
        assert isinstance(stacks[mode_name("users")][-1], ConfirmScreen)
        await jump_to(pilot, "overview")
        await jump_to(pilot, "journal")
        assert app.screen is journal
        await jump_to(pilot, "users")
        assert isinstance(app.screen, ConfirmScreen)
