"""Instance-wide facts: the version and the current user."""

from __future__ import annotations

from labdeck.api.client import ApiClient
from labdeck.api.models.base import parse_one
from labdeck.api.models.users import CurrentUser
from labdeck.api.models.version import Version


class InstanceService:
    """`GET /version` and `GET /user`."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def version(self) -> Version:
        return parse_one(Version, await self.client.get_json("/version"))

    async def current_user(self) -> CurrentUser:
        return parse_one(CurrentUser, await self.client.get_json("/user"))
