"""Snapshot tests at 80x24 (issue 14), for layout only: one snapshot of each distinct layout of a screen
(`screen_catalogue.SCREENS`) or a dialog (`dialog_catalogue.DIALOGS`), against the tiny sandbox on a clock
that stands still (the dates on screen never move). What every screen and dialog must do at 80x24 and
60x20 (fit, scroll to what has focus, Tab reaches every control) is checked on all of them by
`test_dialog_layout.py`, `test_screen_layout.py` and `test_layout_80x24.py`, without pictures. Update with
`pytest tests/tui/test_snapshots_80x24.py --snapshot-update` after a deliberate change of layout.

Not pictured (issue 35), each the same layout as one that is: the forms of the kit `group_label_form`,
`group_badge_form`, `group_import_form`, `group_member_form`, `instance_variable_form`, `project_fork`,
`deployment_create` (a form that scrolls: `group_variable_form`; with a checkbox: `project_domain_new`);
`project_domain_certificate` (`project_domain_new` without its domain field); `project_path_prompt`
(`issues_prompt`); the menus `issues_link_menu` and `deployment_status` (`issues_bulk_menu`,
`users_operations`); `confirm` (`type_to_confirm` without its field); the project view's `project_issues`
and `project_containers` tabs (a tab's list: `project_view`, `project_deployments`); the lists
`instance_variables` and `protected_environments` (a summary line over a list: `pages_domains`)."""

from __future__ import annotations

from typing import Any

import pytest
from dialog_catalogue import DIALOGS
from screen_catalogue import SCREENS, app_and_store, settled
from textual.pilot import Pilot

pytestmark = pytest.mark.slow
SIZE = (80, 24)
SAME_LAYOUT_SCREENS = {"project_issues", "project_containers", "instance_variables", "protected_environments"}
SAME_LAYOUT_DIALOGS = {"group_label_form", "group_badge_form", "group_import_form", "group_member_form",
                       "instance_variable_form", "project_fork", "deployment_create",
                       "project_domain_certificate", "project_path_prompt", "issues_link_menu",
                       "deployment_status", "confirm"}


@pytest.mark.parametrize("name", sorted(set(SCREENS) - SAME_LAYOUT_SCREENS))
def test_screen_at_80x24(name: str, snap_compare: Any) -> None:
    app, store = app_and_store()

    async def run_before(pilot: Pilot[Any]) -> None:
        await SCREENS[name](pilot, store)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("name", sorted(set(DIALOGS) - SAME_LAYOUT_DIALOGS))
def test_dialog_at_80x24(name: str, snap_compare: Any) -> None:
    app, _store = app_and_store()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.app.push_screen(DIALOGS[name]())
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
