"""`:journal` with a damaged journal (valid JSON of the wrong type on a line) lists the rest and names the
line it skipped, instead of crashing; the screen's journal listener goes when the screen does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from areas_fixtures import open_screen
from snapshot_apps import make_app, settle
from textual.widgets import Static

from labdeck.api.journal import Journal
from labdeck.tui.screens.shell.journal import JournalScreen

SIZE = (160, 40)
GOOD = {"id": "e1", "at": 1_700_000_000.0, "operation": "ban user", "kind": "user", "target": "@alice",
        "method": "POST", "path": "/users/2/ban", "result": "201", "ok": True}


def _journal(tmp_path: Path, *damaged: Any) -> Journal:
    path = tmp_path / "journal.jsonl"
    lines = [json.dumps(GOOD), *(json.dumps(d) if not isinstance(d, str) else d for d in damaged),
             json.dumps({**GOOD, "id": "e2", "target": "@bob"})]
    path.write_text("\n".join(lines) + "\n")
    return Journal(path)


async def open_with(pilot: Any, journal: Journal) -> JournalScreen:
    """`:journal` over `journal` (the session's)."""
    await settle(pilot)
    pilot.app.session.client.journal = journal
    return await open_screen(pilot, JournalScreen())


async def test_a_damaged_line_is_skipped_and_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, {**GOOD, "id": "bad", "at": "x"}, ["a", "list"], {**GOOD, "ok": "yes"},
                       {**GOOD, "before": "text"}, {**GOOD, "at": 1e300}, {**GOOD, "inverse": {"method": 5}},
                       "{torn")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_with(pilot, journal)
        assert app.screen is screen
        assert [e.target for e in screen.table.rows] == ["@bob", "@alice"]
        status = str(screen.query_one(f"#{screen.STATUS_ID}", Static).render())
        assert "7 damaged journal lines skipped (lines 2, 3, 4, 5, 6, ...)" in status
        assert any("damaged journal line" in str(n.message) for n in app._notifications)


async def test_one_damaged_line_is_said_in_the_singular(tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_with(pilot, _journal(tmp_path, {**GOOD, "at": "x"}))
        status = str(screen.query_one(f"#{screen.STATUS_ID}", Static).render())
        assert "1 damaged journal line skipped (line 2)" in status


async def test_mounting_the_journal_twice_leaves_one_listener(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_with(pilot, journal)
        assert len(journal._listeners) == 1
        app.pop_screen()
        await settle(pilot)
        assert journal._listeners == []
        await open_with(pilot, journal)
        assert len(journal._listeners) == 1
