"""The group deployments board's reads (issue 26): a group's projects (subgroups included), then each
project's environments and, when it has some, its deployments of the last 30 days.

The fan-out runs as many workers as the client has concurrency slots, each taking the next project and
reading its two lists one after the other: every slot stays busy, and the first projects are complete
after about three round trips instead of after every project's first request. Every list goes through
the client's list cache with parameters that stay the same all day (the window starts at midnight UTC),
so a refresh within the TTL costs no request; `refresh=True` reads everything again. A project without
environments costs one request and is folded away; a project that answers an error (403, 404, ...) is
named in `unreadable`, never counted as one without environments, and the board goes on without it.
The deployments that failed in the last 24 hours are counted by `domain.deploy_failures`, as the
overview counts them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.deployments import DeploymentsService
from labdeck.api.errors import ApiError, LabdeckError
from labdeck.api.groups import GroupRef, GroupsService, ProjectQuery
from labdeck.api.models.deployments import DeploymentRow
from labdeck.api.models.projects import Project
from labdeck.domain.deploy_board import (
    WINDOW_DAYS,
    Board,
    BoardRow,
    DeployRecord,
    ProjectDeploys,
    project_rows,
    sort_rows,
)
from labdeck.domain.deploy_failures import Coverage, FailureWindow
from labdeck.domain.text import sanitize

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The projects a board covers: the group's own and its subgroups' (not shared ones, not archived ones).
BOARD_PROJECTS = ProjectQuery(include_subgroups=True, with_shared=False, archived=False, order_by="path",
                              sort="asc")


@dataclass(frozen=True)
class Unreadable:
    """A project whose environments or deployments could not be read, and why."""

    project: str
    status: int | None
    message: str


@dataclass(frozen=True)
class FailedRecord:
    """A deployment that failed in the board's window, and its project's path."""

    project: str
    deployment: DeployRecord


@dataclass
class BoardRead:
    """The board, the projects that could not be read (never counted as without environments), how many
    projects the group has, and the deployments that failed in `window` (`deploy_failures`: the figure the
    overview counts too), newest first."""

    board: Board
    unreadable: list[Unreadable] = field(default_factory=list)
    projects: int = 0
    window: FailureWindow | None = None
    failed: list[FailedRecord] = field(default_factory=list)

    def coverage(self) -> Coverage:
        """What the board's figures cover: the group's projects, those unreadable named."""
        unreadable = [u.project for u in self.unreadable]
        return Coverage(self.projects - len(unreadable), self.projects, unreadable)


# Called after each project with its rows (none when it has no environment or could not be read), how
# many projects are done and how many there are.
OnRows = Callable[[list[BoardRow], int, int], None]


def window_start(now: datetime, days: int = WINDOW_DAYS) -> datetime:
    """Midnight UTC `days` days before `now`'s day: the same all day, so the cache keys are too."""
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=days)


def path_of(project: Project) -> str:
    return project.path_with_namespace or str(project.id)


def record_of(row: DeploymentRow) -> DeployRecord:
    user = (row.user.username or row.user.name or "") if row.user is not None else ""
    return DeployRecord(id=row.id, environment=row.environment.name if row.environment else "",
                        status=row.status, ref=row.ref, sha=row.sha, user=user or "",
                        created_at=row.created_at or EPOCH, updated_at=row.updated_at)


class DeployBoardService:
    """Reads a group's deployments board."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self.groups = GroupsService(client)
        self.deployments = DeploymentsService(client)

    async def projects(self, group: GroupRef, *, refresh: bool = False) -> list[Project]:
        """The group's own projects and its subgroups' (not shared ones, not archived ones)."""
        return await self.groups.projects(group, BOARD_PROJECTS, refresh=refresh)

    def projects_cached(self, group: GroupRef) -> bool:
        """Whether the cache holds `projects(group)` fresh (reading it costs no request)."""
        hit = b.GROUP_PROJECTS.cached(self.client, group, params=BOARD_PROJECTS.params(shared=False))
        return hit is not None and hit[1]

    async def project(self, project: Project, since: datetime, *, refresh: bool = False) -> ProjectDeploys:
        """One project's environments and, when it has any, its deployments since `since`."""
        path = path_of(project)
        environments = await self.deployments.environments(project.id, refresh=refresh)
        if not environments:
            return ProjectDeploys(project.id, path, ())
        rows = await self.deployments.deployment_rows(project.id, updated_after=since, refresh=refresh)
        return ProjectDeploys(project.id, path, tuple(e.name for e in environments),
                              tuple(record_of(r) for r in rows))

    async def board(self, group: GroupRef, *, now: datetime | None = None, refresh: bool = False,
                    on_rows: OnRows | None = None) -> BoardRead:
        """The whole board of `group` at `now` (default: the instance's time, as its answers tell it)."""
        now = now or self.deployments.client.server_time.now()
        since = window_start(now)
        window = FailureWindow(now)
        projects = await self.projects(group, refresh=refresh)
        results: dict[int, list[BoardRow]] = {}  # project id -> its rows (computed once, as it arrives)
        empty: list[str] = []
        unreadable: list[Unreadable] = []
        failed: list[FailedRecord] = []
        queue = iter(projects)
        done = 0

        async def worker() -> None:
            nonlocal done
            for project in queue:
                path = path_of(project)
                rows: list[BoardRow] = []
                try:
                    deploys = await self.project(project, since, refresh=refresh)
                except LabdeckError as exc:
                    if isinstance(exc, ApiError):
                        unreadable.append(Unreadable(path, exc.status, exc.status_line()[:200]))
                    else:
                        unreadable.append(Unreadable(path, None, sanitize(str(exc))[:200]))
                else:
                    rows = project_rows(deploys, now) if deploys.environments else []
                    failed.extend(FailedRecord(path, d) for d in window.failed(deploys.deployments))
                    if deploys.environments:
                        results[project.id] = rows
                    else:  # read, and it has none (a project that could not be read is unreadable)
                        empty.append(path)
                done += 1
                if on_rows is not None:
                    on_rows(rows, done, len(projects))

        slots = max(1, min(self.client.settings.concurrency, len(projects)))
        await asyncio.gather(*(worker() for _ in range(slots)))
        unreadable.sort(key=lambda u: u.project)
        everything = [row for p in projects for row in results.get(p.id, ())]
        folded = set(empty)
        without = [path for path in map(path_of, projects) if path in folded]  # in the listing's order
        failed.sort(key=lambda f: (f.deployment.updated_at or EPOCH, f.deployment.id), reverse=True)
        return BoardRead(Board(sort_rows(everything), without), unreadable, len(projects), window, failed)
