"""`:pages` (administrators): every Pages domain of the instance (read from its binding, no service method)
with its project's path (GitLab's listing gives only `project_id`: each project is read once with
`ProjectsService.projects_by_id`; one that cannot be read shows its id) and certificate expiry (expired
in red, expiring within 30 days in yellow), soonest expiry first. `enter` opens the domain's project
view on its Pages domains tab. A refusal (403 for a non-administrator) is shown with its status and
message, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from labdeck.api import bindings
from labdeck.api.errors import LabdeckError
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.models.projects import Project
from labdeck.tui.areas import AreaRequest
from labdeck.tui.clock import now_of
from labdeck.tui.errors import describe_error
from labdeck.tui.screens.base import StatusTableScreen
from labdeck.tui.screens.projects.pages import domain_columns, domain_detail
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

Now = Callable[[], datetime]



class PagesAdminScreen(StatusTableScreen):
    FOOTER_PANES = {"": ("select", *LIST_KEYS)}
    AREA = "pages"
    TITLE = "Pages domains"
    VIEW_ID = "pages-admin-view"
    STATUS_ID = "pages-admin-status"

    def __init__(self, *, now: Now | None = None) -> None:
        super().__init__()
        self.now: Now = now_of(self, now)
        self.projects: dict[int, Project] = {}
        self.columns = [Column("project", "Project", min_width=16, sort_key=self.project_path,
                               text=lambda d: Text(self.project_path(d)), data=self.project_path),
                        *domain_columns(lambda: self.now())]

    def project_path(self, domain: PagesDomain) -> str:
        if domain.project_id is None:
            return ""
        project = self.projects.get(domain.project_id)
        return (project.path_with_namespace or str(project.id)) if project else f"#{domain.project_id}"

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Every Pages domain of the instance (administrators)", style="dim"),
                     id="pages-admin-status")
        yield ResourceView(self.columns, row_key=lambda d: (d.project_id, d.domain),
                           detail=domain_detail, empty_text="No Pages domains", id="pages-admin-view")

    @work(exclusive=True, group="pages-admin")
    async def load(self, refresh: bool = False) -> None:
        services = self.ctx.services
        try:
            domains = await services.read(bindings.ALL_PAGES_DOMAINS, refresh=refresh)
            ids = {d.project_id for d in domains if d.project_id is not None} - set(self.projects)
            if ids:
                self.projects.update(await services.projects.projects_by_id(ids))
        except LabdeckError as error:
            self.show_refusal(describe_error(error))
            return
        now = self.now()
        expired = sum(1 for d in domains if d.expiry_state(now) == "expired")
        soon = sum(1 for d in domains if d.expiry_state(now) == "soon")
        self.table.set_rows(sorted(domains, key=_soonest))
        self.show_status(f"{len(domains)} domain(s): {expired} expired, {soon} expiring within 30 days")
        self.mark_data_loaded()


    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        domain = event.row
        if not isinstance(domain, PagesDomain):
            return
        event.stop()
        project = self.projects.get(domain.project_id or -1)
        if project is None:
            self.notify(f"The project of {domain.domain} cannot be read", severity="warning", markup=False)
            return
        from labdeck.tui.screens.projects.view import ProjectViewScreen

        self.app.push_screen(ProjectViewScreen(project, tab="pages", now=self.now))


def _soonest(domain: PagesDomain) -> tuple[float, str]:
    not_after = domain.not_after
    return (not_after.timestamp() if not_after else float("inf"), domain.domain)


def open_pages_admin(request: AreaRequest) -> PagesAdminScreen:
    """The area factory (`:pages`)."""
    return PagesAdminScreen()
