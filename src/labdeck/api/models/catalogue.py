"""The models the endpoint catalogue names: `Endpoint.model` is a name (the domain knows no pydantic class),
resolved here, and services read a body through its endpoint (`read_one(ep.GROUP, data)`,
`read_many(ep.GROUPS, items)`), so an endpoint's model is declared once, in the catalogue.

The class a body is parsed into is the catalogue's; the static type is the caller's (the function's return
type or an annotated variable): mypy asks for one, and `tests/api/test_catalogue_requests.py` checks that
every name resolves and every model here is named by some endpoint.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar, cast

from labdeck.api.models.badges import Badge, RenderedBadge
from labdeck.api.models.base import ApiModel, parse_many, parse_one
from labdeck.api.models.deployments import Deployment, Environment, ProtectedEnvironment, ShippedMergeRequest
from labdeck.api.models.group_transfer import RelationStatus
from labdeck.api.models.groups import Group
from labdeck.api.models.issues import Issue, IssueMergeRequest, Milestone, Note, TimeStats, Todo
from labdeck.api.models.iterations import Iteration
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.members import BillableMember, Member, Membership
from labdeck.api.models.moderation import ModeratedUser
from labdeck.api.models.project_resources import (
    ErrorTrackingSettings,
    PagesDomain,
    RepositoryTag,
    WikiAttachment,
    WikiPage,
)
from labdeck.api.models.projects import Project
from labdeck.api.models.registry import RegistryRepository, RegistryTag, RegistryTagDetail
from labdeck.api.models.users import CurrentUser
from labdeck.api.models.variables import CiVariable
from labdeck.api.models.version import Version
from labdeck.domain.endpoints import Endpoint

M = TypeVar("M", bound=ApiModel)

MODELS: Final[dict[str, type[ApiModel]]] = {model.__name__: model for model in (
    Badge, RenderedBadge, Deployment, Environment, ProtectedEnvironment, ShippedMergeRequest, RelationStatus,
    Group, Issue, IssueMergeRequest, Milestone, Note, TimeStats, Todo, Iteration, GroupLabel, BillableMember,
    Member, Membership, ModeratedUser, ErrorTrackingSettings, PagesDomain, RepositoryTag, WikiAttachment,
    WikiPage, Project, RegistryRepository, RegistryTag, RegistryTagDetail, CurrentUser, CiVariable, Version,
)}


def model_of(endpoint: Endpoint) -> type[ApiModel]:
    """The model class `endpoint` declares (`TypeError`, a programming error, when it declares none)."""
    if endpoint.model is None:
        raise TypeError(f"{endpoint.name or endpoint.template}: the catalogue declares no model")
    return MODELS[endpoint.model]


def read_one(endpoint: Endpoint, data: Any, *, sanitised: bool = False) -> M:  # type: ignore[type-var]
    """`data` (decoded JSON) as the one model `endpoint` declares (`parse_one`)."""
    return parse_one(cast("type[M]", model_of(endpoint)), data, sanitised=sanitised)


def read_many(endpoint: Endpoint, data: Any, *, sanitised: bool = False) -> list[M]:
    """`data` (a decoded JSON list) as a list of the model `endpoint` declares (`parse_many`)."""
    return parse_many(cast("type[M]", model_of(endpoint)), data, sanitised=sanitised)
