"""Group labels (GitLab's API docs, "Group label")."""

from __future__ import annotations

from labdeck.api.models.base import ApiModel


class GroupLabel(ApiModel):
    id: int
    name: str
    color: str | None = None
    text_color: str | None = None
    description: str | None = None
    description_html: str | None = None
    open_issues_count: int | None = None
    closed_issues_count: int | None = None
    open_merge_requests_count: int | None = None
    subscribed: bool | None = None
