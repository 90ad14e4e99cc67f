"""Group badges and rendered badge URLs (GitLab's API docs, "Badge")."""

from __future__ import annotations

from labdeck.api.models.base import ApiModel


class RenderedBadge(ApiModel):
    link_url: str | None = None
    image_url: str | None = None
    rendered_link_url: str | None = None
    rendered_image_url: str | None = None


class Badge(RenderedBadge):
    id: int
    name: str | None = None
    kind: str | None = None
