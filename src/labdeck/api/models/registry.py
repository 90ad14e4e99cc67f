"""Container registry resources (GitLab's API docs): repositories, tags in list form, tag detail."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from labdeck.api.models.base import ApiModel
from labdeck.domain.registry_cleanup import TagInfo
from labdeck.domain.registry_sizes import Blob


class RegistryTag(ApiModel):
    """A tag as the tag list (and a repository's `tags`) gives it."""

    name: str
    path: str | None = None
    location: str | None = None


class RegistryTagDetail(RegistryTag):
    """A tag as `GET .../tags/:tag_name` gives it; `total_size` in bytes. `layers`: its manifest's layers
    (digest, size), read apart (GraphQL's `manifest`, `RegistryService.tag_details`); None when unknown."""

    revision: str | None = None
    short_revision: str | None = None
    digest: str | None = None
    created_at: datetime | None = None
    published_at: datetime | None = None  # GraphQL only (REST has no such field)
    total_size: int | None = None
    layers: tuple[Blob, ...] | None = None

    def to_tag_info(self) -> TagInfo:
        """What the cleanup rules and the size figures need of this tag."""
        return TagInfo(self.name, self.created_at, self.digest, self.total_size, self.layers)

    def with_layers(self, layers: tuple[Blob, ...]) -> RegistryTagDetail:
        """This detail with its manifest's layers (values already checked: no validation)."""
        return trusted_detail(**{**self.__dict__, "layers": layers})


# Every field of the detail model, unset (`trusted_detail` fills in those it is given).
_EMPTY_DETAIL: dict[str, Any] = dict.fromkeys(RegistryTagDetail.model_fields)


def trusted_detail(**values: Any) -> RegistryTagDetail:
    """A detail from values already checked and sanitised (a cache entry, a GraphQL answer read by
    `registry_graphql`), without validation: what `model_construct` gives, without its per-field default
    lookups (a read of 15,000 tags builds 15,000 of these: 4 us each, not 12)."""
    detail = RegistryTagDetail.__new__(RegistryTagDetail)
    object.__setattr__(detail, "__dict__", {**_EMPTY_DETAIL, **values})
    object.__setattr__(detail, "__pydantic_fields_set__", set(values))
    object.__setattr__(detail, "__pydantic_extra__", {})
    object.__setattr__(detail, "__pydantic_private__", None)
    return detail


class RegistryRepository(ApiModel):
    id: int
    name: str = ""
    path: str | None = None
    project_id: int | None = None
    location: str | None = None
    created_at: datetime | None = None
    cleanup_policy_started_at: datetime | None = None
    status: str | None = None
    tags_count: int | None = None
    tags: list[RegistryTag] | None = None
    size: int | None = None  # `size=true` of one repository: GitLab's deduplicated size, where it has one

    @property
    def display_name(self) -> str:
        """The name, or the path for a project's root image (whose name is empty)."""
        return self.name or self.path or f"#{self.id}"


class RegistryStatistics(ApiModel):
    """The part of a project's `statistics` (administrators, `statistics=true`) the storage view reads."""

    container_registry_size: int | None = None


class StorageProject(ApiModel):
    """A project of a group's storage listing, as the storage view reads it: a listing page is parsed from
    the bytes into these few fields (`fast_lists`), not into full projects of some 3.8 KB each."""

    id: int
    path_with_namespace: str | None = None
    statistics: RegistryStatistics | None = None
    container_expiration_policy: dict[str, Any] | None = None
