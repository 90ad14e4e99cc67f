"""Exports and bulk actions on a partial list (issue 25), against the scale sandbox: they say how much of
the listing the rows on screen are, and "all matching" reads the rest of the listing first (in the job),
then exports or acts on every row; "the loaded rows" sends nothing more. A complete list asks nothing."""

from __future__ import annotations

import csv
from pathlib import Path

from areas_fixtures import LIST_SIZE, export_to, huge_app, listing_requests, open_list
from snapshot_apps import make_app, settle
from textual.widgets import Input

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.dialogs import BulkMenu
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.scope_choice import ScopeChoice
from labdeck.tui.screens.shell.export import ExportDialog


async def test_export_all_matching_reads_the_rest_first(tmp_path: Path) -> None:
    app = huge_app(max_rows=300, virtual_issues=1_500)  # a total, but above the ceiling: partial
    async with app.run_test(size=LIST_SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        assert screen.feed.partial and screen.table.model.row_count == 100
        screen.action_export_list()
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ScopeChoice)
        said = question.message.plain
        assert "the 100 loaded issues of about 1,500" in said and "all about 1,500 issues" in said, said
        await pilot.press("escape")
        await settle(pilot)

        before = len(listing_requests(app, "/issues"))
        job = await export_to(pilot, screen, "scope-loaded", tmp_path / "loaded.csv")
        assert job.error is None
        assert len(list(csv.reader((tmp_path / "loaded.csv").open()))) == 1 + 100
        assert len(listing_requests(app, "/issues")) == before  # the loaded rows: nothing read

        job = await export_to(pilot, screen, "scope-all", tmp_path / "all.csv")
        assert job.error is None, job.error
        rows = list(csv.reader((tmp_path / "all.csv").open()))
        assert len(rows) == 1 + 1_500 and len({row[-2] for row in rows[1:]}) == 1_500  # every issue, once
        assert len(listing_requests(app, "/issues")) >= 15  # the 15 pages of 100 were read for it
        assert "all about 1,500 issues" in job.title and job.done == 1_500


async def test_bulk_all_matching_reads_the_rest_first_then_acts_on_every_row() -> None:
    app = huge_app(max_rows=100, virtual_issues=150)  # above the ceiling: a partial list
    async with app.run_test(size=LIST_SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        table = screen.table
        assert screen.feed.partial
        table.focus()
        await pilot.press("space")
        await settle(pilot)
        assert len(table.marked_rows) == 1
        screen.action_bulk()
        await pilot.pause()
        assert isinstance(app.screen, ScopeChoice)
        assert "the 1 marked issues of about 150" in app.screen.message.plain
        await pilot.click("#scope-all")
        await settle(pilot)
        assert isinstance(app.screen, BulkMenu)
        app.screen.dismiss("close")
        await settle(pilot)
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "all about 150 issues, read first" in confirm.message.plain
        sent = len(app.session.client.request_log.entries)
        await pilot.click("#confirm")
        await settle(pilot)
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        assert len(job.results) == 150  # every matching issue acted on, not the one marked
        entries = app.session.client.request_log.entries[sent:]
        methods = [e.method for e in entries]
        reads = [i for i, e in enumerate(entries) if e.method == "GET" and "/issues?" in e.path]
        writes = [i for i, m in enumerate(methods) if m == "PUT"]
        assert len(writes) == 150 and reads and max(reads) < min(writes)  # read everything, then act


async def test_a_complete_list_exports_without_asking(tmp_path: Path) -> None:
    app = make_app()  # the tiny sandbox: the list is complete
    async with app.run_test(size=LIST_SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        assert not screen.feed.partial
        screen.action_export_list()
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)


async def test_moderating_all_matching_users_is_typed_as_such_and_reads_first() -> None:
    from labdeck.domain.moderation import Operation
    from labdeck.tui.screens.confirm import TypeToConfirmScreen
    from labdeck.tui.screens.users.users import UsersScreen

    app = huge_app(max_rows=100, virtual_users=320)  # keyset: no total
    async with app.run_test(size=LIST_SIZE) as pilot:
        screen = await open_list(pilot, UsersScreen(AreaRequest()))
        screen.refresh_data()  # the overview cached every user: read the listing itself (keyset)
        await settle(pilot)
        table = screen.table
        assert screen.feed.partial
        table.focus()
        await pilot.press("space")
        await settle(pilot)
        screen.action_moderate()
        await pilot.pause()
        assert isinstance(app.screen, ScopeChoice)
        said = app.screen.message.plain
        assert "the 1 marked users of the first 300 (more on the server)" in said, said
        assert "all users (more than 300; read until the end)" in said
        await pilot.click("#scope-all")
        await settle(pilot)
        app.screen.dismiss(Operation.BAN)
        await settle(pilot)
        confirm = app.screen
        assert isinstance(confirm, TypeToConfirmScreen)
        assert confirm.expected == "all matching users"  # never "1 users" for 320
        assert "all users (more than 300; read until the end), read first" in confirm.message.plain
        confirm.query_one("#confirm-name", Input).value = "all matching users"
        await pilot.click("#confirm")
        await settle(pilot)
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        assert len(job.results) == 320
