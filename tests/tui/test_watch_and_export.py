"""Pilot tests of watch mode (`W`) and list export (`ctrl+e`) on a real screen against the sandbox: a change
made behind the screen's back is highlighted at the next refresh, watch mode pauses under a dialog, and an
export of a filtered list writes exactly the rows shown (never overwriting an earlier export)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from snapshot_apps import jump_to, make_app, messages, sandbox, settle
from textual.widgets import Input

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.shell.export import ExportDialog
from labdeck.tui.watch import compare, seconds_for

SIZE = (160, 40)


async def open_projects(pilot: Any) -> ProjectsScreen:
    await jump_to(pilot, "projects")
    await settle(pilot, rounds=2)
    screen = pilot.app.screen
    assert isinstance(screen, ProjectsScreen)
    return screen


def test_compare_and_intervals() -> None:
    changed, appeared, vanished = compare({1: "a", 2: "b", 3: "c"}, {1: "a", 2: "B", 4: "d"})
    assert (changed, appeared, vanished) == ({2}, {4}, {3})
    assert seconds_for({}, "issues") == 30.0
    assert seconds_for({"default": 60, "issues": 10}, "issues") == 10.0
    assert seconds_for({"default": 60}, "users") == 60.0


async def test_watch_mode_highlights_a_change_made_behind_its_back() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_projects(pilot)
        await pilot.press("W")
        watcher = screen.watcher
        assert watcher is not None and watcher.seconds == 30.0
        target = screen.table.rows[1]
        asgi.state.store.projects[target.id].archived = True  # someone archives it elsewhere
        asgi.state.store.touch()
        watcher.tick()
        await settle(pilot, rounds=2)
        assert watcher.last is not None and watcher.last[0] == 1
        assert screen.table.flashed == {target.id}
        assert "1 changed" in screen.sub_title
        await pilot.press("W")
        assert screen.watcher is None and not watcher._timer


async def test_watch_mode_pauses_while_a_dialog_is_open_or_rows_are_marked() -> None:
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_projects(pilot)
        await pilot.press("W")
        watcher = screen.watcher
        assert watcher is not None
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        watcher.tick()
        assert watcher.state == "paused while a form is open"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("space")
        watcher.tick()
        assert watcher.state == "paused while rows are marked"


async def export(pilot: Any, path: Path) -> None:
    await pilot.press("ctrl+e")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ExportDialog)
    dialog.query_one("#export-path", Input).value = str(path)
    await pilot.press("enter")
    await pilot.pause()
    if isinstance(pilot.app.screen, ConfirmScreen):  # a folder that does not exist: created after asking
        assert not path.parent.exists()
        await pilot.click("#confirm")
        await pilot.pause()
    for job in list(pilot.app.jobs.jobs):
        await pilot.app.jobs.wait(job)
    await settle(pilot)


async def test_an_export_of_a_filtered_list_writes_exactly_the_rows_shown(tmp_path: Path) -> None:
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_projects(pilot)
        screen.table.set_filter("acme")
        shown = [(p.path_with_namespace, str(p.id), p.web_url) for p in screen.table.visible_rows]
        assert 0 < len(shown) < len(screen.table.rows)
        await export(pilot, tmp_path / "projects.csv")
        with (tmp_path / "projects.csv").open(encoding="utf-8") as handle:
            lines = list(csv.reader(handle))
        assert lines[0][0] == "path" and lines[0][-2:] == ["id", "web_url"]
        assert [(row[0], row[-2], row[-1]) for row in lines[1:]] == shown
        await export(pilot, tmp_path / "projects.csv")  # the same name again: never overwritten
        assert (tmp_path / "projects (1).csv").exists()
        assert any("rows written" in r.message for r in app.jobs.jobs[-1].results)
        await export(pilot, tmp_path / "sub" / "projects.json")  # a new folder is created (after asking)
        data = json.loads((tmp_path / "sub" / "projects.json").read_text(encoding="utf-8"))
        assert [(d["path"], str(d["id"]), d["web_url"]) for d in data] == shown  # the id a number
        await pilot.press("ctrl+e")
        await pilot.pause()
        app.screen.query_one("#export-path", Input).value = str(tmp_path / "projects.txt")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)  # refused before anything is written
        assert not (tmp_path / "projects.txt").exists()
        assert not any("Traceback" in m for m in messages(app))


def test_watch_backs_off_while_the_rate_limit_is_low() -> None:
    from types import SimpleNamespace

    from labdeck.tui.watch import rate_is_low

    def client(remaining: int | None, limit: int | None) -> SimpleNamespace:
        return SimpleNamespace(rate_limit=SimpleNamespace(remaining=remaining, limit=limit))

    assert rate_is_low(client(5, 100)) and not rate_is_low(client(50, 100))
    assert not rate_is_low(client(None, None)) and not rate_is_low(client(3, None))


async def test_the_export_folder_is_remembered_in_the_state_file(tmp_path: Path) -> None:
    from labdeck.config.state import load_state

    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_projects(pilot)
        await export(pilot, tmp_path / "out" / "p.csv")
        await app.workers.wait_for_complete()
        assert load_state().download_dir == str(tmp_path / "out")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).value.startswith(str(tmp_path / "out"))
