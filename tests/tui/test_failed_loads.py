"""A failed load says so where the data would be, and `r` retries it (issue 13 item 9): the group tree's
roots, a subgroup node, and the lists (`ResourceView`) of every screen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from failing import FailingSandbox
from snapshot_apps import make_app, settle
from textual.widgets import Static

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.screens.users.users import UsersScreen

SIZE = (150, 42)


def path_is(path: str) -> Any:
    return lambda request: request.url.path == path


def labels(node: Any) -> list[str]:
    return [str(child.label) for child in node.children]


def table_message(table: Any) -> str:
    return table._message() or ""


@asynccontextmanager
async def showing(transport: FailingSandbox, screen: Any) -> AsyncIterator[Any]:
    """An app against `transport` with `screen` pushed and loaded; yields the pilot."""
    app = make_app(transport_factory=lambda settings: transport)
    failures, transport.failures = transport.failures, 0  # the home's overview loads first: not its failure
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2, failed_ok=True)
        transport.failures = failures
        app.session.client.cache.invalidate("/users", app.session.settings.base_url)  # the overview's copy
        await app.push_screen(screen)
        await settle(pilot, rounds=2, failed_ok=True)
        yield pilot


async def r_fills(pilot: Any, table: Any) -> None:
    """`r` retries the failed load: the rows come and the failure line goes."""
    await pilot.press("r")
    await settle(pilot, rounds=2, failed_ok=True)
    assert table.rows and table.load_error is None


async def test_group_roots_failure_is_shown_and_r_retries() -> None:
    transport = FailingSandbox(path_is("/api/v4/groups"))
    screen = GroupsScreen()
    async with showing(transport, screen) as pilot:
        assert transport.failed == 1
        shown = labels(screen.tree.root)
        assert len(shown) == 1 and shown[0].startswith("Could not load: 500") and "r to retry" in shown[0]
        # no tab has a list yet (no group): the detail says it failed, not "No projects"
        assert screen.pane("projects") is None
        assert "Could not load: 500" in str(screen.query_one("#groups-title", Static).render())
        await pilot.press("r")
        await settle(pilot, rounds=2, failed_ok=True)
        roots = [node.data.full_path for node in screen.tree.root.children]
        assert roots == ["acme", "hidden-lab", "opensource"]
        assert "Could not load" not in str(screen.query_one("#groups-title", Static).render())


async def test_subgroup_failure_is_not_marked_loaded_and_r_retries() -> None:
    transport = FailingSandbox(lambda request: request.url.path.endswith("/subgroups"), failures=0)
    screen = GroupsScreen()
    async with showing(transport, screen) as pilot:
        acme = screen.tree.root.children[0]
        transport.failures = 1
        screen.tree.focus()
        screen.tree.move_cursor(acme)
        acme.expand()
        await settle(pilot, rounds=2, failed_ok=True)
        assert transport.failed == 1
        assert acme.data.id not in screen.tree.loaded
        assert labels(acme)[0].startswith("Could not load: 500")
        await pilot.press("r")
        await settle(pilot, rounds=2, failed_ok=True)
        assert [n.data.full_path for n in acme.children] == ["acme/infra", "acme/platform", "acme/security"]


async def test_a_list_failure_is_shown_in_the_table_and_r_retries() -> None:
    transport = FailingSandbox(path_is("/api/v4/users"))
    screen = UsersScreen()
    async with showing(transport, screen) as pilot:
        assert transport.failed == 1 and screen.table.rows == []
        assert table_message(screen.table) == "Could not load: 500: boom — r to retry"
        await r_fills(pilot, screen.table)


async def test_registry_list_failure_says_so() -> None:
    transport = FailingSandbox(lambda request: request.url.path.endswith("/registry/repositories"))
    screen = RegistryScreen(AreaRequest(scope="acme/platform/api-gateway"))
    async with showing(transport, screen) as pilot:
        assert transport.failed == 1
        assert "Could not load: 500: boom" in table_message(screen.table)
        await r_fills(pilot, screen.table)


def test_transport_is_an_httpx_transport() -> None:
    assert isinstance(FailingSandbox(path_is("/")), httpx.AsyncBaseTransport)
