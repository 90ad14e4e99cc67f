"""Pilot tests of `:journal`: a ban made in `:users` is listed with its target and undone with `u` (the user
is active again, and the undo is itself journalled); an undo whose target changed since is refused with the
reason; a change GitLab cannot undo says so."""

from __future__ import annotations

from typing import Any

from areas_fixtures import USERS_CLOCK as CLOCK
from areas_fixtures import choose, open_area, open_users
from snapshot_apps import jump_to, make_app, messages, sandbox, settle, type_to_confirm
from test_users_screen import state

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.shell.journal import JournalScreen
from labdeck.tui.screens.users.users import OperationMenu
from labdeck.tui.widgets.detail_screen import DetailScreen

SIZE = (160, 40)


async def ban_alice(pilot: Any) -> None:
    await open_users(pilot, search="alice")
    await pilot.press("m")
    await choose(pilot, OperationMenu, "ban")
    confirm = pilot.app.screen
    assert isinstance(confirm, TypeToConfirmScreen)
    await type_to_confirm(pilot, confirm, "alice")
    await settle(pilot)


async def undo_under_cursor(pilot: Any, key: str = "u") -> None:
    await pilot.press(key)
    await pilot.pause()
    if isinstance(pilot.app.screen, ConfirmScreen):
        await pilot.click("#confirm")
        await pilot.pause()
    for job in list(pilot.app.jobs.jobs):
        await pilot.app.jobs.wait(job)
    await settle(pilot, rounds=2)


async def test_ban_then_undo_returns_the_user_to_active() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await ban_alice(pilot)
        assert state(asgi, "alice") == "banned"
        journal = await open_area(pilot, "journal", JournalScreen)
        newest = journal.table.rows[0]
        assert (newest.operation, newest.target, newest.ok) == ("ban user", "@alice", True)
        await undo_under_cursor(pilot)
        assert state(asgi, "alice") == "active"
        job = app.jobs.jobs[-1]
        assert [(r.item, r.ok) for r in job.results] == [("@alice", True)]
        rows = journal.table.rows
        assert rows[0].operation == "unban user" and rows[0].undoes == newest.id
        assert journal.ctx.services.undo is not None
        assert journal.ctx.services.undo.refusal(rows[1]) == "it was undone already"  # type: ignore[union-attr]


async def test_an_undo_is_refused_when_the_user_changed_since() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await ban_alice(pilot)
        asgi.state.store.user_by_username("alice").state = "active"  # someone else unbanned her
        asgi.state.store.touch()
        await open_area(pilot, "journal", JournalScreen)
        await undo_under_cursor(pilot)
        job = app.jobs.jobs[-1]
        assert not job.results[0].ok
        assert "changed since (its state is now active, not banned)" in job.results[0].message
        assert state(asgi, "alice") == "active"


async def test_a_rejected_sign_up_cannot_be_undone_and_says_why() -> None:
    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pending = asgi.state.store.user_by_username("pending.user")
        await app.session.client.post_json(f"/users/{pending.id}/reject")
        await open_area(pilot, "journal", JournalScreen)
        await pilot.press("u")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("a rejected sign-up is deleted by GitLab" in m for m in messages(app))


async def test_a_bulk_label_job_undone_restores_every_issues_labels() -> None:
    from labdeck.tui.screens.issues.issues import IssuesScreen

    _asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await jump_to(pilot, "issues")
        await settle(pilot, rounds=2)
        issues_screen = app.screen
        assert isinstance(issues_screen, IssuesScreen)
        issues = list(issues_screen.table.rows[:4])
        client = app.session.client

        async def labels() -> dict[str, list[str]]:
            found = {}
            for issue in issues:
                data = await client.get_json(f"/projects/{issue.project_id}/issues/{issue.iid}")
                found[f"{issue.project_id}#{issue.iid}"] = sorted(data["labels"])
            return found

        before = await labels()
        job = issues_screen.run_bulk(issues, "add_labels", ("urgent",), "urgent", "Add labels: 4 issues")
        assert job is not None
        await app.jobs.wait(job)
        assert all("urgent" in names for names in (await labels()).values())
        journal = await open_area(pilot, "journal", JournalScreen)
        assert {e.job_title for e in journal.table.rows[:4]} == {"Add labels: 4 issues"}
        await undo_under_cursor(pilot, "U")
        undo_job = app.jobs.jobs[-1]
        assert [r.ok for r in undo_job.results] == [True] * 4
        assert await labels() == before


async def test_the_confirmation_of_a_rejection_says_it_cannot_be_undone() -> None:
    from test_users_screen import select_row
    from textual.widgets import Static

    _asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_users(pilot, search="pending.user")
        select_row(screen, "pending.user")
        await pilot.press("m")
        await choose(pilot, OperationMenu, "reject")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        note = confirm.query_one(".confirm-irreversible", Static)
        assert "This cannot be undone: a rejected sign-up is deleted by GitLab" in str(note.render())


async def test_enter_opens_the_change_in_words_and_undo_is_seen_at_80_columns() -> None:
    """`enter` on an entry opens its detail: the change in words, before and after, the target by name, no
    Python repr; at 80x24 the Undo column is on screen; the undo question reads as a sentence."""
    _, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await ban_alice(pilot)
        journal = await open_area(pilot, "journal", JournalScreen)
        header = journal.table.line_text(0)
        assert "Undo" in header and "Target" in header, header
        assert "u undoes it" in journal.table.line_text(1)
        journal.table.focus()
        await pilot.press("enter")
        await pilot.pause()
        opened = pilot.app.screen
        assert isinstance(opened, DetailScreen)
        detail = str(opened.query_one("#detail-screen-body").render())
        assert "ban user @alice" in detail
        assert "Before  state active" in detail and "After  state banned" in detail
        for repr_mark in ("{", "}", "'", "="):
            assert repr_mark not in detail, detail
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is journal
        await pilot.press("u")
        await pilot.pause()
        question = pilot.app.screen
        assert isinstance(question, ConfirmScreen)
        # what the undo will do, not what was done (issue 34)
        assert "Undo: unban @alice?" in str(question.query_one(".confirm-message").render())


async def test_an_undo_from_the_journal_refreshes_the_open_users_list() -> None:
    """Users is open (as an area) showing alice banned; the journal's undo unbans her: the Users list is
    read again by itself (it used to keep showing her banned until `r`)."""
    from test_users_screen import select_row

    from labdeck.tui.screens.users.users import UsersScreen

    asgi, factory = sandbox(ManualClock(CLOCK.time()))
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "users")
        await settle(pilot)
        users = app.screen
        assert isinstance(users, UsersScreen)
        select_row(users, "alice")
        await pilot.press("m")
        await choose(pilot, OperationMenu, "ban")
        confirm = app.screen
        assert isinstance(confirm, TypeToConfirmScreen)
        await type_to_confirm(pilot, confirm, "alice")
        await settle(pilot, rounds=2)

        def shown_state() -> str | None:
            return next((u.state for u in users.table.rows if u.username == "alice"), None)

        assert state(asgi, "alice") == "banned" and shown_state() == "banned"
        await open_area(pilot, "journal", JournalScreen)
        await undo_under_cursor(pilot)
        assert state(asgi, "alice") == "active"
        await settle(pilot, rounds=2)
        assert shown_state() == "active"
