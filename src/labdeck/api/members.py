"""The members service: members of groups and projects (direct or inherited, add several at once, update,
remove, the override flag of group members) and the billable members of top-level groups.

Paths come from the endpoint catalogue. `source` is `("groups", id_or_path)` or
`("projects", id_or_path)`; a mutation drops the cached member lists of the client.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any, Literal

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError
from labdeck.api.groups import GroupRef
from labdeck.api.models.members import BillableMember, Member
from labdeck.domain import catalogue as ep
from labdeck.domain.access_levels import MEMBER_LEVELS, PROJECT_MEMBER_LEVELS
from labdeck.domain.endpoints import Endpoint

Kind = Literal["groups", "projects"]
Source = tuple[Kind, GroupRef]
BillableSort = Literal["access_level_asc", "access_level_desc", "last_joined", "name_asc", "name_desc",
                       "oldest_joined", "oldest_sign_in", "recent_sign_in"]
BILLABLE_SORTS: tuple[str, ...] = BillableSort.__args__  # type: ignore[attr-defined]


class UnknownUser(LabdeckError):
    """No user has the username that was given."""

    def __init__(self, username: str) -> None:
        self.username = username
        super().__init__(f"No user with the username {username}")


def _endpoint(source: Source, name: str) -> Endpoint:
    """The catalogue's `name` endpoint (`member_add`, `member_delete`, ...) of the source's kind."""
    try:
        return ep.owned(source[0])[name]
    except ValueError:
        raise ValueError(f"unknown member source {source[0]!r}") from None


def _bound(source: Source) -> b.Owned:
    """The member bindings of the source's kind."""
    try:
        return b.owned(source[0])
    except ValueError:
        raise ValueError(f"unknown member source {source[0]!r}") from None


def check_level(source: Source, access_level: int) -> None:
    """Refuse, before sending, a level that cannot be given (Owner on a project, unknown numbers)."""
    allowed = MEMBER_LEVELS if source[0] == "groups" else PROJECT_MEMBER_LEVELS
    if access_level not in {int(level) for level in allowed}:
        raise ValueError(f"access level {access_level} cannot be given on {source[0]}")


class MembersService:
    """Group and project members, and billable members, on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def _changed(self, source: Source) -> None:
        self.client.cache.forget(_endpoint(source, "member_add"), source[1])

    # -- reading --------------------------------------------------------------------------------------
    async def list_members(self, source: Source, *, inherited: bool = False, query: str | None = None,
                           user_ids: Iterable[int] = (), refresh: bool = False) -> list[Member]:
        """Direct members, or with `inherited=True` everyone with access (the highest level per user)."""
        listing = _bound(source).members_all if inherited else _bound(source).members
        params = {"query": query or None, "user_ids": list(user_ids) or None}
        return await listing.read(self.client, source[1], params=params, refresh=refresh)

    async def user_id_for(self, username: str) -> int:
        """The id of the user called `username` (`GET /users?username=`, case-insensitive, a leading `@`
        allowed); `UnknownUser` when there is none."""
        name = username.strip().removeprefix("@")
        if not name:
            raise UnknownUser(username)
        found = await self.client.get_json(ep.USERS.path(), {"username": name})
        for user in found if isinstance(found, list) else []:
            if isinstance(user, dict) and str(user.get("username", "")).lower() == name.lower():
                return int(user["id"])
        raise UnknownUser(name)

    async def user_ids_for(self, refs: Iterable[int | str]) -> list[int]:
        """Ids for a mix of ids and usernames, in order (usernames resolved with `user_id_for`)."""
        return [ref if isinstance(ref, int) else await self.user_id_for(ref) for ref in refs]

    # -- changing -------------------------------------------------------------------------------------
    async def add_member(self, source: Source, user_id: int, access_level: int, *,
                         expires_at: date | None = None, invite_source: str | None = None) -> Member:
        check_level(source, access_level)
        body = {"user_id": int(user_id), "access_level": int(access_level),
                "expires_at": expires_at.isoformat() if expires_at else None, "invite_source": invite_source}
        try:
            add = _bound(source).member_add
            return add.parse(await self.client.post_json(add.path(source[1]), _clean(body)))
        finally:
            self._changed(source)

    async def add_members(self, source: Source, user_ids: Iterable[int], access_level: int, *,
                          expires_at: date | None = None) -> Any:
        """Add several users in one request (`user_id` separated by commas); returns the server's status
        body (`{"status": "success"}`)."""
        check_level(source, access_level)
        ids = ",".join(str(int(u)) for u in user_ids)
        if not ids:
            raise ValueError("no user to add")
        body = {"user_id": ids, "access_level": int(access_level),
                "expires_at": expires_at.isoformat() if expires_at else None}
        try:
            return await self.client.post_json(_endpoint(source, "member_add").path(source[1]), _clean(body))
        finally:
            self._changed(source)

    async def update_member(self, source: Source, user_id: int, access_level: int, *,
                            expires_at: date | None = None) -> Member:
        check_level(source, access_level)
        body = {"access_level": int(access_level),
                "expires_at": expires_at.isoformat() if expires_at else None}
        try:
            update = _bound(source).member_update
            return update.parse(await self.client.put_json(update.path(source[1], user_id), _clean(body)))
        finally:
            self._changed(source)

    async def remove_member(self, source: Source, user_id: int) -> None:
        try:
            await self.client.delete(_endpoint(source, "member_delete").path(source[1], user_id))
        finally:
            self._changed(source)

    async def set_override(self, group: GroupRef, user_id: int, enabled: bool) -> Member:
        """Turn a group member's override flag on (`POST`) or off (`DELETE`)."""
        binding = b.GROUP_MEMBER_OVERRIDE if enabled else b.GROUP_MEMBER_OVERRIDE_DELETE
        try:
            response = await self.client.request(binding.endpoint.method, binding.path(group, user_id))
        finally:
            self._changed(("groups", group))
        return binding.parse(self.client.decode(response))

    # -- billable members -----------------------------------------------------------------------------
    async def billable_members(self, group: GroupRef, *, search: str | None = None,
                               sort: BillableSort | None = None,
                               refresh: bool = False) -> list[BillableMember]:
        """Billable members of a top-level group (the server answers 400 for a subgroup)."""
        if sort is not None and sort not in BILLABLE_SORTS:
            raise ValueError(f"unknown billable members sort {sort!r}")
        params = {"search": search or None, "sort": sort}
        return await b.GROUP_BILLABLE_MEMBERS.read(self.client, group, params=params, refresh=refresh)

    async def remove_billable_member(self, group: GroupRef, user_id: int) -> None:
        """Remove the user from the group, its subgroups and projects."""
        try:
            await self.client.delete(ep.GROUP_BILLABLE_MEMBER_DELETE.path(group, user_id))
        finally:
            self.client.cache.forget(ep.GROUP_BILLABLE_MEMBER_DELETE, group, user_id)


def _clean(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}
