"""The project view's tab keys (`]` and `[` switch tabs and keep the focus in the tab's content) and the
Tags tab's search key (`ctrl+f`: `s` is the table's sort)."""

from __future__ import annotations

from areas_fixtures import open_view
from snapshot_apps import make_app, settle
from test_project_view import Sandbox
from textual.widgets import Input

from labdeck.tui.screens.projects.tags import TagsTab
from labdeck.tui.screens.projects.view import TABS


async def test_brackets_walk_the_tabs_with_the_focus_in_each() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_view(pilot, sandbox, tab="wiki")
        seen = []
        for _ in TABS:
            await pilot.press("right_square_bracket")
            await settle(pilot)
            active = view.tabs.active
            seen.append(active.removeprefix("tab-"))
            focused = view.focused
            assert focused is not None
            pane = view.tabs.get_pane(active)
            assert pane in focused.ancestors, (active, focused)  # focus stays in the content, not the bar
        assert seen == [*list(TABS)[1:], "wiki"]
        await pilot.press("left_square_bracket")
        await settle(pilot)
        last = f"tab-{list(TABS)[-1]}"  # from the first tab, `[` wraps to the last
        assert view.tabs.active == last
        assert view.tabs.get_pane(last) in view.focused.ancestors


async def test_tags_search_key_is_not_the_sort_key() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=(120, 30)) as pilot:
        view = await open_view(pilot, sandbox, tab="tags")
        tags = view.query_one(TagsTab)
        assert view.focused is tags.view.table
        await pilot.press("s")
        await pilot.pause()
        assert tags.view.table.model.sort_column is not None  # `s` sorts
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert view.focused is tags.query_one("#tags-search", Input)
