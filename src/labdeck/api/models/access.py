"""What the access review reads (issue 36): access tokens, a user's memberships, and CI/CD variables as flags.

Two of these models keep out what must never be held: their unknown fields are ignored, not kept as every
other model keeps them (`extra="ignore"`).
- `AccessToken` (GitLab's `Entities::PersonalAccessToken` and `Entities::ResourceAccessToken`,
  `lib/api/entities/`): the `token` a creation or a rotation answers is not a field and is dropped, so a
  token model never holds a token's value (the rotation's service reads it apart, as a `SecretStr`).
- `VariableFlags` (`Entities::Ci::Variable`): a variable's key, scope and flags; its `value` is not a field
  and is dropped where the page is read (`variable_flag_rows`), so nothing the review holds, caches or
  shows has a value.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import ConfigDict

from labdeck.api.models.base import ApiModel, LenientDate


class AccessToken(ApiModel):
    """A personal, group or project access token, as GitLab lists it: never its value. `access_level`,
    `resource_type` and `resource_id` are a group's or project's token's."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: int
    name: str | None = None
    description: str | None = None
    revoked: bool | None = None
    active: bool | None = None
    created_at: datetime | None = None
    last_used_at: datetime | None = None
    expires_at: LenientDate | None = None
    scopes: list[str] | None = None
    user_id: int | None = None
    access_level: int | None = None
    resource_type: str | None = None
    resource_id: int | None = None


class UserMembership(ApiModel):
    """A user's direct membership of a group (`source_type` `Namespace`) or a project (`Project`), as
    `GET /users/:id/memberships` answers it (`lib/api/entities/membership.rb`): the source's name, not its
    path."""

    source_id: int
    source_name: str | None = None
    source_type: str | None = None
    access_level: int | None = None


class VariableFlags(ApiModel):
    """A CI/CD variable of the instance, a group or a project without its value: what the access review
    reads. `hidden` and `environment_scope` are absent from instance variables (every environment)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    key: str
    variable_type: str | None = None
    protected: bool | None = None
    masked: bool | None = None
    hidden: bool | None = None
    raw: bool | None = None
    environment_scope: str | None = None


class ShareLink(ApiModel):
    """A group a project or group is shared with (`shared_with_groups` of GitLab's project and group
    entities), and the most its members get there."""

    group_id: int
    group_name: str | None = None
    group_full_path: str | None = None
    group_access_level: int | None = None
    expires_at: LenientDate | None = None


class ScopeProject(ApiModel):
    """A project of the review's scope: its path and the groups it is shared with, nothing else."""

    id: int
    path_with_namespace: str | None = None
    archived: bool | None = None
    shared_with_groups: list[ShareLink] | None = None
