"""Every service of one instance's client, each built once, on first use.

A screen asks its context for `services.registry` rather than building a `RegistryService` from the
session's client: one object per service and per client, so what a service remembers for the session (the
registry's bulk-delete locks and tag cache, the issues service's milestone ids) is shared by every screen,
and a switch of instance, which makes a new client, makes new services.

A resource that needs nothing but reading is read from its binding (`api/bindings.py`), with no service
method: `await services.read(bindings.PROJECT_TAGS, project, params=..., refresh=refresh)` is a
`list[RepositoryTag]` read through the list cache, `await services.read(bindings.PROJECT, 7)` a `Project`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cached_property
from typing import Any, TypeVar, overload

from labdeck.api.access_members import MembersReview
from labdeck.api.access_tokens import AccessTokensService, TokensReview
from labdeck.api.access_variables import VariablesReview
from labdeck.api.badges import BadgesService
from labdeck.api.bindings import Listing, One
from labdeck.api.cleanup_policy import CleanupPolicyService
from labdeck.api.client import ApiClient
from labdeck.api.completion import CompletionSource
from labdeck.api.deploy_board import DeployBoardService
from labdeck.api.deployments import DeploymentsService
from labdeck.api.error_tracking import ErrorTrackingService
from labdeck.api.forks import ForksService
from labdeck.api.group_transfer import GroupTransferService
from labdeck.api.groups import GroupsService
from labdeck.api.instance import InstanceService
from labdeck.api.issues import IssuesService
from labdeck.api.journal import UndoService
from labdeck.api.labels import GroupLabelsService
from labdeck.api.members import MembersService
from labdeck.api.models.base import ApiModel
from labdeck.api.overview import OverviewService
from labdeck.api.pages_domains import PagesDomainsService
from labdeck.api.projects import ProjectsService
from labdeck.api.registry import BulkDeleteLocks, RegistryService
from labdeck.api.repository_tags import TagsService
from labdeck.api.tag_cache import TagDetailCache
from labdeck.api.users import UsersService
from labdeck.api.variables import VariablesService
from labdeck.api.wikis import WikiService
from labdeck.domain.capabilities import Capabilities

M = TypeVar("M", bound=ApiModel)


class Services:
    """The services of `client`. `is_admin` tells, once the user is known, whether the caller is an
    administrator (the registry then reads bigger GraphQL batches); None while unknown. `capabilities`
    gives the instance's edition and version once read (what completion may conclude from a list)."""

    def __init__(self, client: ApiClient, *, is_admin: Callable[[], bool | None] = lambda: None,
                 capabilities: Callable[[], Capabilities] = Capabilities) -> None:
        self.client = client
        self._is_admin = is_admin
        self._capabilities = capabilities

    @overload
    async def read(self, binding: Listing[M], *values: object, params: Mapping[str, Any] | None = None,
                   refresh: bool = False) -> list[M]: ...

    @overload
    async def read(self, binding: One[M], *values: object,
                   params: Mapping[str, Any] | None = None) -> M: ...

    async def read(self, binding: Listing[M] | One[M], *values: object,
                   params: Mapping[str, Any] | None = None, refresh: bool = False) -> list[M] | M:
        """What `binding` gives at these segment values, as its model: a list through the list cache (a
        fresh entry costs no request; `refresh=True` always reads), one resource read each time."""
        if isinstance(binding, Listing):
            return await binding.read(self.client, *values, params=params, refresh=refresh)
        return await binding.read(self.client, *values, params=params)

    @cached_property
    def instance(self) -> InstanceService:
        return InstanceService(self.client)

    @cached_property
    def groups(self) -> GroupsService:
        return GroupsService(self.client)

    @cached_property
    def members(self) -> MembersService:
        return MembersService(self.client)

    @cached_property
    def labels(self) -> GroupLabelsService:
        return GroupLabelsService(self.client)

    @cached_property
    def badges(self) -> BadgesService:
        return BadgesService(self.client)

    @cached_property
    def variables(self) -> VariablesService:
        return VariablesService(self.client)

    @cached_property
    def transfer(self) -> GroupTransferService:
        return GroupTransferService(self.client)

    @cached_property
    def projects(self) -> ProjectsService:
        return ProjectsService(self.client)

    @cached_property
    def tags(self) -> TagsService:
        return TagsService(self.client)

    @cached_property
    def forks(self) -> ForksService:
        return ForksService(self.client)

    @cached_property
    def wikis(self) -> WikiService:
        return WikiService(self.client)

    @cached_property
    def pages(self) -> PagesDomainsService:
        return PagesDomainsService(self.client)

    @cached_property
    def error_tracking(self) -> ErrorTrackingService:
        return ErrorTrackingService(self.client)

    @cached_property
    def issues(self) -> IssuesService:
        return IssuesService(self.client)

    @cached_property
    def users(self) -> UsersService:
        return UsersService(self.client)

    @cached_property
    def deployments(self) -> DeploymentsService:
        """Deployments; deploy rules change in one request where the instance's version allows it."""
        return DeploymentsService(self.client,
                                  supports=lambda feature: self._capabilities().supports(feature))

    @cached_property
    def deploy_board(self) -> DeployBoardService:
        """A group's deployments board (its projects, then each one's environments and deployments)."""
        return DeployBoardService(self.client)

    @cached_property
    def registry(self) -> RegistryService:
        return RegistryService(self.client, BulkDeleteLocks(),
                               tag_cache=TagDetailCache.for_instance(self.client.settings.base_url),
                               admin=self._is_admin())

    @cached_property
    def cleanup_policy(self) -> CleanupPolicyService:
        """Cleanup policies, simulated through the session's registry service (its tag cache)."""
        return CleanupPolicyService(self.client, self.registry, capabilities=self._capabilities)

    @cached_property
    def completion(self) -> CompletionSource:
        """Names for completion and existence checks, kept for the session (`api/completion.py`)."""
        return CompletionSource(self.client,
                                supports=lambda feature: self._capabilities().supports(feature) is None)

    @cached_property
    def access_tokens(self) -> AccessTokensService:
        """Personal, group and project access tokens (filters sent where the instance reads them)."""
        return AccessTokensService(self.client,
                                   supports=lambda feature: self._capabilities().supports(feature))

    @cached_property
    def access_members(self) -> MembersReview:
        """The access review's members of a group scope or of the instance (`api/access_members.py`)."""
        return MembersReview(self.client)

    @cached_property
    def access_variables(self) -> VariablesReview:
        """The access review's CI/CD variables, flags only (`api/access_variables.py`)."""
        return VariablesReview(self.client)

    @cached_property
    def access_review_tokens(self) -> TokensReview:
        """The access review's tokens of a group scope (`api/access_tokens.py`)."""
        return TokensReview(self.access_tokens)

    @cached_property
    def undo(self) -> UndoService | None:
        """None when the client keeps no journal."""
        return UndoService(self.client, self.client.journal) if self.client.journal is not None else None

    def overview(self, now: Callable[[], datetime] | None = None) -> OverviewService:
        """A new overview reader: each read has its own request budget."""
        return OverviewService(self.client) if now is None else OverviewService(self.client, now=now)
