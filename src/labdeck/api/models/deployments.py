"""Deployments, environments and protected environments (GitLab's API docs; environments as real
GitLab's `doc/api/environments.md`)."""

from __future__ import annotations

from datetime import datetime

from labdeck.api.models.base import ApiModel
from labdeck.api.models.users import UserRef
from labdeck.domain.deployments import DeploymentFact, allowed_transitions, rule_kind


class DeployCommit(ApiModel):
    id: str
    short_id: str | None = None
    title: str | None = None
    message: str | None = None
    author_name: str | None = None
    author_email: str | None = None
    created_at: datetime | None = None


class DeployPipeline(ApiModel):
    id: int
    ref: str | None = None
    sha: str | None = None
    status: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    web_url: str | None = None


class Deployable(ApiModel):
    """The CI job that ran a deployment."""

    id: int
    name: str | None = None
    status: str | None = None
    stage: str | None = None
    ref: str | None = None
    tag: bool | None = None
    coverage: float | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    user: UserRef | None = None
    commit: DeployCommit | None = None
    pipeline: DeployPipeline | None = None


class EnvironmentRef(ApiModel):
    id: int
    name: str
    external_url: str | None = None


class Deployment(ApiModel):
    id: int
    iid: int | None = None
    ref: str = ""
    sha: str = ""
    status: str = "created"
    created_at: datetime | None = None
    updated_at: datetime | None = None
    user: UserRef | None = None
    environment: EnvironmentRef | None = None
    deployable: Deployable | None = None

    @property
    def environment_name(self) -> str:
        return self.environment.name if self.environment is not None else ""

    @property
    def next_statuses(self) -> tuple[str, ...]:
        """Statuses this deployment may be set to (the domain's transitions)."""
        return allowed_transitions(self.status)

    def fact(self) -> DeploymentFact | None:
        """What the timeline needs (None without a creation time)."""
        if self.created_at is None:
            return None
        return DeploymentFact(self.environment_name, self.status, self.created_at, self.ref)


class DeploymentRow(ApiModel):
    """A listed deployment as the group board reads it (the fields it shows; decoded from the bytes)."""

    id: int
    ref: str = ""
    sha: str = ""
    status: str = "created"
    created_at: datetime | None = None
    updated_at: datetime | None = None  # when it failed, for a failed one (`deploy_failures`)
    user: UserRef | None = None
    environment: EnvironmentRef | None = None


class Environment(ApiModel):
    id: int
    name: str
    slug: str | None = None
    external_url: str | None = None
    state: str | None = None
    tier: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_deployment: Deployment | None = None


class ShippedMergeRequest(ApiModel):
    """A merge request as the deployment's merge request listing gives it (the fields labdeck shows)."""

    id: int
    iid: int
    title: str = ""
    state: str | None = None
    author: UserRef | None = None
    source_branch: str | None = None
    target_branch: str | None = None
    merged_at: datetime | None = None
    web_url: str | None = None
    references: dict[str, str] | None = None

    @property
    def reference(self) -> str:
        return (self.references or {}).get("full") or f"!{self.iid}"


class DeployAccessLevel(ApiModel):
    id: int | None = None  # the rule's record (GitLab 15.4+: what a change in place names)
    access_level: int | None = None
    access_level_description: str | None = None
    user_id: int | None = None
    group_id: int | None = None

    @property
    def kind(self) -> str:
        """`user`, `group` or `role` (a rule by access level)."""
        kind = rule_kind(self.user_id, self.group_id)
        return "role" if kind == "access_level" else kind


class ProtectedEnvironment(ApiModel):
    name: str
    deploy_access_levels: list[DeployAccessLevel] = []
