"""The deployment fleet: a group whose projects all deploy, for the group deployments board (issue 26).

`fleet` (public; carol 50, bob 40, alice 30) with subgroups `edge`, `core`, `data`, `web` and a private
`restricted` where dave (no member of `fleet`) is a Guest: its private projects' environments answer him 403.
Demo: 36 projects; large: 500. Every seventh project has no environment at all; the others have
`production`, `staging` and a few review apps in the `review/` folder (one of them stopped), and 30 days
of history: staging deploys new commits of `main`, production promotes one of staging's recent commits
(so staging is usually some deployments ahead), now and then a hotfix tag goes straight to production.
Some projects have a production deployment that failed in the last hours, some a staging deployment still
running. Times are relative to the store's clock (the seed decides the shape, not the date), in whole
milliseconds. Built after every other area, so no other area's records or ids change.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from labdeck.sandbox.seed.deployments import (
    Deployable,
    Deployment,
    Environment,
    add_deployment,
    add_environment,
)
from labdeck.sandbox.seed.git_history import Commit
from labdeck.sandbox.seed.namespaces import add_group, add_member, add_project
from labdeck.sandbox.store import Group, Project, Store, User

FLEET_PATH = "fleet"
DAYS = 30
SIZES = {"demo": 36, "large": 500}
SUBGROUPS = ("edge", "core", "data", "web")
RESTRICTED = "restricted"
_HEADS = ("billing", "search", "auth", "ledger", "notify", "media", "catalog", "orders", "quotes", "geo",
          "metrics", "inbox", "payroll", "feeds", "cart", "pricing", "profile", "ingest")
_TAILS = ("api", "worker", "web", "sync", "gateway", "service", "jobs", "proxy", "ui")
_BRANCHES = ("fix-login", "new-billing", "dark-mode", "cache-headers", "faster-search", "retry-policy",
             "audit-log", "tls-config")
_TITLES = ("Fix flaky health check", "Bump dependencies", "Add retry on timeout", "Tidy logging",
           "Speed up cold start", "Harden input parsing", "Rework config loading", "Document endpoints")


def _ms(value: datetime) -> datetime:
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def has_environments(index: int) -> bool:
    """Every seventh fleet project has no environment (the board folds it away)."""
    return index % 7 != 6


class _Fleet:
    def __init__(self, store: Store, rng: random.Random) -> None:
        self.store, self.rng = store, rng
        self.now = _ms(store.now())
        names = ("alice", "bob", "carol", "frank")
        self.deployers: list[User] = [u for n in names if (u := store.user_by_username(n)) is not None]

    def commit(self, when: datetime, author: User) -> Commit:
        title = self.rng.choice(_TITLES)
        return Commit(f"{self.rng.getrandbits(160):040x}", title, title, author.name, author.email,
                      _ms(when - timedelta(minutes=self.rng.randrange(5, 300))))

    def deploy(self, project: Project, env: Environment, when: datetime, status: str, ref: str,
               commit: Commit, job: str) -> Deployment:
        user = self.rng.choice(self.deployers)
        when = _ms(when)
        started = _ms(when + timedelta(seconds=self.rng.randrange(5, 60)))
        finished = None if status in ("created", "running") else _ms(
            started + timedelta(seconds=self.rng.randrange(30, 600)))
        deployable = Deployable(id=self.store.next_id("ci_job"), name=job, stage="deploy", status=status,
                                created_at=when, started_at=started, finished_at=finished, user_id=user.id,
                                commit=commit, pipeline_id=self.store.next_id("ci_pipeline"))
        deployment = add_deployment(self.store, project, env, ref=ref, sha=commit.id, tag=ref.startswith("v"),
                                    status=status, user_id=user.id, created_at=when, deployable=deployable)
        deployment.updated_at = finished or when
        env.updated_at = max(env.updated_at, deployment.updated_at)
        return deployment

    def status(self) -> str:
        roll = self.rng.random()
        return "success" if roll < 0.86 else "failed" if roll < 0.96 else "canceled"

    def project(self, project: Project, index: int) -> None:
        rng, store, now = self.rng, self.store, self.now
        start = now - timedelta(days=DAYS)
        host = f"{project.path}.fleet.example"
        created = start - timedelta(days=60)
        production = add_environment(store, project, "production", external_url=f"https://{host}",
                                     created_at=created)
        staging = add_environment(store, project, "staging", external_url=f"https://staging.{host}",
                                  created_at=created)
        reviews = [add_environment(store, project, f"review/{name}", rng=rng, created_at=created)
                   for name in rng.sample(_BRANCHES, rng.randrange(0, 4))]
        author = rng.choice(self.deployers)
        staged: list[Commit] = [self.commit(start, author)]
        self.deploy(project, production, start, "success", "main", staged[0], "deploy:production")
        self.deploy(project, staging, start, "success", "main", staged[0], "deploy:staging")
        release = [1, rng.randrange(0, 9), 0]
        # the newest deployments are placed below: nothing of the history may come after them
        cutoff = now - timedelta(hours=11 if index % 5 == 1 else 1)
        for day in range(DAYS):
            base = start + timedelta(days=day)
            if base.weekday() >= 5:
                continue
            planned: list[tuple[datetime, str]] = []
            planned += [(base + timedelta(seconds=rng.randrange(8 * 3600, 18 * 3600)), "staging")
                        for _ in range(max(0, round(rng.gauss(1.4, 0.9))))]
            if rng.random() < 0.55:
                planned.append((base + timedelta(seconds=rng.randrange(10 * 3600, 17 * 3600)), "production"))
            planned += [(base + timedelta(seconds=rng.randrange(8 * 3600, 20 * 3600)), env.name)
                        for env in reviews if rng.random() < 0.2]
            for when, name in sorted(planned):
                if when >= cutoff:
                    continue
                self.day_deploy(project, when, name, staged, production, staging, reviews, release)
        if reviews:
            reviews[-1].state = "stopped"
        if index % 5 == 1:  # production's newest deployment failed in the last hours
            self.deploy(project, production, now - timedelta(minutes=rng.randrange(40, 600)), "failed",
                        "main", staged[-1], "deploy:production")
        if index % 4 == 0:  # a staging deployment still running
            commit = self.commit(now, rng.choice(self.deployers))
            self.deploy(project, staging, now - timedelta(minutes=rng.randrange(2, 30)), "running", "main",
                        commit, "deploy:staging")

    def day_deploy(self, project: Project, when: datetime, name: str, staged: list[Commit],
                   production: Environment, staging: Environment, reviews: list[Environment],
                   release: list[int]) -> None:
        rng = self.rng
        status = self.status()
        author = rng.choice(self.deployers)
        if name == "staging":
            commit = self.commit(when, author)
            self.deploy(project, staging, when, status, "main", commit, "deploy:staging")
            if status == "success":
                staged.append(commit)
        elif name == "production":
            if rng.random() < 0.08:  # a hotfix tag straight to production
                release[2] += 1
                commit = self.commit(when, author)
                self.deploy(project, production, when, status, "v{}.{}.{}".format(*release), commit,
                            "deploy:production")
                return
            lag = min(len(staged) - 1, rng.choice((0, 0, 1, 1, 2, 3)))
            ref = "main"
            if rng.random() < 0.3:
                release[1] += 1
                release[2] = 0
                ref = "v{}.{}.{}".format(*release)
            self.deploy(project, production, when, status, ref, staged[-1 - lag], "deploy:production")
        else:
            env = next(e for e in reviews if e.name == name)
            self.deploy(project, env, when, status, name.removeprefix("review/"),
                        self.commit(when, author), "review")


def _groups(store: Store) -> tuple[list[Group], Group]:
    fleet = add_group(store, "Fleet", FLEET_PATH, "public", description="Every service that deploys",
                      age_days=600)
    for username, level in (("carol", 50), ("bob", 40), ("alice", 30)):
        add_member(store, store.group_members, fleet.id, username, level)
    subs = [add_group(store, name.title(), name, "public", fleet, age_days=400) for name in SUBGROUPS]
    restricted = add_group(store, "Restricted", RESTRICTED, "private", fleet, age_days=300)
    add_member(store, store.group_members, restricted.id, "dave", 10)
    return subs, restricted


def seed_fleet(store: Store, rng: random.Random, scale: str) -> None:
    """The fleet group and its deployments (nothing at the tiny scale)."""
    count = SIZES.get(scale, 0)
    if not count:
        return
    subs, restricted = _groups(store)
    fleet = _Fleet(store, rng)
    taken: set[str] = set()
    for index in range(count):
        group = restricted if index % 12 == 5 else subs[index % len(subs)]
        path = f"{_HEADS[index % len(_HEADS)]}-{_TAILS[(index // len(_HEADS)) % len(_TAILS)]}"
        if path in taken:
            path = f"{path}-{index}"
        taken.add(path)
        visibility = "private" if group is restricted else rng.choice(("public", "public", "internal"))
        project = add_project(store, path.replace("-", " ").title(), path, visibility, group=group,
                              age_days=rng.randint(60, 900), idle_days=0, description=f"{path} service")
        if has_environments(index):
            fleet.project(project, index)
