"""Groups (GitLab's API docs, "Group"), with the optional admin-only storage statistics."""

from __future__ import annotations

from datetime import datetime

from labdeck.api.models.base import ApiModel


class GroupStatistics(ApiModel):
    storage_size: int | None = None
    repository_size: int | None = None
    wiki_size: int | None = None
    lfs_objects_size: int | None = None
    job_artifacts_size: int | None = None
    packages_size: int | None = None
    snippets_size: int | None = None


class Group(ApiModel):
    id: int
    name: str | None = None
    path: str | None = None
    description: str | None = None
    visibility: str | None = None
    share_with_group_lock: bool | None = None
    require_two_factor_authentication: bool | None = None
    two_factor_grace_period: int | None = None
    project_creation_level: str | None = None
    subgroup_creation_level: str | None = None
    auto_devops_enabled: bool | None = None
    emails_disabled: bool | None = None
    mentions_disabled: bool | None = None
    lfs_enabled: bool | None = None
    request_access_enabled: bool | None = None
    default_branch_protection: int | None = None
    avatar_url: str | None = None
    web_url: str | None = None
    full_name: str | None = None
    full_path: str | None = None
    file_template_project_id: int | None = None
    parent_id: int | None = None
    created_at: datetime | None = None
    statistics: GroupStatistics | None = None
