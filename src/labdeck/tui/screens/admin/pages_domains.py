"""`:pages` (administrators): every Pages domain of the instance (`PagesDomainsService.all_domains()`) with
its project id and certificate expiry (expired in red, expiring within 30 days in yellow), soonest expiry
first. A refusal (403 for a non-administrator) is shown with its status and message, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from labdeck.api.errors import LabdeckError
from labdeck.api.models.project_resources import PagesDomain
from labdeck.tui.areas import AreaRequest
from labdeck.tui.errors import describe_error
from labdeck.tui.screens.base import StatusTableScreen
from labdeck.tui.screens.projects.pages import DOMAIN_COLUMNS, domain_cells, domain_detail, pages_service
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

Now = Callable[[], datetime]
COLUMNS = [Column("project", "Project id", width=10, align="right", sort_key=lambda d: d.project_id or 0),
           *DOMAIN_COLUMNS]


class PagesAdminScreen(StatusTableScreen):
    AREA = "pages"
    TITLE = "Pages domains"
    VIEW_ID = "pages-admin-view"
    STATUS_ID = "pages-admin-status"

    def __init__(self, *, now: Now | None = None) -> None:
        super().__init__()
        self.now: Now = now or (lambda: datetime.now(UTC))
        domain_row = domain_cells(lambda: self.now())
        self.cells: Callable[[PagesDomain], tuple[Text, ...]] = \
            lambda d: (Text(str(d.project_id or "")), *domain_row(d))

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Every Pages domain of the instance (administrators)", style="dim"),
                     id="pages-admin-status")
        yield ResourceView(COLUMNS, cells=self.cells, row_key=lambda d: (d.project_id, d.domain),
                           detail=domain_detail, empty_text="No Pages domains", id="pages-admin-view")

    @work(exclusive=True, group="pages-admin")
    async def load(self, refresh: bool = False) -> None:
        service = pages_service(self)
        if service is None:
            return
        try:
            domains = await service.all_domains(refresh=refresh)
        except LabdeckError as error:
            self.show_refusal(describe_error(error))
            return
        now = self.now()
        expired = sum(1 for d in domains if d.expiry_state(now) == "expired")
        soon = sum(1 for d in domains if d.expiry_state(now) == "soon")
        self.table.set_rows(sorted(domains, key=_soonest))
        self.show_status(f"{len(domains)} domain(s): {expired} expired, {soon} expiring within 30 days")
        self.mark_data_loaded()


def _soonest(domain: PagesDomain) -> tuple[float, str]:
    not_after = domain.certificate.not_after if domain.certificate else None
    return (not_after.timestamp() if not_after else float("inf"), domain.domain)


def open_pages_admin(request: AreaRequest) -> PagesAdminScreen:
    """The area factory (`:pages`)."""
    return PagesAdminScreen()
