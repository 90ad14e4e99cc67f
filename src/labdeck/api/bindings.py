"""Bindings: one declaration ties a catalogue endpoint to the model of its body and to the way it is read.

    PROJECT_TAGS = Listing(ep.PROJECT_TAGS, RepositoryTag)    # a list, read through the list cache
    PROJECT = One(ep.PROJECT, Project)                        # one resource
    PROJECT_TAG_CREATE = Write(ep.PROJECT_TAG_CREATE, RepositoryTag)  # a write whose answer is read

A binding is generic in its model, and every read through it is typed by it: `await
services.read(PROJECT_TAGS, project)` is a `list[RepositoryTag]`, `PROJECT.parse(data)` a `Project`, so mypy
refuses a body read into another model (`tests/api/test_binding_types.py`). No name resolves a model: the
class is here, beside its endpoint. A binding's name is its endpoint's (`PROJECT_TAGS` binds
`ep.PROJECT_TAGS`); a listing read into a narrower model has a name of its own (`DEPLOYMENT_ROWS`).

A list needs nothing but its binding to be read, cached and refreshed (`Listing.read`, or
`Services.read(binding, *values, params=..., refresh=...)` from a screen), so a read-only tab over a
resource the catalogue knows is a catalogue entry, a binding here and a pane declaration: no service method.
Paths, query parameters and methods stay the catalogue's and the client's to check (`EndpointPath`,
`UndeclaredRequest`). Writes without a body to read (deletions) need no binding: their endpoint is enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar

from labdeck.api.models.access import AccessToken, ScopeProject, UserMembership, VariableFlags
from labdeck.api.models.badges import Badge, RenderedBadge
from labdeck.api.models.base import ApiModel, parse_many, parse_one
from labdeck.api.models.deployments import (
    Deployment,
    DeploymentRow,
    Environment,
    ProtectedEnvironment,
    ShippedMergeRequest,
)
from labdeck.api.models.group_transfer import RelationStatus
from labdeck.api.models.groups import Group
from labdeck.api.models.issues import Issue, IssueMergeRequest, Milestone, Note, TimeStats, Todo
from labdeck.api.models.iterations import Iteration
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.members import BillableMember, Member, Membership
from labdeck.api.models.moderation import ModeratedUser
from labdeck.api.models.project_resources import (
    Branch,
    ErrorTrackingSettings,
    PagesDomain,
    RepositoryTag,
    WikiAttachment,
    WikiPage,
)
from labdeck.api.models.projects import Project
from labdeck.api.models.registry import RegistryRepository, RegistryTag, RegistryTagDetail, StorageProject
from labdeck.api.models.users import CurrentUser
from labdeck.api.models.variables import CiVariable
from labdeck.api.models.version import Version
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import Endpoint, EndpointPath

if TYPE_CHECKING:
    from labdeck.api import body
    from labdeck.api.client import ApiClient, Progress

M = TypeVar("M", bound=ApiModel)


@dataclass(frozen=True)
class _Bound(Generic[M]):
    """An endpoint and its model. `reads`: the kind binds a GET endpoint (else a write), checked when made."""

    reads: ClassVar[bool] = True
    endpoint: Endpoint
    model: type[M]
    # A listing read into a narrower model that must never share the whole items' cache entry (the
    # review's variable flags): its name, the cache key's view (`cache.make_key`). None: the endpoint's own.
    view: str | None = None

    def __post_init__(self) -> None:
        if (self.endpoint.method == "GET") != self.reads:
            raise TypeError(f"{self.endpoint.name or self.endpoint.template} is {self.endpoint.method}: "
                            f"{type(self).__name__} binds {'a GET endpoint' if self.reads else 'a write'}")

    def path(self, *values: object, **named: object) -> EndpointPath:
        """The endpoint's path for these segment values (`Endpoint.path`: each value encoded)."""
        return self.endpoint.path(*values, **named)


class One(_Bound[M]):
    """A GET endpoint whose body is one `model`."""

    def parse(self, data: Any, *, sanitised: bool = False) -> M:
        """`data` (decoded JSON) as the model (`parse_one`: `MalformedResponse` for a wrong shape)."""
        return parse_one(self.model, data, sanitised=sanitised)

    async def read(self, client: ApiClient, *values: object, params: Mapping[str, Any] | None = None) -> M:
        """The resource at these segment values (never cached)."""
        return self.parse(await client.get_json(self.path(*values), params))


class Listing(_Bound[M]):
    """A GET endpoint whose body is a list of `model` (paged or not)."""

    def parse(self, data: Any, *, sanitised: bool = False) -> list[M]:
        """`data` (a decoded JSON list) as models (`parse_many`: tolerant per item; items that are models
        already, a fast or cached listing's, are kept)."""
        return parse_many(self.model, data, sanitised=sanitised)

    def parse_clean(self, data: Any) -> list[M]:
        """`parse` of items the client gave (its pages, lists and cache entries are sanitised already)."""
        return parse_many(self.model, data, sanitised=True)

    async def read(self, client: ApiClient, *values: object, params: Mapping[str, Any] | None = None,
                   refresh: bool = False, on_progress: Progress | None = None,
                   decode: body.PageDecode | None = None) -> list[M]:
        """The whole list at these segment values, through the list cache: a fresh entry costs no request,
        `refresh=True` always reads (`ApiClient.get_list`; `decode`: how a page becomes items)."""
        items = await client.get_list(self.path(*values), params, refresh=refresh, on_progress=on_progress,
                                      decode=decode, view=self.view)
        return self.parse_clean(items)

    def cached(self, client: ApiClient, *values: object,
               params: Mapping[str, Any] | None = None) -> tuple[list[M], bool] | None:
        """What the cache holds for the list, `(models, fresh)`, without a request (None: nothing)."""
        hit = client.cached_list(self.path(*values), params, view=self.view)
        return None if hit is None else (self.parse_clean(hit[0]), hit[1])


class Write(_Bound[M]):
    """A write (POST, PUT, PATCH or DELETE) whose answer is one `model`."""

    reads: ClassVar[bool] = False

    def parse(self, data: Any, *, sanitised: bool = False) -> M:
        """The answer (decoded JSON) as the model (`parse_one`)."""
        return parse_one(self.model, data, sanitised=sanitised)


# -- instance ---------------------------------------------------------------------------------------------
VERSION: Final = One(ep.VERSION, Version)
CURRENT_USER: Final = One(ep.CURRENT_USER, CurrentUser)
ALL_PAGES_DOMAINS: Final = Listing(ep.ALL_PAGES_DOMAINS, PagesDomain)
INSTANCE_VARIABLES: Final = Listing(ep.INSTANCE_VARIABLES, CiVariable)
INSTANCE_VARIABLE: Final = One(ep.INSTANCE_VARIABLE, CiVariable)
INSTANCE_VARIABLE_CREATE: Final = Write(ep.INSTANCE_VARIABLE_CREATE, CiVariable)
INSTANCE_VARIABLE_UPDATE: Final = Write(ep.INSTANCE_VARIABLE_UPDATE, CiVariable)

# -- users ------------------------------------------------------------------------------------------------
USERS: Final = Listing(ep.USERS, ModeratedUser)
USER: Final = One(ep.USER, ModeratedUser)
USER_MEMBERSHIPS: Final = Listing(ep.USER_MEMBERSHIPS, UserMembership)

# -- access tokens (a token's value is never a model's: `models/access.py`) --------------------------------
PERSONAL_ACCESS_TOKENS: Final = Listing(ep.PERSONAL_ACCESS_TOKENS, AccessToken)
PERSONAL_ACCESS_TOKEN: Final = One(ep.PERSONAL_ACCESS_TOKEN, AccessToken)
PERSONAL_ACCESS_TOKEN_ROTATE: Final = Write(ep.PERSONAL_ACCESS_TOKEN_ROTATE, AccessToken)


@dataclass(frozen=True)
class Tokens:
    """The access token bindings of one kind of owner (groups or projects)."""

    listing: Listing[AccessToken]
    one: One[AccessToken]
    rotate: Write[AccessToken]


def _tokens(endpoints: Mapping[str, Endpoint]) -> Tokens:
    return Tokens(listing=Listing(endpoints["list"], AccessToken), one=One(endpoints["get"], AccessToken),
                  rotate=Write(endpoints["rotate"], AccessToken))


GROUP_ACCESS_TOKENS: Final = _tokens(ep.GROUP_ACCESS_TOKENS)
PROJECT_ACCESS_TOKENS: Final = _tokens(ep.PROJECT_ACCESS_TOKENS)


def resource_tokens(kind: str) -> Tokens:
    """The access token bindings of `groups` or `projects` (`ValueError` for anything else)."""
    if kind == "groups":
        return GROUP_ACCESS_TOKENS
    if kind == "projects":
        return PROJECT_ACCESS_TOKENS
    raise ValueError(f"unknown token owner kind {kind!r}")


# The access review's projects (path and shares only) and CI/CD variables as it reads them: flags, never a
# value, each in a cache entry of its own
SCOPE_PROJECTS: Final = Listing(ep.GROUP_PROJECTS, ScopeProject, view="scope")
INSTANCE_SCOPE_PROJECTS: Final = Listing(ep.PROJECTS, ScopeProject, view="scope")
INSTANCE_VARIABLE_FLAGS: Final = Listing(ep.INSTANCE_VARIABLES, VariableFlags, view="flags")
GROUP_VARIABLE_FLAGS: Final = Listing(ep.GROUP_OWNED["variables"], VariableFlags, view="flags")
PROJECT_VARIABLE_FLAGS: Final = Listing(ep.PROJECT_OWNED["variables"], VariableFlags, view="flags")

# -- groups -----------------------------------------------------------------------------------------------
GROUPS: Final = Listing(ep.GROUPS, Group)
GROUP: Final = One(ep.GROUP, Group)
GROUP_SUBGROUPS: Final = Listing(ep.GROUP_SUBGROUPS, Group)
GROUP_DESCENDANTS: Final = Listing(ep.GROUP_DESCENDANTS, Group)
GROUP_PROJECTS: Final = Listing(ep.GROUP_PROJECTS, Project)
GROUP_STORAGE_PROJECTS: Final = Listing(ep.GROUP_PROJECTS, StorageProject)  # four fields, from the bytes
GROUP_SHARED_PROJECTS: Final = Listing(ep.GROUP_SHARED_PROJECTS, Project)
GROUP_ISSUES: Final = Listing(ep.GROUP_ISSUES, Issue)
GROUP_MILESTONES: Final = Listing(ep.GROUP_MILESTONES, Milestone)
GROUP_ITERATIONS: Final = Listing(ep.GROUP_ITERATIONS, Iteration)
GROUP_REGISTRY_REPOSITORIES: Final = Listing(ep.GROUP_REGISTRY_REPOSITORIES, RegistryRepository)
GROUP_RELATIONS_STATUS: Final = Listing(ep.GROUP_RELATIONS_STATUS, RelationStatus)
GROUP_BADGES: Final = Listing(ep.GROUP_BADGES, Badge)
GROUP_BADGE: Final = One(ep.GROUP_BADGE, Badge)
GROUP_BADGE_CREATE: Final = Write(ep.GROUP_BADGE_CREATE, Badge)
GROUP_BADGE_UPDATE: Final = Write(ep.GROUP_BADGE_UPDATE, Badge)
GROUP_BADGE_RENDER: Final = One(ep.GROUP_BADGE_RENDER, RenderedBadge)
GROUP_LABELS: Final = Listing(ep.GROUP_LABELS, GroupLabel)
GROUP_LABEL: Final = One(ep.GROUP_LABEL, GroupLabel)
GROUP_LABEL_CREATE: Final = Write(ep.GROUP_LABEL_CREATE, GroupLabel)
GROUP_LABEL_UPDATE: Final = Write(ep.GROUP_LABEL_UPDATE, GroupLabel)
GROUP_LABEL_SUBSCRIBE: Final = Write(ep.GROUP_LABEL_SUBSCRIBE, GroupLabel)
GROUP_LABEL_UNSUBSCRIBE: Final = Write(ep.GROUP_LABEL_UNSUBSCRIBE, GroupLabel)
GROUP_BILLABLE_MEMBERS: Final = Listing(ep.GROUP_BILLABLE_MEMBERS, BillableMember)
GROUP_BILLABLE_MEMBERSHIPS: Final = Listing(ep.GROUP_BILLABLE_MEMBERSHIPS, Membership)
GROUP_MEMBER_OVERRIDE: Final = Write(ep.GROUP_MEMBER_OVERRIDE, Member)
GROUP_MEMBER_OVERRIDE_DELETE: Final = Write(ep.GROUP_MEMBER_OVERRIDE_DELETE, Member)


@dataclass(frozen=True)
class Owned:
    """The member and variable bindings of one kind of owner (groups or projects)."""

    members: Listing[Member]
    members_all: Listing[Member]
    member: One[Member]
    member_all: One[Member]
    member_add: Write[Member]
    member_update: Write[Member]
    variables: Listing[CiVariable]
    variable: One[CiVariable]
    variable_create: Write[CiVariable]
    variable_update: Write[CiVariable]


def _owned(endpoints: Mapping[str, Endpoint]) -> Owned:
    return Owned(
        members=Listing(endpoints["members"], Member),
        members_all=Listing(endpoints["members_all"], Member),
        member=One(endpoints["member"], Member),
        member_all=One(endpoints["member_all"], Member),
        member_add=Write(endpoints["member_add"], Member),
        member_update=Write(endpoints["member_update"], Member),
        variables=Listing(endpoints["variables"], CiVariable),
        variable=One(endpoints["variable"], CiVariable),
        variable_create=Write(endpoints["variable_create"], CiVariable),
        variable_update=Write(endpoints["variable_update"], CiVariable))


GROUP_OWNED: Final = _owned(ep.GROUP_OWNED)
PROJECT_OWNED: Final = _owned(ep.PROJECT_OWNED)


def owned(kind: str) -> Owned:
    """The member and variable bindings of `groups` or `projects` (`ValueError` for anything else)."""
    if kind == "groups":
        return GROUP_OWNED
    if kind == "projects":
        return PROJECT_OWNED
    raise ValueError(f"unknown owner kind {kind!r}")


# -- projects ---------------------------------------------------------------------------------------------
PROJECTS: Final = Listing(ep.PROJECTS, Project)
PROJECT: Final = One(ep.PROJECT, Project)
PROJECT_UPDATE: Final = Write(ep.PROJECT_UPDATE, Project)
PROJECT_ARCHIVE: Final = Write(ep.PROJECT_ARCHIVE, Project)
PROJECT_UNARCHIVE: Final = Write(ep.PROJECT_UNARCHIVE, Project)
PROJECT_MILESTONES: Final = Listing(ep.PROJECT_MILESTONES, Milestone)
PROJECT_LABELS: Final = Listing(ep.PROJECT_LABELS, GroupLabel)
PROJECT_ITERATIONS: Final = Listing(ep.PROJECT_ITERATIONS, Iteration)
PROJECT_FORKS: Final = Listing(ep.PROJECT_FORKS, Project)
PROJECT_FORK: Final = Write(ep.PROJECT_FORK, Project)
PROJECT_FORK_RELATION: Final = Write(ep.PROJECT_FORK_RELATION, Project)
PROJECT_ERROR_TRACKING: Final = One(ep.PROJECT_ERROR_TRACKING, ErrorTrackingSettings)
PROJECT_ERROR_TRACKING_UPDATE: Final = Write(ep.PROJECT_ERROR_TRACKING_UPDATE, ErrorTrackingSettings)
PROJECT_WIKIS: Final = Listing(ep.PROJECT_WIKIS, WikiPage)
PROJECT_WIKI_CREATE: Final = Write(ep.PROJECT_WIKI_CREATE, WikiPage)
PROJECT_WIKI: Final = One(ep.PROJECT_WIKI, WikiPage)
PROJECT_WIKI_UPDATE: Final = Write(ep.PROJECT_WIKI_UPDATE, WikiPage)
PROJECT_WIKI_ATTACHMENT: Final = Write(ep.PROJECT_WIKI_ATTACHMENT, WikiAttachment)
PROJECT_TAGS: Final = Listing(ep.PROJECT_TAGS, RepositoryTag)
PROJECT_TAG_CREATE: Final = Write(ep.PROJECT_TAG_CREATE, RepositoryTag)
PROJECT_TAG: Final = One(ep.PROJECT_TAG, RepositoryTag)
PROJECT_BRANCHES: Final = Listing(ep.PROJECT_BRANCHES, Branch)
PROJECT_PAGES_DOMAINS: Final = Listing(ep.PROJECT_PAGES_DOMAINS, PagesDomain)
PROJECT_PAGES_DOMAIN_CREATE: Final = Write(ep.PROJECT_PAGES_DOMAIN_CREATE, PagesDomain)
PROJECT_PAGES_DOMAIN: Final = One(ep.PROJECT_PAGES_DOMAIN, PagesDomain)
PROJECT_PAGES_DOMAIN_UPDATE: Final = Write(ep.PROJECT_PAGES_DOMAIN_UPDATE, PagesDomain)

# -- issues -----------------------------------------------------------------------------------------------
ISSUES: Final = Listing(ep.ISSUES, Issue)
PROJECT_ISSUES: Final = Listing(ep.PROJECT_ISSUES, Issue)
ISSUE_CREATE: Final = Write(ep.ISSUE_CREATE, Issue)
ISSUE: Final = One(ep.ISSUE, Issue)
ISSUE_UPDATE: Final = Write(ep.ISSUE_UPDATE, Issue)
ISSUE_NOTES: Final = Listing(ep.ISSUE_NOTES, Note)
ISSUE_NOTE_CREATE: Final = Write(ep.ISSUE_NOTE_CREATE, Note)
ISSUE_TODO: Final = Write(ep.ISSUE_TODO, Todo)
ISSUE_TIME_STATS: Final = One(ep.ISSUE_TIME_STATS, TimeStats)
ISSUE_TIME: Final[dict[str, Write[TimeStats]]] = {
    action: Write(endpoint, TimeStats) for action, endpoint in ep.ISSUE_TIME.items()}
ISSUE_RELATED_MERGE_REQUESTS: Final = Listing(ep.ISSUE_RELATED_MERGE_REQUESTS, IssueMergeRequest)
ISSUE_CLOSED_BY: Final = Listing(ep.ISSUE_CLOSED_BY, IssueMergeRequest)

# -- deployments and environments -------------------------------------------------------------------------
DEPLOYMENTS: Final = Listing(ep.DEPLOYMENTS, Deployment)
DEPLOYMENT_ROWS: Final = Listing(ep.DEPLOYMENTS, DeploymentRow)  # what the group board shows, from the bytes
DEPLOYMENT_CREATE: Final = Write(ep.DEPLOYMENT_CREATE, Deployment)
DEPLOYMENT: Final = One(ep.DEPLOYMENT, Deployment)
DEPLOYMENT_UPDATE: Final = Write(ep.DEPLOYMENT_UPDATE, Deployment)
DEPLOYMENT_MERGE_REQUESTS: Final = Listing(ep.DEPLOYMENT_MERGE_REQUESTS, ShippedMergeRequest)
ENVIRONMENTS: Final = Listing(ep.ENVIRONMENTS, Environment)
ENVIRONMENT: Final = One(ep.ENVIRONMENT, Environment)
PROTECTED_ENVIRONMENTS: Final = Listing(ep.PROTECTED_ENVIRONMENTS, ProtectedEnvironment)
PROTECTED_ENVIRONMENT: Final = One(ep.PROTECTED_ENVIRONMENT, ProtectedEnvironment)
PROTECTED_ENVIRONMENT_CREATE: Final = Write(ep.PROTECTED_ENVIRONMENT_CREATE, ProtectedEnvironment)
PROTECTED_ENVIRONMENT_UPDATE: Final = Write(ep.PROTECTED_ENVIRONMENT_UPDATE, ProtectedEnvironment)

# -- container registry -----------------------------------------------------------------------------------
PROJECT_REGISTRY_REPOSITORIES: Final = Listing(ep.PROJECT_REGISTRY_REPOSITORIES, RegistryRepository)
REGISTRY_REPOSITORY: Final = One(ep.REGISTRY_REPOSITORY, RegistryRepository)
REGISTRY_TAGS: Final = Listing(ep.REGISTRY_TAGS, RegistryTag)
REGISTRY_TAG: Final = One(ep.REGISTRY_TAG, RegistryTagDetail)


Binding = One[Any] | Listing[Any] | Write[Any]


def _collect() -> tuple[Binding, ...]:
    """Every binding above (those of the owned and token tables and of `ISSUE_TIME` too)."""
    found: list[Binding] = []
    for value in list(globals().values()):
        if isinstance(value, Owned | Tokens):
            found.extend(getattr(value, name) for name in type(value).__dataclass_fields__)
        elif isinstance(value, dict):
            found.extend(item for item in value.values() if isinstance(item, One | Listing | Write))
        elif isinstance(value, One | Listing | Write):
            found.append(value)
    return tuple(found)


BINDINGS: Final[tuple[Binding, ...]] = _collect()
