"""`:projects`: the projects the signed-in user can see (through `ProjectsService`), most recently active
first, loaded a page at a time as the cursor nears the end; enter opens the project's view (wiki, tags,
Pages domains, error tracking, forks); `a` archives or unarchives (hidden in read-only mode).
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content

from labdeck.api.models.projects import Project
from labdeck.api.projects import ProjectsService
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

PER_PAGE = 50


def project_cells(project: Project) -> tuple[Text, ...]:
    activity = project.last_activity_at.strftime("%Y-%m-%d %H:%M") if project.last_activity_at else ""
    return (Text(project.path_with_namespace or project.name or str(project.id)),
            Text(project.visibility or ""), Text(project.default_branch or ""),
            Text(str(project.star_count or 0)), Text(activity),
            Text("archived" if project.archived else "", style="yellow"))


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
    Column("path", "Project", min_width=24),
    Column("visibility", "Visibility", width=10),
    Column("branch", "Default branch", width=14),
    Column("stars", "★", width=5, align="right", sort_key=lambda p: p.star_count or 0),
    Column("activity", "Last activity", width=16),
    Column("archived", "Archived"),
]


class ProjectsScreen(LabdeckScreen):
    FOOTER_PANES = {"": ("select", "toggle_archive", *LIST_KEYS)}
    AREA = "projects"
    TITLE = "Projects"
    MUTATING_ACTIONS = frozenset({"toggle_archive"})
    ROW_ACTIONS = MUTATING_ACTIONS
    BINDINGS = [Binding("a", "toggle_archive", "Archive/unarchive", id="projects.archive")]

    def __init__(self) -> None:
        super().__init__()
        self.next_url: str | None = None

    def compose_body(self) -> ComposeResult:
        yield ResourceView(PROJECT_COLUMNS, cells=project_cells, row_key=lambda p: p.id,
                           detail=project_detail, empty_text="No projects", id="projects-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#projects-view", ResourceView).table

    def source(self) -> ProjectsService | None:
        session = self.ctx.session
        return session.services.projects if session else None

    def on_mount(self) -> None:
        self.table.focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        self.load_first()

    @work(exclusive=True, group="projects")
    async def load_first(self) -> None:
        source = self.source()
        if source is None:
            return
        self.table.loading_more = True
        try:
            projects, self.next_url = await source.first_page(per_page=PER_PAGE)
        finally:
            self.table.loading_more = False
        self.table.set_rows(projects)
        self.table.has_more = self.next_url is not None
        self.mark_data_loaded()

    @work(exclusive=True, group="projects-more")
    async def load_more(self) -> None:
        source, url = self.source(), self.next_url
        if source is None or url is None:
            return
        self.table.loading_more = True
        try:
            projects, self.next_url = await source.next_page(url)
        finally:
            self.table.loading_more = False
        self.table.append_rows(projects)
        self.table.has_more = self.next_url is not None

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        self.load_more()

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
        source = self.source()
        if source is None:
            return
        updated = await source.set_archived(project.id, archive)
        self.table.replace_row(updated)
        self.notify(f"{updated.path_with_namespace}: {'archived' if archive else 'unarchived'}", markup=False)


def open_projects(request: AreaRequest) -> ProjectsScreen:
    """The area factory (`:projects`; lazy, so the area registry imports no screen)."""
    return ProjectsScreen()
