"""The group badges service: list (case-sensitive `name` filter), get, create, update, delete, and render
a pair of URLs with the group's placeholders (`domain.badges.PLACEHOLDERS`, all eleven GitLab knows). Link
and image URLs that are not http or https are refused before anything is sent (`BadgeUrlError`, shaped
like GitLab's field errors). Paths come from the endpoint catalogue."""

from __future__ import annotations

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupRef
from labdeck.api.models.badges import Badge, RenderedBadge
from labdeck.domain import catalogue as ep
from labdeck.domain.badges import badge_errors


class BadgeUrlError(ValueError):
    """A link or image URL GitLab would refuse (not http or https); `errors` maps a field to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{field} {', '.join(msgs)}" for field, msgs in errors.items()))


def check_urls(link_url: str | None, image_url: str | None) -> None:
    """`BadgeUrlError` when a given URL is not http(s)."""
    errors = badge_errors(link_url, image_url)
    if errors:
        raise BadgeUrlError(errors)


class BadgesService:
    """Badges of groups on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def list_badges(self, group: GroupRef, *, name: str | None = None,
                          refresh: bool = False) -> list[Badge]:
        params = {"name": name} if name else None
        return await b.GROUP_BADGES.read(self.client, group, params=params, refresh=refresh)

    async def get_badge(self, group: GroupRef, badge_id: int) -> Badge:
        return await b.GROUP_BADGE.read(self.client, group, badge_id)

    async def create_badge(self, group: GroupRef, link_url: str, image_url: str, *,
                           name: str | None = None) -> Badge:
        if not link_url or not image_url:
            raise ValueError("a badge needs a link URL and an image URL")
        check_urls(link_url, image_url)
        body = {"link_url": link_url, "image_url": image_url, **({"name": name} if name else {})}
        try:
            created = await self.client.post_json(ep.GROUP_BADGE_CREATE.path(group), body)
            return b.GROUP_BADGE_CREATE.parse(created)
        finally:
            self.client.cache.forget(ep.GROUP_BADGE_CREATE, group)

    async def update_badge(self, group: GroupRef, badge_id: int, *, link_url: str | None = None,
                           image_url: str | None = None, name: str | None = None) -> Badge:
        check_urls(link_url or None, image_url or None)
        body = {k: v for k, v in (("link_url", link_url), ("image_url", image_url), ("name", name)) if v}
        try:
            updated = await self.client.put_json(ep.GROUP_BADGE_UPDATE.path(group, badge_id), body)
            return b.GROUP_BADGE_UPDATE.parse(updated)
        finally:
            self.client.cache.forget(ep.GROUP_BADGE_UPDATE, group, badge_id)

    async def delete_badge(self, group: GroupRef, badge_id: int) -> None:
        try:
            await self.client.delete(ep.GROUP_BADGE_DELETE.path(group, badge_id))
        finally:
            self.client.cache.forget(ep.GROUP_BADGE_DELETE, group, badge_id)

    async def render(self, group: GroupRef, link_url: str, image_url: str) -> RenderedBadge:
        """Preview URLs with the placeholders resolved as the server would."""
        check_urls(link_url, image_url)
        params = {"link_url": link_url, "image_url": image_url}
        return await b.GROUP_BADGE_RENDER.read(self.client, group, params=params)
