"""The project view's Issues tab: the project's own issues (`GET /projects/:id/issues`), drawn as `:issues`
draws them (`issues.render`: columns, label chips, the detail pane; `#iid` for the reference) and read on
demand as it reads them (`IssuesService.window` with a `ProjectScope`, `tui/list_feed.ListFeed`), when the
tab is first shown.

- `ctrl+f` puts the focus in the filter, which takes the issue query language of `:issues` (compiled for
  the project listing: an error is shown under it and nothing is sent); `enter` in it lists again.
- `enter` opens the issue under the cursor in full (its detail, with its notes and merge requests, read as
  `:issues` reads them: `issues/extras.py`); `d` shows the detail beside the list.
- `x` closes the marked issues (or the one under the cursor), `X` reopens them: one job with a result per
  issue (`tui/bulk.start_bulk` and `IssuesService.apply`, the bulk actions of `:issues`).
- `i` opens `:issues` scoped to this project on the issue under the cursor (`iid:N`), where every action of
  `:issues` (comment, edit, time tracking, labels, links) works on it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static

from labdeck.api.errors import LabdeckError
from labdeck.api.issues import BulkAction as IssueChange
from labdeck.api.issues import IssuesService, ProjectScope
from labdeck.api.models.issues import Issue
from labdeck.api.models.projects import Project
from labdeck.domain.issue_query import QueryError, help_text
from labdeck.domain.text import status_line
from labdeck.tui.areas import AreaRequest
from labdeck.tui.bulk import BulkAction, start_bulk
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job
from labdeck.tui.list_feed import ListFeed
from labdeck.tui.pane_policy import PanePolicy
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.extras import read_extras
from labdeck.tui.screens.issues.issues import SERVER_ORDERS
from labdeck.tui.screens.issues.render import COLUMNS, Extras, issue_cells, issue_detail
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column, LazyCells
from labdeck.tui.workers import is_live

Change = Literal["close", "reopen"]

# The columns and cells of `:issues`, but `#iid` in place of the reference, its first (every row is of this
# project).
PROJECT_COLUMNS = [Column("iid", "#", width=6, align="right", sort_key=lambda i: i.iid), *COLUMNS[1:]]
project_issue_cells = LazyCells(build=lambda i: (Text(f"#{i.iid}"), *issue_cells.build(i)[1:]),
                                plains=lambda i: (f"#{i.iid}", *issue_cells.plains(i)[1:]))


class ProjectIssuesTab(PanePolicy, Widget):
    FOOTER_ORDER = ("select", "open_in_issues", "close_issues", "reopen_issues", "toggle_mark", "filter",
                    "next_tab", "previous_tab", *LIST_KEYS)
    BINDINGS = [
        Binding("ctrl+f", "filter", "Filter", id="project_issues.filter"),  # `f` forks, `s` sorts
        Binding("i", "open_in_issues", "In :issues", id="project_issues.open"),
        Binding("x", "close_issues", "Close", id="project_issues.close"),
        Binding("X", "reopen_issues", "Reopen", id="project_issues.reopen"),
    ]
    MUTATING_ACTIONS = frozenset({"close_issues", "reopen_issues"})
    ROW_ACTIONS = MUTATING_ACTIONS | {"open_in_issues"}
    DEFAULT_CSS = """
    ProjectIssuesTab { height: 1fr; }
    ProjectIssuesTab #project-issues-error { height: auto; }
    """

    feed: ListFeed[Issue]  # set on mount

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.project = project
        self.query_text = ""
        self.params: dict[str, Any] = {}
        self.read = False
        self.extras: dict[int, Extras] = {}  # notes and merge requests, read for a detail shown

    @property
    def path(self) -> str:
        return self.project.path_with_namespace or str(self.project.id)

    @property
    def scope(self) -> ProjectScope:
        return ProjectScope(self.project.id)

    def compose(self) -> ComposeResult:
        bar = Input(placeholder='label:bug assignee:none state:all "text"', id="project-issues-query")
        bar.tooltip = Text(help_text())
        yield LabelledField("Filter", bar, id="project-issues-query-field")
        yield Static("", markup=False, id="project-issues-error")
        yield ResourceView(PROJECT_COLUMNS, cells=project_issue_cells, row_key=lambda i: i.id,
                           detail=lambda issue: issue_detail(issue, self.extras.get(issue.id)),
                           empty_text="No issues", id="project-issues-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#project-issues-view", ResourceView)

    @property
    def table(self) -> ResourceTable:
        return self.view.table

    @property
    def service(self) -> IssuesService | None:
        session = context_of(self).session
        return session.services.issues if session is not None else None

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
        error = self.query_one("#project-issues-error", Static)
        try:
            self.params = IssuesService.compile_filter(self.query_text, self.scope)
        except QueryError as exc:
            error.update(Text(f"Filter error: {exc}", style="bold red"))
            return False
        error.update(Text(""))
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
        service = self.service
        if service is None:
            return
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
        issue = self.table.cursor_row
        if self.view.has_class("-show-detail") and isinstance(issue, Issue) and issue.id not in self.extras:
            self.load_extras(issue)

    @work(exclusive=True, group="project-issues-extras")
    async def load_extras(self, issue: Issue, *, then_open: bool = False) -> None:
        """The issue's notes and merge requests for its detail (as `:issues` reads them); `then_open`:
        the detail is opened full screen once they are there."""
        service = self.service
        if service is None:
            return
        if issue.id not in self.extras:
            if not then_open:
                await asyncio.sleep(0.1)  # let the cursor settle: only the issue it stops on is read
            self.extras[issue.id] = await read_extras(service, issue)
        self.view.refresh_detail()
        if then_open and self.table.cursor_row is issue:
            self.view.open_detail()

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        """`enter`: the issue's detail in full, with its notes and merge requests."""
        if isinstance(event.row, Issue):
            event.stop()
            self.load_extras(event.row, then_open=True)

    # -- actions --------------------------------------------------------------------------------------
    def chosen(self) -> list[Issue]:
        return [row for row in self.rows_acted_on() if isinstance(row, Issue)]

    def action_open_in_issues(self) -> None:
        """`:issues` scoped to this project, on the issue under the cursor (every issue action is there)."""
        issue = self.table.cursor_row
        query = f"iid:{issue.iid}" if isinstance(issue, Issue) else self.query_text
        context_of(self).open_area("issues", AreaRequest(query=query, scope=f"project:{self.path}"))

    def action_close_issues(self) -> None:
        self.ask_change("close")

    def action_reopen_issues(self) -> None:
        self.ask_change("reopen")

    def ask_change(self, kind: Change) -> None:
        issues = self.chosen()
        if not issues:
            return
        verb = "Close" if kind == "close" else "Reopen"
        what = issues[0].reference if len(issues) == 1 else f"{len(issues):,} issues"
        message = Content.from_markup(f"{verb} [b]$what[/b]? The server's answer for each is in the job.",
                                      what=what)

        def answered(yes: bool | None) -> None:
            if yes:
                self.change(issues, kind)

        self.app.push_screen(ConfirmScreen(f"{verb} issues", message, confirm_label=verb,
                                           danger=kind == "close"), answered)

    def change(self, issues: list[Issue], kind: Change) -> Job | None:
        """Close or reopen `issues` as one job, as the bulk action of `:issues` does."""
        service = self.service
        if service is None:
            return None
        change = IssueChange(kind)

        async def apply(issue: Issue) -> tuple[bool, str]:
            result = await service.apply(issue, change)
            if result.issue is not None and is_live(self):
                self.table.replace_row(result.issue)
            return result.ok, result.message if result.ok else status_line(result.status, result.message)

        verb = "closed" if kind == "close" else "reopened"
        title = f"{'Close' if kind == 'close' else 'Reopen'} {len(issues)} issue(s) of {self.path}"
        return start_bulk(self, BulkAction(title, issues, lambda issue: issue.reference, apply, noun="issue",
                                           verb=verb), table=self.table)
