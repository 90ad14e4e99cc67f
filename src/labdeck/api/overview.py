"""The figures of the operator's overview ("what needs me on this instance right now?"), read within a
request budget so that opening labdeck never walks a whole large instance.

Each reader spends at most what is left of the budget (one request is one page) and says whether what it
counted is complete (`UsersFigures.complete`): on an instance with 50,000 users the overview counts the
first pages and says so, and the Users area has the rest. Paths are known here only.

Failed deployments (GitLab has no instance-wide deployments listing: one request per project) are counted
over a stated scope, the groups whose deployments board the operator opened and the projects they opened,
by the definition the board counts by (`domain.deploy_failures`), within a budget of their own; the figure
says how many projects it covers and which could not be read (`FailedDeployments.coverage`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.deploy_board import DeployBoardService, path_of
from labdeck.api.deployments import DeploymentsService
from labdeck.api.errors import LabdeckError
from labdeck.api.models.deployments import Deployment
from labdeck.api.models.moderation import Condition, ModeratedUser
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.pagination import Page
from labdeck.api.users import USERS_PATH, UsersService
from labdeck.domain import catalogue as ep
from labdeck.domain.deploy_failures import Coverage, FailureWindow
from labdeck.domain.endpoints import EndpointPath
from labdeck.domain.moderation import DEFAULT_DORMANT_DAYS

BUDGET = 12  # requests the overview may send in all (its failed-deployments figure has its own)
DEPLOY_BUDGET = 40  # requests the failed-deployments figure may send: group listings, one per project
FOLLOWED_GROUPS = 3  # groups whose boards were opened, newest first
PER_PAGE = 100  # projects per page of a group's listing
USERS_PAGES = 5  # at most 500 users counted on start
DOMAIN_PAGES = 3
RECENT_PROJECTS = 5
SOON_DAYS = 30


class BudgetSpent(LabdeckError):
    """The overview's request budget ran out before this figure could be read."""


@dataclass
class Budget:
    left: int

    def take(self) -> None:
        if self.left <= 0:
            raise BudgetSpent("request budget spent: open the area for the full figure")
        self.left -= 1


@dataclass
class UsersFigures:
    counts: dict[Condition, int] = field(default_factory=dict)
    scanned: int = 0
    total: int | None = None  # every user of the instance, when the server says
    complete: bool = True
    dormant_days: int = DEFAULT_DORMANT_DAYS


@dataclass
class CertificateFigures:
    expired: list[PagesDomain] = field(default_factory=list)
    soon: list[PagesDomain] = field(default_factory=list)
    scanned: int = 0
    complete: bool = True


@dataclass
class FailedDeployment:
    project: str
    deployment: Deployment


@dataclass
class FailedDeployments:
    """The deployments that failed in `window` in the overview's scope: the projects of `groups` and the
    opened `projects` outside them (`total` in all); `read` of them answered, `unreadable` did not (a
    group among them: its projects could not be listed); `count` may exceed `failed` (a project with more
    than a page: the server's total)."""

    window: FailureWindow
    groups: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    failed: list[FailedDeployment] = field(default_factory=list)
    count: int = 0
    read: int = 0
    total: int = 0
    unreadable: list[str] = field(default_factory=list)

    def coverage(self) -> Coverage:
        return Coverage(self.read, self.total, tuple(self.unreadable))


class OverviewService:
    """Reads the overview's figures within `budget` requests in all."""

    def __init__(self, client: ApiClient, *, budget: int = BUDGET, deploy_budget: int = DEPLOY_BUDGET,
                 now: Callable[[], datetime] | None = None) -> None:
        self.client = client
        self.budget = Budget(budget)
        self.deploy_budget = Budget(deploy_budget)
        self.now = now or client.server_time.now  # the instance's time, as its answers tell it

    async def dormant_days(self) -> int:
        """The instance's dormant period (`deactivate_dormant_users_period`), 90 days when unknown."""
        try:
            self.budget.take()
            settings = await self.client.get_json(ep.APPLICATION_SETTINGS.path())
        except LabdeckError:
            return DEFAULT_DORMANT_DAYS
        value = settings.get("deactivate_dormant_users_period") if isinstance(settings, dict) else None
        return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
            else DEFAULT_DORMANT_DAYS

    async def users(self, today: date, dormant_days: int = DEFAULT_DORMANT_DAYS) -> UsersFigures:
        """Users per condition (pending approval, dormant, blocked, banned, ...) in the first pages."""
        figures = UsersFigures(dormant_days=dormant_days)
        users = UsersService(self.client)
        cached = users.cached_users()  # the users view's own list: no request while it is fresh
        found: list[ModeratedUser]
        if cached is not None and cached[1]:
            found = cached[0]
            figures.total = len(found)
        else:
            pages, figures.complete = await self._pages(USERS_PATH, users.list_params(), USERS_PAGES)
            items = [item for page in pages for item in page.items]
            figures.total = next((p.total for p in pages if p.total is not None), None)
            if figures.complete:  # the whole list: the users view will not ask again
                self.client.cache.set(self.client.cache_key(USERS_PATH, users.list_params()), items)
            found = b.USERS.parse_clean(items)
        for user in found:
            figures.scanned += 1
            for condition in user.conditions(today, dormant_days):
                figures.counts[condition] = figures.counts.get(condition, 0) + 1
        return figures

    async def _pages(self, path: EndpointPath, params: dict[str, str] | None,
                     limit: int) -> tuple[list[Page], bool]:
        """The first pages of a list within the budget (at most `limit`), and whether that was all of it."""
        self.budget.take()
        found: list[Page] = []
        async for page in self.client.pages(path, params):
            found.append(page)
            if page.next_url is None:
                return found, True
            if len(found) >= limit or self.budget.left <= 1:
                return found, False
            self.budget.take()
        return found, True

    async def certificates(self) -> CertificateFigures:
        """Pages domains whose certificate expired or expires within 30 days (administrators)."""
        figures = CertificateFigures()
        now = self.now()
        pages, figures.complete = await self._pages(ep.ALL_PAGES_DOMAINS.path(), None, DOMAIN_PAGES)
        for page in pages:
            domains = b.ALL_PAGES_DOMAINS.parse_clean(page.items)
            for domain in domains:
                figures.scanned += 1
                state = domain.expiry_state(now)
                if state == "expired":
                    figures.expired.append(domain)
                elif state == "soon":
                    figures.soon.append(domain)
        return figures

    async def failed_deployments(self, groups: Sequence[str], projects: Iterable[tuple[int | str, str]],
                                 hours: int = 24) -> FailedDeployments:
        """Deployments that failed in the last `hours` (`domain.deploy_failures`, as the deployments board
        counts them) in the projects of `groups` (subgroups included, as their boards list them) and in
        `projects` (recently opened) that are not in those groups, newest first, within the figure's own
        budget (`DEPLOY_BUDGET`: a group listing the cache does not hold costs its pages, each project
        one request); what was not read is said (`FailedDeployments.coverage`)."""
        window = FailureWindow(self.now(), timedelta(hours=hours))
        budget = self.deploy_budget
        targets: dict[str, int | str] = {}  # project path -> id, in the scope's order
        figures = FailedDeployments(window, tuple(groups[:FOLLOWED_GROUPS]))
        board = DeployBoardService(self.client)
        for group in figures.groups:
            cached = board.projects_cached(group)  # the board's own listing, fresh: no request
            try:
                if not cached:
                    budget.take()
                listed = await board.projects(group)
            except LabdeckError:  # the group itself cannot be read: say so, never "none"
                figures.unreadable.append(group)
                continue
            if not cached:  # its further pages
                budget.left = max(0, budget.left - (math.ceil(len(listed) / PER_PAGE) - 1))
            for project in listed:
                targets.setdefault(path_of(project), project.id)
        own = [(pid, path) for pid, path in list(projects)[:RECENT_PROJECTS] if path not in targets]
        figures.projects = tuple(path for _, path in own)
        targets.update((path, pid) for pid, path in own)
        figures.total = len(targets)
        chosen = list(targets.items())[:max(0, budget.left)]
        budget.left -= len(chosen)
        service = DeploymentsService(self.client)

        async def read(path: str, project: int | str) -> None:
            try:
                failed, count = await service.failed(project, window)
            except LabdeckError:
                figures.unreadable.append(path)
                return
            figures.read += 1
            figures.count += count
            figures.failed += [FailedDeployment(path, d) for d in failed]

        await asyncio.gather(*(read(path, project) for path, project in chosen))
        figures.unreadable.sort()
        figures.failed.sort(key=lambda f: (_when(f.deployment), f.deployment.id), reverse=True)
        return figures


def _when(deployment: Deployment) -> float:
    moment = getattr(deployment, "updated_at", None) or getattr(deployment, "created_at", None)
    return moment.timestamp() if isinstance(moment, datetime) else 0.0


def age_text(loaded_at: float | None, now: float | None = None) -> str:
    """`just now`, `3 min ago`, `2 h ago`: how old a figure is."""
    if loaded_at is None:
        return "not loaded"
    seconds = max((now if now is not None else time.time()) - loaded_at, 0)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


def bar(value: int, largest: int, width: int = 12) -> str:
    """A bar of block characters, `value` against `largest`."""
    if largest <= 0 or value <= 0:
        return ""
    cells = max(1, round(width * value / largest))
    return "█" * min(cells, width)
