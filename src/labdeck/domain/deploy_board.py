"""The group deployments board (issue 26): what runs where across many projects, computed from each
project's environments and deployments with an injected `now` (pure; the service reads, the TUI shows).

- One row per project and environment; environments in a folder (`review/fix-login`, `review/dark-mode`)
  fold into one row named `review/*` (GitLab's environment folders: the part before the first `/`).
- A row shows the newest deployment (status, ref, short SHA, who, when, age), the success rate over 7
  and 30 days (successes over finished deployments), deployments per day over 30 days for a sparkline,
  and whether its newest deployment failed in the last 24 hours (those rows come first).
- The board's failure figure is `deploy_failures`' (deployments that failed in the last 24 hours), the
  overview's too; a row's `failed_recently` (its newest deployment failed in the last 24 hours) orders
  the rows.
- Drift: an environment runs the commit of its newest successful deployment. Against production, an
  environment is `same`, `ahead` (production's commit is in its history: how many successful deployments
  it has had since), `behind` (its commit is in production's history: how many production has had since),
  or `differs` (neither history holds the other's commit within the window).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.domain.deployments import FINISHED, per_day

PRODUCTION = "production"
WINDOW_DAYS = 30
RECENT = timedelta(hours=24)
SHORT_SHA = 8
_BLOCKS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class DeployRecord:
    """What the board needs of one deployment."""

    id: int
    environment: str
    status: str
    ref: str
    sha: str
    user: str
    created_at: datetime
    updated_at: datetime | None = None  # when it finished (a failure: when it failed)


@dataclass(frozen=True)
class ProjectDeploys:
    """One project's environment names and deployments (any order)."""

    project_id: int
    path: str
    environments: tuple[str, ...]
    deployments: tuple[DeployRecord, ...] = ()


@dataclass(frozen=True)
class Drift:
    """How an environment's running commit differs from production's."""

    environment: str
    kind: str  # same | ahead | behind | differs
    count: int
    ref: str
    sha: str
    production_ref: str
    production_sha: str

    def text(self) -> str:
        """`staging is 2 deployments ahead of production` and the like."""
        plural = "" if self.count == 1 else "s"
        if self.kind == "same":
            return f"{self.environment} runs what production runs"
        if self.kind in ("ahead", "behind"):
            where = "ahead of" if self.kind == "ahead" else "behind"
            return f"{self.environment} is {self.count} deployment{plural} {where} production"
        return (f"{self.environment} runs {self.ref} {self.sha[:SHORT_SHA]}, production runs "
                f"{self.production_ref} {self.production_sha[:SHORT_SHA]}")


@dataclass(frozen=True)
class BoardRow:
    project_id: int
    project: str
    environment: str  # a name, or `folder/*` for folded environments
    environments: tuple[str, ...]  # the names folded into this row
    last: DeployRecord | None
    age: timedelta | None
    rate_7: float | None
    rate_30: float | None
    per_day: tuple[int, ...]
    failed_recently: bool
    drift: Drift | None = None

    @property
    def status(self) -> str:
        return self.last.status if self.last else ""

    @property
    def short_sha(self) -> str:
        return self.last.sha[:SHORT_SHA] if self.last else ""

    @property
    def key(self) -> str:
        return f"{self.project_id}:{self.environment}"


@dataclass
class Board:
    rows: list[BoardRow] = field(default_factory=list)
    without_environments: list[str] = field(default_factory=list)  # project paths folded away


def row_name(environment: str) -> str:
    """The row an environment belongs to: its folder as `folder/*`, else its own name."""
    folder, slash, _ = environment.partition("/")
    return f"{folder}/*" if slash else environment


def success_rate(records: Iterable[DeployRecord], since: datetime) -> float | None:
    """Successes over finished deployments created at or after `since` (None when none finished)."""
    finished = [r for r in records if r.created_at >= since and r.status in FINISHED]
    return sum(r.status == "success" for r in finished) / len(finished) if finished else None


def _ordered(records: Iterable[DeployRecord]) -> list[DeployRecord]:
    return sorted(records, key=lambda r: (r.created_at, r.id))


def drift(environment: str, records: Sequence[DeployRecord],
          production: Sequence[DeployRecord]) -> Drift | None:
    """How `environment` (its deployments `records`) differs from production; None when either has no
    successful deployment."""
    mine = [r for r in _ordered(records) if r.status == "success"]
    theirs = [r for r in _ordered(production) if r.status == "success"]
    if not mine or not theirs:
        return None
    current, prod = mine[-1], theirs[-1]

    def made(kind: str, count: int) -> Drift:
        return Drift(environment, kind, count, current.ref, current.sha, prod.ref, prod.sha)

    if current.sha == prod.sha:
        return made("same", 0)
    for index in range(len(mine) - 1, -1, -1):
        if mine[index].sha == prod.sha:
            return made("ahead", len(mine) - 1 - index)
    for index in range(len(theirs) - 1, -1, -1):
        if theirs[index].sha == current.sha:
            return made("behind", len(theirs) - 1 - index)
    return made("differs", 0)


def _env_order(name: str) -> tuple[int, str]:
    rank = {PRODUCTION: 0, "staging": 1}.get(name, 3 if name.endswith("/*") else 2)
    return rank, name


def project_rows(project: ProjectDeploys, now: datetime, days: int = WINDOW_DAYS) -> list[BoardRow]:
    """The rows of one project (none when it has no environment)."""
    groups: dict[str, list[str]] = {}
    for name in project.environments:
        groups.setdefault(row_name(name), []).append(name)
    by_env: dict[str, list[DeployRecord]] = {}
    for record in project.deployments:
        by_env.setdefault(record.environment, []).append(record)
    production = by_env.get(PRODUCTION, [])
    rows = []
    for name in sorted(groups, key=_env_order):
        members = tuple(sorted(groups[name]))
        records = _ordered(r for member in members for r in by_env.get(member, []))
        last = records[-1] if records else None
        folded = name.endswith("/*")
        rows.append(BoardRow(
            project_id=project.project_id, project=project.path, environment=name, environments=members,
            last=last, age=now - last.created_at if last else None,
            rate_7=success_rate(records, now - timedelta(days=7)),
            rate_30=success_rate(records, now - timedelta(days=days)),
            per_day=per_day((r.created_at for r in records), now.date(), days),
            failed_recently=last is not None and last.status == "failed" and now - last.created_at <= RECENT,
            drift=None if folded or name == PRODUCTION or PRODUCTION not in groups
            else drift(name, records, production)))
    return rows


def sort_rows(rows: Iterable[BoardRow]) -> list[BoardRow]:
    """Failed in the last 24 hours first (newest failure first), then by project and environment."""
    def key(row: BoardRow) -> tuple[int, float, str, tuple[int, str]]:
        recent = -row.last.created_at.timestamp() if row.failed_recently and row.last else 0.0
        return (0 if row.failed_recently else 1, recent, row.project, _env_order(row.environment))

    return sorted(rows, key=key)


def build_board(projects: Iterable[ProjectDeploys], now: datetime, days: int = WINDOW_DAYS) -> Board:
    """Every project's rows, sorted; projects without environments are named, not shown."""
    board = Board()
    rows: list[BoardRow] = []
    for project in projects:
        if not project.environments:
            board.without_environments.append(project.path)
            continue
        rows.extend(project_rows(project, now, days))
    board.rows = sort_rows(rows)
    return board


def sparkline(values: Sequence[int]) -> str:
    """One block per value, scaled to the largest (a space for zero)."""
    top = max(values, default=0)
    if top <= 0:
        return " " * len(values)
    return "".join(" " if v <= 0 else _BLOCKS[min(len(_BLOCKS) - 1, (v * len(_BLOCKS) - 1) // top)]
                   for v in values)


def rate_text(rate: float | None) -> str:
    return "" if rate is None else f"{round(rate * 100)}%"


def age_text(age: timedelta | None) -> str:
    """`45s`, `12m`, `5h`, `3d`; empty for no age."""
    if age is None:
        return ""
    seconds = max(0, int(age.total_seconds()))
    for size, suffix in ((86_400, "d"), (3_600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{suffix}"
    return f"{seconds}s"


def matches(row: BoardRow, *, environment: str = "", status: str = "",
            max_age: timedelta | None = None) -> bool:
    """The board's filters: environment name (a part of it, any case), status (exact), age (at most)."""
    names = (row.environment, *row.environments)
    if environment and not any(environment.lower() in n.lower() for n in names):
        return False
    if status and row.status != status:
        return False
    return max_age is None or (row.age is not None and row.age <= max_age)
