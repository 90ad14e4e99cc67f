"""In Groups, the row actions act on what has focus: with the group tree focused, `x` deletes nothing
(it says to move to the table); from the table it asks about the cursor row."""

from __future__ import annotations

from areas_fixtures import open_groups, show_tab
from snapshot_apps import make_app, messages, settle

from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.groups.groups import GroupsScreen


async def test_x_with_the_tree_focused_acts_on_nothing() -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_groups(pilot, "acme/platform")
        await show_tab(pilot, screen, "labels")
        assert screen.table("labels").rows
        screen.tree.focus()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, GroupsScreen)  # no confirmation about a label the tree hid
        assert any("group tree has focus" in m for m in messages(app))
        screen.table("labels").focus()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
