"""The group deployments board (issue 26): `:deployments` given a group path opens this screen.

One row per project and environment (review apps folded by folder) with the newest deployment's status,
age, deployments per day (a sparkline of the last 14 days; the detail pane has 30), success rates over 7
and 30 days, drift from production, ref, short SHA and who deployed; rows whose newest deployment failed
in the last 24 hours come first. Rows paint as projects arrive. `enter` opens the project's deployments,
the environment, status and age fields filter, `ctrl+e` exports (the shared list export), `W` watches
(the shared watch mode: changed rows lit), `r` reads everything again. The status line counts the
deployments that failed in the last 24 hours (`domain.deploy_failures`, as the overview counts them for
this group); projects that could not be read are named there, projects without environments are folded
away and counted. Opening a board makes the overview follow the group's failed deployments.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Select, Static

from labdeck.api.deploy_board import BoardRead
from labdeck.api.errors import ApiError, LabdeckError
from labdeck.domain.deploy_board import (
    BoardRow,
    age_text,
    matches,
    rate_text,
    sort_rows,
    sparkline,
)
from labdeck.domain.deployments import LISTABLE_STATUSES
from labdeck.tui.areas import AreaRequest
from labdeck.tui.jobs import counted
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.deployments.dialogs import status_text
from labdeck.tui.textual_internals import screen_stacks
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

SPARK_DAYS = 14
PAINT_EVERY = 1.0  # seconds between repaints while projects arrive (the first rows paint at once)
AGES: list[tuple[str, str]] = [("last hour", "1"), ("last 24 hours", "24"), ("last 7 days", "168"),
                               ("last 30 days", "720")]
DRIFT_STYLES = {"same": "green", "ahead": "yellow", "behind": "magenta", "differs": "red"}


def drift_text(row: BoardRow) -> Text:
    d = row.drift
    if d is None:
        return Text("")
    short = {"same": "= prod", "ahead": f"+{d.count} ahead", "behind": f"-{d.count} behind",
             "differs": "≠ prod"}[d.kind]
    return Text(short, style=DRIFT_STYLES[d.kind])


def _rate(rate: float | None) -> Text:
    style = "" if rate is None else "green" if rate >= 0.9 else "yellow" if rate >= 0.7 else "red"
    return Text(rate_text(rate), style=style)


def environment_label(row: BoardRow) -> str:
    folded = row.environment.endswith("/*")
    return f"{row.environment} ({len(row.environments)})" if folded else row.environment


def _status(row: BoardRow) -> Text:
    status = status_text(row.status) if row.last else Text("none in 30d", style="dim")
    if row.failed_recently:
        status.stylize("bold")
    return status


def _age_key(row: BoardRow) -> float:
    return row.age.total_seconds() if row.age is not None else float("inf")


def board_columns(group: str = "") -> list[Column]:
    """The board's columns; the project's path is shown below `group` (the board's own group)."""
    return [
        Column("project", "Project", min_width=16, priority=10,
               text=lambda r: Text(r.project.removeprefix(f"{group}/") if group else r.project),
               data=lambda r: r.project),  # the whole path
        Column("environment", "Environment", min_width=10, priority=9,
               text=lambda r: Text(environment_label(r)), data=lambda r: r.environment,
               extra_data=(("environments", lambda r: list(r.environments)),)),
        Column("status", "Status", width=9, priority=8, text=_status, data=lambda r: r.status or None,
               extra_data=(("failed_in_24h", lambda r: r.failed_recently),)),
        Column("age", "Age", width=4, priority=7, align="right", sort_key=_age_key,
               text=lambda r: Text(age_text(r.age)),
               data=lambda r: r.last.created_at if r.last else None),  # when, not how long ago
        Column("per_day", f"{SPARK_DAYS} days", width=SPARK_DAYS, priority=6,
               sort_key=lambda r: sum(r.per_day),
               text=lambda r: Text(sparkline(r.per_day[-SPARK_DAYS:]), style="cyan"),
               data=lambda r: list(r.per_day[-SPARK_DAYS:])),  # deployments per day, oldest first
        Column("rate_7", "7d", width=4, priority=3, align="right", sort_key=lambda r: r.rate_7 or -1.0,
               text=lambda r: _rate(r.rate_7), data=lambda r: r.rate_7),
        Column("rate_30", "30d", width=4, priority=1, align="right", sort_key=lambda r: r.rate_30 or -1.0,
               text=lambda r: _rate(r.rate_30), data=lambda r: r.rate_30),
        Column("drift", "Drift", min_width=8, priority=5, text=drift_text,
               data=lambda r: r.drift.kind if r.drift else None,
               extra_data=(("drift_count", lambda r: r.drift.count if r.drift else None),)),
        Column("ref", "Ref", min_width=6, priority=4, text=lambda r: Text(r.last.ref if r.last else ""),
               data=lambda r: r.last.ref if r.last else None),
        Column("sha", "SHA", width=8, priority=2, text=lambda r: Text(r.short_sha, style="dim"),
               data=lambda r: r.last.sha if r.last else None),
        Column("user", "By", min_width=6, priority=2, text=lambda r: Text(r.last.user if r.last else ""),
               data=lambda r: r.last.user if r.last else None),
    ]


def board_detail(row: BoardRow) -> Text:
    out = Text()
    out.append(f"{row.project}\n", style="bold")
    out.append(f"{', '.join(row.environments)}\n\n")
    last = row.last
    if last is None:
        out.append("No deployment in the last 30 days\n", style="dim")
    else:
        out.append("Last deployment  ")
        out.append_text(status_text(last.status))
        out.append(f"\n  {last.ref} {last.sha}\n  by {last.user}, "
                   f"{last.created_at.strftime('%Y-%m-%d %H:%M')} UTC ({age_text(row.age)} ago)\n")
    out.append(f"\nSuccess rate  7 days {rate_text(row.rate_7) or '—'}, "
               f"30 days {rate_text(row.rate_30) or '—'}")
    out.append(f"\nPer day, 30 days ({sum(row.per_day)} deployments)\n")
    out.append(sparkline(row.per_day) or " ", style="cyan")
    if row.drift is not None:
        out.append("\n\nDrift\n", style="bold")
        out.append(row.drift.text(), style=DRIFT_STYLES[row.drift.kind])
        out.append(f"\n  {row.drift.environment}: {row.drift.ref} {row.drift.sha[:8]}"
                   f"\n  production: {row.drift.production_ref} {row.drift.production_sha[:8]}")
    return out


class DeployBoardScreen(LabdeckScreen):
    FOOTER_PANES = {
        "board-view": ("select", "filter_environment", *LIST_KEYS, "export_list"),
        "board-filters": ("focus_table",),
        "": ("focus_table",),
    }
    AREA = "deployments"
    TITLE = "Deployments board"
    CSS_PATH = "board.tcss"
    BINDINGS = [
        Binding("e", "filter_environment", "Filters", id="deployments_board.filters"),
        Binding("ctrl+t", "focus_table", "Table", id="deployments_board.table"),
    ]

    def __init__(self, group: str, *, now: datetime | None = None) -> None:
        super().__init__()
        self.group = group
        self.fixed_now = now
        self.read: BoardRead | None = None
        self.rows: list[BoardRow] = []
        self.progress = ""

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"{self.group}: reading projects…", style="dim"), id="board-status")
        with Horizontal(id="board-filters"):
            yield Input(placeholder="environment", id="board-environment")
            yield Select[str]([(s, s) for s in LISTABLE_STATUSES], prompt="any status", id="board-state")
            yield Select[str](AGES, prompt="any age", id="board-age")
        yield ResourceView(board_columns(self.group), row_key=lambda r: r.key,
                           detail=board_detail, empty_text="No environments yet", id="board-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#board-view", ResourceView).table

    def on_mount(self) -> None:
        self.table.focus()
        self.load()

    def refresh_data(self) -> None:
        self.load(refresh=True)

    def action_filter_environment(self) -> None:
        self.query_one("#board-environment", Input).focus()

    def action_focus_table(self) -> None:
        self.table.focus()

    # -- loading --------------------------------------------------------------------------------------
    @work(exclusive=True, group="deployments-board")
    async def load(self, refresh: bool = False) -> None:
        service = self.ctx.services.deploy_board
        arrived: list[BoardRow] = []
        painted = [0.0]
        incremental = not self.table.rows  # a refresh replaces the rows once (watch mode compares them)

        def on_rows(rows: list[BoardRow], done: int, total: int) -> None:
            arrived.extend(rows)
            self.progress = f"reading {done}/{total} projects"
            now = time.monotonic()
            if incremental and is_live(self) and (now - painted[0] >= PAINT_EVERY or not painted[0]) and rows:
                painted[0] = now
                self.rows = sort_rows(arrived)
                self.apply_filters()
                self.show_status()

        self.table.loading_more = True
        try:
            self.read = await service.board(self.group, now=self.fixed_now, refresh=refresh, on_rows=on_rows)
        except LabdeckError as error:  # the group's projects could not be listed
            self.progress = ""
            text = f"Could not list the projects of {self.group}: {error}"
            self.query_one("#board-status", Static).update(Text(text, style="red"))
            self.table.show_load_error(text)
            self.notify(str(error), title="Deployments board", severity="error", markup=False, timeout=8)
            return
        finally:
            self.table.loading_more = False
        self.progress = ""
        self.rows = self.read.board.rows
        self.ctx.note_group(self.group)  # the overview follows this group's failed deployments
        self.apply_filters()
        self.show_status()
        self.mark_data_loaded()

    def show_status(self) -> None:
        out = Text(f"{self.group}: ", style="bold")
        read = self.read
        if self.progress or read is None:
            out.append(f"{counted(len(self.rows), 'row')}, {self.progress}", style="dim")
        else:
            out.append(f"{read.projects} projects, {len(read.board.rows)} environments")
            if read.window is not None:  # the overview's figure for this group (`deploy_failures`)
                failed = read.window.count_text(len(read.failed))
                out.append(f", {failed}", style="red" if read.failed else "dim")
            if read.board.without_environments:
                out.append(f", {len(read.board.without_environments)} without environments", style="dim")
            if read.unreadable:
                names = ", ".join(f"{u.project} ({u.status or 'error'})" for u in read.unreadable[:3])
                more = f" and {len(read.unreadable) - 3} more" if len(read.unreadable) > 3 else ""
                out.append(f"; unreadable: {names}{more}", style="yellow")
        self.query_one("#board-status", Static).update(out)

    # -- filters --------------------------------------------------------------------------------------
    def _select(self, selector: str) -> str:
        value = self.query_one(selector, Select).value
        return value if isinstance(value, str) else ""

    def apply_filters(self, to_top: bool = False) -> None:
        """Show the rows the filters let through; the cursor stays on the first row while it is there
        (rows arriving above it must not scroll the failures out of view), or goes there (`to_top`)."""
        environment = self.query_one("#board-environment", Input).value.strip()
        status, age = self._select("#board-state"), self._select("#board-age")
        max_age = timedelta(hours=int(age)) if age else None
        at_top = self.table.cursor_index <= 0
        shown = [r for r in self.rows if matches(r, environment=environment, status=status, max_age=max_age)]
        self.table.set_rows(shown)
        if shown and (at_top or to_top):
            self.table.move_cursor(0)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "board-environment":
            event.stop()
            self.apply_filters(to_top=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "board-environment":
            event.stop()
            self.table.focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id in ("board-state", "board-age"):
            event.stop()
            self.apply_filters(to_top=True)

    # -- enter ----------------------------------------------------------------------------------------
    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, BoardRow):
            event.stop()
            from labdeck.tui.screens.deployments.deployments import DeploymentsScreen

            self.app.push_screen(DeploymentsScreen(AreaRequest(scope=event.row.project)))


async def open_group_board(screen: LabdeckScreen, path: str) -> bool:
    """When `path` names a group (it was not a project), open its board over `screen`; False otherwise. A
    board of `path` already over `screen` is kept (it re-reads itself): re-reading the deployments screen
    (`r`, an undo elsewhere) never stacks a second board."""
    if not path:
        return False
    stack = next((s for s in screen_stacks(screen.app).values() if screen in s), [screen])
    if any(isinstance(above, DeployBoardScreen) and above.group == path
           for above in stack[stack.index(screen) + 1:]):
        return True
    try:
        await screen.ctx.services.groups.get_group(path)
    except ApiError:
        return False
    screen.app.push_screen(DeployBoardScreen(path))
    return True
