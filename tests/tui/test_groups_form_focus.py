"""After a Groups form saves, focus goes back to the list of the tab the change was made in, with the cursor
on the new or edited row, so that enter opens it (it used to stay on the tree or the tab bar, where enter
expands a group instead)."""

from __future__ import annotations

from areas_fixtures import open_groups, show_tab
from snapshot_apps import make_app, sandbox, until
from textual.widgets import Input

from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.groups.tree import GroupTree
from labdeck.tui.widgets.detail_screen import DetailScreen


async def test_a_label_added_from_the_tree_is_focused_and_enter_opens_it() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "labels")
        screen.tree.focus()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the add form")
        form = app.screen
        form.query_one("#field-name", Input).value = "zz-urgent"
        form.query_one("#field-color", Input).value = "tomato"
        await pilot.press("ctrl+s")
        table = screen.table("labels")
        await until(pilot, lambda: app.screen is screen and table.cursor_row is not None
                    and table.cursor_row.name == "zz-urgent", "the cursor on the new label")
        assert screen.focused is table and not isinstance(screen.focused, GroupTree)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen), "the new label's detail")

