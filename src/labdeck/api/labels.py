"""The group labels service: list (counts, ancestor and descendant options, search),
create (hex or CSS colour names, checked before sending), update (`new_name`), delete, subscribe and
unsubscribe. Paths come from the endpoint catalogue."""

from __future__ import annotations

from typing import Any

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupRef
from labdeck.api.models.labels import GroupLabel
from labdeck.domain import catalogue as ep
from labdeck.domain.colours import normalise_colour


class GroupLabelsService:
    """Labels of groups on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def list_labels(self, group: GroupRef, *, with_counts: bool = False,
                          include_ancestor_groups: bool | None = None,
                          include_descendant_groups: bool | None = None,
                          only_group_labels: bool | None = None,
                          search: str | None = None, refresh: bool = False) -> list[GroupLabel]:
        params = {"with_counts": with_counts or None, "include_ancestor_groups": include_ancestor_groups,
                  "include_descendant_groups": include_descendant_groups,
                  "only_group_labels": only_group_labels, "search": search or None}
        return await b.GROUP_LABELS.read(self.client, group, params=params, refresh=refresh)

    async def create_label(self, group: GroupRef, name: str, color: str,
                           description: str | None = None) -> GroupLabel:
        """Create a label; `color` may be hex or a CSS colour name (`ColourError` before sending if not)."""
        normalise_colour(color)
        if not name.strip():
            raise ValueError("a label needs a name")
        body = {"name": name, "color": color.strip(), "description": description}
        try:
            created = await self.client.post_json(ep.GROUP_LABEL_CREATE.path(group),
                                                  {k: v for k, v in body.items() if v is not None})
        finally:
            self.client.cache.forget(ep.GROUP_LABEL_CREATE, group)
        return b.GROUP_LABEL_CREATE.parse(created)

    async def update_label(self, group: GroupRef, label: int | str, *, new_name: str | None = None,
                           color: str | None = None, description: str | None = None) -> GroupLabel:
        if new_name is None and color is None and description is None:
            raise ValueError("give at least one of new_name, color, description")
        if color is not None:
            normalise_colour(color)
        body: dict[str, Any] = {k: v for k, v in (("new_name", new_name), ("color", color),
                                                  ("description", description)) if v is not None}
        try:
            updated = await self.client.put_json(ep.GROUP_LABEL_UPDATE.path(group, label), body)
        finally:
            self.client.cache.forget(ep.GROUP_LABEL_UPDATE, group, label)
        return b.GROUP_LABEL_UPDATE.parse(updated)

    async def delete_label(self, group: GroupRef, label: int | str) -> None:
        try:
            await self.client.delete(ep.GROUP_LABEL_DELETE.path(group, label))
        finally:
            self.client.cache.forget(ep.GROUP_LABEL_DELETE, group, label)

    async def set_subscription(self, group: GroupRef, label: int | str,
                               subscribed: bool) -> GroupLabel | None:
        """Subscribe or unsubscribe; returns the label, or None when nothing changed (the server's 304)."""
        binding = b.GROUP_LABEL_SUBSCRIBE if subscribed else b.GROUP_LABEL_UNSUBSCRIBE
        try:
            response = await self.client.request("POST", binding.path(group, label), allow_304=True)
        finally:
            self.client.cache.forget(binding.endpoint, group, label)
        if response.status_code == 304:
            return None
        return binding.parse(self.client.decode(response))
