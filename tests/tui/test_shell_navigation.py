"""Pilot tests of moving between areas: a jump back to an open area finds it as it was (query, tab,
cursor), escape walks back a short history to home, a non-admin asking for an admin area is told why."""

from __future__ import annotations

from typing import Any

from snapshot_apps import jump_to, make_app, messages, sandbox, sandbox_settings, settle
from textual.widgets import Input, TabbedContent

from labdeck.tui.navigation import MAX_HISTORY
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.jobs import JobsScreen
from labdeck.tui.screens.shell.request_log import RequestLogScreen

SIZE = (150, 42)



async def test_a_jump_back_to_an_open_area_keeps_its_query_tab_and_cursor() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "issues")
        issues = app.screen
        assert isinstance(issues, IssuesScreen)
        issues.query_one("#issues-query", Input).value = "label:bug"
        await settle(pilot)
        await jump_to(pilot, "groups")
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, GroupsScreen)
        groups.query_one("#groups-tabs", TabbedContent).active = "tab-labels"
        await settle(pilot)
        table = groups.table("labels")
        assert len(table.visible_rows) > 1
        table.move_cursor(1)
        await jump_to(pilot, "issues")
        assert app.screen is issues
        assert issues.query_one("#issues-query", Input).value == "label:bug"
        await jump_to(pilot, "groups")
        assert app.screen is groups
        assert groups.active_tab == "labels" and groups.table("labels").cursor_index == 1


async def test_escape_goes_back_through_a_short_history_to_home() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "tasks")
        jobs = app.screen
        await jump_to(pilot, "log")
        log = app.screen
        await jump_to(pilot, "tasks")  # open already: no new screen, no second entry in the history
        assert app.screen is jobs
        await pilot.press("escape")
        assert app.screen is log
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("escape")  # home is the end
        assert isinstance(app.screen, HomeScreen)
        await jump_to(pilot, "log")
        assert app.screen is log  # left with escape, still open as it was


async def test_the_history_stays_short() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for name in ["tasks", "log", "projects", "tasks", "log", "projects", "tasks", "log"]:
            await jump_to(pilot, name)
        assert len(app.navigator.history) <= MAX_HISTORY
        for _ in range(MAX_HISTORY + 1):
            await pilot.press("escape")
            await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_saved_view_opens_issues_afresh_on_its_query() -> None:
    from labdeck.tui.areas import AreaRequest

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "issues")
        first = app.screen
        app.open_area("issues", AreaRequest(query="label:feature"))
        await settle(pilot)
        assert isinstance(app.screen, IssuesScreen) and app.screen is not first
        assert app.screen.query_one("#issues-query", Input).value == "label:feature"


async def test_switching_instance_closes_every_area() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "tasks")
        assert isinstance(app.screen, JobsScreen)
        app.pop_to_home()
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen) and not app.navigator.open_modes
        await jump_to(pilot, "log")
        assert isinstance(app.screen, RequestLogScreen)


async def test_a_non_admin_asking_for_users_is_told_it_is_for_administrators() -> None:
    app = make_app(settings=sandbox_settings(token="glpat-sandbox-alice"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.is_admin
        await jump_to(pilot, "users")
        assert any("for administrators" in text for text in messages(app))
        assert not any("No view called" in text for text in messages(app))


def footer_actions(screen: Any) -> set[str]:
    """The actions the footer shows for what has focus (enabled, shown)."""
    return {binding.action for _key, (_node, binding, enabled, _tip) in screen.active_bindings.items()
            if enabled and binding.show}


async def test_the_groups_footer_shows_the_keys_of_the_tab_in_front() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "groups")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GroupsScreen)
        tabs = screen.query_one("#groups-tabs", TabbedContent)
        tabs.active = "tab-members"
        await settle(pilot)
        screen.table("members").focus()  # the members pane's keys are offered where its list has focus
        await settle(pilot)
        shown = footer_actions(screen)
        assert {"toggle_inherited", "toggle_billable", "toggle_override", "next_tab"} <= shown
        assert "reveal" not in shown and "subscribe" not in shown
        tabs.active = "tab-variables"
        await settle(pilot)
        screen.table("variables").focus()
        await settle(pilot)
        shown = footer_actions(screen)
        assert "reveal" in shown and "toggle_inherited" not in shown
        screen.tree.focus()
        await pilot.press("i")  # off on this tab: nothing happens
        await settle(pilot)
        members = screen.pane("members")
        assert members is not None and members.inherited is False  # type: ignore[attr-defined]


async def test_the_jump_prompt_says_jobs_is_an_alias_and_it_opens_tasks() -> None:
    """Issue 24: labdeck's own work is `:tasks` now; the prompt says `:jobs` is an alias of it (when nothing
    or a beginning of `jobs` is typed), and `:jobs` opens the same screen as `:tasks`."""
    from textual.widgets import Static

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await pilot.pause()
        choices = app.screen.query_one("#jump-choices", Static)
        assert ":tasks" in str(choices.render()) and ":jobs is an alias of :tasks" in str(choices.render())
        await pilot.press("j", "o")
        await pilot.pause()
        assert str(choices.render()) == ":journal  :tasks  ·  :jobs is an alias of :tasks"
        await pilot.press("escape")
        await settle(pilot)
        await jump_to(pilot, "jobs")
        tasks = app.screen
        assert isinstance(tasks, JobsScreen) and tasks.TITLE == "Tasks"
        await jump_to(pilot, "tasks")
        assert app.screen is tasks
