"""Snapshot tests (pytest-textual-snapshot) of the home view and the projects list view, against the tiny
sandbox in-process. Update with `pytest tests/tui/test_snapshots.py --snapshot-update` after a deliberate
visual change.
"""

from __future__ import annotations

from snapshot_apps import make_app
from snapshot_apps import settle_for_snapshot as _settle
from textual.pilot import Pilot

SIZE = (110, 30)


def test_home_view(snap_compare) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=_settle)


def test_projects_list_view(snap_compare) -> None:
    async def open_projects(pilot: Pilot[None]) -> None:
        await _settle(pilot)
        await pilot.press("colon", *"projects", "enter")
        await _settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=open_projects)
