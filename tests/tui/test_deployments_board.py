"""Pilot tests of the group deployments board (issue 26) at 80x24 against the demo sandbox's `fleet`:
`:deployments` given a group path opens the board; failed-in-24h rows first; sparkline and drift cells;
filters by environment, status and age; enter opens the project's deployments; ctrl+e exports the rows
shown; W lights a row that changed behind its back; unreadable projects are named in the status line."""

from __future__ import annotations

import csv
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from snapshot_apps import jump_to, make_app, sandbox, sandbox_settings, settle
from test_watch_and_export import export
from textual.widgets import Input, Select, Static

from labdeck.sandbox.seed.deployments import add_deployment, deployments_data
from labdeck.tui.screens.deployments.board import DeployBoardScreen
from labdeck.tui.screens.deployments.deployments import DeploymentsScreen

SIZE = (80, 24)


async def open_board(pilot: Any, path: str = "fleet") -> DeployBoardScreen:
    await settle(pilot)
    await jump_to(pilot, "deployments")
    scope = pilot.app.screen.query_one("#deployments-scope", Input)
    scope.value = path
    await pilot.press("enter")
    await settle(pilot, rounds=3)
    board = pilot.app.screen
    assert isinstance(board, DeployBoardScreen), board
    return board


def screen_text(board: DeployBoardScreen) -> str:
    table = board.table
    return "\n".join(table.line_text(y) for y in range(table.size.height))


async def test_a_group_path_opens_the_board_at_80x24() -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        board = await open_board(pilot)
        rows = board.table.rows
        assert len(rows) > 36 and board.read is not None and board.read.projects == 36
        flags = [r.failed_recently for r in rows]
        assert flags == sorted(flags, reverse=True) and sum(flags) >= 5  # failed in 24h first
        assert board.table.cursor_index == 0 and board.table.scroll_offset.y == 0  # and in view
        text = screen_text(board)
        assert "Project" in text and "Environ" in text and "Status" in text and "failed" in text
        assert "production" in text  # the environment column keeps its names at 80 columns
        assert "fleet/" not in text  # paths are shown below the board's group
        assert any(c in text for c in "▁▂▃▄▅▆▇█")  # the sparkline column is on screen at 80 columns
        status = str(board.query_one("#board-status", Static).render())
        assert "36 projects" in status and "without environments" in status and "failed in 24h" in status
        assert any(r.drift is not None and r.drift.kind == "ahead" for r in rows)
        assert {r.environment for r in rows} >= {"production", "staging", "review/*"}
        assert board.table.region.bottom <= SIZE[1]


async def test_filters_by_environment_status_and_age() -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        board = await open_board(pilot)
        everything = len(board.table.rows)
        board.query_one("#board-environment", Input).value = "review"
        await settle(pilot)
        assert board.table.rows and {r.environment for r in board.table.rows} == {"review/*"}
        board.query_one("#board-environment", Input).value = ""
        board.query_one("#board-state", Select).value = "failed"
        await settle(pilot)
        assert board.table.rows and {r.status for r in board.table.rows} == {"failed"}
        board.query_one("#board-age", Select).value = "24"
        await settle(pilot)
        assert board.table.rows and all(r.age <= timedelta(hours=24) and r.status == "failed"
                                        for r in board.table.rows)
        board.query_one("#board-state", Select).clear()
        board.query_one("#board-age", Select).clear()
        await settle(pilot)
        assert len(board.table.rows) == everything


async def test_enter_opens_the_projects_deployments_and_escape_returns() -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        board = await open_board(pilot)
        board.table.focus()
        board.table.move_cursor(2)
        wanted = board.table.cursor_row.project
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        screen = app.screen
        assert isinstance(screen, DeploymentsScreen) and screen.scope == wanted
        assert screen.table.rows and all(d.environment_name for d in screen.table.rows)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is board


async def test_ctrl_e_exports_the_rows_shown(tmp_path: Path) -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        board = await open_board(pilot)
        board.query_one("#board-state", Select).value = "failed"
        await settle(pilot)
        board.table.focus()
        shown = list(board.table.visible_rows)
        await export(pilot, tmp_path / "board.csv")
        with (tmp_path / "board.csv").open() as handle:
            lines = list(csv.DictReader(handle))
        # the data, not the cells: the whole path, GitLab's status word, a time, the days as a list
        assert [(line["project"], line["status"]) for line in lines] == [(r.project, r.status) for r in shown]
        assert all(line["drift"] is not None and line["failed_in_24h"] in ("true", "false") for line in lines)
        assert all(line["age"] == "" or "T" in line["age"] for line in lines)


async def test_unreadable_projects_are_named() -> None:
    _asgi, factory = sandbox(scale="demo")
    settings = replace(sandbox_settings(), sudo="dave")  # a Guest of fleet/restricted only
    app = make_app(settings=settings, transport_factory=factory)
    async with app.run_test(size=(160, 50)) as pilot:
        board = await open_board(pilot)
        status = str(board.query_one("#board-status", Static).render())
        assert "unreadable: fleet/restricted/" in status and "(403)" in status
        assert board.table.rows


async def test_w_follows_a_rollout_and_lights_the_changed_row() -> None:
    asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(160, 50)) as pilot:
        board = await open_board(pilot)
        await pilot.press("W")
        watcher = board.watcher
        assert watcher is not None
        store = asgi.state.store
        row = next(r for r in board.table.rows if r.environment == "staging" and not r.failed_recently)
        project = store.projects[row.project_id]
        env = deployments_data(store).environment_named(project.id, "staging")
        add_deployment(store, project, env, ref="main", sha="e" * 40, tag=False, status="failed",
                       user_id=store.user_by_username("bob").id)  # a rollout fails elsewhere
        store.touch()
        watcher.tick()
        await settle(pilot, rounds=3)
        assert board.table.flashed >= {row.key}
        top = [r for r in board.table.rows if r.failed_recently]
        assert any(r.key == row.key and r.short_sha == "e" * 8 and r.last.user == "bob" for r in top)


async def test_a_group_that_cannot_be_listed_says_so() -> None:
    _asgi, factory = sandbox(scale="demo")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        board = DeployBoardScreen("no-such-group")
        await app.push_screen(board)
        await settle(pilot, rounds=2)
        status = str(board.query_one("#board-status", Static).render())
        assert status.startswith("Could not list the projects of no-such-group") and "404" in status
        assert not board.table.rows and board.table.load_error
