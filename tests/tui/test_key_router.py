"""The key router (issue 33, `tui/type_ahead.KeyRouter`): keys typed in one burst each reach what the key
before them opened, in order, once it is ready, and nothing typed after a key that opens a field, a form
or a dialog reaches the screen beneath. Keys are sent as a terminal sends a burst (`burst`: every key into
the driver's queue at once, none waiting for the app), and once with `pilot.press`. Each case is one the
issue found by hand in tmux on a fast terminal or a 400 ms instance; each failed before the router.
"""

from __future__ import annotations

from typing import Any

import pytest
from areas_fixtures import cells, open_groups, show_tab
from snapshot_apps import burst, jump_to, make_app, messages, sandbox, settle, until
from test_footer_panes import footer
from test_registry_policy_panel import gateway_policy, open_panel
from test_registry_screen import Sandbox as RegistrySandbox
from test_registry_screen import type_into
from textual.widgets import Input

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.groups.tree import GroupTree
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.widgets.resource_view import ResourceView

SIZE = (120, 36)


async def open_projects(pilot: Any) -> ProjectsScreen:
    """`:projects` with its list loaded and focused."""
    await settle(pilot)
    await jump_to(pilot, "projects")
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ProjectsScreen) and app.screen.table.model.row_count > 0
                and app.screen.focused is app.screen.table, "the projects listed")
    screen: ProjectsScreen = app.screen
    return screen


def no_dialog(app: Any) -> bool:
    return not any(isinstance(screen, ConfirmScreen) for screen in app.screen_stack)


@pytest.mark.parametrize("typing", ["burst", "press"])
async def test_a_filter_typed_in_one_burst_filters_and_never_archives(typing: str) -> None:
    """`/api-gateway` on `:projects`: the `a` once reached the table (archive) before the filter had the
    focus, and opened "Archive project"; the next key could have confirmed it."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_projects(pilot)
        if typing == "burst":
            burst(app, *"/api-gateway")
        else:
            await pilot.press(*"/api-gateway")
        await settle(pilot)
        assert no_dialog(app) and app.screen is screen
        view = screen.query_one("#projects-view", ResourceView)
        assert view.filter_input.value == "api-gateway"
        assert screen.focused is view.filter_input
        assert [p.path_with_namespace for p in screen.table.visible_rows] == ["acme/platform/api-gateway"]


async def test_a_query_typed_after_a_jump_keeps_every_letter() -> None:
    """From an empty `:issues` (`assignee:nosuchuser`), home, then `:issues` enter `flabel:bug` enter in one
    burst: the query read `bel:bug` ("unknown filter 'bel'"): the `f` had not moved the focus yet."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "issues")
        query = app.screen.query_one("#issues-query", Input)
        query.value = "assignee:nosuchuser"
        await query.action_submit()
        await settle(pilot)
        assert not app.screen.table.rows
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        burst(app, ":", *"issues", "enter", *"flabel:bug", "enter")
        await settle(pilot)
        assert isinstance(app.screen, IssuesScreen)
        assert query.value == "label:bug"
        assert any("labels=bug" in entry.path for entry in app.request_log.entries)
        assert not [m for m in messages(app) if "unknown filter" in m]


async def test_f_and_text_typed_at_once_replace_the_query() -> None:
    """`f` selects the query's text (typing replaces it, as an operator expects of a field opened with its
    text selected); `XYZ` typed with it in one burst is then exactly the query: it once left `Z`, or the
    old text, as the field selected its text while the letters arrived."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "issues")
        query = app.screen.query_one("#issues-query", Input)
        query.value = "state:opened"
        await query.action_submit()
        await settle(pilot)
        burst(app, *"fXYZ")
        await settle(pilot)
        assert query.value == "XYZ"
        assert app.screen.focused is query


async def test_keys_typed_after_a_confirmed_save_leave_the_field() -> None:
    """The cleanup policy panel: ctrl+s from the Remove field, Confirm, then `:issues` enter, in one burst.
    The focus stayed in the field and the regex became `pr-.*:issues`; now the save leaves the field for
    the preview's tags and the jump opens `:issues`."""
    sandbox_ = RegistrySandbox()
    app = make_app(transport_factory=sandbox_.factory)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_panel(pilot, sandbox_)
        await type_into(pilot, "#policy-regex", "pr-.*")
        await settle(pilot)
        burst(app, "ctrl+s", "tab", "enter", ":", *"issues", "enter")
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, IssuesScreen), app.screen
        assert panel.query_one("#policy-regex", Input).value == "pr-.*"
        assert panel.focused is panel.table
        assert gateway_policy(sandbox_).name_regex == "pr-.*"  # the save itself went through


async def test_the_storage_view_opens_on_its_list() -> None:
    """`t` on `:registry`: the storage view opened with the focus on its hidden filter field (the footer
    showed that field's keys; down did nothing)."""
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.registry.registry import RegistryScreen
    from labdeck.tui.screens.registry.storage import RegistryStorageScreen

    sandbox_ = RegistrySandbox()
    app = make_app(transport_factory=sandbox_.factory)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        repos = RegistryScreen(AreaRequest(scope="acme"), now=sandbox_.now)
        await app.push_screen(repos)
        await settle(pilot)
        repos.table.focus()
        burst(app, "t", "down")
        await settle(pilot, rounds=3)
        storage = app.screen
        assert isinstance(storage, RegistryStorageScreen)
        assert storage.focused is storage.table
        assert (await footer(pilot))[0] == "select"
        assert len(storage.table.rows) > 1


async def test_a_member_added_from_the_tree_leaves_the_focus_on_the_members_list() -> None:
    """`:groups`, the Members tab shown, the tree focused: `a`, the username, ctrl+s and `d` in one burst.
    After the member is added the focus went back to the tree; now it is on the members list, and the
    `d` typed while the form was saving reaches that list (its detail opens)."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "opensource")
        await show_tab(pilot, screen, "members")
        screen.tree.focus()
        await settle(pilot)
        burst(app, "a", *"dave", "ctrl+s", "d")
        await settle(pilot, rounds=2)
        table = screen.table("members")
        assert app.screen is screen and "dave" in cells(screen, "members")
        assert screen.focused is table and not isinstance(screen.focused, GroupTree)
        assert table.parent is not None
        view = next(node for node in table.ancestors if isinstance(node, ResourceView))
        assert view.detail_shown


async def test_on_a_slow_instance_keys_wait_for_what_they_open() -> None:
    """400 ms a request: `:projects` enter `/api-gateway` in one burst, while nothing is listed yet; then a
    member added from the tree with the keys typed after ctrl+s waiting for the write (they reach the list
    once the form has closed, not the form)."""
    _asgi, factory = sandbox(ManualClock(), latency_ms=400)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, ":", *"projects", "enter", *"/api-gateway")
        await settle(pilot, rounds=2)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen) and no_dialog(app)
        assert screen.query_one("#projects-view", ResourceView).filter_input.value == "api-gateway"
        await until(pilot, lambda: [p.path_with_namespace for p in screen.table.visible_rows]
                    == ["acme/platform/api-gateway"], "the filtered list", within=30)

        groups = await open_groups(pilot, "opensource")
        await show_tab(pilot, groups, "members")
        groups.tree.focus()
        await settle(pilot)
        burst(app, "a", *"dave", "ctrl+s", "d")
        await settle(pilot, rounds=3)
        assert app.screen is groups and "dave" in cells(groups, "members")
        assert groups.focused is groups.table("members")
        view = next(node for node in groups.table("members").ancestors if isinstance(node, ResourceView))
        assert view.detail_shown


async def test_keys_typed_after_a_confirmed_cleanup_leave_the_rule_field() -> None:
    """The registry cleanup panel, the same gesture as the policy's: ctrl+s from a rule field, the name
    typed, enter; the keys typed next (`d`) reach the preview, not the rule field."""
    from test_registry_screen import GATEWAY, open_tags

    from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
    from labdeck.tui.widgets.resource_table import ResourceTable

    sandbox_ = RegistrySandbox()
    app = make_app(transport_factory=sandbox_.factory)
    async with app.run_test(size=(150, 50)) as pilot:
        await open_tags(pilot, sandbox_)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, RegistryCleanupScreen), "the cleanup panel")
        panel = app.screen
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await settle(pilot)
        field = panel.query_one("#cleanup-delete", Input)
        burst(app, "ctrl+s", *f"{GATEWAY}/known", "enter", "d")
        await settle(pilot, rounds=2)
        assert field.value == "pr-.*"
        assert isinstance(panel.focused, ResourceTable)


async def test_a_question_a_write_asks_takes_the_keys_at_once() -> None:
    """GitLab before 15.4: the rule form's write asks "change rules in two steps?" over the form. The keys
    typed to answer went nowhere until the router gave up on the write (10 s): a write keeps the keys only
    while its own form is on top. The router's clock stands still here, so only that rule lets them in."""
    from test_protected_rules_by_version import Sandbox as ProtectedSandbox
    from test_protected_rules_by_version import open_protected, submit_rule

    from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog

    sandbox_ = ProtectedSandbox("15.0")
    app = make_app(transport_factory=sandbox_.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_protected(pilot, sandbox_)
        app.context.keys._clock = lambda: 0.0  # never gives up
        await submit_rule(pilot, "staging", 60)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the two-step question")
        burst(app, "escape")
        await until(pilot, lambda: not isinstance(app.screen, (ConfirmScreen, AddRuleDialog)), "answered")
        assert any("left as they were" in m for m in messages(app))
        assert sandbox_.changes() == []
