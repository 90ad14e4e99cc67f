"""The project view's Issues tab: the project's own issues (`GET /projects/:id/issues`), drawn as `:issues`
draws them (`issues.render`: columns, label chips, the detail pane; `#iid` for the reference) and read on
demand as it reads them (`IssuesService.window` with a `ProjectScope`, `tui/list_feed.ListFeed`), when the
tab is first shown.

- `ctrl+f` puts the focus in the filter, which takes the issue query language of `:issues` (compiled for
  the project listing: an error is shown under it and nothing is sent); `enter` in it lists again.
- `enter` opens the issue under the cursor in full (its detail, with its notes and merge requests, read as
  `:issues` reads them: `issues/extras.py`); `d` shows the detail beside the list.
- The row actions of `:issues` are this tab's too, the same code (`issues/actions.IssueActions`): `c`
  comments, `e` edits, `t` tracks time, `p` promotes, `l` lists links, `y` copies the reference, `b` runs a
  bulk action on the marked issues; `x` closes and `X` reopens the marked issues (or the one under the
  cursor) through the same bulk action.
- `i` opens `:issues` scoped to this project on the issue under the cursor (`iid:N`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Input, Static

from labdeck.api.errors import LabdeckError
from labdeck.api.issue_scopes import GroupId, ProjectScope
from labdeck.api.models.issues import Issue
from labdeck.api.models.projects import Project
from labdeck.domain.issue_query import help_text
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.list_feed import ListFeed
from labdeck.tui.screens.issues.actions import IssueActions
from labdeck.tui.screens.issues.extras import read_extras
from labdeck.tui.screens.issues.filter_names import check_names, compiled, filter_input
from labdeck.tui.screens.issues.issues import SERVER_ORDERS
from labdeck.tui.screens.issues.render import COLUMNS, Extras, issue_detail
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_columns import plain_column

# The columns and cells of `:issues`, but `#iid` in place of the reference, its first (every row is of this
# project) and, like it, the key.
PROJECT_COLUMNS = [plain_column("iid", "#", lambda i: f"#{i.iid}", width=6, align="right", priority=10,
                                sort_key=lambda i: i.iid, data=lambda i: i.iid), *COLUMNS[1:]]


class ProjectIssuesTab(IssueActions, OwnerPane, Widget):
    """A pane of the kit whose list is read on demand (`ListFeed`, as `:issues` reads it)."""

    ACTION_IDS = "project_issues"  # the keymap ids of `IssueActions`' keys here: project_issues.edit, ...
    ACTIONS = (  # besides `IssueActions`' (comment, edit, bulk, time, links, promote, copy reference)
        Shown("select"),
        Shown("comment"),
        Shown("edit"),
        Action("x", "close_issues", "Close", id="project_issues.close", mutating=True, row=True, footer=True),
        Action("X", "reopen_issues", "Reopen", id="project_issues.reopen",
               mutating=True, row=True, footer=True),
        Action("i", "open_in_issues", "In :issues", id="project_issues.open", row=True, footer=True),
        Shown("bulk"),
        Shown("toggle_mark"),
        Shown("time_tracking"),
        Action("ctrl+f", "filter", "Filter", id="project_issues.filter", footer=True),  # `f` forks, `s` sorts
        Shown("links"),
        Shown("promote"),
        *shown(TAB_KEYS),
        *shown(LIST_KEYS),
    )
    DEFAULT_CSS = """
    ProjectIssuesTab { height: 1fr; }
    ProjectIssuesTab #project-issues-error { height: auto; }
    """

    feed: ListFeed[Issue]  # set on mount

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = project_owner(project)
        self.project = project
        self.query_text = ""
        self.params: dict[str, Any] = {}
        self.read = False
        self.extras: dict[int, Extras] = {}  # notes and merge requests, read for a detail shown
        self.stale_extras: set[int] = set()  # issues written since (`IssueActions.refresh_issue`)
        self.group: GroupId | None = ProjectScope(project.id)  # the scope, as `IssueActions` reads it

    @property
    def path(self) -> str:
        return self.owner.where

    @property
    def scope(self) -> ProjectScope:
        return ProjectScope(self.project.id)

    def compose(self) -> ComposeResult:
        bar = filter_input(lambda: ProjectScope(self.path), "", id="project-issues-query",
                           placeholder='label:bug assignee:none state:all "text"')
        bar.tooltip = Text(help_text())
        yield LabelledField("Filter", bar, id="project-issues-query-field")
        yield Static("", markup=False, id="project-issues-error")
        yield ResourceView(PROJECT_COLUMNS, row_key=lambda i: i.id,
                           detail=self.detail_for,
                           empty_text="No issues", id="project-issues-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#project-issues-view", ResourceView)

    @property
    def table(self) -> ResourceTable:
        return self.view.table

    def on_mount(self) -> None:
        self.feed = ListFeed(self.view, "issues", self.reload_from_server, orders=SERVER_ORDERS)

    def on_show(self) -> None:
        if not self.read:  # read when the tab is first shown, not with every tab of the view
            self.read = True
            self.reload()

    def on_unmount(self) -> None:
        if self.feed.window is not None:
            self.feed.window.cancel()

    def reload(self) -> None:
        if self.compile():
            self.load(search=self.feed.search, order=self.feed.order)

    # -- query and loading ----------------------------------------------------------------------------
    def compile(self) -> bool:
        """The filter compiled for the project listing; a `QueryError` is shown and nothing is sent."""
        message = self.query_one("#project-issues-error", Static)
        params = compiled(message, self.query_text, self.scope)
        if params is None:
            return False
        self.params = params
        # `no label called ... in acme/platform/api-gateway` under the filter (the project named by its path)
        check_names(self, self.query_text, ProjectScope(self.path), message)
        return True

    def action_filter(self) -> None:
        self.query_one("#project-issues-query", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "project-issues-query":
            return
        event.stop()
        self.query_text = event.value.strip()
        if self.compile():
            self.table.focus()
            self.load()

    @work(exclusive=True, group="project-issues")
    async def load(self, search: str = "", order: tuple[str, bool] | None = None) -> None:
        """The first page at once, the rest on demand (the listing of `:issues`, for this project)."""
        service = self.ctx.services.issues
        query = dict(self.params)
        if search:
            query["search"] = f"{query.get('search', '')} {search}".strip()
        order_by, descending = order or ("created_at", True)
        self.table.loading_more = True
        try:
            window = service.window(query, group=self.scope, order_by=order_by,
                                    sort="desc" if descending else "asc")
            self.feed.show_first(window, await window.start(), search=search, order=order)
            await self.feed.complete_if_small(window)
        except LabdeckError as exc:
            self.table.show_load_error(f"Could not list the issues of {self.path}: {exc}")
            return
        finally:
            self.table.loading_more = False
        self.table.empty_text = "No issues"

    def reload_from_server(self, search: str, order: tuple[str, bool] | None) -> None:
        self.load(search=search, order=order)

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        event.stop()
        self.feed.read_more()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.feed.cursor_moved()

    def detail_for(self, issue: Issue) -> RenderableType:
        """The detail shown (beside the list or full screen); its notes are read the first time."""
        extras = self.extras.get(issue.id)
        if extras is None:
            self.load_extras(issue)
        return issue_detail(issue, extras)

    @work(exclusive=True, group="project-issues-extras")
    async def load_extras(self, issue: Issue, *, then_open: bool = False) -> None:
        """The issue's notes and merge requests for its detail (as `:issues` reads them); `then_open`:
        the detail is opened full screen once they are there."""
        service = self.ctx.services.issues
        if issue.id not in self.extras:
            if not then_open:
                await asyncio.sleep(0.1)  # let the cursor settle: only the issue it stops on is read
            refresh = issue.id in self.stale_extras
            self.stale_extras.discard(issue.id)
            self.extras[issue.id] = await read_extras(service, issue, refresh=refresh)
        self.view.refresh_detail()
        if then_open and self.table.cursor_row is issue:
            self.view.open_detail()

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        """`enter`: the issue's detail in full, with its notes and merge requests."""
        if isinstance(event.row, Issue):
            event.stop()
            self.load_extras(event.row, then_open=True)

    # -- actions (the rest are `IssueActions`, as in :issues) ----------------------------------------------
    def updated(self, issue: Issue) -> None:
        """Show a changed issue in place (its label colours kept: a write answers with bare label names)."""
        old = next((row for row in self.table.rows if isinstance(row, Issue) and row.id == issue.id), None)
        if old is not None and not all(label.color for label in issue.labels):
            known = {label.name: label for label in old.labels}
            issue = issue.model_copy(update={"labels": [known.get(label.name, label) if not label.color
                                                        else label for label in issue.labels]})
        self.extras.pop(issue.id, None)
        self.table.replace_row(issue)
        self.view.refresh_detail()  # shown: its notes are read again (`detail_for`)

    def action_open_in_issues(self) -> None:
        """`:issues` scoped to this project, on the issue under the cursor."""
        issue = self.table.cursor_row
        query = f"iid:{issue.iid}" if isinstance(issue, Issue) else self.query_text
        self.ctx.open_area("issues", AreaRequest(query=query, scope=f"project:{self.path}"))

    def action_close_issues(self) -> None:
        if issues := self.chosen():
            self.confirm_bulk(issues, "close", "")

    def action_reopen_issues(self) -> None:
        if issues := self.chosen():
            self.confirm_bulk(issues, "reopen", "")

    def chosen(self) -> list[Issue]:
        """The marked issues, or the one under the cursor."""
        return [row for row in self.rows_acted_on() if isinstance(row, Issue)]
