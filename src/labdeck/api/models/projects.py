"""Projects as list and detail endpoints return them (`topics`, not the deprecated `tag_list`)."""

from __future__ import annotations

from datetime import datetime

from labdeck.api.models.base import ApiModel


class Namespace(ApiModel):
    id: int
    name: str | None = None
    path: str | None = None
    kind: str | None = None
    full_path: str | None = None
    parent_id: int | None = None
    avatar_url: str | None = None
    web_url: str | None = None


class Project(ApiModel):
    id: int
    name: str | None = None
    name_with_namespace: str | None = None
    path: str | None = None
    path_with_namespace: str | None = None
    description: str | None = None
    namespace: Namespace | None = None
    visibility: str | None = None
    web_url: str | None = None
    http_url_to_repo: str | None = None
    ssh_url_to_repo: str | None = None
    readme_url: str | None = None
    avatar_url: str | None = None
    default_branch: str | None = None
    archived: bool | None = None
    empty_repo: bool | None = None
    topics: list[str] | None = None
    star_count: int | None = None
    forks_count: int | None = None
    open_issues_count: int | None = None
    creator_id: int | None = None
    import_status: str | None = None
    container_registry_access_level: str | None = None
    issues_access_level: str | None = None
    created_at: datetime | None = None
    last_activity_at: datetime | None = None
    forked_from_project: dict[str, object] | None = None
