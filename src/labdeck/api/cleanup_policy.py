"""The container registry cleanup policy of a project: read it, simulate its next run on every repository
(tag details through `RegistryService.tag_details`: GraphQL, REST fallback, the tag cache), save it with
`PUT /projects/:id` (validated before sending, the instance's own `older_than` values by its version; an edit
sends only what the operator changed; after a lost answer, read back and compared), and the storage of a
group's projects with their policies.

The simulation uses `domain.cleanup_policy` (the sandbox runs policies with the same rules). The per-run
limit comes from the application settings when the caller may read them (administrators), else GitLab's
default; protection rules from `GET /projects/:id/registry/protection/tag/rules` when the instance has the
endpoint and the caller may read it (else the preview says they are unknown).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, LabdeckError, may_have_applied
from labdeck.api.groups import ProjectQuery
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.models.registry import RegistryRepository
from labdeck.api.registry import RegistryService
from labdeck.api.registry_graphql import GraphQLRefused, availability
from labdeck.domain import catalogue as ep
from labdeck.domain.capabilities import Capabilities
from labdeck.domain.cleanup_policy import (
    DEFAULT_MAX_LIST_SIZE,
    GITLAB_REGISTRY_PAGE,
    Policy,
    PolicyPlanner,
    RepositoryPlan,
    older_than_values,
    policy_errors_text,
)
from labdeck.domain.cleanup_policy_status import RepositoryState, Schedule, explain, schedule
from labdeck.domain.digits import parse_digits
from labdeck.domain.registry_cleanup import RulesError
from labdeck.domain.registry_sizes import Figure, total_size
from labdeck.domain.text import sanitize

Ref = int | str
ATTRIBUTES = "container_expiration_policy_attributes"
Progress = Callable[[int, int], None]
SETTINGS = "application settings"
CLEANUP_QUERY = ("query labdeckCleanup($path: ID!) { project(fullPath: $path) {"
                 " containerRepositories(first: 100) { nodes {"
                 " id expirationPolicyStartedAt expirationPolicyCleanupStatus } } } }")


class PolicyRefused(LabdeckError):
    """A policy GitLab would refuse: not sent. `errors` are GitLab's messages by attribute."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(f"GitLab would refuse this policy: {policy_errors_text(errors)}")
        self.errors = errors


class PolicyNotApplied(LabdeckError):
    """The answer to a save was lost and the policy read back is not the one sent."""


@dataclass
class RepositorySimulation:
    repository: RegistryRepository
    planner: PolicyPlanner | None = None
    plan: RepositoryPlan | None = None
    error: str | None = None


@dataclass
class ProjectSimulation:
    """A project's policy and what its next run does to each repository; `replan` recomputes for an
    edited policy without a request (the editor's live preview)."""

    project: Ref
    policy: Policy | None
    now: datetime
    repositories: list[RepositorySimulation]
    max_list_size: int
    limit_source: str
    protected: list[str] | None
    invalid: str | None = None
    path: str = ""  # the project's full path, as the instance names it
    cleanup: dict[int, tuple[datetime | None, str | None]] = field(default_factory=dict)  # GraphQL's
    why: list[str] = field(default_factory=list)
    when: Schedule | None = None

    def replan(self, policy: Policy) -> ProjectSimulation:
        self.policy, self.invalid = policy, None
        for repo in self.repositories:
            if repo.planner is None:
                continue
            try:
                repo.plan = repo.planner.plan(policy, self.now, max_list_size=self.max_list_size,
                                              protected=self.protected or ())
            except RulesError as error:
                repo.plan, self.invalid = None, str(error)
        plans = [(r.repository.display_name, r.plan if r.error is None else None) for r in self.repositories]
        readable = [plan for _, plan in plans if plan is not None]
        states = [self._state(r.repository) for r in self.repositories]
        self.why = explain(policy, self.now, plans, states, invalid=self.invalid)
        self.when = schedule(policy, self.now, readable)
        return self

    def _state(self, repo: RegistryRepository) -> RepositoryState:
        """REST's `cleanup_policy_started_at`, or GraphQL's start and cleanup status where it gave them."""
        started, status = self.cleanup.get(repo.id, (repo.cleanup_policy_started_at, None))
        return RepositoryState(repo.display_name, started or repo.cleanup_policy_started_at, status)

    @property
    def deleted_count(self) -> int:
        return sum(r.plan.deleted_count for r in self.repositories if r.plan is not None)

    @property
    def freed(self) -> Figure:
        """What the next run frees over the repositories: the blobs no kept tag uses."""
        return total_size(r.plan.freed for r in self.repositories if r.plan is not None)

    @property
    def bytes_freed(self) -> int:
        return self.freed.bytes


@dataclass(frozen=True)
class ProjectStorage:
    """One row of a group's storage view."""

    id: int
    path: str
    registry_size: int | None
    policy: Policy | None

    @property
    def policy_state(self) -> str:
        if self.policy is None:
            return "none"
        return "enabled" if self.policy.enabled else "disabled"


def storage_rows() -> body.PageDecode | None:
    """How a page of a group's projects becomes storage rows: the few fields the view reads, parsed from the
    bytes (or decoded for `parse_many` when the fast path cannot read the page)."""
    fast = fast_decoder(b.GROUP_STORAGE_PROJECTS.model)
    return None if fast is None else body.page_decoder(fast.decode)


def _policy_of(project: Any) -> Policy | None:
    found = project.get("container_expiration_policy") if isinstance(project, dict) else None
    return Policy.from_json(found) if isinstance(found, dict) else None


class CleanupPolicyService:
    """Reading, simulating and saving a project's cleanup policy; a group's registry storage."""

    def __init__(self, client: ApiClient, registry: RegistryService | None = None, *,
                 capabilities: Callable[[], Capabilities] = Capabilities) -> None:
        self.client = client
        self.registry = registry or RegistryService(client)
        self._capabilities = capabilities

    def older_than_values(self) -> tuple[str, ...]:
        """The `older_than` values the instance accepts (`60d` from GitLab 14.4; all while its version is not
        known)."""
        return older_than_values(self._capabilities().version)

    def errors(self, policy: Policy, loaded: Policy | None = None) -> dict[str, list[str]]:
        """What GitLab would refuse in `policy`, an edit of `loaded` (a value still as loaded is the
        instance's own: never refused for being unknown to labdeck)."""
        return policy.errors(older_than=self.older_than_values(), kept=loaded)

    async def policy(self, project: Ref) -> Policy | None:
        """The project's policy (None when the instance gives none: registry disabled, no rights)."""
        return _policy_of(await self.client.get_json(ep.PROJECT.path(project)))

    async def max_list_size(self) -> tuple[int, str]:
        """The per-run limit and where it comes from (the application settings, or GitLab's default)."""
        try:
            settings = await self.client.get_json(ep.APPLICATION_SETTINGS.path())
        except ApiError:
            return DEFAULT_MAX_LIST_SIZE, "GitLab's default (the settings need an administrator)"
        value = settings.get("container_registry_cleanup_tags_service_max_list_size") \
            if isinstance(settings, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value, SETTINGS
        return DEFAULT_MAX_LIST_SIZE, "GitLab's default (not in the settings)"

    async def protected_patterns(self, project: Ref) -> list[str] | None:
        """Patterns of the rules that protect tags from deletion; None when they cannot be read."""
        try:
            rules = await self.client.fetch_all(ep.PROJECT_TAG_PROTECTION_RULES.path(project))
        except ApiError:
            return None
        return [str(r["tag_name_pattern"]) for r in rules if isinstance(r, dict)
                and r.get("tag_name_pattern") is not None and r.get("minimum_access_level_for_delete")]

    async def simulate(self, project: Ref, policy: Policy | None = None, *, now: datetime | None = None,
                       on_progress: Progress | None = None,
                       gitlab_registry: bool = False) -> ProjectSimulation:
        """The policy (`policy`, or the project's own) simulated on every repository of the project.
        `gitlab_registry`: the instance runs GitLab's own registry (metadata database), whose cleanup applies
        the rules per page of 1,000 tags and is bounded by time (else the third-party rules and limit).
        `now`: by default the instance's time as its answers tell it (`ApiClient.server_time`), else the
        local wall time."""
        named = project if isinstance(project, str) else None  # GraphQL's states at once, by path
        data, (limit, source), protected, repos, early = await asyncio.gather(
            self.client.get_json(ep.PROJECT.path(project)), self.max_list_size(),
            self.protected_patterns(project), self.registry.project_repositories(project, tags_count=True),
            self.cleanup_states(named))
        found = policy if policy is not None else _policy_of(data)
        path = data.get("path_with_namespace") if isinstance(data, dict) else None
        total = sum(r.tags_count or 0 for r in repos)
        page = GITLAB_REGISTRY_PAGE if gitlab_registry else None
        if gitlab_registry:
            limit, source = 0, "none: GitLab's registry bounds a run by time"
        done: dict[int, int] = {}

        def progress(repo_id: int) -> Progress:
            def report(count: int, _of: int) -> None:
                done[repo_id] = count
                if on_progress is not None:
                    on_progress(sum(done.values()), total)
            return report

        async def read(repo: RegistryRepository) -> RepositorySimulation:
            try:
                details = await self.registry.tag_details(project, repo.id, on_progress=progress(repo.id),
                                                          tags_count=repo.tags_count, path=repo.path)
            except LabdeckError as error:
                return RepositorySimulation(repo, error=str(error))
            infos = [d.to_tag_info() for d in details]
            return RepositorySimulation(repo, PolicyPlanner(infos, page_size=page))

        if self.registry.admin is None:  # only administrators read the settings: no `GET /user` each
            self.registry.admin = source == SETTINGS
        cache = self.registry.tag_cache
        project_path = path if isinstance(path, str) else None
        later = self.cleanup_states(project_path if named is None else None)
        with cache.deferred() if cache is not None else contextlib.nullcontext():  # one cache write
            simulated, cleanup = await asyncio.gather(self._read_all(repos, read), later)
        cleanup = early or cleanup
        now = now or self.client.server_time.now()  # the instance's time: it runs the policy by its clock
        result = ProjectSimulation(project, found, now, simulated, limit, source,
                                   protected, path=sanitize(path) if isinstance(path, str) else str(project),
                                   cleanup=cleanup)
        return result.replan(found) if found is not None else _without_policy(result)

    async def _read_all(self, repos: list[RegistryRepository],
                        read: Callable[[RegistryRepository], Awaitable[RepositorySimulation]],
                        ) -> list[RepositorySimulation]:
        """Every repository's tags, concurrently. When the cache holds them all and whether GraphQL serves is
        not known yet, the smallest is read first: once it shows that GraphQL serves, the others skip
        GraphQL's first page (`tag_details`)."""
        cache = self.registry.tag_cache
        known = availability(self.client).usable is not None  # the states' query told already
        if known or len(repos) < 2 or cache is None or not all(cache.holds_names(r.id) for r in repos):
            return list(await asyncio.gather(*(read(r) for r in repos)))
        smallest = min(repos, key=lambda r: r.tags_count or 0)
        first = await read(smallest)
        rest = await asyncio.gather(*(read(r) for r in repos if r is not smallest))
        found = {id(r.repository): r for r in (first, *rest)}
        return [found[id(r)] for r in repos]

    async def cleanup_states(self, path: str | None) -> dict[int, tuple[datetime | None, str | None]]:
        """Each repository's `expirationPolicyStartedAt` and `expirationPolicyCleanupStatus` from GraphQL
        (one request for the project); empty where the instance has no GraphQL or not these fields."""
        graphql = self.registry.graphql
        if graphql is None or path is None or availability(self.client).usable is False:
            return {}
        try:
            data, _clean = await graphql.query(CLEANUP_QUERY, {"path": path})
        except (LabdeckError, GraphQLRefused):
            return {}
        availability(self.client).usable = True  # it answered: tag reads may skip their first page
        project = data.get("project") if isinstance(data, dict) else None
        repos = project.get("containerRepositories") if isinstance(project, dict) else None
        nodes = repos.get("nodes") if isinstance(repos, dict) else None
        found: dict[int, tuple[datetime | None, str | None]] = {}
        for node in nodes if isinstance(nodes, list) else []:
            ident = str(node.get("id", "")) if isinstance(node, dict) else ""
            number = parse_digits(ident.rsplit("/", 1)[-1])
            if number is None:
                continue
            started = _when(node.get("expirationPolicyStartedAt"))
            status = node.get("expirationPolicyCleanupStatus")
            found[number] = (started, sanitize(status) if isinstance(status, str) else None)
        return found

    async def save(self, project: Ref, policy: Policy, *, loaded: Policy | None = None) -> Policy:
        """Send the policy (`PUT /projects/:id`), refused before sending when GitLab would refuse it. An edit
        of `loaded` sends only the values that differ from it (none: nothing is sent, `loaded` is returned),
        so what the operator did not change stays as the instance holds it. When the answer is lost, the
        policy is read back: the saved one when the values sent match, else `PolicyNotApplied` (the journal
        records the change with the old policy as its undo)."""
        if errors := self.errors(policy, loaded):
            raise PolicyRefused(errors)
        attributes = policy.changed_attributes(loaded)
        if not attributes and loaded is not None:
            return loaded
        path = ep.PROJECT_UPDATE.path(project)
        try:
            answer = await self.client.put_json(path, {ATTRIBUTES: attributes})
        except LabdeckError as error:
            if not may_have_applied(error):
                raise
            current = await self.policy(project)
            held = current.attributes() if current is not None else {}
            if current is not None and all(held[name] == value for name, value in attributes.items()):
                return current
            raise PolicyNotApplied(f"the answer was lost and the policy read back differs: {error}") \
                from error
        saved = _policy_of(answer)
        return saved if saved is not None else policy

    async def group_storage(self, group: Ref, *, statistics: bool = True, refresh: bool = False,
                            on_progress: Callable[[int, int | None], None] | None = None,
                            ) -> list[ProjectStorage]:
        """Every project of the group and its subgroups with its registry size (`statistics`, for
        administrators) and its policy, largest first (unknown sizes last); through the list cache
        (`refresh=True` reads the instance again)."""
        query = ProjectQuery(include_subgroups=True, with_shared=False, statistics=statistics or None)
        projects = await b.GROUP_STORAGE_PROJECTS.read(self.client, group, params=query.params(shared=False),
                                                       refresh=refresh, on_progress=on_progress,
                                                       decode=storage_rows())
        rows = []
        for project in projects:
            size = project.statistics.container_registry_size if project.statistics is not None else None
            raw = project.container_expiration_policy
            rows.append(ProjectStorage(project.id, project.path_with_namespace or str(project.id), size,
                                       Policy.from_json(raw) if raw is not None else None))
        return sorted(rows, key=lambda r: (r.registry_size is None, -(r.registry_size or 0), r.path))


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _without_policy(result: ProjectSimulation) -> ProjectSimulation:
    result.why = explain(None, result.now, [])
    result.when = Schedule(None, 0, None)
    return result
