"""What an operator sees at 80x24 (issue 24): every users condition tab readable, a form opening at its top
with its title in view and its first field focused, notifications above the status bar and the footer,
the status bar saying "data 1 s old" whole, and a list's key column whole while other columns give way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from dialog_catalogue import DIALOGS
from rich.cells import cell_len
from screen_catalogue import app_and_store
from snapshot_apps import settle, until
from textual.pilot import Pilot
from textual.widgets import Tab, Tabs
from textual.widgets._toast import Toast

from labdeck.tui.widgets.footer import LabdeckFooter
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.status_bar import StatusBar, StatusInfo, render_status

ASYNC = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def at_80x24() -> AsyncIterator[Pilot[Any]]:
    """One app at 80x24 for the module: each test opens its screen over the home view and goes back."""
    app, _store = app_and_store()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        yield pilot


async def _back_home(pilot: Pilot[Any]) -> None:
    while len(pilot.app.screen_stack) > 1:
        await pilot.app.pop_screen()
    await settle(pilot)


async def _users(pilot: Pilot[Any]) -> Any:
    from labdeck.tui.screens.users.users import UsersScreen

    await pilot.app.push_screen(UsersScreen())
    await settle(pilot, 2)
    return pilot.app.screen


@ASYNC
async def test_every_users_condition_tab_is_readable(at_80x24: Pilot[Any]) -> None:
    try:
        screen = await _users(at_80x24)
        tabs = screen.query_one("#users-conditions", Tabs)
        labels = list(tabs.query(Tab))
        assert len(labels) == 7
        for tab in labels:
            assert tabs.region.contains_region(tab.region), f"{tab.label_text!r} is cut: {tab.region}"
            assert tab.region.width >= cell_len(tab.label_text)
    finally:
        await _back_home(at_80x24)


@ASYNC
@pytest.mark.parametrize("name", ["group_variable_form", "group_member_form", "instance_variable_form"])
async def test_a_form_opens_at_its_top_with_title_and_first_field(name: str, at_80x24: Pilot[Any]) -> None:
    pilot = at_80x24
    try:
        await pilot.app.push_screen(DIALOGS[name]())
        await settle(pilot, 2)
        form: Any = pilot.app.screen
        title = form.query_one(".group-form-title")
        widget, _region = form.get_widget_at(title.region.x, title.region.y)
        assert widget is title, f"the title is hidden: {widget} at {title.region}"
        first = next(f for f in form.fields if not f.disabled)
        assert form.focused is form.query_one(f"#field-{first.key}")
        assert form.can_view_entire(form.focused)
    finally:
        await _back_home(pilot)


@ASYNC
async def test_a_notification_stands_above_the_status_bar_and_footer(at_80x24: Pilot[Any]) -> None:
    pilot = at_80x24
    try:
        screen = await _users(pilot)
        pilot.app.notify("Something happened", title="Test", timeout=30)
        await until(pilot, lambda: screen.query(Toast), "the toast is shown")
        toast = screen.query_one(Toast)
        for bar in (screen.query_one(StatusBar), screen.query_one(LabdeckFooter)):
            assert not toast.region.overlaps(bar.region), f"the toast covers {bar}: {toast.region}"
        assert toast.region.bottom == screen.query_one(LabdeckFooter).region.y  # right above them
    finally:
        pilot.app.clear_notifications()
        await _back_home(pilot)


@ASYNC
async def test_the_status_bar_says_how_old_the_data_is_whole(at_80x24: Pilot[Any]) -> None:
    pilot = at_80x24
    try:
        screen = await _users(pilot)
        bar = screen.query_one(StatusBar)
        await until(pilot, lambda: "data" in str(bar.content), "the data age is shown")
        text = str(bar.content)
        assert text.rstrip().endswith("old"), text
        assert cell_len(text) <= bar.content_region.width
    finally:
        await _back_home(pilot)


def test_the_status_line_drops_the_least_needed_parts_to_fit() -> None:
    info = StatusInfo(instance="demo", instance_label="GitLab 17.6.0 EE", username="root", is_admin=True,
                      rate_remaining=1995, rate_limit=2000, data_age=1.0)
    assert "GitLab 17.6.0 EE" in render_status(info).plain  # no width: everything
    narrow = render_status(info, 78).plain
    assert narrow.endswith("data 1 s old") and "GitLab" not in narrow and "rate 1995" in narrow
    tight = render_status(info, 50).plain
    assert tight.endswith("data 1 s old") and "rate" not in tight and "root" in tight


@ASYNC
async def test_the_key_column_is_whole_and_the_least_useful_give_way(at_80x24: Pilot[Any]) -> None:
    try:
        screen = await _users(at_80x24)
        table = screen.query_one(ResourceTable)
        widths = table.column_widths
        longest = max(len(u.username or "") for u in table.rows)
        assert widths["username"] >= longest  # the key column is never cut while room is left
        assert widths["state"] >= len("pending approval") and widths["created"] == 0  # dropped first
        assert sum(1 for w in widths.values() if w) >= 3
        header = table.line_text(0)
        assert "Username" in header and "Created" not in header and len(header.rstrip()) <= 78
    finally:
        await _back_home(at_80x24)
