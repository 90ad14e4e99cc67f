"""The footer of every screen and pane (read from its `FooterKey` widgets): the keys of what has focus come
first, in the pane's declared order; keys that do nothing there are not shown; `? Help` is always there
(kept at the right edge), and `?` lists the keys the footer leaves out."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, settle
from test_deployments_screen import GATEWAY
from test_enter_opens import open_project_view, open_screen
from textual.widgets import Input, TabbedContent, Tabs
from textual.widgets._footer import FooterKey

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.admin.instance_variables import InstanceVariablesScreen
from labdeck.tui.screens.admin.pages_domains import PagesAdminScreen
from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.groups.tree import GroupTree
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
from labdeck.tui.screens.registry.registry import RegistryScreen, RegistryTagsScreen
from labdeck.tui.screens.shell.help import HelpScreen, help_rows
from labdeck.tui.screens.shell.jobs import JobsScreen
from labdeck.tui.screens.shell.journal import JournalScreen
from labdeck.tui.screens.shell.overview import OverviewScreen
from labdeck.tui.screens.shell.request_log import RequestLogScreen
from labdeck.tui.screens.users.users import UsersScreen
from labdeck.tui.widgets.footer import LabdeckFooter

SIZE = (120, 36)
# Keys that belong to one pane only: shown anywhere else, they would be a key that does nothing there.
PANE_ONLY = {"reveal", "subscribe", "toggle_inherited", "toggle_billable", "toggle_override",
             "export_relations", "import_group", "delete_tags", "apply", "undo", "cancel_job", "moderate",
             "copy_value", "new_tag", "add_member", "new_page", "new_domain", "unlink", "toggle_archive",
             "set_status", "delete_repository", "add_rule"}


async def footer(pilot: Any) -> list[str]:
    """The actions the footer shows, left to right (the help key last: it is kept at the right edge)."""
    await settle(pilot)
    await pilot.pause()
    bar = pilot.app.screen.query_one(LabdeckFooter)
    return [key.action for key in bar.query(FooterKey)]


async def check(pilot: Any, first: list[str], own: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The footer starts with `first`, ends with help, and shows no pane-only key but the pane's `own`."""
    shown = await footer(pilot)
    assert shown[:len(first)] == first, shown
    assert shown[-1] in ("help", "help_anywhere"), shown
    stray = (PANE_ONLY - own - set(first)) & set(shown)
    assert not stray, (stray, shown)
    return shown


async def test_home_overview_jobs_log_journal_and_admin_footers() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await check(pilot, ["select", "jump", "command_palette"])
        await open_screen(pilot, OverviewScreen())
        await check(pilot, ["select", "refresh", "back"])
        await open_screen(pilot, JobsScreen())
        await check(pilot, ["select", "cancel_job", "clear_finished"], {"cancel_job"})
        await open_screen(pilot, RequestLogScreen())
        shown = await check(pilot, ["select", "copy_reference", "open_filter"])
        assert "cancel_job" not in shown
        await open_screen(pilot, JournalScreen())
        await check(pilot, ["undo", "undo_job", "select"], {"undo"})
        await open_screen(pilot, InstanceVariablesScreen())
        await check(pilot, ["select", "edit_variable", "add_variable", "delete_variable", "reveal",
                            "copy_value"])
        await open_screen(pilot, PagesAdminScreen())
        await check(pilot, ["select", "open_filter", "toggle_detail"])
        await open_screen(pilot, ProjectsScreen())
        await check(pilot, ["select", "toggle_archive", "open_filter"])


async def test_groups_tree_and_each_tab_show_their_own_keys_first() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, GroupsScreen(AreaRequest(scope="acme")))
        assert isinstance(screen, GroupsScreen)
        screen.query_one(GroupTree).focus()
        await check(pilot, ["select_cursor", "toggle_node", "next_tab", "previous_tab", "toggle_tree"])
        expected = {
            "projects": ["select", "next_tab", "previous_tab", "toggle_tree"],
            "members": ["select", "add_member", "edit_member", "remove_member", "toggle_inherited",
                        "toggle_billable", "toggle_override"],
            "labels": ["select", "add", "edit", "delete", "subscribe"],
            "badges": ["select", "add", "edit", "delete", "next_tab"],
            "variables": ["select", "edit_variable", "add_variable", "delete_variable", "reveal"],
            "transfer": ["export_to", "export_relations", "import_group"],
        }
        for tab, first in expected.items():
            screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{tab}"
            await settle(pilot, rounds=2)
            screen.table(tab).focus()
            shown = await check(pilot, first, {"copy_value"} if tab == "variables" else set())
            if tab != "members":
                assert "reveal" not in shown or tab == "variables", (tab, shown)


async def test_issues_list_its_fields_and_its_detail() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen())
        screen.table.focus()
        await check(pilot, ["select", "edit", "comment", "bulk", "toggle_mark", "focus_query"])
        await pilot.press("f")  # the query field: letters are typed, the footer offers what works there
        shown = await check(pilot, ["submit", "move_focus(1)", "back", "command_palette"])
        assert shown[-1] == "help_anywhere"  # f1: `?` is a letter in a field
        assert {"edit", "bulk", "quit", "jump", "refresh"}.isdisjoint(shown)
        await pilot.press("escape")  # back to the list; enter opens the issue's detail over it
        await settle(pilot)
        screen.table.move_cursor(0)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is not screen
        shown = [key.action for key in screen.query_one(LabdeckFooter).query(FooterKey)]
        assert shown == ["close"], shown  # the detail's key, none of the list's


async def test_project_view_tabs_show_their_own_keys() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_project_view(pilot)
        expected = {
            "wiki": ["select", "new_page", "delete_page", "next_tab"],
            "tags": ["select", "new_tag", "delete_tag", "search", "next_tab"],
            "pages": ["select", "new_domain", "certificate", "remove_certificate", "delete_domain"],
            "errors": ["toggle", "next_tab", "previous_tab"],
            "forks": ["fork", "link", "select"],  # unlink: only for a fork (hidden here)
            "members": ["select", "add_member", "edit_member", "remove_member", "toggle_inherited"],
            "variables": ["select", "edit_variable", "add_variable", "delete_variable", "reveal",
                          "copy_value"],
            "registry": ["open_policy", "edit_policy", "next_tab"],
        }
        for tab, first in expected.items():
            view.show_tab(tab)
            await settle(pilot, rounds=2)
            await check(pilot, first)
        view.query_one("#project-tabs Tabs", Tabs).focus()
        await check(pilot, ["next_tab", "previous_tab", "fork"])


async def test_registry_repositories_tags_and_cleanup_panel() -> None:
    from test_registry_screen import Sandbox

    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        repos = await open_screen(pilot, RegistryScreen(AreaRequest(scope=GATEWAY), now=sandbox.now))
        await check(pilot, ["select", "cleanup", "delete_repository", "scope"])
        repos.query_one("#registry-scope", Input).focus()
        shown = await check(pilot, ["submit"])
        assert "delete_repository" not in shown
        tags = await open_screen(pilot, RegistryTagsScreen(sandbox.model(), now=sandbox.now))
        await check(pilot, ["toggle_mark", "delete_tags", "cleanup", "select"])
        await pilot.press("c")
        await settle(pilot)
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen) and tags is not panel
        shown = await check(pilot, ["apply", "move_focus(1)", "back"])  # a rule field
        assert "select" not in shown
        panel.table.focus()
        await check(pilot, ["apply", "select", "open_filter"])


async def test_deployments_and_protected_environments() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, DeploymentsScreen(AreaRequest(scope=GATEWAY)))
        screen.table.focus()
        await check(pilot, ["select", "set_status", "new_deployment", "toggle_timeline", "protected"])
        await open_screen(pilot, ProtectedEnvironmentsScreen(GATEWAY))
        await check(pilot, ["add_rule", "remove_rule", "select"])


async def test_users_every_condition_tab_and_the_tab_bar() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, UsersScreen())
        tabs = screen.query_one("#users-conditions", Tabs)
        for _ in range(tabs.tab_count):
            screen.table.focus()
            await check(pilot, ["select", "moderate", "toggle_mark", "next_condition", "search"])
            await pilot.press("c")
            await settle(pilot)
        tabs.focus()
        await check(pilot, ["next_condition", "previous_condition", "search", "moderate"])


async def test_help_lists_what_the_footer_leaves_out() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen())
        screen.table.focus()
        shown = set(await footer(pilot))
        listed = {row.binding_id for row in help_rows(screen)}
        assert {"table.mark_all", "table.unmark_all", "table.sort_reverse"} <= listed  # not in the footer
        assert not {"mark_all", "unmark_all", "reverse_sort"} & shown
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_a_dialog_over_a_screen_puts_its_own_keys_in_the_footer() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen())
        screen.table.focus()
        assert (await footer(pilot))[0] == "select"
        await pilot.press("colon")  # the jump prompt: its keys, not the list's (which do nothing now)
        await settle(pilot)
        bar = screen.query_one(LabdeckFooter)
        shown = [key.action for key in bar.query(FooterKey)]
        assert shown == ["dialog_enter", "complete", "cancel"], shown  # what enter does first (issue 33)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        assert (await footer(pilot))[0] == "select"

