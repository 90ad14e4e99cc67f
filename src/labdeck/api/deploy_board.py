"""The group deployments board's reads (issue 26): a group's projects (subgroups included), then each
project's environments and, when it has some, its deployments of the last 30 days.

The fan-out runs as many workers as the client has concurrency slots, each taking the next project and
reading its two lists one after the other: every slot stays busy, and the first projects are complete
after about three round trips instead of after every project's first request. Every list goes through
the client's list cache with parameters that stay the same all day (the window starts at midnight UTC),
so a refresh within the TTL costs no request; `refresh=True` reads everything again. A project without
environments costs one request and is folded away; a project that answers an error (403, 404, ...) is
named in `unreadable` and the board goes on without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

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
from labdeck.domain.text import sanitize

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Unreadable:
    """A project whose environments or deployments could not be read, and why."""

    project: str
    status: int | None
    message: str


@dataclass
class BoardRead:
    board: Board
    unreadable: list[Unreadable] = field(default_factory=list)
    projects: int = 0


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
                        created_at=row.created_at or EPOCH)


class DeployBoardService:
    """Reads a group's deployments board."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self.groups = GroupsService(client)
        self.deployments = DeploymentsService(client)

    async def projects(self, group: GroupRef, *, refresh: bool = False) -> list[Project]:
        """The group's own projects and its subgroups' (not shared ones, not archived ones)."""
        query = ProjectQuery(include_subgroups=True, with_shared=False, archived=False, order_by="path",
                             sort="asc")
        return await self.groups.projects(group, query, refresh=refresh)

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
        projects = await self.projects(group, refresh=refresh)
        results: dict[int, list[BoardRow]] = {}  # project id -> its rows (computed once, as it arrives)
        empty: list[str] = []
        unreadable: list[Unreadable] = []
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
                    if deploys.environments:
                        results[project.id] = rows
                    else:
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
        return BoardRead(Board(sort_rows(everything), without), unreadable, len(projects))
