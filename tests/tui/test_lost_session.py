"""A lost session is handled once, where workers (and actions) fail: screens and panes read their services
through `ctx.services`, which raises `NotConnected` when no instance is connected; the app's one failure
path turns that into one quiet notification, never a crash and never a pile of errors (issue 35)."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, settle, until
from textual.widgets import TabbedContent

from labdeck.tui.app import LabdeckApp
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.projects.view import TABS, ProjectViewScreen

SIZE = (120, 40)
GATEWAY = "acme/platform/api-gateway"


def said(app: LabdeckApp) -> list[tuple[str, str]]:
    """(severity, text) of every notification shown so far."""
    return [(str(n.severity), str(n.message)) for n in app._notifications]


def not_connected(app: LabdeckApp) -> list[tuple[str, str]]:
    return [(severity, text) for severity, text in said(app) if "no instance is connected" in text.lower()]


async def open_project(pilot: Any, app: LabdeckApp) -> ProjectViewScreen:
    assert app.session is not None
    project = await app.session.services.projects.project(GATEWAY)
    view = ProjectViewScreen(project)
    await app.push_screen(view)
    for tab in TABS:  # every tab made and read once while connected
        view.show_tab(tab)
        await settle(pilot)
    return view


async def test_workers_that_lose_the_session_give_one_quiet_notification() -> None:
    """Every tab of the project view reads again after the session is gone: each worker fails with
    `NotConnected`, and the operator is told once, as a warning, not once per tab as an error; the app
    goes on (it still answers a key)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_project(pilot, app)
        before = len(said(app))
        app.session = None
        panes = [node for node in view.walk_children() if isinstance(node, OwnerPane)]
        assert len(panes) == len(TABS)
        for pane in panes:
            pane.reload()
        await settle(pilot, rounds=2, failed_ok=True)
        assert not_connected(app) == [("warning", "No instance is connected: connect one to read this")]
        assert [s for s in said(app)[before:] if s[0] == "error"] == []
        await pilot.press("right_square_bracket")  # still running, still answering keys
        await settle(pilot, failed_ok=True)
        assert app.is_running and app.screen is view


async def test_an_action_without_a_session_says_so_and_the_app_goes_on() -> None:
    """An action that reads the services in its handler (`a` on a group's labels builds its form from
    them) meets `NotConnected` outside any worker: the same one notification, and no crash."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = GroupsScreen(AreaRequest(scope="acme"))
        await app.push_screen(screen)
        await settle(pilot, rounds=2)
        screen.query_one("#groups-tabs", TabbedContent).active = "tab-labels"
        await settle(pilot, rounds=2)
        screen.table("labels").focus()
        await settle(pilot)
        app.session = None
        await pilot.press("a")
        await settle(pilot, failed_ok=True)
        await pilot.press("a")  # said once while the session stays lost
        await settle(pilot, failed_ok=True)
        await until(pilot, lambda: not_connected(app), "the notification")
        assert len(not_connected(app)) == 1
        assert app.is_running and app.screen is screen
