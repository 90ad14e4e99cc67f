"""`:projects`: the projects the signed-in user can see (through `ProjectsService.window`), newest first,
read by keyset pagination (GitLab's for `/projects`: order by id) on demand as the cursor nears the end
(`tui/list_feed.py`: honest counts, a ceiling on the rows held, filter and sort sent to the server while
the list is partial, `G` asks before reading everything); enter opens the project's view (a tab per
resource of the project); `a` archives or unarchives (hidden in read-only mode; GitLab lets
the project's Owners and administrators do it, and a refusal says so), journalled with the other as its
undo.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content

from labdeck.api.errors import ApiError
from labdeck.api.models.projects import Project
from labdeck.tui.areas import AreaRequest
from labdeck.tui.errors import describe_error
from labdeck.tui.list_feed import ListFeed
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

PER_PAGE = 50
# Columns the server can order by (others sort the loaded rows only, and say so); by id: keyset.
SERVER_ORDERS = {"path": "path", "stars": "star_count", "activity": "last_activity_at"}


def project_detail(project: Project) -> Text:
    """The detail pane: every field as literal text (server strings are never markup)."""
    detail = Text()
    detail.append(project.name_with_namespace or project.path_with_namespace or str(project.id), style="bold")
    if project.description:
        detail.append(f"\n\n{project.description}")
    rows = [("id", str(project.id)), ("visibility", project.visibility or ""),
            ("default branch", project.default_branch or ""), ("topics", ", ".join(project.topics or [])),
            ("stars", str(project.star_count or 0)), ("forks", str(project.forks_count or 0)),
            ("open issues", "" if project.open_issues_count is None else str(project.open_issues_count)),
            ("web", project.web_url or "")]
    detail.append("\n")
    return append_fields(detail, rows, width=15)


PROJECT_COLUMNS = [
    # the key, whole up to 40 cells before the others are let in: visibility and last activity at 80 columns
    Column("path", "Project", min_width=24, max_width=40, priority=10,
           text=lambda p: Text(p.path_with_namespace or p.name or str(p.id)),
           data=lambda p: p.path_with_namespace or p.name),
    Column("visibility", "Visibility", width=10, priority=6, essential=True,
           text=lambda p: Text(p.visibility or ""), data=lambda p: p.visibility),
    Column("branch", "Default branch", width=14, priority=3, text=lambda p: Text(p.default_branch or ""),
           data=lambda p: p.default_branch),
    Column("stars", "★", width=5, priority=2, align="right", sort_key=lambda p: p.star_count or 0,
           text=lambda p: Text(str(p.star_count or 0)), data=lambda p: p.star_count),
    Column("activity", "Last activity", width=16, priority=5, essential=True,
           text=lambda p: Text(p.last_activity_at.strftime("%Y-%m-%d %H:%M") if p.last_activity_at else ""),
           data=lambda p: p.last_activity_at),
    Column("archived", "Archived", priority=4,
           text=lambda p: Text("archived" if p.archived else "", style="yellow"),
           data=lambda p: bool(p.archived)),
]


class ProjectsScreen(LabdeckScreen):
    FOOTER_PANES = {"": ("select", "toggle_archive", *LIST_KEYS)}
    AREA = "projects"
    TITLE = "Projects"
    MUTATING_ACTIONS = frozenset({"toggle_archive"})
    ROW_ACTIONS = MUTATING_ACTIONS
    BINDINGS = [Binding("a", "toggle_archive", "Archive/unarchive", id="projects.archive")]

    feed: ListFeed[Project]  # set on mount: the listing read on demand

    def __init__(self) -> None:
        super().__init__()
        self.search = ""  # the server's search of a partial list (its filter box)

    def compose_body(self) -> ComposeResult:
        yield ResourceView(PROJECT_COLUMNS, row_key=lambda p: p.id,
                           detail=project_detail, empty_text="No projects", id="projects-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#projects-view", ResourceView).table

    def on_mount(self) -> None:
        self.feed = ListFeed(self.query_one("#projects-view", ResourceView), "projects",
                             self.reload_from_server, orders=SERVER_ORDERS)
        self.table.focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        self.load_first(self.feed.order)  # a partial list's server-side sort stays

    @work(exclusive=True, group="projects")
    async def load_first(self, order: tuple[str, bool] | None = None) -> None:
        """The first page now, the rest on demand (all of it at once when the server's total fits)."""
        order_by, descending = order or ("id", True)
        window = self.ctx.services.projects.window(search=self.search or None, order_by=order_by,
                               sort="desc" if descending else "asc")
        self.feed.show_cached(window)  # a relaunch: the first page last seen, at once
        self.table.loading_more = True
        try:
            rows = await window.start()
            self.feed.show_first(window, rows, search=self.search, order=order)
            await self.feed.complete_if_small(window)
        finally:
            self.table.loading_more = False
        self.mark_data_loaded()

    def reload_from_server(self, search: str, order: tuple[str, bool] | None) -> None:
        """A partial list's filter box (the server's search) or sort."""
        self.search = search
        self.load_first(order)

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        event.stop()
        self.feed.read_more()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.feed.cursor_moved()

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, Project):
            from labdeck.tui.screens.projects.view import ProjectViewScreen

            self.app.push_screen(ProjectViewScreen(event.row))

    def action_toggle_archive(self) -> None:
        project = self.table.cursor_row
        if not isinstance(project, Project):
            return
        archive = not project.archived
        verb = "Archive" if archive else "Unarchive"
        message = Content.from_markup("$verb [b]$path[/b]?", verb=verb,
                                      path=project.path_with_namespace or str(project.id))

        def answered(yes: bool | None) -> None:
            if yes:
                self.set_archived(project, archive)

        self.app.push_screen(ConfirmScreen(f"{verb} project", message, confirm_label=verb, danger=archive),
                             answered)

    @work(group="projects-archive")
    async def set_archived(self, project: Project, archive: bool) -> None:
        """`POST /projects/:id/archive` (or `/unarchive`); the row shows the project as GitLab answers it.
        GitLab gives `archive_project` to the project's Owners and administrators only: its 403 says so."""
        try:
            updated = await self.ctx.services.projects.set_archived(project.id, archive)
        except ApiError as error:
            if error.status != 403:
                raise
            verb = "archived" if archive else "unarchived"
            self.notify(f"{project.path_with_namespace or project.id}: not {verb} ({describe_error(error)}): "
                        "only the project's Owners and administrators may archive or unarchive it",
                        severity="error", markup=False)
            return
        self.table.replace_row(updated)
        self.notify(f"{updated.path_with_namespace}: {'archived' if archive else 'unarchived'}", markup=False)


def open_projects(request: AreaRequest) -> ProjectsScreen:
    """The area factory (`:projects`; lazy, so the area registry imports no screen)."""
    return ProjectsScreen()
