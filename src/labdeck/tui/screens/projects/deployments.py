"""The project view's Deployments tab, a pane of the kit: the project's environments (tier, state, and the
figures of the last 90 days that `:deployments` draws in its timeline: deployments, success rate, last
success) above its deployments, drawn as `:deployments` draws them (its columns, colours and detail).

- `enter` on an environment lists only its deployments (the server filters; `enter` on it again lists
  them all); `enter` on a deployment opens its detail with the merge requests it shipped.
- `p` opens the protected environments of the project (`deployments.protected_environments`).
- `D` opens `:deployments` on this project, where deployments are recorded (`n`) and their status
  changed (`c`).

Environment names are server text: shown as `Text`, sent as a query parameter, and put in a path only by
the services, through the one segment encoder (an environment named `..` stays a name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from labdeck.api.errors import ApiError
from labdeck.api.models.deployments import Deployment, Environment
from labdeck.api.models.projects import Project
from labdeck.domain.deployments import EnvironmentSummary, summarise
from labdeck.domain.features import PROTECTED_ENVIRONMENTS
from labdeck.tui.areas import AreaRequest
from labdeck.tui.clock import Today, today_of
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import LoadedPane
from labdeck.tui.screens.deployments.deployments import (
    COLUMNS,
    TIMELINE_DAYS,
    summary_text,
)
from labdeck.tui.screens.deployments.dialogs import DeploymentDetailScreen, deployment_detail
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column

if TYPE_CHECKING:
    from labdeck.api.services import Services


def _dim(env: Environment) -> str:
    return "dim" if env.state == "stopped" else ""


def environment_columns(figures: Callable[[Environment], Text],
                        summary: Callable[[Environment], EnvironmentSummary | None] = lambda _e: None,
                        ) -> list[Column]:
    """The environments' columns; `figures(env)` draws the last days' deployments of one, `summary(env)`
    gives their figures (exported: deployments, success rate, last success)."""
    def field(name: str) -> Callable[[Environment], object]:
        return lambda e: getattr(summary(e), name, None)

    return [
        Column("name", "Environment", min_width=16, text=lambda e: Text(e.name, style=_dim(e)),
               data=lambda e: e.name),
        Column("tier", "Tier", width=12, text=lambda e: Text(e.tier or ""), data=lambda e: e.tier),
        Column("state", "State", width=9, text=lambda e: Text(e.state or "", style=_dim(e)),
               data=lambda e: e.state),
        Column("figures", f"Last {TIMELINE_DAYS} days", min_width=30, sort_key=lambda e: e.name,
               text=figures, data=lambda e: getattr(summary(e), "total", 0),  # deployments in the window
               extra_data=(("success_rate", field("success_rate")), ("last_success", field("last_success")),
                           ("last_success_ref", field("last_success_ref")))),
    ]


def environment_detail(env: Environment) -> Text:
    return append_fields(Text(env.name, style="bold"), (
        ("tier", env.tier or ""), ("state", env.state or ""), ("url", env.external_url or ""),
        ("slug", env.slug or "")), width=6)


@dataclass(frozen=True)
class DeploymentsRead:
    """What the tab shows: the environments, their figures over the whole history, the deployments listed."""

    environments: list[Environment]
    summaries: dict[str, EnvironmentSummary]
    deployments: list[Deployment]


class ProjectDeploymentsTab(LoadedPane[DeploymentsRead]):
    READ_WHEN_SHOWN = True  # a history can be long: read when the tab is first shown, not with the view
    ACTIONS = (
        Shown("select"),
        Action("p", "protected", "Protected envs", id="project_deployments.protected",
               feature=PROTECTED_ENVIRONMENTS, footer=True),
        Action("D", "open_in_deployments", "In :deployments", id="project_deployments.open", footer=True),
        *shown(TAB_KEYS),
        *shown(LIST_KEYS),
    )
    DEFAULT_CSS = """
    ProjectDeploymentsTab { height: 1fr; }
    ProjectDeploymentsTab #project-environments-view { height: 9; }
    ProjectDeploymentsTab #project-deployments-title { height: 1; }
    ProjectDeploymentsTab #project-deployments-view { height: 1fr; }
    """

    def __init__(self, project: Project, *, now: Callable[[], datetime] | None = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = project_owner(project)
        self.project = project
        self.today: Today = today_of(self, (lambda: now().date()) if now is not None else None)
        self.environment: str | None = None  # the environment whose deployments are listed (None: all)
        self.summaries: dict[str, EnvironmentSummary] = {}

    @property
    def path(self) -> str:
        return self.owner.where

    def compose(self) -> ComposeResult:
        columns = environment_columns(self.figures, lambda e: self.summaries.get(e.name))
        yield ResourceView(columns, row_key=lambda e: e.id,
                           detail=environment_detail, empty_text="No environments",
                           id="project-environments-view")
        yield Static("", markup=False, id="project-deployments-title")
        yield ResourceView(COLUMNS, row_key=lambda d: d.id, detail=deployment_detail,
                           empty_text="No deployments", id="project-deployments-view")

    @property
    def environments_table(self) -> ResourceTable:
        return self.query_one("#project-environments-view", ResourceView).table

    @property
    def deployments_table(self) -> ResourceTable:
        return self.query_one("#project-deployments-view", ResourceView).table

    def figures(self, env: Environment) -> Text:
        summary = self.summaries.get(env.name)
        return summary_text(summary, self.today()) if summary else Text("no deployments", style="dim")

    async def read(self, services: Services, refresh: bool) -> DeploymentsRead:
        """The whole history (the environments' figures), the environments, then the deployments listed."""
        service, project = services.deployments, self.project.id
        history = await service.deployments(project, refresh=refresh)
        try:
            environments = await service.environments(project, refresh=refresh)
        except ApiError:  # environments hidden from this user: the history still names them
            environments = []
        facts = [fact for d in history if (fact := d.fact()) is not None]
        summaries = {s.environment: s for s in summarise(facts, self.today(), TIMELINE_DAYS)}
        return DeploymentsRead(environments, summaries, await self.listed(services, refresh))

    def show_loading(self, loading: bool) -> None:
        self.deployments_table.loading_more = loading

    def show_reason(self, text: str) -> None:
        self.deployments_table.show_load_error(text)

    def show_data(self, data: DeploymentsRead) -> None:
        self.summaries = data.summaries
        self.environments_table.set_rows(data.environments)
        self.show_deployments(data.deployments)

    async def listed(self, services: Services, refresh: bool = False) -> list[Deployment]:
        """The deployments of the environment chosen (all of them when none is), newest first."""
        return await services.deployments.deployments(
            self.project.id, environment=self.environment, order_by="id", sort="desc", refresh=refresh)

    def show_deployments(self, rows: list[Deployment]) -> None:
        title = Text("Deployments", style="bold")
        if self.environment is not None:
            title.append(" of ")
            title.append(self.environment, style="bold")
            title.append("  (enter on it again: every environment)", style="dim")
        self.query_one("#project-deployments-title", Static).update(title)
        self.deployments_table.set_rows(rows)

    @work(exclusive=True, group="pane-load")
    async def choose_environment(self, name: str | None) -> None:
        self.environment = name
        self.show_deployments(await self.listed(self.ctx.services))

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, Environment):
            event.stop()
            self.choose_environment(None if event.row.name == self.environment else event.row.name)
        elif isinstance(event.row, Deployment):
            event.stop()
            self.open_detail(event.row)

    def open_detail(self, deployment: Deployment) -> None:
        ctx, project = self.ctx, self.project.id  # the services are read when the detail reads, in its worker
        self.app.push_screen(DeploymentDetailScreen(
            deployment, lambda: ctx.services.deployments.merge_requests(project, deployment.id)))

    def action_protected(self) -> None:
        from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen

        names = [env.name for env in self.environments_table.rows if isinstance(env, Environment)]
        self.app.push_screen(ProtectedEnvironmentsScreen(self.path, environments=names))

    def action_open_in_deployments(self) -> None:
        self.ctx.open_area("deployments", AreaRequest(scope=self.path))
