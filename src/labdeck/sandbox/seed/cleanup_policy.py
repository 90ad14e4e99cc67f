"""The sandbox's container registry cleanup policies (`container_expiration_policy` of a project), the tag
protection rules the runs respect, and their seed.

Seeded at every scale on the core projects: `acme/platform/api-gateway` enabled (every tag but releases and
`stable`, 5 newest kept, older than 30 days; a protection rule on some pr tags), `acme/platform/web-portal`
enabled with a `name_regex` that matches no tag and `older_than: 60d` (since GitLab 14.4; 90d before),
`acme/infra/terraform` disabled, `opensource/labdeck` enabled and overdue (its `next_run_at` three days ago,
never started), and `acme/security/vault` enabled on a `builds` repository of 480 tags, more than the
per-run limit (200 + keep_n). Other projects carry GitLab's default policy for a new project (disabled,
`next_run_at` = creation + 1 day). The large scale adds 19 repositories of 789 tags to
`acme/infra/terraform` (20 with its own: about 15,000 tags), the cleanup-policy benchmark's project.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from labdeck.domain.cleanup_policy import DEFAULT_MAX_LIST_SIZE, Policy, older_than_values
from labdeck.sandbox.seed.registry import add_repository, bulk_tags
from labdeck.sandbox.store import Project, Store

if TYPE_CHECKING:
    from labdeck.sandbox.seed import SeedContext

AREA = "cleanup_policy"
MAINTAINER = 40
BENCH_REPOSITORIES = 19
BENCH_TAGS = 789


@dataclass
class ProtectionRule:
    id: int
    tag_name_pattern: str
    minimum_access_level_for_push: int | None
    minimum_access_level_for_delete: int | None


@dataclass
class PolicyData:
    """`store.areas["cleanup_policy"]`: policies set on projects, protection rules, the per-run limit, the
    random stream the runs sample with, and the log of runs carried out."""

    policies: dict[int, Policy] = field(default_factory=dict)
    protection: dict[int, list[ProtectionRule]] = field(default_factory=dict)
    max_list_size: int = DEFAULT_MAX_LIST_SIZE
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    runs: list[dict[str, Any]] = field(default_factory=list)


def policy_data(store: Store) -> PolicyData:
    return store.area(AREA, PolicyData)


def policy_of(store: Store, project: Project) -> Policy:
    """The project's policy (GitLab's default for a new project when none was set)."""
    found = policy_data(store).policies.get(project.id)
    return found if found is not None else Policy(next_run_at=project.created_at + timedelta(days=1))


def protected_patterns(store: Store, project_id: int) -> list[str]:
    """Patterns of the rules that protect tags from deletion (a delete level is set)."""
    return [rule.tag_name_pattern for rule in policy_data(store).protection.get(project_id, [])
            if rule.minimum_access_level_for_delete is not None]


def policy_json(store: Store, project: Project) -> dict[str, Any]:
    from labdeck.sandbox.http import iso  # http imports the store module; keep this one importable alone

    policy = policy_of(store, project)
    return {"cadence": policy.cadence, "enabled": policy.enabled, "keep_n": policy.keep_n,
            "older_than": policy.older_than, "name_regex": policy.name_regex,
            "name_regex_keep": policy.name_regex_keep, "next_run_at": iso(policy.next_run_at)}


def seed(store: Store, ctx: SeedContext) -> None:
    """The policies and rules described in the module docstring."""
    data = policy_data(store)
    data.rng = random.Random(ctx.rng.getrandbits(64))
    now = store.now()

    def put(path: str, policy: Policy) -> Project | None:
        project = store.project_by_path(path)
        if project is not None:
            data.policies[project.id] = policy
        return project

    # 60d where the version played has it (GitLab 14.4+): an older instance could not hold it
    portal_older = "60d" if "60d" in older_than_values(ctx.options.version_tuple) else "90d"
    gateway = put("acme/platform/api-gateway", Policy(
        enabled=True, cadence="1d", keep_n=5, older_than="30d", name_regex=".*",
        name_regex_keep="v.+|stable", next_run_at=now + timedelta(hours=6)))
    if gateway is not None:
        data.protection[gateway.id] = [ProtectionRule(store.next_id("protection_tag_rule"), "pr-1[0-4]",
                                                      MAINTAINER, MAINTAINER)]
    put("acme/platform/web-portal", Policy(
        enabled=True, cadence="7d", keep_n=10, older_than=portal_older, name_regex="nightly-.*",
        next_run_at=now + timedelta(hours=2)))
    put("acme/infra/terraform", Policy(enabled=False, cadence="14d", next_run_at=now + timedelta(days=3)))
    put("opensource/labdeck", Policy(
        enabled=True, cadence="1month", keep_n=10, older_than="90d", name_regex=".*",
        next_run_at=now - timedelta(days=3)))
    vault = put("acme/security/vault", Policy(
        enabled=True, cadence="7d", keep_n=25, older_than="14d", name_regex="build-.*",
        next_run_at=now + timedelta(hours=12)))
    if vault is not None:
        add_repository(store, vault, "builds", bulk_tags(ctx.rng, store.anchor, 480, "build-"))
    terraform = store.project_by_path("acme/infra/terraform")
    if ctx.scale == "large" and terraform is not None:
        for number in range(BENCH_REPOSITORIES):
            add_repository(store, terraform, f"images/{number:02d}",
                           bulk_tags(ctx.rng, store.anchor, BENCH_TAGS, f"r{number:02d}-"))
