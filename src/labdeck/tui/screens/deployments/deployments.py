"""`:deployments`: the deployments of one project, with a timeline per environment.

- Type a project path (`f`) and press enter (or open with an `AreaRequest` scope/query); a group's path
  opens the group's board (`board.py`).
- Environment, status and sort selects filter and order on the server; `/` filters locally; rows are
  coloured by status; `d` shows the detail pane, `enter` opens the detail with the shipped merge requests.
- The timeline (`t` hides it): deployments per day over 90 days as a `Sparkline` per environment, with the
  success rate and the last successful deployment of each.
- `n` creates a deployment record, `c` changes a deployment's status (only valid statuses are offered;
  deployments run by CI cannot be changed through the API), `p` opens the protected environments.

Mutating actions are hidden in read-only mode. Server text is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Select, Sparkline, Static

from labdeck.api.deployments import DeploymentsService
from labdeck.api.errors import ApiError, NotFound
from labdeck.api.models.deployments import Deployment, Environment
from labdeck.domain.deployments import LISTABLE_STATUSES, EnvironmentSummary, summarise
from labdeck.domain.features import PROTECTED_ENVIRONMENTS
from labdeck.tui.areas import AreaRequest
from labdeck.tui.clock import Today, today_of
from labdeck.tui.screens.base import ScopedScreen
from labdeck.tui.screens.deployments.dialogs import (
    CreateDeploymentDialog,
    DeploymentDetailScreen,
    NewDeployment,
    StatusDialog,
    deployment_detail,
    status_text,
)
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.path_input import PathInput
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

TIMELINE_DAYS = 90
# how far before sending a new deployment the re-read after a lost answer looks (clocks differ)
CLOCK_SKEW = timedelta(minutes=10)
SORTS: list[tuple[str, str]] = [("Newest first", "id:desc"), ("Oldest first", "id:asc"),
                                ("Recently updated", "updated_at:desc"), ("Ref", "ref:asc")]


def _stamp(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else ""


def _job_name(d: Deployment) -> str:
    return d.deployable.name if d.deployable is not None and d.deployable.name else "—"


COLUMNS = [
    Column("iid", "#", width=6, priority=7, align="right", sort_key=lambda d: d.iid or d.id,
           text=lambda d: Text(str(d.iid or d.id)), data=lambda d: d.iid),
    Column("environment", "Environment", min_width=14, priority=10, text=lambda d: Text(d.environment_name),
           data=lambda d: d.environment_name or None),
    Column("status", "Status", width=9, priority=9, text=lambda d: status_text(d.status),
           data=lambda d: d.status),
    Column("ref", "Ref", min_width=10, priority=6, text=lambda d: Text(d.ref), data=lambda d: d.ref),
    Column("sha", "SHA", width=8, priority=3, text=lambda d: Text(d.sha[:8], style="dim"),
           data=lambda d: d.sha),  # the whole SHA
    Column("user", "User", min_width=8, priority=4,
           text=lambda d: Text((d.user.username or "") if d.user else ""),
           data=lambda d: d.user.username if d.user else None),
    Column("created", "Created", width=16, priority=8,
           sort_key=lambda d: d.created_at.timestamp() if d.created_at else 0,
           text=lambda d: Text(_stamp(d.created_at)), data=lambda d: d.created_at),
    Column("job", "Job", min_width=10, priority=2, text=lambda d: Text(_job_name(d), style="dim"),
           data=lambda d: d.deployable.name if d.deployable is not None else None),
]


def _ago(moment: datetime | None, today: date) -> str:
    if moment is None:
        return "never"
    days = (today - moment.date()).days
    return "today" if days <= 0 else f"{days}d ago"


def summary_text(summary: EnvironmentSummary, today: date) -> Text:
    rate = summary.success_rate
    out = Text(f"{summary.total:>4} deploy{'' if summary.total == 1 else 's'}  ")
    out.append("—" if rate is None else f"{rate:4.0%} ok",
               style="" if rate is None else "green" if rate >= 0.9 else "yellow" if rate >= 0.7 else "red")
    out.append("  last success ", style="dim")
    out.append(_ago(summary.last_success, today))
    if summary.last_success_ref:
        out.append(f" ({summary.last_success_ref})", style="dim")
    return out


class DeploymentsScreen(ScopedScreen):
    FOOTER_PANES = {
        "deployments-view": ("select", "set_status", "new_deployment", "toggle_timeline", "protected",
                             "scope", *LIST_KEYS),
        "deployments-filters": ("show_overlay", "new_deployment", "toggle_timeline", "protected", "scope"),
        "": ("scope", "new_deployment"),
    }
    AREA = "deployments"
    TITLE = "Deployments"
    CSS_PATH = "deployments.tcss"
    SCOPE_INPUT = "deployments-scope"
    MUTATING_ACTIONS = frozenset({"new_deployment", "set_status"})
    ROW_ACTIONS = frozenset({"set_status"})
    FEATURE_ACTIONS = {"protected": PROTECTED_ENVIRONMENTS}
    BINDINGS = [
        Binding("f", "scope", "Project", id="deployments.scope"),
        Binding("t", "toggle_timeline", "Timeline", id="deployments.timeline"),
        Binding("n", "new_deployment", "New", id="deployments.new"),
        Binding("c", "set_status", "Change status", id="deployments.status"),
        Binding("p", "protected", "Protected envs", id="deployments.protected"),
    ]

    def __init__(self, request: AreaRequest | None = None, *, today: Today | None = None) -> None:
        super().__init__(request)
        self.today = today_of(self, today)
        self.history: list[Deployment] = []
        self.environments: list[Environment] = []
        self.summaries: list[EnvironmentSummary] = []

    def compose_body(self) -> ComposeResult:
        yield LabelledField("Project", PathInput(self.scope, placeholder="e.g. acme/platform/api-gateway",
                                                 id="deployments-scope"), id="deployments-scope-field")
        with Horizontal(id="deployments-filters"):
            yield Select[str]([], prompt="all environments", id="deployments-environment")
            yield Select[str]([(s, s) for s in LISTABLE_STATUSES], prompt="any status",
                              id="deployments-status")
            yield Select[str](SORTS, value="id:desc", allow_blank=False, id="deployments-sort")
        yield Vertical(id="deployments-timeline")
        yield ResourceView(COLUMNS, row_key=lambda d: d.id, detail=deployment_detail,
                           empty_text="No deployments", id="deployments-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#deployments-view", ResourceView).table

    def load_scope(self) -> None:
        self.load_all()

    def refresh_data(self) -> None:
        self.load_all(refresh=True)

    def action_toggle_timeline(self) -> None:
        self.query_one("#deployments-timeline").toggle_class("-hidden")

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id in ("deployments-environment", "deployments-status", "deployments-sort"):
            event.stop()
            if self.scope and self.is_mounted:
                self.load_table(to_top=True)

    # -- filters --------------------------------------------------------------------------------------
    def _select(self, name: str) -> str | None:
        value = self.query_one(f"#deployments-{name}", Select).value
        return value if isinstance(value, str) else None

    def filters(self) -> dict[str, str | None]:
        order_by, _, sort = (self._select("sort") or "id:desc").partition(":")
        return {"environment": self._select("environment"), "status": self._select("status"),
                "order_by": order_by, "sort": sort}

    # -- loading --------------------------------------------------------------------------------------
    @work(exclusive=True, group="deployments-all")
    async def load_all(self, refresh: bool = False) -> None:
        """The whole history (timeline, environment choices), then the filtered table."""
        if not self.scope:
            return
        service = self.ctx.services.deployments
        self.table.loading_more = True
        try:
            self.history = await service.deployments(self.scope, refresh=refresh)
        except NotFound:  # not a project: a group's path opens its board
            from labdeck.tui.screens.deployments.board import open_group_board

            if await open_group_board(self, self.scope):
                return
            raise
        finally:
            self.table.loading_more = False
        self.ctx.note_project(self.scope, self.scope)  # the overview follows its failed deployments
        try:
            self.environments = await service.environments(self.scope, refresh=refresh)
        except ApiError:  # environments hidden from this user: the history still names them
            self.environments = []
        self.update_environments()
        await self.update_timeline()
        await self._fill_table(service, refresh)

    @work(exclusive=True, group="deployments-table")
    async def load_table(self, refresh: bool = False, to_top: bool = False) -> None:
        """The table for the current filters (a filter or sort change puts the cursor on the first row)."""
        if self.scope:
            await self._fill_table(self.ctx.services.deployments, refresh)
            if to_top and self.table.rows:
                self.table.move_cursor(0)

    async def _fill_table(self, service: DeploymentsService, refresh: bool) -> None:
        f = self.filters()
        rows = await service.deployments(self.scope, environment=f["environment"], status=f["status"],
                                         order_by=f["order_by"] or "id", sort=f["sort"] or "asc",
                                         refresh=refresh)
        self.table.set_rows(rows)
        self.mark_data_loaded()

    def update_environments(self) -> None:
        select = self.query_one("#deployments-environment", Select)
        names = sorted({d.environment_name for d in self.history if d.environment_name}
                       | {e.name for e in self.environments})
        current = select.value
        with select.prevent(Select.Changed):
            select.set_options([(Text(name), name) for name in names])  # server text: never markup
            if isinstance(current, str) and current in names:
                select.value = current

    async def update_timeline(self) -> None:
        facts = [fact for d in self.history if (fact := d.fact()) is not None]
        today = self.today()
        order = {"production": 0, "staging": 1}
        self.summaries = sorted(summarise(facts, today, TIMELINE_DAYS),
                                key=lambda s: (order.get(s.environment, 2), -s.total, s.environment))
        box = self.query_one("#deployments-timeline", Vertical)
        await box.remove_children()
        stopped = {e.name for e in self.environments if e.state == "stopped"}
        rows: list[Widget] = [Static(Text(f"Deployments per day, last {TIMELINE_DAYS} days", style="dim"),
                                     id="timeline-title")] if self.summaries else []
        for index, summary in enumerate(self.summaries):
            name = Text(summary.environment, no_wrap=True, overflow="ellipsis",
                        style="dim" if summary.environment in stopped else "")
            rows.append(Horizontal(
                Static(name, classes="timeline-name"),
                Sparkline(list(summary.per_day), summary_function=max, classes="timeline-spark"),
                Static(summary_text(summary, today), classes="timeline-summary"),
                id=f"timeline-{index}", classes="timeline-row"))
        if rows:
            await box.mount_all(rows)

    # -- actions --------------------------------------------------------------------------------------
    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, Deployment):
            event.stop()
            self.open_detail(event.row)

    def open_detail(self, deployment: Deployment) -> None:
        ctx, scope = self.ctx, self.scope  # the services are read when the detail reads, in its worker
        self.app.push_screen(DeploymentDetailScreen(
            deployment, lambda: ctx.services.deployments.merge_requests(scope, deployment.id)))

    def action_set_status(self) -> None:
        deployment = self.table.cursor_row
        if not isinstance(deployment, Deployment):
            return
        if deployment.deployable is not None:
            self.notify("This deployment was run by a CI job; GitLab does not let the API change its status",
                        severity="warning", markup=False)
            return

        service, scope = self.ctx.services.deployments, self.scope

        async def is_set(status: str) -> bool:  # after a lost answer: read the deployment again
            return (await service.deployment(scope, deployment.id)).status == status

        def changed(updated: Deployment | None) -> None:
            if isinstance(updated, Deployment):
                self.notify(f"Deployment #{updated.iid or updated.id} is now {updated.status}", markup=False)
                self.load_all(refresh=True)

        open_write_form(self, StatusDialog(deployment), lambda status: service.set_status(
            scope, deployment.id, status), verify=is_set, row=deployment, done=changed,
                        refresh=self._reload_all)

    def _reload_all(self) -> None:
        if is_live(self):
            self.load_all(refresh=True)

    def action_new_deployment(self) -> None:
        if not self.scope:
            return

        service, scope = self.ctx.services.deployments, self.scope

        seen: dict[str, Any] = {}  # the environment's recent deployments just before sending

        async def recent(value: NewDeployment, since: datetime) -> list[Deployment]:
            return await service.deployments(scope, environment=value.environment, order_by="updated_at",
                                             updated_after=since, refresh=True)

        async def create(value: NewDeployment) -> Any:
            since = self.ctx.now() - CLOCK_SKEW
            seen.update(since=since, ids={d.id for d in await recent(value, since)})
            return await service.create_deployment(scope, environment=value.environment, sha=value.sha,
                                                   ref=value.ref, tag=value.tag, status=value.status)

        async def recorded(value: NewDeployment) -> bool:  # a new one of that ref and commit since then?
            return "ids" in seen and any(
                d.id not in seen["ids"] and d.ref == value.ref and d.sha.startswith(value.sha)
                for d in await recent(value, seen["since"]))

        def created(made: Any) -> None:
            if made is not None:
                self.notify(f"Deployment #{made.iid or made.id} recorded ({made.status})", markup=False)
                self.load_all(refresh=True)

        # the dialog sends it and stays open (input kept) until it is recorded (`WriteForm`)
        open_write_form(self, CreateDeploymentDialog(self._select("environment") or ""), create,
                        verify=recorded, row=None, done=created, refresh=self._reload_all)

    def action_protected(self) -> None:
        if not self.scope:
            return
        from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen

        names = [e.name for e in self.environments] or [s.environment for s in self.summaries]
        self.app.push_screen(ProtectedEnvironmentsScreen(self.scope, environments=names))


def open_deployments(request: AreaRequest) -> DeploymentsScreen:
    """The area factory (`:deployments`)."""
    return DeploymentsScreen(request)
