"""Snapshot tests at 80x24 (issue 14): every screen and every dialog, one snapshot each, against the tiny
sandbox on a clock that stands still (the dates on screen never move). Dialogs come from
`dialog_catalogue.DIALOGS`. Update with `pytest tests/tui/test_snapshots_80x24.py --snapshot-update` after
a deliberate change of layout."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from dialog_catalogue import DIALOGS
from snapshot_apps import make_app, sandbox, settle, settle_for_snapshot, until
from textual.pilot import Pilot

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.areas import AreaRequest

pytestmark = pytest.mark.slow
SIZE = (80, 24)
GATEWAY = "acme/platform/api-gateway"
Setup = Callable[[Pilot[Any], Any], Awaitable[None]]


def app_and_store() -> tuple[Any, Any]:
    asgi, factory = sandbox(ManualClock())
    return make_app(transport_factory=factory), asgi.state.store


async def _settled(pilot: Pilot[Any]) -> None:
    await settle_for_snapshot(pilot, rounds=3)


async def _push(pilot: Pilot[Any], screen: Any) -> None:
    await settle(pilot)
    await pilot.app.push_screen(screen)
    await _settled(pilot)


async def _project(pilot: Pilot[Any]) -> Any:
    from labdeck.api.models.projects import Project

    data = await pilot.app.session.client.get_json("/projects/acme%2Fplatform%2Fapi-gateway")
    return Project.model_validate(data)


def _now(store: Any) -> Callable[[], datetime]:
    return lambda: datetime.fromtimestamp(store.clock.time(), UTC)


async def home(pilot: Pilot[Any], store: Any) -> None:
    await _settled(pilot)


async def groups(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.groups.groups import GroupsScreen

    await _push(pilot, GroupsScreen(AreaRequest(scope="acme/platform"), today=lambda: _now(store)().date()))


async def issues(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.issues.issues import IssuesScreen

    await _push(pilot, IssuesScreen(AreaRequest(scope="group:acme")))
    await pilot.pause(0.3)
    await _settled(pilot)


async def registry(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.registry.registry import RegistryScreen

    await _push(pilot, RegistryScreen(AreaRequest(scope=GATEWAY), now=_now(store)))


async def registry_tags(pilot: Pilot[Any], store: Any) -> None:
    await registry(pilot, store)
    await pilot.press("enter")
    await _settled(pilot)


async def registry_cleanup(pilot: Pilot[Any], store: Any) -> None:
    await registry_tags(pilot, store)
    await pilot.press("c")
    await _settled(pilot)
    screen = pilot.app.screen
    screen.query_one("#cleanup-delete").value = "main-.*"
    screen.query_one("#cleanup-keep-n").value = "5"
    # both rules are in their fields before any preview is drawn: the table is built from the final rules
    # only (a busy machine could otherwise draw the first rule's table between the two, and its cursor and
    # scroll would differ), and its delayed rebuild is awaited, not slept through
    screen.recompute()
    screen.flush_table()
    await until(pilot, lambda: screen._table_timer is None, "the preview table")
    await _settled(pilot)


async def deployments(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.deployments.deployments import DeploymentsScreen

    await _push(pilot, DeploymentsScreen(AreaRequest(scope=GATEWAY), today=lambda: _now(store)().date()))


async def protected_environments(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen

    await _push(pilot, ProtectedEnvironmentsScreen(GATEWAY))


async def users(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.users.users import UsersScreen

    await _push(pilot, UsersScreen(today=lambda: _now(store)().date()))


async def instance_variables(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.admin.instance_variables import InstanceVariablesScreen

    await _push(pilot, InstanceVariablesScreen())


async def pages_domains(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.admin.pages_domains import PagesAdminScreen

    await _push(pilot, PagesAdminScreen(now=_now(store)))


async def projects(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.projects.projects import ProjectsScreen

    await _push(pilot, ProjectsScreen())


async def project_view(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.projects.view import ProjectViewScreen

    await settle(pilot)
    await _push(pilot, ProjectViewScreen(await _project(pilot), tab="tags", now=_now(store)))


def project_tab(tab: str) -> Setup:
    """The project view on `tab` (the Issues, Registry and Deployments tabs of issue 24)."""
    async def setup(pilot: Pilot[Any], store: Any) -> None:
        from labdeck.tui.screens.projects.view import ProjectViewScreen

        await settle(pilot)
        await _push(pilot, ProjectViewScreen(await _project(pilot), tab=tab, now=_now(store)))
        if tab == "containers":  # the sizes of the rows shown are read (the rate count says how many)
            from labdeck.tui.screens.projects.containers import ContainerRegistryTab

            pane = pilot.app.screen.query_one(ContainerRegistryTab)
            sizes = pane.sizes
            await until(pilot, lambda: len(sizes.found) == pane.table.model.row_count and not sizes.reading,
                        "every size read")
            await _settled(pilot)
    return setup


async def wiki_editor(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.projects.wiki import WikiEditorScreen

    await settle(pilot)
    await _push(pilot, WikiEditorScreen(await _project(pilot), "home"))


async def jobs(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.shell.jobs import JobsScreen

    await _push(pilot, JobsScreen())


SCREENS: dict[str, Setup] = {
    "home": home, "groups": groups, "issues": issues, "registry": registry, "registry_tags": registry_tags,
    "registry_cleanup": registry_cleanup, "deployments": deployments,
    "protected_environments": protected_environments, "users": users,
    "instance_variables": instance_variables, "pages_domains": pages_domains, "projects": projects,
    "project_view": project_view, "wiki_editor": wiki_editor, "jobs": jobs,
    **{f"project_{tab}": project_tab(tab) for tab in ("issues", "containers", "deployments")},
}


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_at_80x24(name: str, snap_compare: Any) -> None:
    app, store = app_and_store()

    async def run_before(pilot: Pilot[Any]) -> None:
        await SCREENS[name](pilot, store)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("name", sorted(DIALOGS))
def test_dialog_at_80x24(name: str, snap_compare: Any, tmp_path: Path) -> None:
    app, _store = app_and_store()

    async def run_before(pilot: Pilot[Any]) -> None:
        await _settled(pilot)
        await pilot.app.push_screen(DIALOGS[name]())
        await _settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
