"""Pilot tests of `:deployments` against the tiny sandbox: the project prompt, the timeline, filtering and
sorting on the server, the status dialog (only valid statuses), a new deployment record, and protected
environment rules (one added, one refused by the server, one refused by the form, one removed)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from areas_fixtures import open_screen, pick
from snapshot_apps import jump_to, make_app, messages, settle
from textual.widgets import Button, Checkbox, Input, OptionList, RadioButton, Select, Sparkline, Static
from tiny_sandbox import GATEWAY
from tiny_sandbox import Sandbox as TinySandbox

from labdeck.domain.deployments import FINISHED
from labdeck.sandbox.seed.deployments import (
    Deployment,
    add_deployment,
    add_environment,
    deployments_data,
)
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
from labdeck.tui.screens.deployments.dialogs import (
    CreateDeploymentDialog,
    DeploymentDetailScreen,
    StatusDialog,
)
from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog, ProtectedEnvironmentsScreen

SIZE = (160, 50)


class Sandbox(TinySandbox):
    """A tiny sandbox on a stopped clock (`options`: `SandboxOptions` fields), with the deployments data of
    its gateway project at hand."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.project = self.store.project_by_path(GATEWAY)
        self.data = deployments_data(self.store)

    def today(self) -> date:
        return self.store.now().date()  # type: ignore[no-any-return]

    def gateway_deployments(self) -> list[Deployment]:
        return self.data.deployments_of(self.project.id)

    def api_deployment(self) -> Deployment:
        """A deployment record without a CI job (the API may change its status), newest of the project."""
        env = self.data.environment_named(self.project.id, "production")
        made = add_deployment(self.store, self.project, env, ref="v9.0.0", sha="f" * 40, tag=True,
                              status="created", user_id=2)
        self.store.touch()
        return made


async def open_deployments(pilot: Any, sandbox: Sandbox) -> DeploymentsScreen:
    """The deployments of acme/platform/api-gateway, on the sandbox's calendar."""
    return await open_screen(pilot, DeploymentsScreen(AreaRequest(scope=GATEWAY), today=sandbox.today))


async def test_jump_opens_the_prompt() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "deployments")
        assert isinstance(app.screen, DeploymentsScreen)
        assert app.screen.query_one("#deployments-scope", Input).has_focus


async def test_typed_project_loads_table_and_timeline() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = DeploymentsScreen(today=sandbox.today)
        await app.push_screen(screen)
        screen.query_one("#deployments-scope", Input).value = GATEWAY
        await pilot.press("enter")
        await settle(pilot)
        expected = sandbox.gateway_deployments()
        assert len(screen.table.rows) == len(expected)
        assert [s.environment for s in screen.summaries][:2] == ["production", "staging"]
        sparks = list(screen.query(Sparkline))
        assert len(sparks) == len(screen.summaries) and all(len(list(s.data or [])) == 90 for s in sparks)
        production = screen.summaries[0]
        env_id = sandbox.data.environment_named(sandbox.project.id, "production").id
        successes = [d for d in expected if d.environment_id == env_id and d.status == "success"]
        assert production.last_success == max(d.created_at for d in successes)
        start = sandbox.today() - timedelta(days=89)
        window = [d for d in expected if d.environment_id == env_id and d.created_at.date() >= start]
        finished = [d for d in window if d.status in FINISHED]
        assert production.success_rate == sum(d.status == "success" for d in window) / len(finished)
        assert production.total == len(window) == sum(production.per_day)
        summary = str(screen.query_one("#timeline-0 .timeline-summary", Static).render())
        assert f"{production.total} deploys" in summary and "ok" in summary
        await pilot.press("t")
        assert not screen.query_one("#deployments-timeline").display


async def test_filter_by_environment_status_and_sort() -> None:
    sandbox = Sandbox()
    add_environment(sandbox.store, sandbox.project, "dr-site")
    add_environment(sandbox.store, sandbox.project, "review/[/bold][@click=app.quit]x")
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(pilot, sandbox)
        everything = len(screen.table.rows)
        ids = [d.id for d in screen.table.rows]
        assert ids == sorted(ids, reverse=True)  # newest first by default: a new deployment is on top
        await pick(pilot, screen, "#deployments-environment", "production")
        rows = screen.table.rows
        assert 0 < len(rows) < everything and {d.environment_name for d in rows} == {"production"}
        await pick(pilot, screen, "#deployments-status", "failed")
        rows = screen.table.rows
        assert rows and {(d.environment_name, d.status) for d in rows} == {("production", "failed")}
        env_id = sandbox.data.environment_named(sandbox.project.id, "production").id
        assert len(rows) == sum(d.environment_id == env_id and d.status == "failed"
                                for d in sandbox.gateway_deployments())
        await pick(pilot, screen, "#deployments-sort", "id:asc")
        ids = [d.id for d in screen.table.rows]
        assert ids == sorted(ids)
        assert any("status=failed" in e.path or e.path.endswith("/deployments")
                   for e in app.request_log.entries)
        await pick(pilot, screen, "#deployments-environment", "dr-site")  # listed though never deployed
        assert screen.table.rows == []
        await pick(pilot, screen, "#deployments-environment", "review/[/bold][@click=app.quit]x")
        shown = str(screen.query_one("#deployments-environment SelectCurrent Static#label", Static).render())
        assert shown == "review/[/bold][@click=app.quit]x" and app.is_running
        screen.query_one("#deployments-environment", Select).clear()
        screen.query_one("#deployments-status", Select).clear()
        await settle(pilot)
        assert len(screen.table.rows) == everything


async def test_status_dialog_offers_only_valid_statuses() -> None:
    sandbox = Sandbox()
    record = sandbox.api_deployment()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(pilot, sandbox)
        await pick(pilot, screen, "#deployments-sort", "id:desc")
        assert screen.table.cursor_row.id == record.id
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, StatusDialog)
        options = dialog.query_one("#status-options", OptionList)
        offered = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert offered == ["running", "success", "failed", "canceled"]
        await pilot.press("enter")  # the first: running
        await settle(pilot)
        assert record.status == "running"
        assert screen.table.cursor_row.status == "running"
        await pilot.press("c")
        await pilot.pause()
        options = app.screen.query_one("#status-options", OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [
            "success", "failed", "canceled"]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and record.status == "running"
        screen.table.move_cursor(len(screen.table.rows) - 1)  # a CI-run deployment
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is screen
        assert any("run by a CI job" in m for m in messages(app))


async def test_new_deployment_record_and_detail() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(pilot, sandbox)
        before = len(sandbox.gateway_deployments())
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CreateDeploymentDialog)
        dialog.query_one("#new-environment", Input).value = "canary"
        dialog.query_one("#new-create", Button).press()
        await pilot.pause()
        assert "ref, sha required" in str(dialog.query_one("#new-error", Static).render())
        # GitLab requires a status: the dialog offers only the four it accepts, running first
        assert dialog.query_one("#new-status", Select).value == "running"
        dialog.query_one("#new-ref", Input).value = "v3.0.0"
        dialog.query_one("#new-sha", Input).value = "zzz-not-a-sha"
        dialog.query_one("#new-create", Button).press()
        await pilot.pause()
        assert "hexadecimal" in str(dialog.query_one("#new-error", Static).render())  # refused in the form
        assert app.screen is dialog and len(sandbox.gateway_deployments()) == before  # nothing sent
        dialog.query_one("#new-sha", Input).value = "e" * 40
        dialog.query_one("#new-tag", Checkbox).value = True
        dialog.query_one("#new-status", Select).value = "success"
        dialog.query_one("#new-create", Button).press()
        await settle(pilot)
        made = sandbox.gateway_deployments()
        assert len(made) == before + 1
        newest = max(made, key=lambda d: d.id)
        assert (newest.ref, newest.tag, newest.status) == ("v3.0.0", True, "success")
        assert any(s.environment == "canary" for s in screen.summaries)
        shipped = next(d for d in sandbox.gateway_deployments() if len(d.merge_request_ids) >= 2)
        index = next(i for i, row in enumerate(screen.table.rows) if row.id == shipped.id)
        screen.table.move_cursor(index)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DeploymentDetailScreen)
        body = str(app.screen.query_one("#detail-body", Static).render())
        assert "deploy:" in body and shipped.sha[:8] in body
        mrs = str(app.screen.query_one("#detail-mrs", Static).render())
        assert f"{len(shipped.merge_request_ids)} merge request(s) shipped" in mrs


async def open_protected(pilot: Any, sandbox: Sandbox) -> ProtectedEnvironmentsScreen:
    return await open_protected_from(pilot, await open_deployments(pilot, sandbox))


async def fill_rule(pilot: Any, environment: str, kind: str, *, level: int | None = None,
                    who: str | None = None) -> AddRuleDialog:
    await pilot.press("a")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, AddRuleDialog)
    dialog.query_one("#rule-environment", Input).value = environment
    dialog.query_one(f"#kind-{kind}", RadioButton).value = True
    await pilot.pause()
    if level is not None:
        dialog.query_one("#rule-level", Select).value = level
    if who is not None:
        dialog.query_one(f"#rule-{kind}", Input).value = who
    dialog.query_one("#rule-add", Button).press()
    await settle(pilot)
    return dialog


async def test_protected_environment_rules_added_and_refused() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, sandbox)
        assert [(r.environment, r.level.kind) for r in screen.table.rows] == [
            ("production", "role"), ("staging", "role"), ("staging", "user")]
        pid = sandbox.project.id
        await fill_rule(pilot, "canary", "role", level=60)
        assert [r.access_level for r in sandbox.data.protected[(pid, "canary")].rules] == [60]
        assert ("canary", "role") in [(r.environment, r.level.kind) for r in screen.table.rows]
        await fill_rule(pilot, "qa", "user", who="pending.user")  # not a member of the project
        assert (pid, "qa") not in sandbox.data.protected
        assert any("must have access to the project" in m for m in messages(app))
        dialog = await fill_rule(pilot, "qa", "group", who="")  # the form refuses: no group named
        assert app.screen is dialog
        assert "exactly one" in str(dialog.query_one("#rule-error", Static).render())
        assert dialog.query_one("#rule-user").display is False
        await pilot.press("escape")
        await pilot.pause()
        await fill_rule(pilot, "staging", "group", who="opensource")
        kinds = [r.kind for r in sandbox.data.protected[(pid, "staging")].rules]
        assert kinds == ["access_level", "user", "group"]


async def test_remove_rule_asks_first() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, sandbox)
        screen.table.move_cursor(2)  # staging: carol
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert f"staging of {screen.project}?" in app.screen.message.plain  # by path (issue 34)
        await pilot.press("escape")
        await pilot.pause()
        pid = sandbox.project.id
        assert len(sandbox.data.protected[(pid, "staging")].rules) == 2
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#confirm", Button).press()
        await settle(pilot)
        assert [r.kind for r in sandbox.data.protected[(pid, "staging")].rules] == ["access_level"]
        assert len(screen.table.rows) == 2


async def open_protected_from(pilot: Any, screen: DeploymentsScreen) -> ProtectedEnvironmentsScreen:
    await pilot.press("p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ProtectedEnvironmentsScreen)
    return pilot.app.screen  # type: ignore[no-any-return]


async def test_escape_in_a_filter_returns_to_the_table_not_out_of_the_area() -> None:
    """Issue 24: escape in the status filter left Deployments instead of returning to its table."""
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_deployments(pilot, sandbox)
        screen.query_one("#deployments-status", Select).focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and app.focused is screen.table
