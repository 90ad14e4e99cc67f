"""`enter` ("Open" in every footer) opens something on every list of every area: the detail of the row,
the project view, the results of a job. Each case opens one area's list with rows, focuses its table,
presses enter and checks that a screen opened over it (and which kind, where it is not the detail)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from areas_fixtures import GATEWAY, open_screen, open_view
from snapshot_apps import make_app, settle, until
from textual.screen import Screen
from textual.widgets import TabbedContent

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.admin.instance_variables import InstanceVariablesScreen
from labdeck.tui.screens.admin.pages_domains import PagesAdminScreen
from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
from labdeck.tui.screens.deployments.dialogs import DeploymentDetailScreen
from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.groups.tab_list import TABS as GROUP_TABS
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.projects.view import ProjectViewScreen
from labdeck.tui.screens.registry.registry import RegistryScreen, RegistryTagsScreen
from labdeck.tui.screens.users.users import UsersScreen
from labdeck.tui.widgets.detail_screen import DetailScreen
from labdeck.tui.widgets.resource_table import ResourceTable

pytestmark = pytest.mark.slow
SIZE = (120, 36)


async def press_enter_on(pilot: Any, table: ResourceTable) -> Screen[Any]:
    """Enter on `table`'s first row; the screen that opened."""
    assert table.rows, f"{table!r} has no rows to open"
    before = pilot.app.screen
    table.focus()
    table.move_cursor(0)
    await pilot.press("enter")
    await settle(pilot)
    opened = pilot.app.screen
    assert opened is not before, f"enter did nothing on {table!r} of {before!r}"
    return opened


async def close(pilot: Any) -> None:
    await pilot.press("escape")
    await settle(pilot)


SIMPLE: dict[str, tuple[Any, type[Screen[Any]]]] = {
    "issues": (lambda: IssuesScreen(), DetailScreen),
    "users": (lambda: UsersScreen(), DetailScreen),
    "instance_variables": (lambda: InstanceVariablesScreen(), DetailScreen),
    "pages_domains": (lambda: PagesAdminScreen(), ProjectViewScreen),
    "projects": (lambda: ProjectsScreen(), ProjectViewScreen),
    "deployments": (lambda: DeploymentsScreen(AreaRequest(scope=GATEWAY)), DeploymentDetailScreen),
    "protected_environments": (lambda: ProtectedEnvironmentsScreen(GATEWAY), DetailScreen),
}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared_app() -> AsyncIterator[Any]:
    """One running app for the simple lists (each test opens its list, presses enter, goes back home):
    labdeck boots once for them, not once per list. Opening a row only reads."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        yield pilot


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", sorted(SIMPLE))
async def test_enter_opens_on_the_list_of(name: str, shared_app: Any) -> None:
    factory, kind = SIMPLE[name]
    pilot = shared_app
    depth = len(pilot.app.screen_stack)
    try:
        screen = await open_screen(pilot, factory(), rounds=2)
        table = screen.query(ResourceTable).first()
        opened = await press_enter_on(pilot, table)
        assert isinstance(opened, kind), opened
    finally:
        while len(pilot.app.screen_stack) > depth:
            await pilot.app.pop_screen()
        await settle(pilot)


async def test_enter_opens_on_every_groups_tab() -> None:
    app = make_app()
    wanted = {key for key, _ in GROUP_TABS} - {"transfer"}  # relations need an export (groups tests)
    done: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        for path in ("acme", "acme/platform", "hidden-lab"):  # each tab has rows in one of them
            screen = await open_screen(pilot, GroupsScreen(AreaRequest(scope=path)), rounds=2)
            assert isinstance(screen, GroupsScreen)
            for key in sorted(wanted - done):
                screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{key}"
                await settle(pilot, rounds=2)
                table = screen.table(key)
                if not table.rows:
                    continue
                done.add(key)
                if key == "subgroups":
                    before = screen.group
                    table.focus()
                    table.move_cursor(0)
                    await pilot.press("enter")  # a subgroup opens in the tree, on this screen
                    await settle(pilot, rounds=2)
                    assert screen.group is not before
                    continue
                opened = await press_enter_on(pilot, table)
                assert isinstance(opened, ProjectViewScreen if key == "projects" else DetailScreen), (key,
                                                                                                       opened)
                await close(pilot)
            app.pop_screen()
            await settle(pilot)
    assert done == wanted, f"no rows to try in {wanted - done}"


async def test_enter_opens_on_every_project_view_tab() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, rounds=2)
        for tab in ("wiki", "tags", "pages", "forks", "members"):
            view.show_tab(tab)
            await settle(pilot, rounds=2)
            pane = view.tabs.get_pane(f"tab-{tab}")
            table = pane.query(ResourceTable).first()
            if not table.rows:
                continue  # an empty tab has nothing to open (forks of a project with none)
            opened = await press_enter_on(pilot, table)
            assert opened is not view, tab
            await close(pilot)
            if app.screen is not view:  # the wiki opens an editor screen
                app.pop_screen()
                await settle(pilot)


async def test_enter_opens_in_the_registry_lists() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, RegistryScreen(AreaRequest(scope=GATEWAY)), rounds=2)
        tags = await press_enter_on(pilot, screen.query(ResourceTable).first())
        assert isinstance(tags, RegistryTagsScreen)
        await settle(pilot, rounds=2)
        assert isinstance(await press_enter_on(pilot, tags.table), DetailScreen)
        await close(pilot)
        await pilot.press("c")
        await settle(pilot)
        panel = app.screen
        panel.query_one("#cleanup-delete").value = ".*"
        await until(pilot, lambda: panel.table.rows, "the cleanup plan's rows")
        assert isinstance(await press_enter_on(pilot, panel.table), DetailScreen)
