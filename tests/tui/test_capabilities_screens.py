"""Pilot tests on a Community Edition sandbox, an old-version sandbox and with a CI job token: the status bar
names the edition and version, what the instance cannot do says why where its data would be, and nothing
that cannot work is offered (home, `:`, palette, keys). No request is answered 4xx along the way."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr
from snapshot_apps import SANDBOX_URL, jump_to, make_app, messages, sandbox, settle
from textual.widgets import OptionList, Static, TabbedContent

from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.app import LabdeckApp
from labdeck.tui.areas import AreaRequest
from labdeck.tui.commands import JumpCommands, ScreenActionCommands
from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.screens.shell.overview import OverviewPanel
from labdeck.tui.widgets.status_bar import render_status

SIZE = (120, 40)
GATEWAY = "acme/platform/api-gateway"


def app_on(settings: ConnectionSettings | None = None, **options: Any) -> LabdeckApp:
    return make_app(settings=settings, transport_factory=sandbox(ManualClock(), **options)[1])


def job_settings() -> ConnectionSettings:
    return ConnectionSettings(url=SANDBOX_URL, token=SecretStr("glcbt-sandbox-job"), auth="job", name="ci")


def status_text(app: LabdeckApp) -> str:
    return render_status(app.status_info(app.screen)).plain


def refused_requests(app: LabdeckApp) -> list[str]:
    return [f"{e.method} {e.path} {e.status}" for e in app.request_log.entries
            if e.status is None or e.status >= 400]


def actions(screen: Any) -> set[str]:
    return {b.binding.action for b in screen.active_bindings.values() if b.enabled}


async def open_group_tab(pilot: Any, tab: str) -> GroupsScreen:
    screen = GroupsScreen(AreaRequest(scope="acme"))
    await pilot.app.push_screen(screen)
    await settle(pilot, 2)
    screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{tab}"
    await settle(pilot, 2)
    return screen


async def test_ce_status_bar_and_premium_tab_and_actions() -> None:
    app = app_on(edition="ce", gitlab_version="16.11")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "GitLab 16.11.0 CE" in status_text(app)
        groups = await open_group_tab(pilot, "iterations")
        assert groups.group is not None and groups.group.full_path == "acme"
        table = groups.table("iterations")
        assert table.empty_text == "Iterations: needs GitLab Premium"
        assert not table.rows
        assert {"toggle_billable", "toggle_override"}.isdisjoint(actions(groups))
        await pilot.press("B")  # the key does nothing: no billable members request
        await settle(pilot)
        groups = await open_group_tab(pilot, "members")  # nor in the members pane, where its list has focus
        groups.table("members").focus()
        await settle(pilot)
        assert {"toggle_billable", "toggle_override"}.isdisjoint(actions(groups))
        await pilot.press("B")
        await settle(pilot)
        assert not any("iterations" in e.path or "billable" in e.path for e in app.request_log.entries)
        await pilot.app.push_screen(IssuesScreen())
        await settle(pilot)
        assert "promote" not in actions(app.screen)
        assert "Promote" not in {title for title, _, _ in ScreenActionCommands(app.screen).entries()}
        deployments = DeploymentsScreen(AreaRequest(scope=GATEWAY))
        await pilot.app.push_screen(deployments)
        await settle(pilot)
        assert "protected" not in actions(deployments)
        assert refused_requests(app) == []
        assert not [m for m in messages(app) if "404" in m or "403" in m]


async def test_ce_group_variable_form_has_no_environment_scope() -> None:
    from labdeck.tui.kit.forms import FormScreen

    app = app_on(edition="ce", gitlab_version="16.11")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        groups = await open_group_tab(pilot, "variables")
        groups.table("variables").focus()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        assert "environment_scope" not in {field.key for field in form.fields}


async def test_ee_keeps_the_premium_tab_and_actions() -> None:
    app = app_on(edition="ee", gitlab_version="16.11")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "GitLab 16.11.0 EE" in status_text(app)
        groups = await open_group_tab(pilot, "iterations")
        assert groups.table("iterations").rows
        groups = await open_group_tab(pilot, "members")  # the footer offers the keys of the tab in front
        groups.table("members").focus()  # (the members pane's, where its list has focus)
        await settle(pilot)
        assert "toggle_billable" in actions(groups)


async def test_old_version_names_the_version_a_tab_needs() -> None:
    app = app_on(edition="ee", gitlab_version="13.4")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "GitLab 13.4.0 EE" in status_text(app)
        groups = await open_group_tab(pilot, "transfer")
        assert groups.table("transfer").empty_text == (
            "Relations export: needs GitLab 13.12")
        screen = app.screen
        screen.query_one("#groups-tabs", TabbedContent).active = "tab-iterations"
        await settle(pilot, 2)
        assert groups.table("iterations").empty_text == "Iterations: needs GitLab 13.5"
        # /metadata (15.2) does not exist there: the one 404 is the probe that falls back to /version
        assert refused_requests(app) == ["GET /metadata 404"]
        assert not [m for m in messages(app) if "404" in m]


async def test_job_token_home_shows_what_it_reaches() -> None:
    app = app_on(job_settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, 2)
        home = app.screen
        names = [str(home.query_one("#areas", OptionList).get_option_at_index(i).id)
                 for i in range(home.query_one("#areas", OptionList).option_count)]
        assert names == ["registry", "deployments", "tasks", "log"]
        reach = str(home.query_one("#home-reach", Static).render())
        assert "CI job token" in reach and GATEWAY in reach and "alice" in reach
        assert "job token" in status_text(app) and "alice" in status_text(app)
        jump_titles = {title for title, _, _ in JumpCommands(home).entries()}
        assert jump_titles == {"Go to Registry", "Go to Deployments", "Go to Tasks", "Go to Request log"}
        await jump_to(pilot, "groups")
        await settle(pilot)
        assert app.screen is home
        assert "Groups: not reachable with a CI job token" in messages(app)
        assert refused_requests(app) == []


async def test_job_token_home_and_admin_areas_say_what_the_token_cannot_reach() -> None:
    """With a job token the home has no empty "Needs attention" box, and an administrators' area says it is
    not reachable with a CI job token (as the README says), not "for administrators only"."""
    app = app_on(job_settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, 2)
        home = app.screen
        assert not home.query_one(OverviewPanel).display
        await jump_to(pilot, "users")
        await settle(pilot)
        assert app.screen is home
        said = [m for m in messages(app) if "Users" in m]
        assert said == ["Users: not reachable with a CI job token"], said
        assert refused_requests(app) == []


async def test_job_token_opens_its_own_project_registry_and_deployments() -> None:
    app = app_on(job_settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, 2)
        app.open_area("registry")
        await settle(pilot, 2)
        registry = app.screen
        assert isinstance(registry, RegistryScreen) and registry.scope == GATEWAY
        assert registry.table.rows
        app.open_area("deployments")
        await settle(pilot, 2)
        deployments = app.screen
        assert isinstance(deployments, DeploymentsScreen) and deployments.scope == GATEWAY
        assert "protected" not in actions(deployments)
        assert refused_requests(app) == []
        assert not [m for m in messages(app) if "401" in m or "Unauthorized" in m]


def test_refusals_of_premium_features_are_explained() -> None:
    from types import SimpleNamespace

    from labdeck.api.errors import error_for
    from labdeck.domain.features import BILLABLE_MEMBERS, ITERATIONS, PROTECTED_ENVIRONMENTS, RELATIONS_EXPORT
    from labdeck.tui.capabilities import refused

    app = SimpleNamespace(session=None)
    bare = error_for(404, b'{"error":"404 Not Found"}', "GET", "/projects/1/protected_environments", {})
    assert refused(app, PROTECTED_ENVIRONMENTS, bare) == (
        "Protected environments: needs GitLab Premium (the instance refused: 404)")
    forbidden = error_for(403, b'{"message":"403 Forbidden"}', "GET", "/groups/1/billable_members", {})
    assert refused(app, BILLABLE_MEMBERS, forbidden) is not None
    no_project = error_for(404, b'{"message":"404 Project Not Found"}', "GET", "/projects/x/iterations", {})
    assert refused(app, ITERATIONS, no_project) is None
    assert refused(app, RELATIONS_EXPORT, forbidden) is None  # not a premium feature: its own message
