"""`?` opens on the focused screen's own keys (issue 33): first what the footer shows for the pane that has
the focus, in its order, then the rest of that screen's keys, then the list's own keys, and the app's keys
that work everywhere last, under a line of their own; at 80x24 the screen's own keys are on screen without
scrolling (`?` used to open on twenty generic keys, the screen's below the fold)."""

from __future__ import annotations

from typing import Any

import pytest
from snapshot_apps import jump_to, make_app, settle
from textual.widgets import DataTable

from labdeck.tui.screens.shell.help import HelpScreen
from labdeck.tui.widgets.footer import TAIL, footer_entries


@pytest.mark.parametrize("area", ["issues", "projects", "groups"])
async def test_help_opens_on_the_focused_screens_own_keys(area: str) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await jump_to(pilot, area)
        await settle(pilot, rounds=3)
        screen = app.screen
        shown, _help = footer_entries(screen)
        footer = [entry.binding.action for entry in shown if entry.binding.action not in TAIL]
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        rows = help_screen.rows
        assert [row.action for row in rows[:len(footer)]] == footer  # what the footer shows, in its order
        sections = [row.section for row in rows]
        assert sections == sorted(sections, key=["pane", "screen", "widget", "app"].index)
        assert {"quit", "jump", "command_palette"} <= {row.action for row in rows if row.section == "app"}
        assert not {"quit", "jump", "command_palette"} & {row.action for row in rows if row.section != "app"}
        table = help_screen.query_one("#help-table", DataTable)
        own = sum(1 for row in rows if row.section in ("pane", "screen"))
        await pilot.pause()
        assert table.scroll_y == 0 and table.region.bottom <= 24
        visible = table.size.height - 1  # under the header
        assert own <= visible, f"{own} keys of the screen, {visible} lines shown at 80x24"
        shown_text = _table_text(help_screen)
        assert all(row.description in shown_text for row in rows if row.section in ("pane", "screen"))


def _table_text(help_screen: Any) -> str:
    """What the help table draws now (its visible lines)."""
    table = help_screen.query_one("#help-table", DataTable)
    return "\n".join(strip.text for strip in table.render_lines(table.region.reset_offset))
