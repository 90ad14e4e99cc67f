"""Pilot tests of the overview against the sandbox: the seeded pending and dormant users and an expired
certificate are shown (beside the areas on the home view, and in `:overview`), each line opens the place to
act (the users view on the right condition, the Pages domains), and a failed deployment of a project the user
opened is listed."""

from __future__ import annotations

import time
from typing import Any

import pytest
from snapshot_apps import jump_to, make_app, sandbox, settle, until
from textual.widgets import OptionList, Static, Tabs

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.admin.pages_domains import PagesAdminScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.overview import OverviewPanel, OverviewScreen
from labdeck.tui.screens.users.users import UsersScreen

SIZE = (160, 45)


def headings(panel: OverviewPanel) -> list[str]:
    options = panel.query_one("#overview-lines", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)
            if not options.get_option_at_index(i).id]


def lines(panel: OverviewPanel) -> dict[str, str]:
    options = panel.query_one("#overview-lines", OptionList)
    found = {}
    for index in range(options.option_count):
        option = options.get_option_at_index(index)
        if option.id:
            found[option.id] = str(option.prompt)
    return found


async def open_line(pilot: Any, panel: OverviewPanel, key: str) -> None:
    """Enter on the overview's line `key`: what it opens, settled."""
    options = panel.query_one("#overview-lines", OptionList)
    options.focus()
    options.highlighted = options.get_option_index(key)
    await pilot.press("enter")
    await settle(pilot, rounds=2)


async def test_the_home_view_shows_what_needs_attention_and_each_line_opens_its_area() -> None:
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        home = app.screen
        assert isinstance(home, HomeScreen)
        panel = home.query_one(OverviewPanel)
        shown = lines(panel)
        pending = shown["users.pending"]
        assert "pending approval" in pending and not pending.strip().startswith("0")
        assert "dormant for over 90 days" in shown["users.dormant"]
        assert any(key.startswith("pages.expired.") for key in shown)
        await open_line(pilot, panel, "users.pending")
        users = app.screen
        assert isinstance(users, UsersScreen)
        assert users.query_one("#users-conditions", Tabs).active == "users-tab-pending"
        assert users.table.rows and all(u.state == "blocked_pending_approval" for u in users.table.rows)
        await pilot.press("escape")
        await settle(pilot)
        await open_line(pilot, panel, next(k for k in shown if k.startswith("pages.expired.")))
        assert isinstance(app.screen, PagesAdminScreen)


async def test_failed_deployments_of_opened_projects_and_the_overview_area() -> None:
    # the instance's clock stands still (the app's "now" is the instance's): on the real calendar, the seeded
    # history put a failure of its own in the last 24 hours on some days of the week (--shift-clock -365 or 3)
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        store = asgi.state.store
        project = store.project_by_path("acme/platform/api-gateway")
        client = app.session.client
        await client.post_json(f"/projects/{project.id}/deployments", {
            "environment": "production", "sha": "a" * 40, "ref": "main", "tag": "false", "status": "failed"})
        app.context.note_project(project.id, "acme/platform/api-gateway")
        await jump_to(pilot, "overview")
        await settle(pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        shown = lines(screen.query_one(OverviewPanel))
        failed = [text for key, text in shown.items() if key.startswith("deploy.") and key != "deploy.count"]
        assert failed and "acme/platform/api-gateway → production" in failed[0]
        assert shown["deploy.count"] == "1 deployment failed in 24h in 1 project"  # its scope, stated
        assert headings(screen.query_one(OverviewPanel))[-1].startswith(
            "Failed deployments, last 24 hours, in 1 project you opened")


async def test_the_overview_counts_the_failures_of_the_board_opened_as_the_board_does() -> None:
    """Issue 34: the fleet board said `6 failed in 24h` while the overview said `none` (it counted only the
    projects opened). A board opened makes the overview follow its group: back home, the overview reads
    fleet's failed deployments by the board's definition, and its figure is the board's, scope stated."""
    from test_deployments_board import open_board

    from labdeck.tui.screens.deployments.board import DeployBoardScreen

    _asgi, factory = sandbox(ManualClock(), scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert not any(k.startswith("deploy.") for k in lines(home.query_one(OverviewPanel)))  # no scope yet
        board = await open_board(pilot)
        assert isinstance(board, DeployBoardScreen) and board.read is not None and board.read.window
        figure = board.read.window.count_text(len(board.read.failed))
        status = str(board.query_one("#board-status", Static).render())
        assert figure in status and len(board.read.failed) >= 6
        while not isinstance(app.screen, HomeScreen):
            await pilot.press("escape")
            await settle(pilot)
        panel = app.screen.query_one(OverviewPanel)
        await until(pilot, lambda: "deploy.count" in lines(panel), "the failed deployments of fleet")
        assert lines(panel)["deploy.count"] == f"{figure} in 36 projects"
        assert any(h.startswith("Failed deployments, last 24 hours, in fleet") for h in headings(panel))
        shown = [text for key, text in lines(panel).items()
                 if key.startswith("deploy.") and key.removeprefix("deploy.").isdigit()]
        newest = board.read.failed[0]
        assert shown[0].startswith(f"{newest.project} → {newest.deployment.environment}: ")
        assert len(shown) == min(8, len(board.read.failed))
        if len(board.read.failed) > 8:
            assert lines(panel)["deploy.more"] == f"and {len(board.read.failed) - 8} more"
        await jump_to(pilot, "overview")
        await settle(pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        assert lines(screen.query_one(OverviewPanel))["deploy.count"] == f"{figure} in 36 projects"
        await open_line(pilot, screen.query_one(OverviewPanel), "deploy.count")  # enter: the group's board
        await until(pilot, lambda: isinstance(app.screen, DeployBoardScreen), "fleet's board")
        assert app.screen.group == "fleet"


async def test_the_overview_after_finished_jobs_lists_the_failed_one_and_does_not_crash() -> None:
    """Issue 22 item 2: once any job had finished, the overview read `Job.finished` (which does not exist)
    and stopped the app: on `:overview`, `r` on home, and a switch of instance."""
    from labdeck.tui.jobs import Job

    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2)

        async def fine(job: Job) -> None:
            job.add_result("v1.0.0", True)

        async def partly(job: Job) -> None:
            job.add_result("v1.0.1", True)
            job.add_result("v1.0.2", False, "403 Forbidden")

        await app.jobs.wait(app.start_job("Delete 1 tag", fine))
        await app.jobs.wait(app.start_job("Delete 2 tags", partly))
        await pilot.press("r")
        await settle(pilot, rounds=2)
        shown = lines(app.screen.query_one(OverviewPanel))
        assert "Delete 2 tags" in shown["jobs.failed"] and "Delete 1 tag," not in shown["jobs.failed"]
        await jump_to(pilot, "overview")
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, OverviewScreen)
        assert "Delete 2 tags" in lines(app.screen.query_one(OverviewPanel))["jobs.failed"]
        assert app.is_running and app.return_code is None


def test_a_registry_line_names_the_repository_by_its_path_in_the_registry_screens_units() -> None:
    """Issue 24: the line read `1.5 GiB  1 #1, 32 tags` (a project id, a repository id, binary units)."""
    from labdeck.api.registry import format_size
    from labdeck.api.registry_known import KnownRepository
    from labdeck.domain.registry_sizes import Figure
    from labdeck.tui.screens.shell.overview import registry_line

    known = KnownRepository("https://a", 1, "acme/platform/api-gateway", "1", 32, 0.0,
                            given=Figure(1_600_000_000))
    line = registry_line(known, known.bytes)
    assert line.startswith(f"  {format_size(known.bytes)}  acme/platform/api-gateway, 32 tags  ")
    assert format_size(known.bytes) == "1.6 GB" and "#1" not in line


async def test_the_registry_line_follows_a_deletion_job_without_r() -> None:
    """Issue 24: after a registry deletion the overview kept the old figure until `r`; a job that finishes
    shows the lines again, with what the registry service knows after its deletes."""
    from labdeck.tui.jobs import Job

    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        assert app.session is not None
        service = app.session.services.registry
        repository = (await service.project_repositories("acme/platform/api-gateway"))[0]
        details = await service.tag_details(repository.project_id or 0, repository.id, path=repository.path)
        await pilot.press("r")
        await settle(pilot, rounds=2)
        panel = app.screen.query_one(OverviewPanel)
        key = f"registry.size.{repository.id}"
        assert f"acme/platform/api-gateway, {len(details)} tags" in lines(panel)[key]

        async def delete(job: Job) -> None:
            await service.delete_tag("acme/platform/api-gateway", repository.id, details[0].name)

        await app.jobs.wait(app.start_job("Delete 1 tag", delete))
        await until(pilot, lambda: f"{len(details) - 1} tags" in lines(panel)[key], "the line shown again")


async def test_overview_opens_with_the_cursor_on_the_first_line_and_enter_opens_it() -> None:
    """`:overview` highlights its first line that opens something (not a heading): the first enter opens
    it; a reload keeps the cursor on the same line."""
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        await jump_to(pilot, "overview")
        await settle(pilot, rounds=2)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        options = screen.query_one("#overview-lines", OptionList)
        assert app.focused is options
        assert options.highlighted_option is not None and options.highlighted_option.id == "users.pending"
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, UsersScreen)
        await jump_to(pilot, "overview")
        options.highlighted = options.get_option_index("users.blocked")
        screen.refresh_data()
        await settle(pilot, rounds=2)
        assert options.highlighted_option is not None and options.highlighted_option.id == "users.blocked"


def test_first_line_skips_headings_and_keeps_the_chosen_line() -> None:
    from textual.widgets.option_list import Option

    from labdeck.tui.screens.shell.overview import first_line

    shown = [Option("Users", disabled=True), Option("a", id="a"), Option("b", id="b")]
    assert first_line(shown, None) == 1
    assert first_line(shown, "b") == 2
    assert first_line(shown, "gone") == 1
    assert first_line([Option("Users", disabled=True)], None) is None


YEAR = 365 * 86_400.0


@pytest.mark.parametrize("shift", [-YEAR, 0.0, YEAR], ids=["a year back", "today", "a year ahead"])
async def test_the_home_views_dates_are_the_instances_whatever_the_machines_calendar(shift: float) -> None:
    """The console has one "now", the instance's (its answers' `Date`): a machine whose calendar is a year off
    tells the seeded certificates as the instance does (one expired, one expiring within 30 days, the rest
    valid), where the machine's own calendar would call them all expired, or all valid."""
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory, wall=lambda: time.time() + shift)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(OverviewPanel)
        await until(pilot, lambda: any(k.startswith("pages.") for k in lines(panel)), "the certificate lines")
        shown = lines(panel)
        assert abs(app.context.now().timestamp() - ManualClock().time()) < 60
        assert [v for k, v in shown.items() if k.startswith("pages.")] == [
            "expired: old.acme.test", "expires within 30 days: soon.acme.test"]
