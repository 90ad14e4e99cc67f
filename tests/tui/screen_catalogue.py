"""Every screen of labdeck, opened over the home view against the tiny sandbox on a clock that stands still,
for the layout tests (`test_screen_layout.py`, `test_layout_80x24.py`) and the snapshots
(`test_snapshots_80x24.py`): `SCREENS`, name -> a setup that opens the screen, and `app_and_store`, the app
and its sandbox's store the setups take."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from snapshot_apps import make_app, sandbox, settle, settle_for_snapshot, until
from textual.pilot import Pilot

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.areas import AreaRequest

GATEWAY = "acme/platform/api-gateway"
Setup = Callable[[Pilot[Any], Any], Awaitable[None]]


def app_and_store() -> tuple[Any, Any]:
    asgi, factory = sandbox(ManualClock())
    return make_app(transport_factory=factory), asgi.state.store


async def settled(pilot: Pilot[Any]) -> None:
    await settle_for_snapshot(pilot, rounds=3)


async def _push(pilot: Pilot[Any], screen: Any) -> None:
    await settle(pilot)
    await pilot.app.push_screen(screen)
    await settled(pilot)


async def _project(pilot: Pilot[Any]) -> Any:
    from labdeck.api.models.projects import Project

    data = await pilot.app.session.client.get_json("/projects/acme%2Fplatform%2Fapi-gateway")
    return Project.model_validate(data)


def _now(store: Any) -> Callable[[], datetime]:
    return lambda: datetime.fromtimestamp(store.clock.time(), UTC)


async def home(pilot: Pilot[Any], store: Any) -> None:
    await settled(pilot)


async def groups(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.groups.groups import GroupsScreen

    await _push(pilot, GroupsScreen(AreaRequest(scope="acme/platform"), today=lambda: _now(store)().date()))


async def issues(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.issues.issues import IssuesScreen

    await _push(pilot, IssuesScreen(AreaRequest(scope="group:acme")))
    await pilot.pause(0.3)
    await settled(pilot)


async def registry(pilot: Pilot[Any], store: Any) -> None:
    from labdeck.tui.screens.registry.registry import RegistryScreen

    await _push(pilot, RegistryScreen(AreaRequest(scope=GATEWAY), now=_now(store)))


async def registry_tags(pilot: Pilot[Any], store: Any) -> None:
    await registry(pilot, store)
    await pilot.press("enter")
    await settled(pilot)


async def registry_cleanup(pilot: Pilot[Any], store: Any) -> None:
    await registry_tags(pilot, store)
    await pilot.press("c")
    await settled(pilot)
    screen = pilot.app.screen
    screen.query_one("#cleanup-delete").value = "main-.*"
    screen.query_one("#cleanup-keep-n").value = "5"
    # both rules are in their fields before any preview is drawn: the table is built from the final rules
    # only (a busy machine could otherwise draw the first rule's table between the two, and its cursor and
    # scroll would differ), and its delayed rebuild is awaited, not slept through
    screen.recompute()
    screen.flush_table()
    await until(pilot, lambda: screen._table_timer is None, "the preview table")
    await settled(pilot)


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
