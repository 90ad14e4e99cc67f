"""`:issues`, issue triage over the instance or a group: a `ResourceView` of the listing, a filter bar
that takes the issue query language (compiled by `domain.issue_query`; a `QueryError` is shown under the
bar and nothing is sent), a scope box (a group path, or empty for the whole instance), and a detail pane
(labels in their colours, assignees, milestone, time stats, related and closing merge requests, notes,
and the description as Markdown whose links are never opened by themselves).

The row actions (`e` edit, `c` comment, `t` time, `p` promote, `l` links, `y` reference, `b` bulk on the
marked issues) are in `actions.py` (`IssueActions`, mixed in here); `o` opens the issue in the browser.
Saved views (`[views]` in the config) open this screen from the palette with their query and scope.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from labdeck.api.errors import LabdeckError
from labdeck.api.issue_scopes import GroupId, listing_scope
from labdeck.api.issues import IssuesService
from labdeck.api.models.base import paused_gc
from labdeck.api.models.issues import Issue, LabelDetail
from labdeck.domain.features import PROMOTE_TO_EPIC
from labdeck.domain.issue_query import QueryError, help_text, parse
from labdeck.tui.areas import AreaRequest
from labdeck.tui.list_feed import ListFeed
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.issues.actions import IssueActions
from labdeck.tui.screens.issues.early_load import EarlyLoad
from labdeck.tui.screens.issues.extras import read_extras
from labdeck.tui.screens.issues.filter_names import check_names, compiled, filter_input, group_scope
from labdeck.tui.screens.issues.render import Extras, issue_columns, issue_detail
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.path_input import PathInput
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import app_running

# Columns the server can order a partial listing by (GitLab's `order_by` of issue listings).
SERVER_ORDERS: Final = {"title": "title", "updated": "updated_at", "due": "due_date",
                        "milestone": "milestone_due"}


def parse_scope(scope: str | None) -> GroupId | None:
    """A saved view's scope (`instance`, `group:<full/path>` or `project:<full/path>`, as the project
    view's Issues tab opens it) as a group path or a `ProjectScope`, None for the instance."""
    if scope and scope.startswith("project:"):
        return listing_scope(scope)
    if scope and scope.startswith("group:"):
        return scope.removeprefix("group:").strip() or None
    return None


class IssuesScreen(IssueActions, LabdeckScreen):
    FOOTER_PANES = {
        "issues-view": ("select", "edit", "comment", "bulk", "toggle_mark", "focus_query", "time_tracking",
                        "links", "promote", "copy_reference", *LIST_KEYS),
        "": ("focus_query", "refresh"),
    }
    AREA = "issues"
    TITLE = "Issues"
    CSS_PATH = "issues.tcss"
    MUTATING_ACTIONS = frozenset({"bulk", "edit", "comment", "time_tracking", "promote"})
    ROW_ACTIONS = MUTATING_ACTIONS
    FEATURE_ACTIONS = {"promote": PROMOTE_TO_EPIC}
    BINDINGS = [
        Binding("f", "focus_query", "Query", id="issues.query"),
        Binding("b", "bulk", "Bulk", id="issues.bulk"),
        Binding("e", "edit", "Edit", id="issues.edit"),
        Binding("c", "comment", "Comment", id="issues.comment"),
        Binding("t", "time_tracking", "Time", id="issues.time"),
        Binding("p", "promote", "Promote", id="issues.promote"),
        Binding("l", "links", "Links", id="issues.links"),
        Binding("y", "copy_reference", "Copy reference", show=False, id="issues.copy_reference"),
    ]

    feed: ListFeed[Issue]  # set on mount: the listing read on demand

    def __init__(self, request: AreaRequest | None = None) -> None:
        super().__init__()
        self.query_text = (request.query or "") if request else ""
        self.group = parse_scope(request.scope if request else None)
        self.params: dict[str, Any] = {}
        self.extras: dict[int, Extras] = {}
        self.stale_extras: set[int] = set()  # issues whose detail `r` asked to fetch again
        self.label_colours: dict[str, LabelDetail] = {}  # from listings, for issues a PUT sends back bare
        self.filter_labels: tuple[str, ...] = ()  # the labels the filter asks for: first in the Labels cell
        self.shown_group: GroupId | None = self.group  # the scope the rows on screen belong to
        self._early: EarlyLoad | None = None
        if app_running():  # built inside the app: page 1 is asked for before the widgets exist
            self._start_early_load()

    def _start_early_load(self) -> None:
        """Ask for page 1 while the widgets are still being mounted (unless the cache has this listing or
        the filter does not compile: `on_mount` shows that)."""
        if not self.ctx.connected:  # nothing to ask for early: the load itself says so
            return
        service = self.ctx.services.issues
        try:
            params = IssuesService.compile_filter(self.query_text, self.group)
        except QueryError:
            return
        if not service.has_cached(params, group=self.group):
            self._early = EarlyLoad(service, params, self.group)

    def on_unmount(self) -> None:
        if self._early is not None:
            self._early.cancel()
        if self.feed.window is not None:
            self.feed.window.cancel()

    def compose_body(self) -> ComposeResult:
        if self._early is None:
            self._start_early_load()
        with Horizontal(id="issues-bar"):  # labelled fields; the placeholders are examples
            bar = filter_input(lambda: group_scope(self), self.query_text,
                               placeholder='label:bug assignee:none "text"', id="issues-query")
            bar.tooltip = Text(help_text())  # every filter key, literal text
            yield LabelledField("Filter", bar, id="issues-query-field")
            scope = PathInput(str(self.group or ""), kind="group", placeholder="acme (empty: all)",
                              id="issues-scope")
            yield LabelledField("Group", scope, id="issues-scope-field")
        yield Static("", markup=False, id="issues-query-error")
        yield ResourceView(issue_columns(lambda: self.filter_labels), row_key=lambda i: i.id,
                           detail=self.detail_for,
                           show_detail=True, empty_text="No issues", enter_opens_detail=True,
                           id="issues-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#issues-view", ResourceView).table

    def remember_labels(self, issues: list[Issue]) -> list[Issue]:
        for issue in issues:
            for label in issue.labels:
                if label.color:
                    self.label_colours[label.name] = label
        return issues

    def with_colours(self, issue: Issue) -> Issue:
        """`issue` with the label colours known from listings (a PUT answers with bare label names)."""
        if all(label.color for label in issue.labels):
            return issue
        labels = [self.label_colours.get(label.name, label) if not label.color else label
                  for label in issue.labels]
        return issue.model_copy(update={"labels": labels})

    def on_mount(self) -> None:
        self.table.focus()
        self.feed = ListFeed(self.query_one("#issues-view", ResourceView), "issues", self.reload_from_server,
                             orders=SERVER_ORDERS)
        if self.compile():
            self.load_issues(refresh=False)

    def refresh_data(self) -> None:
        self.stale_extras.update(self.extras)
        self.extras.clear()
        if self.compile():  # a partial list's server-side filter and sort stay
            self.load_issues(refresh=True, search=self.feed.search, order=self.feed.order)

    # -- query ----------------------------------------------------------------------------------------
    def compile(self) -> bool:
        """Compile the filter bar for the scope; show a `QueryError` under the bar and return False."""
        params = compiled(self.query_one("#issues-query-error", Static), self.query_text, self.group)
        self.set_class(params is None, "-query-error")
        if params is None:
            return False
        self.params = params
        self.filter_labels = parse(self.query_text).required_labels()
        # `no user called ...` instead of an empty list
        check_names(self, self.query_text, self.group, self.query_one("#issues-query-error", Static))
        return True

    def action_focus_query(self) -> None:
        self.query_one("#issues-query", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id not in ("issues-query", "issues-scope"):
            return
        event.stop()
        self.query_text = self.query_one("#issues-query", Input).value.strip()
        scope = self.query_one("#issues-scope", Input).value.strip()
        self.group = listing_scope(scope)
        if self.compile():
            self.table.focus()
            self.load_issues(refresh=False)

    # -- loading --------------------------------------------------------------------------------------
    @work(exclusive=True, group="issues-load")
    async def load_issues(self, refresh: bool = False, search: str = "",
                          order: tuple[str, bool] | None = None) -> None:
        """The listing: from the cache when fresh, else its first page at once and the rest on demand
        (`tui/list_feed.py`); `search` and `order` are the server's filter and sort of a partial list."""
        service = self.ctx.services.issues
        table, params, group, feed = self.table, dict(self.params), self.group, self.feed
        early, self._early = self._early, None
        plain = not search and order is None
        hit = None if refresh or not plain else await service.cached(params, group=group)
        if hit is None and group != self.shown_group:  # another scope: the old rows never linger under it
            table.set_rows([])
        self.shown_group = group
        if hit is not None:
            with paused_gc():
                table.set_rows(self.remember_labels(hit[0]))
            if hit[1]:
                feed.whole()  # complete, from the cache
                self.mark_data_loaded()
                return
        table.loading_more = True
        try:
            taken = early.take(params, group) if early is not None and hit is None and plain else None
            if early is not None and taken is None:
                early.cancel()
            query = dict(params)
            if search:
                query["search"] = f"{query.get('search', '')} {search}".strip()
            order_by, sort = ("created_at", True) if order is None else order
            window, first = taken or (service.window(query, group=group, order_by=order_by,
                                                     sort="desc" if sort else "asc"), None)
            if hit is None:
                feed.show_cached(window)  # a relaunch: the first page last seen, at once
            rows = self.remember_labels(await (first or window.start()))
            if hit is None:
                feed.show_first(window, rows, search=search, order=order)
            complete = await feed.complete_if_small(window)
            if hit is not None and feed.window is not window:  # a partial fresh list replaces the cache's
                feed.show_first(window, rows, search=search, order=order)
            if complete and plain:
                window.remember()
        except LabdeckError as exc:
            self.show_load_error(group, exc)
            return
        finally:
            table.loading_more = False
        table.empty_text = "No issues"
        self.mark_data_loaded()

    def reload_from_server(self, search: str, order: tuple[str, bool] | None) -> None:
        """A partial list's filter box or sort, sent to the server."""
        self.load_issues(refresh=True, search=search, order=order)

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        event.stop()
        self.feed.read_more()

    def show_load_error(self, group: GroupId | None, error: LabdeckError) -> None:
        """A listing that failed (a group path that does not exist): the rows and detail of the previous
        listing go, and the error takes their place, so nothing looks as if it belonged to this one."""
        where = f"group {group}" if isinstance(group, str) else str(group) if group else "the instance"
        self.table.empty_text = f"Could not list the issues of {where}: {error}"
        self.table.set_rows([])
        self.extras.clear()
        self.query_one("#issues-view", ResourceView).refresh_detail()
        self.notify(str(error), title="Issues", severity="error", markup=False, timeout=8)

    # -- detail ---------------------------------------------------------------------------------------
    def detail_for(self, issue: Issue) -> RenderableType:
        return issue_detail(issue, self.extras.get(issue.id))

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.feed.cursor_moved()
        issue = self.table.cursor_row
        if isinstance(issue, Issue) and issue.id not in self.extras:
            self.load_extras(issue)

    @work(exclusive=True, group="issues-extras")
    async def load_extras(self, issue: Issue) -> None:
        await asyncio.sleep(0.1)  # let the cursor settle: only the issue it stops on is fetched
        service = self.ctx.services.issues
        refresh = issue.id in self.stale_extras
        self.stale_extras.discard(issue.id)
        self.extras[issue.id] = await read_extras(service, issue, refresh=refresh)
        self.query_one("#issues-view", ResourceView).refresh_detail()

    def updated(self, issue: Issue) -> None:
        """Show a changed issue in place and reload its detail."""
        issue = self.with_colours(issue)
        self.extras.pop(issue.id, None)
        self.table.replace_row(issue)
        self.query_one("#issues-view", ResourceView).refresh_detail()
        current = self.table.cursor_row
        if isinstance(current, Issue) and current.id == issue.id:
            self.load_extras(issue)


def open_issues(request: AreaRequest) -> IssuesScreen:
    """The area factory (`:issues`, and saved views from the palette)."""
    return IssuesScreen(request)
