"""Pilot tests of the project view's Issues, Registry and Deployments tabs against the tiny sandbox (issue 24:
an operator inside a project expects them, on that project): each lists the project's own items (never
another project's), one row action of each works, `r` reloads each, and an environment named `..` stays a
name (shown literally, sent as a parameter, never a path)."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, messages, settle, until
from test_completion_fields import type_and_wait
from textual.widgets import Input, Static
from tiny_sandbox import GATEWAY, Sandbox

from labdeck.api.issue_scopes import ProjectScope
from labdeck.api.models.issues import Issue
from labdeck.sandbox.seed.deployments import add_deployment, add_environment, deployments_data
from labdeck.tui.app import LabdeckApp
from labdeck.tui.jobs import JobState
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.deployments.dialogs import DeploymentDetailScreen
from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen
from labdeck.tui.screens.issues.dialogs import CommentScreen
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.containers import ContainerRegistryTab
from labdeck.tui.screens.projects.deployments import ProjectDeploymentsTab
from labdeck.tui.screens.projects.issues import ProjectIssuesTab
from labdeck.tui.screens.projects.view import ProjectViewScreen
from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
from labdeck.tui.screens.registry.registry import RegistryTagsScreen
from labdeck.tui.widgets.completion import CompletingInput
from labdeck.tui.widgets.detail_screen import DetailScreen
from labdeck.tui.widgets.text_editor import TextEditor

SIZE = (160, 50)
PORTAL = "acme/platform/web-portal"


async def open_tab(pilot: Any, sandbox: Sandbox, tab: str, path: str = GATEWAY) -> ProjectViewScreen:
    await settle(pilot)
    view = ProjectViewScreen(sandbox.project(path), tab=tab, now=sandbox.now)
    await pilot.app.push_screen(view)
    await settle(pilot, rounds=2)
    return view


def project_id(sandbox: Sandbox, path: str = GATEWAY) -> int:
    return sandbox.store.project_by_path(path).id  # type: ignore[no-any-return]


# -- Issues -------------------------------------------------------------------------------------------------

async def test_issues_tab_lists_the_projects_own_issues_and_takes_the_query_language(
        tiny_sandbox: Sandbox) -> None:
    issues = tiny_sandbox.store.areas["issues"].issues.values()
    for path in (GATEWAY, PORTAL):
        async with make_app(transport_factory=tiny_sandbox.factory).run_test(size=SIZE) as pilot:
            view = await open_tab(pilot, tiny_sandbox, "issues", path)
            tab = view.query_one(ProjectIssuesTab)
            assert view.focused is tab.table  # the tab's table has the focus
            own = {i.id for i in issues if i.project_id == project_id(tiny_sandbox, path)}
            assert own and {row.id for row in tab.table.rows} == own
            first = tab.table.rows[0]
            cells = [str(cell) for cell in tab.table.model.cells_of(first)[:2]]
            assert cells == [f"#{first.iid}", first.title]  # the project is not repeated on every row
            if path != GATEWAY:
                continue
            await pilot.press("ctrl+f")
            await pilot.press(*"state:closed")
            await pilot.press("enter")
            await settle(pilot)
            closed = {i.id for i in issues if i.project_id == 1 and i.state == "closed"}
            assert closed and {row.id for row in tab.table.rows} == closed
            tab.query_one("#project-issues-query", Input).value = "in:title x"
            tab.query_one("#project-issues-query", Input).focus()
            await pilot.press("enter")
            await settle(pilot)
            assert "project issue listing" in str(tab.query_one("#project-issues-error", Static).render())
            assert {row.id for row in tab.table.rows} == closed  # nothing sent, the rows stay


async def test_the_issues_tabs_filter_completes_and_checks_names_of_the_project(
        tiny_sandbox: Sandbox) -> None:
    """The filter of `:issues`, the same code: names completed from the project (its labels), and a name
    the project or instance lacks said under the filter instead of an empty list."""
    async with make_app(transport_factory=tiny_sandbox.factory).run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "issues")
        tab = view.query_one(ProjectIssuesTab)
        field = tab.query_one("#project-issues-query", Input)
        assert isinstance(field, CompletingInput)
        await pilot.press("ctrl+f")
        label = sorted(label.name for issue in tab.table.rows for label in issue.labels)[0]
        await type_and_wait(pilot, field, f"label:{label[:2]}", f"label:{label}")
        field.value = "assignee:nosuchuser label:nosuchlabel"
        await pilot.press("enter")
        await until(pilot, lambda: tab.has_class("-unknown-names"), "the unknown-name line")
        said = str(tab.query_one("#project-issues-error", Static).render())
        assert "no user called nosuchuser" in said and "no label called nosuchlabel" in said, said
        assert GATEWAY in said


async def test_enter_on_an_issue_opens_its_detail_with_its_notes(tiny_sandbox: Sandbox,
                                                                sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "issues")
        tab = view.query_one(ProjectIssuesTab)
        tab.table.move_cursor(next(i for i, row in enumerate(tab.table.rows) if row.iid == 1))
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        detail = sandbox_app.screen
        assert isinstance(detail, DetailScreen)
        text = "".join(segment.text for segment in sandbox_app.console.render(detail.body))
        assert "Gateway returns 502 under load" in text
        assert "the upstream pool is exhausted" in text  # its notes were read, as :issues reads them


async def test_c_comments_on_the_issue_with_the_editor_of_issues(tiny_sandbox: Sandbox,
                                                                sandbox_app: LabdeckApp) -> None:
    """The tab's row actions are those of :issues (the same `IssueActions`): `c` opens its comment editor,
    and a comment of two lines reaches the issue whole; the detail shows it."""
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "issues")
        tab = view.query_one(ProjectIssuesTab)
        tab.table.move_cursor(next(i for i, row in enumerate(tab.table.rows) if row.iid == 2))
        issue = tab.table.cursor_row
        await pilot.press("d")  # the detail beside the list: its notes are read
        await until(pilot, lambda: issue.id in tab.extras, "the issue's notes")
        await pilot.press("c")
        await pilot.pause()
        editor = sandbox_app.screen
        assert isinstance(editor, CommentScreen)
        editor.query_one(TextEditor).text = "Seen here too.\nSecond line."
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=2)
        assert sandbox_app.screen is view
        notes = tiny_sandbox.store.areas["issues"].notes.get(issue.id, [])
        assert [n.body for n in notes][-1] == "Seen here too.\nSecond line."
        assert "comment added" in messages(sandbox_app)
        await until(pilot, lambda: issue.id in tab.extras and "Seen here too.\nSecond line." in [
            n.body for n in tab.extras[issue.id].notes], "the detail showing the new comment")


async def test_issues_tab_closes_the_issue_under_the_cursor_and_opens_it_in_issues(
        tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "issues")
        tab = view.query_one(ProjectIssuesTab)
        target = next(i for i, row in enumerate(tab.table.rows) if row.state == "opened")
        tab.table.move_cursor(target)
        issue = tab.table.cursor_row
        assert isinstance(issue, Issue)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(sandbox_app.screen, ConfirmScreen)
        sandbox_app.screen.query_one("#confirm").press()
        await settle(pilot, rounds=2)
        await until(pilot, lambda: [j.state for j in sandbox_app.jobs.jobs] == [JobState.SUCCEEDED],
                    "the close job")
        assert tiny_sandbox.store.areas["issues"].issues[issue.id].state == "closed"
        await until(pilot, lambda: tab.table.cursor_row.state == "closed", "the row shown closed")
        await pilot.press("i")  # every action of :issues, on this issue of this project
        await settle(pilot, rounds=2)
        screen = sandbox_app.screen
        assert isinstance(screen, IssuesScreen)
        assert screen.group == ProjectScope(GATEWAY) and screen.query_text == f"iid:{issue.iid}"
        await until(pilot, lambda: [row.id for row in screen.table.rows] == [issue.id], ":issues on it")
        scope = screen.query_one("#issues-scope", Input)
        assert scope.value == f"project:{GATEWAY}"
        screen.query_one("#issues-query", Input).value = "state:all"
        scope.focus()
        await pilot.press("enter")  # the box read back: still this project, not a group called so
        await settle(pilot)
        own = {i.id for i in tiny_sandbox.store.areas["issues"].issues.values() if i.project_id == 1}
        await until(pilot, lambda: {row.id for row in screen.table.rows} == own, "the project's issues")


# -- Registry -----------------------------------------------------------------------------------------------

async def test_registry_tab_lists_the_projects_repositories_and_opens_their_tags(
        tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    repositories = tiny_sandbox.store.areas["registry"].repositories.values()
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "containers")
        tab = view.query_one(ContainerRegistryTab)
        own = {r.id for r in repositories if r.project_id == 1}
        assert len(own) == 3 and {row.id for row in tab.table.rows} == own
        repo = tab.table.cursor_row
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        tags = sandbox_app.screen
        assert isinstance(tags, RegistryTagsScreen) and tags.repository.id == repo.id
        await until(pilot, lambda: len(tags.table.rows) == len(
            tiny_sandbox.store.areas["registry"].repositories[repo.id].tags), "the repository's tags")
        await pilot.press("escape")
        await settle(pilot)
        assert sandbox_app.screen is view
        await pilot.press("c")  # the one cleanup panel, on this repository's tags
        await settle(pilot, rounds=3)
        await until(pilot, lambda: isinstance(sandbox_app.screen, RegistryCleanupScreen), "the cleanup panel")


async def test_registry_tab_shows_another_projects_repositories_only_there(
        tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "containers", PORTAL)
        rows = view.query_one(ContainerRegistryTab).table.rows
        assert rows and {row.project_id for row in rows} == {project_id(tiny_sandbox, PORTAL)}


# -- Deployments --------------------------------------------------------------------------------------------

async def test_deployments_tab_lists_the_projects_environments_and_deployments(
        tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    data = deployments_data(tiny_sandbox.store)
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "deployments")
        tab = view.query_one(ProjectDeploymentsTab)
        own_envs = {e.name for e in data.environments.values() if e.project_id == 1}
        assert {e.name for e in tab.environments_table.rows} == own_envs
        own = {d.id for d in data.deployments.values() if d.project_id == 1}
        assert {d.id for d in tab.deployments_table.rows} == own
        production = next(i for i, e in enumerate(tab.environments_table.rows) if e.name == "production")
        tab.environments_table.move_cursor(production)
        await pilot.press("enter")  # only production's deployments
        await settle(pilot)
        shown = tab.deployments_table.rows
        assert shown and {d.environment_name for d in shown} == {"production"}
        tab.deployments_table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(sandbox_app.screen, DeploymentDetailScreen)


async def test_an_environment_named_dot_dot_stays_a_name(tiny_sandbox: Sandbox,
                                                          sandbox_app: LabdeckApp) -> None:
    store = tiny_sandbox.store
    project = store.project_by_path(GATEWAY)
    env = add_environment(store, project, "..")
    made = add_deployment(store, project, env, ref="main", sha="a" * 40, tag=False, status="success",
                          user_id=1)
    store.touch()
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "deployments")
        tab = view.query_one(ProjectDeploymentsTab)
        row = next(i for i, e in enumerate(tab.environments_table.rows) if e.name == "..")
        tab.environments_table.move_cursor(row)
        await pilot.press("enter")
        await settle(pilot)
        assert [d.id for d in tab.deployments_table.rows] == [made.id]
        title = str(tab.query_one("#project-deployments-title", Static).render())
        assert "Deployments of .." in title
        await pilot.press("p")
        await settle(pilot, rounds=2)
        assert isinstance(sandbox_app.screen, ProtectedEnvironmentsScreen)
        assert ".." in sandbox_app.screen.environments
        paths = [e.path for e in sandbox_app.request_log.entries]
        assert all(p.startswith(("/projects/1/", "/projects/acme%2Fplatform%2Fapi-gateway/")) or
                   not p.startswith("/projects") for p in paths), paths
        assert not any("/../" in p or p.endswith("/..") for p in paths)
        assert {e.method for e in sandbox_app.request_log.entries} == {"GET"}


# -- r reloads each tab -------------------------------------------------------------------------------------

async def test_r_reloads_the_new_tabs(tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    """`r` once read the tab in view from a fixed table of eight panes (a ninth raised KeyError)."""
    store = tiny_sandbox.store
    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "deployments")
        tab = view.query_one(ProjectDeploymentsTab)
        before = len(tab.environments_table.rows)
        add_environment(store, store.project_by_path(GATEWAY), "fresh")
        store.touch()
        await pilot.press("r")
        await settle(pilot)
        assert len(tab.environments_table.rows) == before + 1
        view.show_tab("issues")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert view.query_one(ProjectIssuesTab).table.rows


async def test_the_new_tabs_read_nothing_until_shown(tiny_sandbox: Sandbox, sandbox_app: LabdeckApp) -> None:
    """Opening the project view on its wiki does not read the issues, repositories or deployment history
    of tabs not looked at (a history can be thousands of deployments)."""
    wanted = ("/issues", "/registry/repositories", "/deployments", "/environments")

    def read() -> set[str]:
        return {part for e in sandbox_app.request_log.entries for part in wanted if part in e.path}

    async with sandbox_app.run_test(size=SIZE) as pilot:
        view = await open_tab(pilot, tiny_sandbox, "wiki")
        assert read() == set()
        view.show_tab("issues")
        await settle(pilot, rounds=2)
        assert read() == {"/issues"}
        view.show_tab("containers")
        await settle(pilot, rounds=2)
        assert read() == {"/issues", "/registry/repositories"}


async def test_deletions_in_the_project_tabs_name_the_project(tiny_sandbox: Sandbox,
                                                             sandbox_app: LabdeckApp) -> None:
    """Issue 34: a confirmation names its target by path: the wiki page and the tag of
    `acme/platform/api-gateway`, the Pages domain of `acme/platform/web-portal`, not a bare name that could
    be any project's."""
    from labdeck.tui.screens.projects.pages import PagesTab
    from labdeck.tui.screens.projects.tags import TagsTab
    from labdeck.tui.screens.projects.wiki import WikiTab

    async with sandbox_app.run_test(size=SIZE) as pilot:
        for tab, kind, path in (("wiki", WikiTab, GATEWAY), ("tags", TagsTab, GATEWAY),
                                ("pages", PagesTab, PORTAL)):
            view = await open_tab(pilot, tiny_sandbox, tab, path)
            pane = view.query_one(kind)
            await until(pilot, lambda pane=pane: pane.view.table.rows, f"the {tab} tab's rows")  # type: ignore[misc]
            pane.view.table.focus()
            await pilot.press("delete")
            await pilot.pause()
            question = sandbox_app.screen
            assert isinstance(question, ConfirmScreen), tab
            said = question.message.plain
            assert f" of {path}?" in said, said
            await pilot.press("escape")
            await pilot.pause()
            view.dismiss()
            await pilot.pause()
