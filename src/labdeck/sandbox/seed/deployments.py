"""Records and seed data of the deployments area: environments, deployments (with their deployable job,
commit and pipeline), the merge requests each deployment shipped, protected environments, and the groups
a project is shared with (the rule for protected environment groups needs them).

The seed gives demo projects `production`, `staging` and a few `review/*` environments (some stopped) and
about 90 days of history: several deployments a day, mostly successful, some failed or canceled, the newest
staging one still running; production deployments ship merged merge requests. Times are whole milliseconds
so they round-trip through JSON exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from labdeck.domain.deployments import DeployRule
from labdeck.sandbox.seed.git_history import Commit
from labdeck.sandbox.store import Project, Store

if TYPE_CHECKING:
    from labdeck.sandbox.seed import SeedContext

AREA = "deployments"
HISTORY_DAYS = 90
_CORE: dict[str, str] = {  # project path -> production host
    "acme/platform/api-gateway": "gateway.acme.example",
    "acme/platform/web-portal": "portal.acme.example",
    "opensource/labdeck": "labdeck.example.org",
}
_REVIEWS = ("review/fix-login", "review/new-billing", "review/dark-mode", "review/cache-headers")
_SUBJECTS = ("Fix", "Add", "Refactor", "Speed up", "Document", "Harden", "Tidy", "Rework")
_THINGS = ("login flow", "rate limiter", "billing export", "health checks", "retry policy", "dark mode",
           "cache headers", "audit log", "search index", "webhooks", "TLS config", "error pages")


@dataclass(slots=True)
class Environment:
    id: int
    project_id: int
    name: str
    slug: str
    external_url: str | None
    tier: str
    state: str = "available"
    created_at: datetime = datetime(2020, 1, 1)
    updated_at: datetime = datetime(2020, 1, 1)


@dataclass(slots=True)
class Deployable:
    """The CI job that ran the deployment, with its pipeline."""

    id: int
    name: str
    stage: str
    status: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    user_id: int
    commit: Commit
    pipeline_id: int
    coverage: float | None = None


@dataclass(slots=True)
class Deployment:
    id: int
    iid: int
    project_id: int
    environment_id: int
    ref: str
    sha: str
    tag: bool
    status: str
    created_at: datetime
    updated_at: datetime
    user_id: int
    deployable: Deployable | None = None
    merge_request_ids: list[int] = field(default_factory=list)


@dataclass(slots=True)
class MergeRequest:
    id: int
    iid: int
    project_id: int
    title: str
    description: str
    state: str
    source_branch: str
    target_branch: str
    author_id: int
    sha: str
    merge_commit_sha: str | None
    created_at: datetime
    updated_at: datetime
    merged_at: datetime | None


@dataclass(frozen=True)
class StoredRule(DeployRule):
    """A deploy rule or an approval rule as the instance keeps it: with its record's `id` (what a change in
    place names) and, for an approval rule, how many approvals it needs. Compared as the rule it is."""

    id: int = field(default=0, compare=False)
    required_approvals: int | None = field(default=None, compare=False)
    group_inheritance_type: int = field(default=0, compare=False)


def stored(store: Store, rule: DeployRule, required_approvals: int | None = None,
           group_inheritance_type: int = 0) -> StoredRule:
    """`rule` as a new record of `store` (a new id)."""
    return StoredRule(rule.access_level, rule.user_id, rule.group_id, id=store.next_id("protected_rule"),
                      required_approvals=required_approvals, group_inheritance_type=group_inheritance_type)


@dataclass(slots=True)
class ProtectedEnvironment:
    project_id: int
    name: str
    rules: list[StoredRule] = field(default_factory=list)
    approval_rules: list[StoredRule] = field(default_factory=list)
    required_approval_count: int = 0


@dataclass
class DeploymentsData:
    """Everything the area holds; `store.areas["deployments"]`."""

    environments: dict[int, Environment] = field(default_factory=dict)
    deployments: dict[int, Deployment] = field(default_factory=dict)
    merge_requests: dict[int, MergeRequest] = field(default_factory=dict)
    protected: dict[tuple[int, str], ProtectedEnvironment] = field(default_factory=dict)
    _iids: dict[tuple[str, int], int] = field(default_factory=dict)
    _index: dict[str, tuple[tuple[int, int], dict[int, list[int]]]] = field(default_factory=dict)

    def _by_project(self, kind: str, table: dict[int, Any]) -> dict[int, list[int]]:
        """Ids of `table` per project, rebuilt when the table's size or newest id changed (a group's
        board reads hundreds of projects: a scan of every record per request would not do)."""
        stamp = (len(table), max(table, default=0))
        held = self._index.get(kind)
        if held is None or held[0] != stamp:
            index: dict[int, list[int]] = {}
            for key, record in table.items():
                index.setdefault(record.project_id, []).append(key)
            held = self._index[kind] = (stamp, index)
        return held[1]

    def next_iid(self, kind: str, project_id: int) -> int:
        value = self._iids.get((kind, project_id), 0) + 1
        self._iids[(kind, project_id)] = value
        return value

    def environments_of(self, project_id: int) -> list[Environment]:
        ids = self._by_project("environments", self.environments).get(project_id, [])
        return sorted((self.environments[i] for i in ids if i in self.environments), key=lambda e: e.id)

    def environment_named(self, project_id: int, name: str) -> Environment | None:
        return next((e for e in self.environments_of(project_id) if e.name == name), None)

    def deployments_of(self, project_id: int) -> list[Deployment]:
        ids = self._by_project("deployments", self.deployments).get(project_id, [])
        return [self.deployments[i] for i in ids if i in self.deployments]


def deployments_data(store: Store) -> DeploymentsData:
    return store.area(AREA, DeploymentsData)


def slugify(name: str, rng: random.Random | None = None) -> str:
    """GitLab's environment slug: lowercase, non-alphanumerics to `-`, a random suffix when changed."""
    base = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:24] or "env"
    if base == name or rng is None:
        return base
    return f"{base}-{rng.getrandbits(24):06x}"[:31]


def tier_of(name: str) -> str:
    """GitLab's guess of an environment's tier from its name."""
    lowered = name.lower()
    for tier, words in (("production", ("prod", "live")), ("staging", ("stag", "model", "pre")),
                        ("testing", ("test", "qa", "uat")), ("development", ("dev", "review", "trunk"))):
        if any(word in lowered for word in words):
            return tier
    return "other"


def add_environment(store: Store, project: Project, name: str, *, external_url: str | None = None,
                    state: str = "available", created_at: datetime | None = None,
                    rng: random.Random | None = None) -> Environment:
    data = deployments_data(store)
    when = created_at or store.now()
    env = Environment(id=store.next_id("environment"), project_id=project.id, name=name,
                      slug=slugify(name, rng), external_url=external_url, tier=tier_of(name), state=state,
                      created_at=when, updated_at=when)
    data.environments[env.id] = env
    return env


def add_deployment(store: Store, project: Project, env: Environment, *, ref: str, sha: str, tag: bool,
                   status: str, user_id: int, created_at: datetime | None = None,
                   deployable: Deployable | None = None) -> Deployment:
    data = deployments_data(store)
    when = created_at or store.now()
    deployment = Deployment(id=store.next_id("deployment"), iid=data.next_iid("deployment", project.id),
                            project_id=project.id, environment_id=env.id, ref=ref, sha=sha, tag=tag,
                            status=status, created_at=when, updated_at=when, user_id=user_id,
                            deployable=deployable)
    data.deployments[deployment.id] = deployment
    return deployment


def _ms(value: datetime) -> datetime:
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def _pick_status(rng: random.Random) -> str:
    roll = rng.random()
    return "success" if roll < 0.82 else "failed" if roll < 0.93 else "canceled"


class _History:
    """Builds one project's deployment history."""

    def __init__(self, store: Store, rng: random.Random, project: Project, host: str) -> None:
        self.store, self.rng, self.project, self.host = store, rng, project, host
        self.data = deployments_data(store)
        levels = store.project_levels
        deployers = [u for u in store.users.values()
                     if levels(u.id).get(project.id, 0) >= 30 and u.state == "active" and not u.bot]
        self.deployers = deployers or [store.users[1]]

    def commit(self, when: datetime) -> Commit:
        author = self.rng.choice(self.deployers)
        title = f"{self.rng.choice(_SUBJECTS)} {self.rng.choice(_THINGS)}"
        return Commit(f"{self.rng.getrandbits(160):040x}", title, f"{title}\n\nChangelog: changed",
                      author.name, author.email, _ms(when - timedelta(minutes=self.rng.randrange(5, 600))))

    def merge_requests(self, when: datetime, commit: Commit, count: int) -> list[int]:
        ids = []
        for _ in range(count):
            author = self.rng.choice(self.deployers)
            title = f"{self.rng.choice(_SUBJECTS)} {self.rng.choice(_THINGS)}"
            branch = title.lower().replace(" ", "-")
            created = _ms(when - timedelta(hours=self.rng.randrange(2, 24 * 7)))
            merged = _ms(when - timedelta(minutes=self.rng.randrange(10, 120)))
            mr = MergeRequest(id=self.store.next_id("merge_request"),
                              iid=self.data.next_iid("merge_request", self.project.id),
                              project_id=self.project.id, title=title,
                              description=f"Closes work on {branch}.",
                              state="merged", source_branch=branch, target_branch="main",
                              author_id=author.id, sha=f"{self.rng.getrandbits(160):040x}",
                              merge_commit_sha=commit.id, created_at=created, updated_at=merged,
                              merged_at=merged)
            self.data.merge_requests[mr.id] = mr
            ids.append(mr.id)
        return ids

    def deploy(self, env: Environment, when: datetime, status: str, *, ref: str = "main",
               job: str = "deploy", ships: int = 0) -> Deployment:
        rng = self.rng
        user = rng.choice(self.deployers)
        commit = self.commit(when)
        started = _ms(when + timedelta(seconds=rng.randrange(5, 90)))
        finished = _ms(started + timedelta(seconds=rng.randrange(30, 900))) if status not in (
            "created", "running") else None
        deployable = Deployable(id=self.store.next_id("ci_job"), name=job, stage="deploy", status=status,
                                created_at=_ms(when), started_at=None if status == "created" else started,
                                finished_at=finished, user_id=user.id, commit=commit,
                                pipeline_id=self.store.next_id("ci_pipeline"))
        deployment = add_deployment(self.store, self.project, env, ref=ref, sha=commit.id,
                                    tag=ref.startswith("v"), status=status, user_id=user.id,
                                    created_at=_ms(when), deployable=deployable)
        deployment.updated_at = finished or deployment.created_at
        if status == "success" and ships:
            deployment.merge_request_ids = self.merge_requests(when, commit, ships)
        env.updated_at = max(env.updated_at, deployment.updated_at)
        return deployment

    def build(self, days: int, rate: float) -> None:
        rng, store, project = self.rng, self.store, self.project
        start = store.anchor - timedelta(days=days)
        production = add_environment(store, project, "production", external_url=f"https://{self.host}",
                                     created_at=start - timedelta(days=30))
        staging = add_environment(store, project, "staging", external_url=f"https://staging.{self.host}",
                                  created_at=start - timedelta(days=30))
        reviews = [add_environment(store, project, name, rng=rng,
                                   external_url=None, created_at=start + timedelta(days=rng.randrange(days)))
                   for name in rng.sample(_REVIEWS, 3)]
        for env in reviews:
            env.external_url = f"https://{env.slug}.review.{self.host}"
        release = [1, rng.randrange(0, 6), 0]
        for day in range(days):
            base = start + timedelta(days=day)
            weekend = base.weekday() >= 5
            planned: list[tuple[datetime, Environment, str, str, int]] = []  # when, env, ref, job, ships
            for _ in range(max(0, round(rng.gauss(3.5 * rate, 1.5))) // (3 if weekend else 1)):
                when = base + timedelta(seconds=rng.randrange(8 * 3600, 19 * 3600))
                planned.append((when, staging, "main", "deploy:staging", 0))
            for _ in range(max(0, round(rng.gauss(1.6 * rate, 1.0))) // (3 if weekend else 1)):
                when = base + timedelta(seconds=rng.randrange(9 * 3600, 17 * 3600))
                ref = "main"
                if rng.random() < 0.2:
                    release[2] += 1
                    ref = f"v{release[0]}.{release[1]}.{release[2]}"
                planned.append((when, production, ref, "deploy:production", rng.choice((0, 1, 1, 2, 3))))
            for env in reviews:
                if env.created_at <= base and rng.random() < 0.25 * rate:
                    when = base + timedelta(seconds=rng.randrange(8 * 3600, 20 * 3600))
                    planned.append((when, env, env.name.removeprefix("review/"), "review", 0))
            for when, env, ref, job, ships in sorted(planned, key=lambda p: p[0]):  # ids follow time
                self.deploy(env, when, _pick_status(rng), ref=ref, job=job, ships=ships)
        reviews[-1].state = "stopped"
        self.deploy(staging, store.anchor - timedelta(minutes=rng.randrange(20, 90)), "running",
                    job="deploy:staging")


def _waiting_for_approval(store: Store, project: Project) -> None:
    """The newest production deployment of `project` is `blocked` (waiting for an approval, its job a
    manual one): the listing's `status=blocked` filter then has something to show. Its own generator, so
    the other histories stay as they were."""
    production = deployments_data(store).environment_named(project.id, "production")
    if production is None:
        return
    host = _CORE.get(project.path_with_namespace, "example.com")
    history = _History(store, random.Random(15), project, host)
    blocked = history.deploy(production, store.anchor - timedelta(minutes=10), "blocked",
                             job="deploy:production")
    if blocked.deployable is not None:
        blocked.deployable.status, blocked.deployable.started_at = "manual", None
        blocked.deployable.finished_at = None
    blocked.updated_at = blocked.created_at


def seed(store: Store, ctx: SeedContext) -> None:
    """Environments and history for the core demo projects (every scale) and, in demo and large, some
    generated projects; protected environments (the group rule reads the shares of `seed/sharing.py`)."""
    rng = ctx.rng
    data = deployments_data(store)
    for path, host in _CORE.items():
        project = store.project_by_path(path)
        if project is not None:
            _History(store, rng, project, host).build(HISTORY_DAYS, 1.0)
    if ctx.scale != "tiny":
        generated = [p for p in store.projects.values() if p.namespace_kind == "group" and not p.archived
                     and p.path_with_namespace not in _CORE and p.id > 14]
        for project in generated[: 12 if ctx.scale == "demo" else 40]:
            _History(store, rng, project, f"{project.path}.example.com").build(HISTORY_DAYS, 0.4)
    gateway = store.project_by_path("acme/platform/api-gateway")
    if gateway is not None:
        _waiting_for_approval(store, gateway)
        data.protected[(gateway.id, "production")] = ProtectedEnvironment(
            gateway.id, "production", [stored(store, DeployRule(access_level=40))])
        carol = store.user_by_username("carol")
        if carol is not None:
            data.protected[(gateway.id, "staging")] = ProtectedEnvironment(
                gateway.id, "staging", [stored(store, DeployRule(access_level=30)),
                                        stored(store, DeployRule(user_id=carol.id))])
